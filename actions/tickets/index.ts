import type { ActionContext } from '../context';
import {
  isTenantAccount,
  isUuid,
  query,
  refuseReadOnly,
  RequestError,
  sql,
  tenantOf,
  uuidArg,
  type Queryable,
} from '../api';
import { createJiraIssue, jiraConfig } from './jira';

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
  return id && isUuid(id) ? id : null;
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
  refuseReadOnly(ctx, 'creating a ticket');
  const title = text(input, 'title', true)!;
  const projectKey = projectKeyOf(input);
  const integrationId = uuidArg(input.integration_id, 'object.integration_id');
  const account = input.account_id ? uuidArg(input.account_id, 'object.account_id') : null;
  const source = text(input, 'source');
  const extraFields = additionalFields(input);
  if (account) await checkAccount(ctx, tenant, account);
  if (source) await checkSource(ctx, source);
  const jira = await jiraOf(ctx, tenant, integrationId);

  const description = text(input, 'description');
  const severity = text(input, 'severity');
  const ticketType = text(input, 'ticket_type') ?? jira?.issueType ?? 'Task';
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
    const platform = issue ? 'jira' : 'platform';
    const ticket = { tenant, account, integrationId, platform, source, ticketId, ticketType, projectKey, title };
    return { id: await insertTicket(tx, { ...ticket, description, severity, url }, input, userId(ctx)), ticketId, url };
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

function projectKeyOf(input: TicketInput): string {
  const projectKey = text(input, 'project_key', true)!.trim();
  if (!/^[A-Za-z][A-Za-z0-9_]{0,49}$/.test(projectKey))
    throw new RequestError(
      'validation-failed',
      'object.project_key must be letters, digits and _ (starting with a letter), like OPS',
      '$.object.project_key',
    );
  return projectKey;
}

/** additional_fields: Jira fields, an object when given. */
function additionalFields(input: TicketInput): Record<string, unknown> | undefined {
  const extra = input.additional_fields;
  if (extra !== undefined && extra !== null && (typeof extra !== 'object' || Array.isArray(extra))) {
    throw new RequestError(
      'validation-failed',
      'object.additional_fields must be an object (Jira fields)',
      '$.object.additional_fields',
    );
  }
  return (extra ?? undefined) as Record<string, unknown> | undefined;
}

async function checkAccount(ctx: ActionContext, tenant: string, account: string): Promise<void> {
  if (!(await isTenantAccount(ctx.db, tenant, account)))
    throw new RequestError(
      'validation-failed',
      'object.account_id is not an account of your tenant',
      '$.object.account_id',
    );
}

async function checkSource(ctx: ActionContext, source: string): Promise<void> {
  const known = await query(ctx.db, sql`SELECT 1 FROM ticket_source_type WHERE value = ${source}::text`);
  if (!known.length)
    throw new RequestError(
      'validation-failed',
      `object.source ${JSON.stringify(source)} is not a ticket source`,
      '$.object.source',
    );
}

/**
 * The Jira settings of the named integration, or undefined when the table does not know the id (the
 * platform's own ticket then: the demo data's ids do). Only the tenant's own integrations: another
 * tenant's id is refused (read as "no integration", as it was, it stored a platform ticket of this
 * tenant whose integration_id names that tenant's Jira).
 */
async function jiraOf(ctx: ActionContext, tenant: string, integrationId: string) {
  const [integration] = await query(
    ctx.db,
    sql`SELECT tenant_id = ${tenant}::uuid AS mine, integration_type, config::text AS config, enabled
          FROM integrations WHERE id = ${integrationId}::uuid`,
  );
  if (!integration) return undefined;
  if (integration.mine !== true && integration.mine !== 't') {
    throw new RequestError(
      'validation-failed',
      'object.integration_id is not an integration of your tenant',
      '$.object.integration_id',
    );
  }
  if (integration.integration_type !== 'jira') {
    throw new RequestError(
      'not-supported',
      `integration ${integrationId} is a ${String(integration.integration_type)} integration; tickets are created in Jira or in the platform`,
      '$.object.integration_id',
    );
  }
  if (integration.enabled !== true && integration.enabled !== 't') {
    throw new RequestError('validation-failed', `integration ${integrationId} is disabled`, '$.object.integration_id');
  }
  return jiraConfig(JSON.parse(String(integration.config)), integrationId);
}

/** The columns of a ticket known before it is stored; the input's other texts are read while storing it. */
interface Ticket {
  tenant: string;
  account: string | null;
  integrationId: string;
  platform: string;
  source: string | null;
  ticketId: string;
  ticketType: string;
  projectKey: string;
  title: string;
  description: string | null;
  severity: string | null;
  url: string;
}

/** Stores the ticket; its row id. */
async function insertTicket(tx: Queryable, t: Ticket, input: TicketInput, createdBy: string | null): Promise<string> {
  const referenceId = text(input, 'reference_id') ?? t.ticketId;
  const status = text(input, 'status') ?? 'Open';
  const assignee = text(input, 'assignee');
  const [row] = await query(
    tx,
    sql`INSERT INTO tickets (tenant, account_id, integration_id, platform, source, ticket_id, ticket_type, reference_id, project_key, title, description, severity, status, assignee, url, created_by)
       VALUES (${t.tenant}::uuid, ${t.account}::uuid, ${t.integrationId}::uuid, ${t.platform}::text, ${t.source}::text, ${t.ticketId}::text,
               ${t.ticketType}::text, ${referenceId}::text, ${t.projectKey}::text, ${t.title}::text, ${t.description}::text,
               ${t.severity}::text, ${status}::text, ${assignee}::text, ${t.url}::text, ${createdBy}::uuid)
       RETURNING id::text AS id`,
  );
  return String(row.id);
}

/** The next number of this tenant and project key; the first time, after any tickets already stored with it. */
async function nextTicketNumber(tx: Queryable, tenant: string, projectKey: string): Promise<string> {
  const [seq] = await query(
    tx,
    sql`INSERT INTO ticket_sequences (tenant, project_key, last_value)
     SELECT ${tenant}::uuid, ${projectKey}::text, coalesce(max(substring(ticket_id from '-([0-9]{1,15})$')::bigint), 0) + 1
       FROM tickets WHERE tenant = ${tenant}::uuid AND project_key = ${projectKey}::text
     ON CONFLICT (tenant, project_key) DO UPDATE SET last_value = ticket_sequences.last_value + 1
     RETURNING last_value::text AS n`,
  );
  return String(seq.n);
}
