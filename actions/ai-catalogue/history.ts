import type { ActionContext } from '../context';
import { query, sql, type Sql } from '../api';
import { accountScope, optUuid, pageOf, requestOf, ts, type Args } from './common';

/**
 * What the assistant remembered (ai_memory) and cited (ai_reference) in the request's account, as
 * AIMemoryResponse / AIReferenceResponse: newest first (created_at, then id), paged by limit (default
 * 50, at most 200) and offset, filtered by conversation_id, message_id and (references) agent_id, each
 * a uuid when given.
 */

/** The conditions shared by both lists: tenant, account, then the optional filters (columns of `x`). */
async function filtered(ctx: ActionContext, req: Args, filters: string[]): Promise<Sql> {
  const { tenant, account } = await accountScope(ctx, req);
  const conds = [sql`x.tenant_id = ${tenant}::uuid`, sql`x.cloud_account_id = ${account}::uuid`];
  for (const key of filters) {
    const id = optUuid(req, key);
    if (id !== undefined) conds.push(sql`x.${sql.ident(key)} = ${id}::uuid`);
  }
  return sql.join(conds, ' AND ');
}

export async function ai_list_memory(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const { limit, offset } = pageOf(req);
  const where = await filtered(ctx, req, ['conversation_id', 'message_id']);
  const rows = await query(
    ctx.db,
    sql`SELECT x.id::text AS id, x.cloud_account_id::text AS account_id, x.conversation_id::text AS conversation_id, x.message_id::text AS message_id,
       x.memory_type, x.content, ${ts('x.created_at')} AS created_at
     FROM ai_memory x WHERE ${where} ORDER BY x.created_at DESC, x.id DESC LIMIT ${limit}::int OFFSET ${offset}::int`,
  );
  return { data: rows, errors: null };
}

export async function ai_list_references(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const { limit, offset } = pageOf(req);
  const where = await filtered(ctx, req, ['conversation_id', 'message_id', 'agent_id']);
  const rows = await query(
    ctx.db,
    sql`SELECT x.id::text AS id, x.cloud_account_id::text AS account_id, x.agent_id::text AS agent_id, x.conversation_id::text AS conversation_id,
       x.message_id::text AS message_id, x.reference_id, x.type, x.content, ${ts('x.created_at')} AS created_at
     FROM ai_reference x WHERE ${where} ORDER BY x.created_at DESC, x.id DESC LIMIT ${limit}::int OFFSET ${offset}::int`,
  );
  return { data: rows, errors: null };
}
