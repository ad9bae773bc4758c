import type { ActionContext } from '../context';
import { accountScope, optUuid, pageOf, Params, requestOf, ts, type Args } from './common';

/**
 * What the assistant remembered (ai_memory) and cited (ai_reference) in the request's account, as
 * AIMemoryResponse / AIReferenceResponse: newest first (created_at, then id), paged by limit (default
 * 50, at most 200) and offset, filtered by conversation_id, message_id and (references) agent_id, each
 * a uuid when given.
 */

/** The WHERE clause shared by both lists: tenant, account, then the optional filters. */
async function filtered(ctx: ActionContext, req: Args, filters: string[]): Promise<{ where: string; params: Params }> {
  const { tenant, account } = await accountScope(ctx, req);
  const p = new Params();
  const conds = [`x.tenant_id = ${p.add(tenant)}::uuid`, `x.cloud_account_id = ${p.add(account)}::uuid`];
  for (const key of filters) {
    const id = optUuid(req, key);
    if (id !== undefined) conds.push(`x.${key} = ${p.add(id)}::uuid`);
  }
  return { where: conds.join(' AND '), params: p };
}

export async function ai_list_memory(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const { limit, offset } = pageOf(req);
  const { where, params } = await filtered(ctx, req, ['conversation_id', 'message_id']);
  const rows = await ctx.db.query(
    `SELECT x.id::text AS id, x.cloud_account_id::text AS account_id, x.conversation_id::text AS conversation_id, x.message_id::text AS message_id,
       x.memory_type, x.content, ${ts('x.created_at')} AS created_at
     FROM ai_memory x WHERE ${where} ORDER BY x.created_at DESC, x.id DESC LIMIT ${limit} OFFSET ${offset}`,
    params.values,
  );
  return { data: rows, errors: null };
}

export async function ai_list_references(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const { limit, offset } = pageOf(req);
  const { where, params } = await filtered(ctx, req, ['conversation_id', 'message_id', 'agent_id']);
  const rows = await ctx.db.query(
    `SELECT x.id::text AS id, x.cloud_account_id::text AS account_id, x.agent_id::text AS agent_id, x.conversation_id::text AS conversation_id,
       x.message_id::text AS message_id, x.reference_id, x.type, x.content, ${ts('x.created_at')} AS created_at
     FROM ai_reference x WHERE ${where} ORDER BY x.created_at DESC, x.id DESC LIMIT ${limit} OFFSET ${offset}`,
    params.values,
  );
  return { data: rows, errors: null };
}
