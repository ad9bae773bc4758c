import type { ActionContext } from '../context';
import { query, sql } from '../api';
import { accountScope, json, requestOf, type Args } from './common';

/**
 * Tools agents may call (ai_tool): the platform's and the account's own, by name.
 * data: {tools: [{id, name, description, input_schema, scope: "platform" | "account", enabled,
 * agents: [{id, name}]}], total}; `agents` are the account's agents that use the tool.
 */
export async function ai_list_tools(args: Args, ctx: ActionContext) {
  const { tenant, account } = await accountScope(ctx, requestOf(args));
  const rows = await query(
    ctx.db,
    sql`SELECT t.id::text AS id, t.name, t.description, t.input_schema::text AS input_schema, t.enabled,
       CASE WHEN t.tenant_id IS NULL THEN 'platform' ELSE 'account' END AS scope,
       (SELECT coalesce(json_agg(json_build_object('id', a.id::text, 'name', a.name) ORDER BY a.name, a.id), '[]')::text
          FROM ai_agent_tool at JOIN ai_agent a ON a.id = at.agent_id
          WHERE at.tool_id = t.id AND at.tenant_id = ${tenant}::uuid AND a.tenant_id = ${tenant}::uuid AND a.cloud_account_id = ${account}::uuid) AS agents
     FROM ai_tool t
     WHERE t.tenant_id IS NULL OR (t.tenant_id = ${tenant}::uuid AND t.cloud_account_id = ${account}::uuid)
     ORDER BY t.name, (t.tenant_id IS NULL), t.id`,
  );
  const tools = rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    input_schema: json(r.input_schema),
    scope: r.scope,
    enabled: r.enabled === true,
    agents: json(r.agents) ?? [],
  }));
  return { data: { tools, total: tools.length }, errors: null };
}
