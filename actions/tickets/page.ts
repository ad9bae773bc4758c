import { html, query, sql, when, type Queryable, type SignedInPage } from '../api';

/** What the page shows of a ticket row. */
interface TicketView {
  ticketId: string;
  title: string;
  description: string | null;
  severity: string | null;
  status: string | null;
  projectKey: string | null;
  source: string | null;
  assignee: string | null;
  platform: string;
  externalUrl: string | null;
  createdAt: string;
}

/** The newest ticket of the tenant with that ticket id (a Jira key may repeat across projects' history). */
async function findTicket(db: Queryable, tenant: string, ticketId: string): Promise<TicketView | undefined> {
  const [row] = await query(
    db,
    sql`SELECT ticket_id, title, description, severity, status, project_key, source, assignee, platform, url,
              to_char(created_at, 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at
         FROM tickets WHERE tenant = ${tenant}::uuid AND ticket_id = ${ticketId}::text ORDER BY created_at DESC LIMIT 1`,
  );
  if (!row) return undefined;
  const text = (key: string) => row[key] as string | null;
  return {
    ticketId: String(row.ticket_id),
    title: String(row.title),
    description: text('description'),
    severity: text('severity'),
    status: text('status'),
    projectKey: text('project_key'),
    source: text('source'),
    assignee: text('assignee'),
    platform: String(row.platform),
    externalUrl: text('url'),
    createdAt: String(row.created_at),
  };
}

function ticketContent(t: TicketView) {
  return html`<h1 id="ticket-title"><span class="muted">${t.ticketId}</span> ${t.title}</h1>
  <div class="card" style="width:auto;max-width:720px">
    <table id="ticket"><tbody>
      <tr><th>Status</th><td>${t.status ?? ''}</td></tr>
      <tr><th>Severity</th><td>${t.severity ?? ''}</td></tr>
      <tr><th>Project</th><td>${t.projectKey ?? ''}</td></tr>
      <tr><th>Assignee</th><td>${t.assignee ?? 'Unassigned'}</td></tr>
      <tr><th>Source</th><td>${t.source ?? ''}</td></tr>
      <tr><th>Created</th><td>${when(t.createdAt)}</td></tr>
      ${t.platform !== 'platform' && t.externalUrl ? html`<tr><th>In ${t.platform}</th><td><a href="${t.externalUrl}">${t.externalUrl}</a></td></tr>` : ''}
    </tbody></table>
    ${t.description ? html`<h2 style="margin-top:18px">Description</h2><p id="ticket-description" style="white-space:pre-wrap">${t.description}</p>` : ''}
  </div>`;
}

/**
 * A ticket of the signed-in user's tenant: where the platform's own ticket URLs
 * ({NEXTAUTH_URL}/tickets/OPS-1, answered by tickets_insert_one) lead; another tenant's ticket is not
 * found. A Jira ticket links to Jira.
 */
export const ticketPage: SignedInPage = {
  path: '/tickets/:ticketId',
  async answer({ db, user, param }) {
    const ticketId = param('ticketId');
    const ticket = await findTicket(db, user.tenantId, ticketId);
    if (ticket) return { status: 200, title: `${ticket.ticketId}: ${ticket.title}`, content: ticketContent(ticket) };
    return {
      status: 404,
      title: 'Ticket not found',
      content: html`<h1>Ticket not found</h1><p class="error" role="alert">There is no ticket ${ticketId} in your organisation.</p>`,
    };
  },
};
