import type { ActionContext } from '../context';
import { RequestError } from '../api';
import { tenantOf, uuidArg } from '../api';
import { json, Params, type Args } from './common';

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

/** A jsonb object column, or an empty object when a row holds anything else (keys of it only). */
const objectOf = (column: string) => `CASE WHEN jsonb_typeof(${column}) = 'object' THEN ${column} ELSE '{}'::jsonb END`;

/**
 * The keys of a jsonb object column over the nodes `n` that hold a value: a key that is JSON null on
 * every node has no value for kg_get_filter_values (->> gives SQL NULL), so it is not offered.
 */
const keysWithValues = (column: string) =>
  `SELECT DISTINCT e.key AS v FROM n, jsonb_each(${objectOf(`n.${column}`)}) e WHERE jsonb_typeof(e.value) <> 'null'`;

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

/** Each account must be one of the tenant's, or the request is refused (as an account_id elsewhere). */
async function checkAccounts(ctx: ActionContext, tenant: string, accounts: string[]): Promise<void> {
  if (!accounts.length) return;
  const p = new Params();
  const rows = await ctx.db.query(
    `SELECT id::text AS id FROM cloud_accounts WHERE tenant = ${p.add(tenant)}::uuid AND id IN (${inList(p, accounts, 'uuid')})`,
    p.values,
  );
  const owned = new Set(rows.map((r) => r.id));
  const i = accounts.findIndex((a) => !owned.has(a));
  if (i >= 0)
    throw new RequestError(
      'validation-failed',
      `request.account_ids[${i}] is not a cloud account of your tenant`,
      `$.request.account_ids[${i}]`,
    );
}

/** Placeholders of a list of values, for IN (...). */
const inList = (p: Params, values: string[], type: string): string =>
  values.map((v) => `${p.add(v)}::${type}`).join(', ');

/** Sorted, distinct text values of a subquery's column `v`, as a JSON array text. */
const sortedArray = (subquery: string) =>
  `(SELECT coalesce(json_agg(v ORDER BY v COLLATE "C"), '[]')::text FROM (${subquery}) s)`;

export async function kg_get_filter_options(args: Args, ctx: ActionContext) {
  const tenant = tenantOf(ctx).toLowerCase();
  const { accounts, nodeTypes } = optionsRequest(args);
  if (accounts) await checkAccounts(ctx, tenant, accounts);
  const p = new Params();
  const conds = [`tenant_id = ${p.add(tenant)}::uuid`];
  // An empty list narrows to nothing, as IN () would if SQL allowed it.
  if (accounts) conds.push(accounts.length ? `cloud_account_id IN (${inList(p, accounts, 'uuid')})` : 'false');
  const metaWhere = conds.join(' AND ');
  if (nodeTypes) conds.push(nodeTypes.length ? `node_type IN (${inList(p, nodeTypes, 'text')})` : 'false');
  const [row] = await ctx.db.query(
    `WITH n AS (SELECT * FROM knowledge_graph_node WHERE is_active AND ${conds.join(' AND ')})
     SELECT ${sortedArray('SELECT DISTINCT cloud_account_id::text AS v FROM n')} AS account_ids,
       ${sortedArray(keysWithValues('labels'))} AS label_keys,
       ${sortedArray(keysWithValues('query_attributes'))} AS attribute_keys,
       ${sortedArray('SELECT DISTINCT node_type AS v FROM n WHERE node_type IS NOT NULL')} AS node_types,
       (to_json(GREATEST((SELECT max(updated_at) FROM n), (SELECT max(last_sync_at) FROM knowledge_graph_metadata WHERE ${metaWhere}))) #>> '{}') AS last_sync`,
    p.values,
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

/** The value expression of each filter type; label and attribute read the key from $2. */
const VALUE_OF: Record<string, string> = {
  label: `labels ->> $2::text`,
  attribute: `query_attributes ->> $2::text`,
  node_type: 'node_type',
  account: 'cloud_account_id::text',
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
  // Only label and attribute read the key ($2): an unused parameter would have no type.
  const keyed = type === 'label' || type === 'attribute';
  const [row] = await ctx.db.query(
    `SELECT ${sortedArray(`SELECT DISTINCT (${VALUE_OF[type]}) COLLATE "C" AS v FROM knowledge_graph_node
        WHERE tenant_id = $1::uuid AND is_active AND (${VALUE_OF[type]}) IS NOT NULL ORDER BY 1 LIMIT ${MAX_VALUES}`)} AS vals`,
    keyed ? [tenant, key] : [tenant],
  );
  return { data: { filter_key: key, filter_type: type, values: json(row.vals) } };
}
