import type { ActionContext } from './context';
import { isTenantAccount, isUuid, query, refuseReadOnly, RequestError, sql, tenantOf, uuidArg, type Sql } from './api';
import { analyticOperation } from './analytics/operation';
import { jsonbWhere, type Dataset, type Field, type WhereField, uuidText } from './analytics/dataset';
import { invalid, unknownName } from './analytics/errors';
import { ACTIONABLE_RECOMMENDATION_STATUSES, recommendationOnWorkload } from './kubernetes';

/**
 * Automation playbooks (table auto_playbook) through the analytic builder: auto_playbook_v2 lists
 * them, auto_playbook_grouping_v2 counts them. jsonb columns (trigger, resource_filter, tasks,
 * attributes) are returned as their JSON text; username / display_name are the creator's,
 * updated_username / updated_user_displayname the last editor's.
 */

const FROM = 'auto_playbook p LEFT JOIN users cu ON cu.id = p.created_by LEFT JOIN users uu ON uu.id = p.updated_by';

const fields: Record<string, Field> = {
  account_id: uuidText('p.account_id'),
  attributes: { sql: 'p.attributes::text', type: 'string' },
  created_at: { sql: 'p.created_at', type: 'datetime' },
  display_name: { sql: 'cu.display_name', type: 'string' },
  id: uuidText('p.id'),
  last_executed_time: { sql: 'p.last_executed_time', type: 'datetime' },
  name: { sql: 'p.name', type: 'string' },
  // The kind of resource the playbook acts on, when its resource filter names one.
  resource: { sql: `(p.resource_filter ->> 'resource')`, type: 'string' },
  resource_filter: { sql: 'p.resource_filter::text', type: 'string' },
  status: { sql: 'p.status', type: 'string' },
  tasks: { sql: 'p.tasks::text', type: 'string' },
  tenant_id: { ...uuidText('p.tenant_id'), constant: true },
  trigger: { sql: 'p.trigger::text', type: 'string' },
  updated_by: uuidText('p.updated_by'),
  updated_user_displayname: { sql: 'uu.display_name', type: 'string' },
  updated_username: { sql: 'uu.username', type: 'string' },
  username: { sql: 'cu.username', type: 'string' },
};

const where: Record<string, WhereField> = {
  account_id: uuidText('p.account_id'),
  id: uuidText('p.id'),
  name: { sql: 'p.name', type: 'string' },
  resource_filter: jsonbWhere('p.resource_filter'),
  status: { sql: 'p.status', type: 'string' },
  tenant_id: uuidText('p.tenant_id'),
  trigger: jsonbWhere('p.trigger'),
};

export const playbooks: Dataset = {
  name: 'auto_playbook_v2',
  from: FROM,
  tenant: { sql: 'p.tenant_id', cast: 'uuid' },
  fields,
  where,
};

export const playbookGroupings: Dataset = {
  name: 'auto_playbook_grouping_v2',
  from: 'auto_playbook p',
  tenant: { sql: 'p.tenant_id', cast: 'uuid' },
  fields: { tenant_id: fields.tenant_id },
  aggregates: { count: { sql: 'count(*)::float8', type: 'float' } },
  where,
};

export const auto_playbook_v2 = analyticOperation(playbooks);
export const auto_playbook_grouping_v2 = analyticOperation(playbookGroupings);

// ---------------------------------------------------------------------------------------------
// Auto-optimize: auto-pilot policies (auto_pilot) that apply recommendations to the resources in
// their resource map (auto_optimize_resource_map).

/** Rejects an account that is not one of the caller's tenant: the same answer whether it exists elsewhere or not. */
async function ownAccount(ctx: ActionContext, tenant: string, account: string, path: string): Promise<void> {
  if (!(await isTenantAccount(ctx.db, tenant, account)))
    throw new RequestError('validation-failed', `cloud account ${account} not found in your tenant`, path);
}

/** The values of a lookup table: arguments are checked against them, so that a typo is an error and not an empty answer. */
async function lookup(ctx: ActionContext, table: string, column: string): Promise<string[]> {
  const rows = await query(ctx.db, sql`SELECT ${sql.ident(column)}::text AS v FROM ${sql.ident(table)} ORDER BY 1`);
  return rows.map((r) => String(r.v));
}

/** A list argument of lookup values, checked; null when absent. */
async function lookupValues(
  ctx: ActionContext,
  list: unknown,
  table: string,
  column: string,
  what: string,
  path: string,
): Promise<string[] | null> {
  if (list === null || list === undefined) return null;
  if (!Array.isArray(list)) throw invalid(`${path.slice(2)} must be a list of strings`, path);
  const allowed = await lookup(ctx, table, column);
  list.forEach((v, i) => {
    if (typeof v !== 'string' || !allowed.includes(v)) throw unknownName(what, v, allowed, `${path}[${i}]`);
  });
  return [...new Set(list as string[])];
}

/** The workload filters of a policy, as stored: the resources it covers now and later. */
interface ResourceFilter {
  namespace: string;
  name: string | null;
  type: string | null;
}

/**
 * auto_optimize_recommendation: the ids of the account's recommendations an auto-optimize policy
 * would act on, oldest first.
 * - status: the recommendation statuses to include; by default those still to act on (Open,
 *   Assigned, InProgress). Values are checked against recommendation_status_type.
 * - auto_optimize_categories: recommendation categories (recommendation_category_type), checked;
 *   absent: any category; an empty list selects none (as `_in: []` does).
 * - rule_name: one rule.
 * - auto_optimize_id: a policy of that account; only recommendations on the resources of its
 *   resource map (a cloud resource by resource_id, a workload as recommendationOnWorkload reads it).
 */
export async function auto_optimize_recommendation(args: Record<string, unknown>, ctx: ActionContext) {
  const tenant = tenantOf(ctx).toLowerCase();
  const account = uuidArg(args.account_id, 'account_id');
  await ownAccount(ctx, tenant, account, '$.account_id');
  const statuses = (await lookupValues(
    ctx,
    args.status,
    'recommendation_status_type',
    'value',
    'recommendation status',
    '$.status',
  )) ?? [...ACTIONABLE_RECOMMENDATION_STATUSES];
  const categories = await lookupValues(
    ctx,
    args.auto_optimize_categories,
    'recommendation_category_type',
    'value',
    'recommendation category',
    '$.auto_optimize_categories',
  );
  const rule = args.rule_name ?? null;
  if (rule !== null && typeof rule !== 'string') throw invalid('rule_name must be a string', '$.rule_name');
  const policy = await policyOf(ctx, tenant, account, args.auto_optimize_id);
  const conditions = [
    sql`rc.tenant_id = ${tenant}::uuid`,
    sql`rc.cloud_account_id = ${account}::uuid`,
    sql`coalesce(rc.status, 'Open') = ANY (${statuses}::text[])`,
  ];
  if (categories) conditions.push(sql`rc.category = ANY (${categories}::text[])`);
  if (rule !== null) conditions.push(sql`rc.rule_name = ${rule}::text`);
  if (policy) conditions.push(onPolicyResources(tenant, policy));
  const rows = await query(
    ctx.db,
    sql`SELECT rc.id::text AS id FROM recommendation rc ${sql.where(conditions)} ORDER BY rc.created_at, rc.id`,
  );
  return { recommendation: rows.map((r) => String(r.id)) };
}

/** The auto-optimize policy `id` argument: a policy of the account, or null without one. */
async function policyOf(ctx: ActionContext, tenant: string, account: string, id: unknown): Promise<string | null> {
  if (id === null || id === undefined) return null;
  const policy = uuidArg(id, 'auto_optimize_id');
  const [row] = await query(
    ctx.db,
    sql`SELECT account_id::text AS account FROM auto_pilot WHERE id = ${policy}::uuid AND tenant_id = ${tenant}::uuid`,
  );
  if (!row)
    throw new RequestError(
      'validation-failed',
      `auto-optimize policy ${policy} not found in your tenant`,
      '$.auto_optimize_id',
    );
  if (row.account !== account)
    throw new RequestError(
      'validation-failed',
      `auto-optimize policy ${policy} belongs to account ${row.account}, not to account_id ${account}`,
      '$.auto_optimize_id',
    );
  return policy;
}

/** Recommendation `rc` is on a resource of the policy's resource map (a cloud resource or a workload). */
const onPolicyResources = (tenant: string, policy: string): Sql => sql`EXISTS (
    SELECT 1 FROM auto_optimize_resource_map m
    LEFT JOIN k8s_workloads w ON m.auto_optimize_type = 'workload' AND w.tenant_id = m.tenant_id
                             AND w.id::text = m.resource_identifier ->> 'workload_id'
    WHERE m.auto_optimize_id = ${policy}::uuid AND m.tenant_id = ${tenant}::uuid AND m.account_id = rc.cloud_account_id
      AND (rc.resource_id::text = m.resource_identifier ->> 'resource_id'
        OR (w.id IS NOT NULL AND ${sql.text(recommendationOnWorkload('rc', 'w'))})))`;

/** Policy names are for people; a long filter list is cut here rather than making the name unreadable. */
const NAME_MAX = 200;

/**
 * auto_optimize_workload: a new auto-optimize policy (an auto_pilot of category RightSizing,
 * triggered by recommendations) for the account's active workloads that resource_filter matches,
 * with one auto_optimize_resource_map row per matched workload ({workload_id, name, namespace,
 * kind}). A filter names a namespace, and optionally a workload name and a type (its kind, any
 * case); an empty or null name or type matches any. The filter itself is kept in the policy's rule.
 * status is an auto_pilot_status (default Active). A filter that matches no workload is refused
 * rather than stored as a policy that does nothing. Policy and map rows are written by one
 * statement, so either both are there or neither.
 */
export async function auto_optimize_workload(args: Args, ctx: ActionContext) {
  const tenant = tenantOf(ctx).toLowerCase();
  refuseReadOnly(ctx, 'creating an auto-optimize policy');
  const user = signedInUser(ctx);
  const input = (args.arg1 ?? {}) as { account_id?: unknown; resource_filter?: unknown; status?: unknown };
  const account = uuidArg(input.account_id, 'arg1.account_id');
  await ownAccount(ctx, tenant, account, '$.arg1.account_id');
  const status = input.status ?? 'Active';
  const statuses = await lookup(ctx, 'auto_pilot_status', 'value');
  if (typeof status !== 'string' || !statuses.includes(status))
    throw unknownName('auto-pilot status', status, statuses, '$.arg1.status');
  const filters = resourceFiltersOf(input.resource_filter);
  const described = filters.map((f) => `${f.namespace}/${f.type ? `${f.type}/` : ''}${f.name ?? '*'}`).join(', ');
  const name = `Auto-optimize workloads: ${described}`;
  const [row] = await query(
    ctx.db,
    insertWorkloadPolicy({
      tenant,
      account,
      status,
      filters,
      name: name.length > NAME_MAX ? `${name.slice(0, NAME_MAX - 1)}…` : name,
      user,
    }),
  );
  if (!row)
    throw invalid(
      `arg1.resource_filter matches no active workload of account ${account} (${described})`,
      '$.arg1.resource_filter',
    );
  return { id: String(row.id) };
}

type Args = Record<string, unknown>;

/** The signed-in user who creates the policy (x-hasura-user-id), in lower case. */
function signedInUser(ctx: ActionContext): string {
  const user = ctx.session.vars['x-hasura-user-id'];
  if (!user || !isUuid(user)) {
    throw new RequestError(
      'access-denied',
      'auto_optimize_workload records who created the policy: it needs a signed-in user (x-hasura-user-id)',
    );
  }
  return user.toLowerCase();
}

/** arg1.resource_filter: at least one filter, each with a namespace; empty names and types match any. */
function resourceFiltersOf(list: unknown): ResourceFilter[] {
  if (!Array.isArray(list) || list.length === 0) {
    throw invalid(
      'arg1.resource_filter must list at least one filter ({namespace, name, type})',
      '$.arg1.resource_filter',
    );
  }
  const text = (v: unknown, path: string): string | null => {
    if (v === null || v === undefined || v === '') return null;
    if (typeof v !== 'string') throw invalid(`expected a string at ${path.slice(2)}`, path);
    return v;
  };
  return list.map((f: unknown, i: number) => {
    const path = `$.arg1.resource_filter[${i}]`;
    if (!f || typeof f !== 'object')
      throw invalid(`arg1.resource_filter[${i}] must be an object with a namespace`, path);
    const o = f as Record<string, unknown>;
    const namespace = text(o.namespace, `${path}.namespace`);
    if (!namespace) throw invalid(`arg1.resource_filter[${i}].namespace is required`, `${path}.namespace`);
    return { namespace, name: text(o.name, `${path}.name`), type: text(o.type, `${path}.type`) };
  });
}

interface WorkloadPolicy {
  tenant: string;
  account: string;
  status: string;
  filters: ResourceFilter[];
  name: string;
  user: string;
}

/**
 * One statement: the policy and its map rows for the account's active workloads the filters match;
 * no row (and nothing written) when they match none.
 */
function insertWorkloadPolicy(p: WorkloadPolicy): Sql {
  const filters = JSON.stringify(p.filters);
  return sql`WITH f AS (SELECT * FROM jsonb_to_recordset(${filters}::jsonb) AS f (namespace text, name text, type text)),
     matched AS (
       SELECT DISTINCT w.id, w.name, w.namespace, w.kind
       FROM k8s_workloads w
       JOIN f ON w.namespace = f.namespace AND (f.name IS NULL OR w.name = f.name) AND (f.type IS NULL OR lower(w.kind) = lower(f.type))
       WHERE w.tenant_id = ${p.tenant}::uuid AND w.cloud_account_id = ${p.account}::uuid AND w.is_active
     ),
     p AS (
       INSERT INTO auto_pilot (tenant_id, account_id, name, description, category, status, trigger_type, source, rule, created_by, update_by)
       SELECT ${p.tenant}::uuid, ${p.account}::uuid, ${p.name}::text, 'Applies right-sizing recommendations to the workloads its resource filter matches', 'RightSizing',
              ${p.status}::text, 'recommendation', 'auto_optimize', jsonb_build_object('auto_optimize_type', 'workload', 'resource_filter', ${filters}::jsonb), ${p.user}::uuid, ${p.user}::uuid
       WHERE EXISTS (SELECT 1 FROM matched)
       RETURNING id
     ),
     m AS (
       INSERT INTO auto_optimize_resource_map (tenant_id, account_id, auto_optimize_id, auto_optimize_type, resource_identifier)
       SELECT ${p.tenant}::uuid, ${p.account}::uuid, p.id, 'workload', jsonb_build_object('workload_id', matched.id, 'name', matched.name, 'namespace', matched.namespace, 'kind', matched.kind)
       FROM p CROSS JOIN matched
       RETURNING 1
     )
     SELECT p.id::text AS id, (SELECT count(*) FROM m)::int AS mapped FROM p`;
}
