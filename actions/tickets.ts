import type { ActionContext } from '../engine/execute/actions';
import { RequestError } from '../engine/plan/errors';
import { tenantOf, uuidArg } from './session';

const userId = (ctx: ActionContext) => {
  const id = ctx.session.vars['x-hasura-user-id'];
  return id && /^[0-9a-f-]{36}$/i.test(id) ? id : null;
};

interface TicketInput {
  title?: string | null; description?: string | null; severity?: string | null; integration_id?: string | null;
  project_key?: string | null; source?: string | null; account_id?: string | null; assignee?: string | null;
  reference_id?: string | null; status?: string | null; ticket_type?: string | null;
}

const required = (v: string | null | undefined, name: string): string => {
  if (typeof v !== 'string' || v.trim() === '') throw new RequestError('validation-failed', `object.${name} is required`, `$.object.${name}`);
  return v;
};

/**
 * Stores the ticket in the caller's tenant and answers in the platform's shape. Without a ticketing
 * integration to call, the ticket id is the platform's own: the project key and a number per tenant.
 */
export async function tickets_insert_one(args: Record<string, unknown>, ctx: ActionContext) {
  const input = args.object as TicketInput;
  const tenant = tenantOf(ctx);
  const title = required(input.title, 'title');
  const projectKey = required(input.project_key, 'project_key');
  const integration = uuidArg(input.integration_id, 'object.integration_id');
  const account = input.account_id ? uuidArg(input.account_id, 'object.account_id') : null;
  if (account) {
    const owned = await ctx.db.query('SELECT 1 FROM cloud_accounts WHERE id = $1::uuid AND tenant = $2::uuid', [account, tenant]);
    if (!owned.length) throw new RequestError('validation-failed', 'object.account_id is not an account of your tenant', '$.object.account_id');
  }
  const [{ n }] = await ctx.db.query('SELECT count(*) + 1 AS n FROM tickets WHERE tenant = $1::uuid AND project_key = $2::text', [tenant, projectKey]);
  const ticketId = `${projectKey}-${n}`;
  const [row] = await ctx.db.query(
    `INSERT INTO tickets (tenant, account_id, integration_id, platform, source, ticket_id, ticket_type, reference_id, project_key, title, description, severity, status, assignee, url, created_by)
     VALUES ($1::uuid, $2::uuid, $3::uuid, 'jira', $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text, 'Open', $12::text, $13::text, $14::uuid)
     RETURNING id::text AS id`,
    [tenant, account, integration, input.source ?? null, ticketId, input.ticket_type ?? 'Task', input.reference_id ?? ticketId, projectKey, title,
      input.description ?? null, input.severity ?? null, input.assignee ?? null, `/tickets/${ticketId}`, userId(ctx)],
  );
  return { data: { insert_tickets_one: { id: row.id, ticket_id: ticketId, url: `/tickets/${ticketId}`, message: `ticket ${ticketId} created`, action: 'created', error: null } } };
}
