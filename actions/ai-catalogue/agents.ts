import type { ActionContext } from '../context';
import { query, sql, uuidArg, type Row, type Sql } from '../api';
import { accountScope, json, notFound, num, requestOf, ts, type Args, type Scope } from './common';

/**
 * Agents of the request's account (ai_agent) and their mapping to its knowledge bases (ai_agent_kb).
 * The reference leaves `data` as jsonb; the shapes (README, "AI catalogue"):
 * - ai_list_agents: {agents: [Agent], total}; Agent = {id, tenant_id, account_id, name, description,
 *   agent_type, system_prompt, enabled, tools: [tool name], created_by, updated_by, created_at, updated_at};
 * - ai_list_agents_with_kb_counts: {agents: [Agent + kb_count], total};
 * - ai_list_agent_kbs: {agent_id, knowledge_bases: [KbSummary], total}, KbSummary being a knowledge base
 *   without its text: {id, name, description, kb_type, kb_source, status, data_filename, data_format,
 *   data_size_bytes, mapped_at};
 * - ai_list_kb_agents: {kb_id, agents: [Agent + mapped_at], total};
 * - ai_list_kb_agent_mappings: {mappings: [{agent_id, agent_name, kb_id, kb_name, created_by, created_at}], total}.
 * Agents come by name, knowledge bases by name, mappings by agent then knowledge-base name.
 */

const AGENT_COLUMNS = sql`a.id::text AS id, a.tenant_id::text AS tenant_id, a.cloud_account_id::text AS account_id, a.name, a.description,
  a.agent_type, a.system_prompt, a.enabled, a.created_by, a.updated_by, ${ts('a.created_at')} AS created_at, ${ts('a.updated_at')} AS updated_at,
  (SELECT coalesce(json_agg(t.name ORDER BY t.name), '[]')::text FROM ai_agent_tool at JOIN ai_tool t ON t.id = at.tool_id
    WHERE at.agent_id = a.id AND at.tenant_id = a.tenant_id) AS tools`;

/** Agents `a` of the tenant and account. */
const agentScope = ({ tenant, account }: Scope): Sql =>
  sql`a.tenant_id = ${tenant}::uuid AND a.cloud_account_id = ${account}::uuid`;

function agentOf(r: Row) {
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    account_id: r.account_id,
    name: r.name,
    description: r.description,
    agent_type: r.agent_type,
    system_prompt: r.system_prompt,
    enabled: r.enabled === true || r.enabled === 't',
    tools: json(r.tools) ?? [],
    created_by: r.created_by,
    updated_by: r.updated_by,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export async function ai_list_agents(args: Args, ctx: ActionContext) {
  const scope = await accountScope(ctx, requestOf(args));
  const rows = await query(
    ctx.db,
    sql`SELECT ${AGENT_COLUMNS} FROM ai_agent a WHERE ${agentScope(scope)} ORDER BY a.name, a.id`,
  );
  return { data: { agents: rows.map(agentOf), total: rows.length } };
}

export async function ai_list_agents_with_kb_counts(args: Args, ctx: ActionContext) {
  const scope = await accountScope(ctx, requestOf(args));
  // Only knowledge bases of the same tenant and account count, whatever a mapping row says.
  const rows = await query(
    ctx.db,
    sql`SELECT ${AGENT_COLUMNS}, (SELECT count(*)::int FROM ai_agent_kb m JOIN ai_knowledgebase k ON k.id = m.kb_id
        WHERE m.agent_id = a.id AND m.tenant_id = a.tenant_id AND k.tenant_id = a.tenant_id AND k.cloud_account_id = a.cloud_account_id) AS kb_count
     FROM ai_agent a WHERE ${agentScope(scope)} ORDER BY a.name, a.id`,
  );
  return {
    data: { agents: rows.map((r) => ({ ...agentOf(r), kb_count: num(r.kb_count) })), total: rows.length },
    errors: null,
  };
}

export async function ai_list_agent_kbs(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const scope = await accountScope(ctx, req);
  const { tenant, account } = scope;
  const agentId = uuidArg(req.agent_id, 'request.agent_id');
  const agent = await query(
    ctx.db,
    sql`SELECT 1 FROM ai_agent a WHERE ${agentScope(scope)} AND a.id = ${agentId}::uuid`,
  );
  if (!agent.length) return { data: null, errors: [notFound('agent', agentId)] };
  const rows = await query(
    ctx.db,
    sql`SELECT k.id::text AS id, k.name, k.description, k.kb_type, k.kb_source, k.status, k.data_filename, k.data_format, k.data_size_bytes,
       ${ts('m.created_at')} AS mapped_at
     FROM ai_agent_kb m JOIN ai_knowledgebase k ON k.id = m.kb_id
     WHERE m.agent_id = ${agentId}::uuid AND m.tenant_id = ${tenant}::uuid AND k.tenant_id = ${tenant}::uuid AND k.cloud_account_id = ${account}::uuid
     ORDER BY k.name, k.id`,
  );
  const kbs = rows.map((r) => ({ ...r, data_size_bytes: num(r.data_size_bytes) }));
  return { data: { agent_id: agentId, knowledge_bases: kbs, total: kbs.length }, errors: null };
}

export async function ai_list_kb_agents(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const scope = await accountScope(ctx, req);
  const { tenant, account } = scope;
  const kbId = uuidArg(req.kb_id, 'request.kb_id');
  const kb = await query(
    ctx.db,
    sql`SELECT 1 FROM ai_knowledgebase WHERE tenant_id = ${tenant}::uuid AND cloud_account_id = ${account}::uuid AND id = ${kbId}::uuid`,
  );
  if (!kb.length) return { data: null, errors: [notFound('knowledge base', kbId)] };
  const rows = await query(
    ctx.db,
    sql`SELECT ${AGENT_COLUMNS}, ${ts('m.created_at')} AS mapped_at FROM ai_agent_kb m JOIN ai_agent a ON a.id = m.agent_id
     WHERE ${agentScope(scope)} AND m.tenant_id = ${tenant}::uuid AND m.kb_id = ${kbId}::uuid ORDER BY a.name, a.id`,
  );
  return {
    data: { kb_id: kbId, agents: rows.map((r) => ({ ...agentOf(r), mapped_at: r.mapped_at })), total: rows.length },
    errors: null,
  };
}

export async function ai_list_kb_agent_mappings(args: Args, ctx: ActionContext) {
  const scope = await accountScope(ctx, requestOf(args));
  const { tenant, account } = scope;
  const rows = await query(
    ctx.db,
    sql`SELECT a.id::text AS agent_id, a.name AS agent_name, k.id::text AS kb_id, k.name AS kb_name, m.created_by, ${ts('m.created_at')} AS created_at
     FROM ai_agent_kb m JOIN ai_agent a ON a.id = m.agent_id JOIN ai_knowledgebase k ON k.id = m.kb_id
     WHERE ${agentScope(scope)} AND m.tenant_id = ${tenant}::uuid AND k.tenant_id = ${tenant}::uuid AND k.cloud_account_id = ${account}::uuid
     ORDER BY a.name, k.name, a.id, k.id`,
  );
  return { data: { mappings: rows, total: rows.length }, errors: null };
}
