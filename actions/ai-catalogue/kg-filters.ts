import type { ActionContext } from '../context';
import { query, RequestError, sql, tenantAccount, tenantOf, uuidArg, type Sql } from '../api';
import { json, type Args } from './common';

/**
 * Filters of the knowledge-graph view, from the tenant's active nodes (knowledge_graph_node,
 * is_active): label keys are the keys of `labels`, attribute keys those of `query_attributes` (the
 * attributes a node can be queried by; the values of kg_get_filter_values come from the same nodes, so
 * every key offered has values: a key that is JSON null wherever it appears is not offered).
 * last_sync_time is the latest of the accounts' sync records (knowledge_graph_metadata.last_sync_at)
 * and their nodes' updated_at, in UTC with a Z.
 *
 * kg_get_filter_options(request: {account_ids?: [uuid], node_types?: [String]}) narrows to those
 * accounts (each one of the tenant's) and node types. kg_get_filter_values answers the distinct
 * values of one filter: filter_type "label" or "attribute" (filter_key names the key), "node_type" or
 * "account" (filter_key is then only echoed); sorted by code point, at most MAX_VALUES.
 */

export const MAX_VALUES = 1000;

/** A jsonb object column (named by code), or an empty object when a row holds anything else (keys of it only). */
const objectOf = (column: string): Sql =>
  sql.text(`CASE WHEN jsonb_typeof(${column}) = 'object' THEN ${column} ELSE '{}'::jsonb END`);

/**
 * The keys of a jsonb object column over the nodes `n` that hold a value: a key that is JSON null on
 * every node has no value for kg_get_filter_values (->> gives SQL NULL), so it is not offered.
 */
const keysWithValues = (column: string): Sql =>
  sql`SELECT DISTINCT e.key AS v FROM n, jsonb_each(${objectOf(`n.${column}`)}) e WHERE jsonb_typeof(e.value) <> 'null'`;

/** A list of strings in the options request, or undefined. */
function stringList(req: Args, key: string): string[] | undefined {
  const v = req[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
    throw new RequestError('validation-failed', `request.${key} must be a list of strings`, `$.request.${key}`);
  return v as string[];
}

/** The options request (jsonb, optional): only account_ids and node_types are known. */
function optionsRequest(args: Args): { accounts?: string[]; nodeTypes?: string[] } {
  const req = args.request ?? {};
  if (typeof req !== 'object' || Array.isArray(req))
    throw new RequestError('validation-failed', 'request must be an object', '$.request');
  const unknown = Object.keys(req as Args).filter((k) => k !== 'account_ids' && k !== 'node_types');
  if (unknown.length)
    throw new RequestError(
      'validation-failed',
      `unknown request field ${unknown[0]}; allowed: account_ids, node_types`,
      `$.request.${unknown[0]}`,
    );
  const accounts = stringList(req as Args, 'account_ids')?.map((a, i) => uuidArg(a, `request.account_ids[${i}]`));
  return { accounts, nodeTypes: stringList(req as Args, 'node_types') };
}

/** Each account must be one of the tenant's, or the request is refused (as an account_id elsewhere): the first that is not. */
async function checkAccounts(ctx: ActionContext, tenant: string, accounts: string[]): Promise<void> {
  for (const [i, account] of accounts.entries())
    await tenantAccount(ctx.db, tenant, account, `request.account_ids[${i}]`);
}

/** Sorted, distinct text values of a subquery's column `v`, as a JSON array text. */
const sortedArray = (subquery: Sql): Sql =>
  sql`(SELECT coalesce(json_agg(v ORDER BY v COLLATE "C"), '[]')::text FROM (${subquery}) s)`;

export async function kg_get_filter_options(args: Args, ctx: ActionContext) {
  const tenant = tenantOf(ctx).toLowerCase();
  const { accounts, nodeTypes } = optionsRequest(args);
  if (accounts) await checkAccounts(ctx, tenant, accounts);
  // The tenant and the accounts: of the nodes and of the sync records. An empty list narrows to
  // nothing (= ANY of an empty array is false).
  const scope = [sql`tenant_id = ${tenant}::uuid`];
  if (accounts) scope.push(sql`cloud_account_id = ANY(${accounts}::uuid[])`);
  const metaWhere = sql.join(scope, ' AND ');
  const nodeWhere = nodeTypes ? sql.join([...scope, sql`node_type = ANY(${nodeTypes}::text[])`], ' AND ') : metaWhere;
  const [row] = await query(
    ctx.db,
    sql`WITH n AS (SELECT * FROM knowledge_graph_node WHERE is_active AND ${nodeWhere})
     SELECT ${sortedArray(sql`SELECT DISTINCT cloud_account_id::text AS v FROM n`)} AS account_ids,
       ${sortedArray(keysWithValues('labels'))} AS label_keys,
       ${sortedArray(keysWithValues('query_attributes'))} AS attribute_keys,
       ${sortedArray(sql`SELECT DISTINCT node_type AS v FROM n WHERE node_type IS NOT NULL`)} AS node_types,
       (to_json(GREATEST((SELECT max(updated_at) FROM n), (SELECT max(last_sync_at) FROM knowledge_graph_metadata WHERE ${metaWhere}))) #>> '{}') AS last_sync`,
  );
  return {
    data: {
      account_ids: json(row.account_ids),
      attribute_keys: json(row.attribute_keys),
      label_keys: json(row.label_keys),
      last_sync_time: row.last_sync ? `${row.last_sync}Z` : null,
      node_types: json(row.node_types),
    },
  };
}

/** The value expression of each filter type; label and attribute read the key. */
const VALUE_OF: Record<string, (key: string) => Sql> = {
  label: (key) => sql`labels ->> ${key}::text`,
  attribute: (key) => sql`query_attributes ->> ${key}::text`,
  node_type: () => sql`node_type`,
  account: () => sql`cloud_account_id::text`,
};

export async function kg_get_filter_values(args: Args, ctx: ActionContext) {
  const tenant = tenantOf(ctx).toLowerCase();
  const req = (args.request ?? {}) as Args;
  const type = req.filter_type;
  const key = req.filter_key;
  if (typeof type !== 'string' || !Object.hasOwn(VALUE_OF, type)) {
    throw new RequestError(
      'validation-failed',
      `unknown filter_type ${JSON.stringify(type)}; allowed: ${Object.keys(VALUE_OF).join(', ')}`,
      '$.request.filter_type',
    );
  }
  if (typeof key !== 'string' || ((type === 'label' || type === 'attribute') && key === '')) {
    throw new RequestError('validation-failed', `request.filter_key must name the ${type} key`, '$.request.filter_key');
  }
  // Only label and attribute bind the key: an unused parameter would have no type.
  const value = VALUE_OF[type]!(key);
  const [row] = await query(
    ctx.db,
    sql`SELECT ${sortedArray(sql`SELECT DISTINCT (${value}) COLLATE "C" AS v FROM knowledge_graph_node
        WHERE tenant_id = ${tenant}::uuid AND is_active AND (${value}) IS NOT NULL ORDER BY 1 LIMIT ${MAX_VALUES}::int`)} AS vals`,
  );
  return { data: { filter_key: key, filter_type: type, values: json(row.vals) } };
}
