import type { ActionContext } from './context';
import type { Row } from './api';
import { query, RequestError, sql, tenantOf, uuidArg, type Sql } from './api';

/**
 * Workflows (tables workflows, workflow_executions and the shared catalogue
 * workflow_task_definitions, sql/0021): the workflow_* read operations. Everything is confined to
 * the session's tenant and to the request's account_id (a cloud account of that tenant); the task
 * definitions are the platform's, the same for every tenant.
 *
 * Filters (all optional, combined with AND):
 * - status, last_execution_status: equal to the value;
 * - trigger_type (and `type` of workflow_list): the definition has a trigger of that type;
 * - name: the name contains the text, case-insensitively;
 * - tags (workflow_list): comma-separated `key` (the tag is set) or `key:value` / `key=value`;
 * - start_date / end_date (execution count): start_date <= start_time < end_date.
 * Lists are paged by next_page_token: the answer's token, passed back, gives the next page; there is
 * none after the last page. Workflows come newest first (created_at), executions latest first
 * (start_time), ties by id. Times are UTC, without a zone suffix.
 */

type Args = Record<string, unknown>;

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** The request object of an operation (`request`, or `params` for the task definitions). */
function requestOf(args: Args, name = 'request'): Args {
  const req = args[name];
  if (!req || typeof req !== 'object') throw new RequestError('validation-failed', `${name} is required`, `$.${name}`);
  return req as Args;
}

/** An optional string argument: undefined when absent, null or empty. */
function optString(req: Args, key: string): string | undefined {
  const v = req[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function limitOf(
  value: unknown,
  path: string,
  fallback: number | undefined,
  max: number | undefined,
): number | undefined {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new RequestError('validation-failed', `${path} must be a positive integer`, `$.${path}`);
  return max === undefined ? value : Math.min(value, max);
}

const TOKEN = /^o:(\d{1,9})$/;

/** The offset a page token stands for (0 without one). */
function offsetOfToken(token: unknown, path: string): number {
  if (token === undefined || token === null || token === '') return 0;
  const m = typeof token === 'string' ? TOKEN.exec(Buffer.from(token, 'base64url').toString('utf8')) : null;
  if (!m) throw new RequestError('validation-failed', `invalid page token ${JSON.stringify(token)}`, `$.${path}`);
  return Number(m[1]);
}

const tokenOf = (offset: number): string => Buffer.from(`o:${offset}`, 'utf8').toString('base64url');

const ZONED = /[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:[Zz]|[+-]\d{2}(?::?\d{2})?)$/;

/** A timestamp argument as a bound value: a value with a zone is converted to UTC. */
const timestampSql = (value: string): Sql =>
  ZONED.test(value) ? sql`(${value}::timestamptz AT TIME ZONE 'UTC')` : sql`${value}::timestamp`;

/** `text` as a LIKE pattern matching itself anywhere. */
const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The workflow's definition has a trigger of `type`. */
const hasTrigger = (type: string): Sql =>
  sql`w.definition @> jsonb_build_object('triggers', jsonb_build_array(jsonb_build_object('type', ${type}::text)))`;

const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : (value ?? null));

/** A timestamp column as the API's text: ISO 8601, UTC, no zone suffix. */
const ts = (column: string): string => `(to_json(${column}) #>> '{}')`;

/** ` LIMIT n OFFSET m` (no LIMIT without `limit`). */
const pageSql = (limit: number | undefined, offset: number): Sql =>
  limit === undefined ? sql` OFFSET ${offset}::bigint` : sql` LIMIT ${limit}::bigint OFFSET ${offset}::bigint`;

// --- Workflows ------------------------------------------------------------------------------------

const WORKFLOW_COLUMNS =
  sql.text(`w.id::text AS id, w.tenant_id::text AS tenant_id, w.account_id::text AS account_id, w.name, w.status,
  w.definition::text AS definition, w.tags::text AS tags, w.last_execution_status, ${ts('w.last_execution_time')} AS last_execution_time,
  ${ts('w.created_at')} AS created_at, w.created_by::text AS created_by, cu.display_name AS created_by_name,
  ${ts('w.updated_at')} AS updated_at, w.updated_by::text AS updated_by, uu.display_name AS updated_by_name`);

const WORKFLOW_FROM = sql`workflows w LEFT JOIN users cu ON cu.id = w.created_by LEFT JOIN users uu ON uu.id = w.updated_by`;

function workflowOf(r: Row) {
  const user = (id: unknown, name: unknown) => (id == null ? null : { id, display_name: name ?? null });
  return {
    account_id: r.account_id,
    created_at: r.created_at,
    created_by: r.created_by,
    created_by_user: user(r.created_by, r.created_by_name),
    definition: json(r.definition) ?? {},
    id: r.id,
    last_execution_status: r.last_execution_status,
    last_execution_time: r.last_execution_time,
    name: r.name,
    status: r.status,
    tags: json(r.tags),
    tenant_id: r.tenant_id,
    updated_at: r.updated_at,
    updated_by: r.updated_by,
    updated_by_user: user(r.updated_by, r.updated_by_name),
  };
}

/** The tenant and account conditions every workflow query starts with. */
function workflowScope(ctx: ActionContext, req: Args): Sql[] {
  return [
    sql`w.tenant_id = ${tenantOf(ctx).toLowerCase()}::uuid`,
    sql`w.account_id = ${uuidArg(req.account_id, 'request.account_id')}::uuid`,
  ];
}

/** A String id compared as text, so that a value that is no uuid simply matches nothing. */
const idParam = (value: unknown): string => String(value).toLowerCase();

export async function workflow_get(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const c = workflowScope(ctx, req);
  c.push(sql`w.id::text = ${idParam(req.id)}::text`);
  const rows = await query(ctx.db, sql`SELECT ${WORKFLOW_COLUMNS} FROM ${WORKFLOW_FROM} ${sql.where(c)}`);
  return rows.length ? workflowOf(rows[0]) : null;
}

export async function workflow_get_count(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const c = workflowScope(ctx, req);
  const status = optString(req, 'status');
  if (status !== undefined) c.push(sql`w.status = ${status}::text`);
  const trigger = optString(req, 'trigger_type');
  if (trigger !== undefined) c.push(hasTrigger(trigger));
  const [row] = await query(ctx.db, sql`SELECT count(*)::int AS count FROM workflows w ${sql.where(c)}`);
  return { count: Number(row.count) };
}

export async function workflow_list(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const limit = limitOf(req.limit, 'request.limit', DEFAULT_LIMIT, MAX_LIMIT)!;
  const offset = offsetOfToken(req.next_page_token, 'request.next_page_token');
  const where = sql.where([...workflowScope(ctx, req), ...workflowFilters(req)]);
  const [{ total }] = await query(ctx.db, sql`SELECT count(*)::int AS total FROM workflows w ${where}`);
  const rows = await query(
    ctx.db,
    sql`SELECT ${WORKFLOW_COLUMNS} FROM ${WORKFLOW_FROM} ${where} ORDER BY w.created_at DESC, w.id${pageSql(limit, offset)}`,
  );
  const totalCount = Number(total);
  return {
    next_page_token: offset + rows.length < totalCount && rows.length > 0 ? tokenOf(offset + rows.length) : null,
    total_count: totalCount,
    workflows: rows.map(workflowOf),
  };
}

/** The filters of workflow_list: status, last_execution_status, name, type and tags. */
function workflowFilters(req: Args): Sql[] {
  const c: Sql[] = [];
  const status = optString(req, 'status');
  if (status !== undefined) c.push(sql`w.status = ${status}::text`);
  const last = optString(req, 'last_execution_status');
  if (last !== undefined) c.push(sql`w.last_execution_status = ${last}::text`);
  const name = optString(req, 'name');
  if (name !== undefined) c.push(sql`w.name ILIKE ${containsPattern(name)}::text`);
  const type = optString(req, 'type');
  if (type !== undefined) c.push(hasTrigger(type));
  const tags = optString(req, 'tags');
  for (const tag of tags
    ?.split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '') ?? []) {
    const sep = tag.search(/[:=]/);
    if (sep < 0) c.push(sql`(w.tags -> ${tag}::text) IS NOT NULL`);
    else c.push(sql`(w.tags ->> ${tag.slice(0, sep).trim()}::text) = ${tag.slice(sep + 1).trim()}::text`);
  }
  return c;
}

// --- Executions -----------------------------------------------------------------------------------

const EXECUTION_FROM = sql`workflow_executions e JOIN workflows w ON w.id = e.workflow_id`;

/** Executions of the tenant's workflows of the request's account. */
function executionScope(ctx: ActionContext, req: Args): Sql[] {
  return [...workflowScope(ctx, req), sql`e.tenant_id = w.tenant_id`];
}

const SUMMARY_COLUMNS =
  sql.text(`e.id::text AS id, e.workflow_id::text AS workflow_id, e.parent_workflow_id, e.status, e.trigger_type, e.triggered_by,
  ${ts('e.start_time')} AS start_time, ${ts('e.close_time')} AS close_time`);

export async function workflow_get_execution(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const c = executionScope(ctx, req);
  c.push(sql`e.workflow_id::text = ${idParam(req.workflow_id)}::text`);
  c.push(sql`e.id::text = ${idParam(req.id)}::text`);
  const rows = await query(
    ctx.db,
    sql`SELECT ${SUMMARY_COLUMNS}, e.inputs::text AS inputs, e.tasks::text AS tasks, e.workflow_result::text AS workflow_result, e.error
     FROM ${EXECUTION_FROM} ${sql.where(c)}`,
  );
  if (!rows.length) return null;
  const r = rows[0];
  return {
    close_time: r.close_time,
    error: r.error,
    id: r.id,
    inputs: json(r.inputs),
    parent_workflow_id: r.parent_workflow_id,
    start_time: r.start_time,
    status: r.status,
    tasks: json(r.tasks) ?? [],
    triggered_by: r.triggered_by,
    workflow_id: r.workflow_id,
    workflow_result: json(r.workflow_result),
  };
}

export async function workflow_get_execution_count(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const c = executionScope(ctx, req);
  const workflow = optString(req, 'workflow_id');
  if (workflow !== undefined) c.push(sql`e.workflow_id::text = ${idParam(workflow)}::text`);
  const status = optString(req, 'status');
  if (status !== undefined) c.push(sql`e.status = ${status}::text`);
  const trigger = optString(req, 'trigger_type');
  if (trigger !== undefined) c.push(sql`e.trigger_type = ${trigger}::text`);
  const start = optString(req, 'start_date');
  if (start !== undefined) c.push(sql`e.start_time >= ${timestampSql(start)}`);
  const end = optString(req, 'end_date');
  if (end !== undefined) c.push(sql`e.start_time < ${timestampSql(end)}`);
  const [row] = await query(ctx.db, sql`SELECT count(*)::int AS count FROM ${EXECUTION_FROM} ${sql.where(c)}`);
  return { count: Number(row.count) };
}

export async function workflow_list_executions(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const limit = limitOf(req.limit, 'request.limit', DEFAULT_LIMIT, MAX_LIMIT)!;
  const offset = offsetOfToken(req.next_page_token, 'request.next_page_token');
  const c = executionScope(ctx, req);
  c.push(sql`e.workflow_id::text = ${idParam(req.id)}::text`);
  const status = optString(req, 'status');
  if (status !== undefined) c.push(sql`e.status = ${status}::text`);
  const trigger = optString(req, 'trigger_type');
  if (trigger !== undefined) c.push(sql`e.trigger_type = ${trigger}::text`);
  // One row more than the page tells whether there is a next page.
  const rows = await query(
    ctx.db,
    sql`SELECT ${SUMMARY_COLUMNS} FROM ${EXECUTION_FROM} ${sql.where(c)} ORDER BY e.start_time DESC, e.id${pageSql(limit + 1, offset)}`,
  );
  const page = rows.slice(0, limit);
  return {
    executions: page.map((r) => ({
      close_time: r.close_time,
      id: r.id,
      parent_workflow_id: r.parent_workflow_id,
      start_time: r.start_time,
      status: r.status,
      trigger_type: r.trigger_type,
      triggered_by: r.triggered_by,
      workflow_id: r.workflow_id,
    })),
    next_page_token: rows.length > limit ? tokenOf(offset + limit) : null,
  };
}

// --- Task definitions -----------------------------------------------------------------------------

/** The shared catalogue, by name; a tenant is still required (the operation is for tenant roles). */
export async function workflow_list_taskdefinitions(args: Args, ctx: ActionContext) {
  tenantOf(ctx);
  const params = requestOf(args, 'params');
  const limit = limitOf(params.limit, 'params.limit', undefined, undefined);
  const offset = params.offset ?? 0;
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0)
    throw new RequestError('validation-failed', 'params.offset must be a non-negative integer', '$.params.offset');
  const name = optString(params, 'name');
  const c = name === undefined ? [] : [sql`d.name ILIKE ${containsPattern(name)}::text`];
  const rows = await query(
    ctx.db,
    sql`SELECT d.name, d.description, d.input_schema::text AS input_schema, d.output_schema::text AS output_schema
     FROM workflow_task_definitions d ${sql.where(c)} ORDER BY d.name${pageSql(limit, offset)}`,
  );
  return {
    tasks: rows.map((r) => ({
      description: r.description,
      input_schema: json(r.input_schema),
      name: r.name,
      output_schema: json(r.output_schema),
    })),
  };
}
