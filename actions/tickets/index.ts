import type { Queryable } from '../api';
import type { ActionContext } from '../context';
import { RequestError } from '../api';
import { createJiraIssue, jiraConfig } from './jira';
import { tenantOf, uuidArg } from '../api';

/**
 * tickets_insert_one: stores the ticket in the caller's tenant and answers in the platform's shape.
 *
 * - `integration_id` names a Jira integration of the tenant (the `integrations` table, sql/0026):
 *   the issue is created in Jira; its key is the ticket id and {base}/browse/<KEY> the url.
 * - Otherwise (no such integration row of the tenant) the platform keeps the ticket itself: the id
 *   is the project key and a number per tenant and key (OPS-1, OPS-2 ...), the url is on
 *   NEXTAUTH_URL ({base}/tickets/OPS-1).
 *
 * Jira is asked first (outside any transaction when the mutation is of actions only, see
 * ActionContext), and the row is stored with its key only once Jira
 * answered: Jira failing fails the operation with an `action-error` saying what Jira answered, and
 * nothing is stored (a failed ticket kept with its error would look like a ticket that exists
 * nowhere; the caller can simply retry). Platform tickets: number and row in one transaction.
 * `platform` is 'jira' or 'platform'.
 */
const userId = (ctx: ActionContext) => {
  const id = ctx.session.vars['x-hasura-user-id'];
  return id && /^[0-9a-f-]{36}$/i.test(id) ? id : null;
};

interface TicketInput {
  title?: unknown;
  description?: unknown;
  severity?: unknown;
  integration_id?: unknown;
  project_key?: unknown;
  source?: unknown;
  account_id?: unknown;
  assignee?: unknown;
  reference_id?: unknown;
  status?: unknown;
  ticket_type?: unknown;
  additional_fields?: unknown;
}

const MAX_TEXT = 32000;

function text(input: TicketInput, name: keyof TicketInput, required = false): string | null {
  const v = input[name];
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
    if (required) throw new RequestError('validation-failed', `object.${name} is required`, `$.object.${name}`);
    return null;
  }
  if (typeof v !== 'string')
    throw new RequestError('validation-failed', `object.${name} must be a string`, `$.object.${name}`);
  if (v.length > MAX_TEXT)
    throw new RequestError(
      'validation-failed',
      `object.${name} is longer than ${MAX_TEXT} characters`,
      `$.object.${name}`,
    );
  return v;
}

export async function tickets_insert_one(args: Record<string, unknown>, ctx: ActionContext) {
  const input = (args.object ?? {}) as TicketInput;
  const tenant = tenantOf(ctx);
  const title = text(input, 'title', true)!;
  const projectKey = text(input, 'project_key', true)!.trim();
  if (!/^[A-Za-z][A-Za-z0-9_]{0,49}$/.test(projectKey))
    throw new RequestError(
      'validation-failed',
      'object.project_key must be letters, digits and _ (starting with a letter), like OPS',
      '$.object.project_key',
    );
  const integrationId = uuidArg(input.integration_id, 'object.integration_id');
  const account = input.account_id ? uuidArg(input.account_id, 'object.account_id') : null;
  const source = text(input, 'source');
  const extra = input.additional_fields;
  if (extra !== undefined && extra !== null && (typeof extra !== 'object' || Array.isArray(extra))) {
    throw new RequestError(
      'validation-failed',
      'object.additional_fields must be an object (Jira fields)',
      '$.object.additional_fields',
    );
  }
  if (account) {
    const owned = await ctx.db.query('SELECT 1 FROM cloud_accounts WHERE id = $1::uuid AND tenant = $2::uuid', [
      account,
      tenant,
    ]);
    if (!owned.length)
      throw new RequestError(
        'validation-failed',
        'object.account_id is not an account of your tenant',
        '$.object.account_id',
      );
  }
  if (source) {
    const known = await ctx.db.query('SELECT 1 FROM ticket_source_type WHERE value = $1::text', [source]);
    if (!known.length)
      throw new RequestError(
        'validation-failed',
        `object.source ${JSON.stringify(source)} is not a ticket source`,
        '$.object.source',
      );
  }
  // Only the tenant's own integrations. Another tenant's id is refused: read as "no integration" (as
  // it was) it stored a platform ticket of this tenant whose integration_id names that tenant's Jira.
  // An id the table does not know still means the platform's own ticket (the demo data's ids do).
  const [integration] = await ctx.db.query(
    'SELECT tenant_id = $2::uuid AS mine, integration_type, config::text AS config, enabled FROM integrations WHERE id = $1::uuid',
    [integrationId, tenant],
  );
  if (integration && integration.mine !== true && integration.mine !== 't') {
    throw new RequestError(
      'validation-failed',
      'object.integration_id is not an integration of your tenant',
      '$.object.integration_id',
    );
  }
  if (integration && integration.integration_type !== 'jira') {
    throw new RequestError(
      'not-supported',
      `integration ${integrationId} is a ${String(integration.integration_type)} integration; tickets are created in Jira or in the platform`,
      '$.object.integration_id',
    );
  }
  if (integration && integration.enabled !== true && integration.enabled !== 't') {
    throw new RequestError('validation-failed', `integration ${integrationId} is disabled`, '$.object.integration_id');
  }
  const jira = integration ? jiraConfig(JSON.parse(String(integration.config)), integrationId) : undefined;

  const description = text(input, 'description');
  const severity = text(input, 'severity');
  const ticketType = text(input, 'ticket_type') ?? jira?.issueType ?? 'Task';
  const extraFields = (extra ?? undefined) as Record<string, unknown> | undefined;
  // Jira first, before ctx.transaction (a slow Jira then holds no connection of ours), then the row
  // with its key: a failure in Jira stores nothing. The platform's own number and its row: one transaction.
  const issue = jira
    ? await createJiraIssue(
        jira,
        { project: projectKey, summary: title, description, severity, issueType: ticketType, extraFields },
        ctx.config.tickets.jiraTimeoutMs,
      )
    : undefined;
  const { id, ticketId, url } = await ctx.transaction(async (tx) => {
    const ticketId = issue ? issue.key : `${projectKey}-${await nextTicketNumber(tx, tenant, projectKey)}`;
    const url = issue ? issue.url : `${ctx.config.tickets.baseUrl}/tickets/${encodeURIComponent(ticketId)}`;
    const [row] = await tx.query(
      `INSERT INTO tickets (tenant, account_id, integration_id, platform, source, ticket_id, ticket_type, reference_id, project_key, title, description, severity, status, assignee, url, created_by)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text, $12::text, $13::text, $14::text, $15::text, $16::uuid)
       RETURNING id::text AS id`,
      [
        tenant,
        account,
        integrationId,
        issue ? 'jira' : 'platform',
        source,
        ticketId,
        ticketType,
        text(input, 'reference_id') ?? ticketId,
        projectKey,
        title,
        description,
        severity,
        text(input, 'status') ?? 'Open',
        text(input, 'assignee'),
        url,
        userId(ctx),
      ],
    );
    return { id: String(row.id), ticketId, url };
  });
  const where = jira ? 'in Jira' : 'in the platform';
  return {
    data: {
      insert_tickets_one: {
        id,
        ticket_id: ticketId,
        url,
        message: `ticket ${ticketId} created ${where}`,
        action: 'created',
        error: null,
      },
    },
  };
}

/** The next number of this tenant and project key; the first time, after any tickets already stored with it. */
async function nextTicketNumber(tx: Queryable, tenant: string, projectKey: string): Promise<string> {
  const [seq] = await tx.query(
    `INSERT INTO ticket_sequences (tenant, project_key, last_value)
     SELECT $1::uuid, $2::text, coalesce(max(substring(ticket_id from '-([0-9]{1,15})$')::bigint), 0) + 1
       FROM tickets WHERE tenant = $1::uuid AND project_key = $2::text
     ON CONFLICT (tenant, project_key) DO UPDATE SET last_value = ticket_sequences.last_value + 1
     RETURNING last_value::text AS n`,
    [tenant, projectKey],
  );
  return String(seq.n);
}
