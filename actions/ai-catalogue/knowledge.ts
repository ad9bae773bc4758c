import type { ActionContext } from '../context';
import { query, sql, uuidArg, type Row, type Sql } from '../api';
import { accountScope, notFound, num, requestOf, ts, type Args } from './common';

/**
 * Knowledge bases (ai_knowledgebase, sql/0023) and global contexts (ai_global_context, sql/0025) of
 * the request's account: KnowledgebaseOutput and GlobalContextOutput, listed by name. An id that is
 * no uuid is a validation error; a uuid that is not a row of the account is `errors: [{code:
 * "not-found"}]` with `data: null`.
 */

/** Columns both tables share, as the reference's output fields. */
const DOCUMENT_COLUMNS = sql`d.id::text AS id, d.tenant_id::text AS tenant_id, d.cloud_account_id::text AS account_id, d.name, d.description,
  d.data, d.data_filename, d.data_format, d.data_size_bytes, d.status, d.created_by, d.updated_by,
  ${ts('d.created_at')} AS created_at, ${ts('d.updated_at')} AS updated_at`;

function documentOf(r: Row) {
  return {
    account_id: r.account_id,
    created_at: r.created_at,
    created_by: r.created_by,
    data: r.data,
    data_filename: r.data_filename,
    data_format: r.data_format,
    data_size_bytes: num(r.data_size_bytes),
    description: r.description,
    id: r.id,
    name: r.name,
    status: r.status,
    tenant_id: r.tenant_id,
    updated_at: r.updated_at,
    updated_by: r.updated_by,
  };
}

const kbOf = (r: Row) => ({
  ...documentOf(r),
  integration_id: r.integration_id,
  kb_source: r.kb_source,
  kb_type: r.kb_type,
});

/** Knowledge bases of the tenant and account, as `d`. */
const kbSelect = (tenant: string, account: string): Sql =>
  sql`SELECT ${DOCUMENT_COLUMNS}, d.kb_type, d.kb_source, d.integration_id::text AS integration_id FROM ai_knowledgebase d
  WHERE d.tenant_id = ${tenant}::uuid AND d.cloud_account_id = ${account}::uuid`;
/** Global contexts of the tenant and account, as `d`. */
const gcSelect = (tenant: string, account: string): Sql =>
  sql`SELECT ${DOCUMENT_COLUMNS} FROM ai_global_context d WHERE d.tenant_id = ${tenant}::uuid AND d.cloud_account_id = ${account}::uuid`;

export async function ai_list_kb(args: Args, ctx: ActionContext) {
  const { tenant, account } = await accountScope(ctx, requestOf(args));
  const rows = await query(ctx.db, sql`${kbSelect(tenant, account)} ORDER BY d.name, d.id`);
  return { data: rows.map(kbOf), errors: null };
}

export async function ai_get_kb(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const { tenant, account } = await accountScope(ctx, req);
  const id = uuidArg(req.id, 'request.id');
  const [row] = await query(ctx.db, sql`${kbSelect(tenant, account)} AND d.id = ${id}::uuid`);
  return row ? { data: kbOf(row), errors: null } : { data: null, errors: [notFound('knowledge base', id)] };
}

export async function ai_list_gc(args: Args, ctx: ActionContext) {
  const { tenant, account } = await accountScope(ctx, requestOf(args));
  const rows = await query(ctx.db, sql`${gcSelect(tenant, account)} ORDER BY d.name, d.id`);
  return { data: rows.map(documentOf), errors: null };
}

export async function ai_get_gc(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const { tenant, account } = await accountScope(ctx, req);
  const id = uuidArg(req.id, 'request.id');
  const [row] = await query(ctx.db, sql`${gcSelect(tenant, account)} AND d.id = ${id}::uuid`);
  return row ? { data: documentOf(row), errors: null } : { data: null, errors: [notFound('global context', id)] };
}
