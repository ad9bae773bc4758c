import type { Dataset, Field } from './dataset';
import { invalid, unknownName } from './errors';
import { Params } from './params';
import { parseTransformations, type TransformationRequest } from './transformations';
import { whereSql } from './where';

/**
 * The one analytic query builder: a dataset definition and a request become one SQL statement with
 * $n parameters ($1 is the session's tenant, compared inside the statement, never taken from the
 * request).
 *
 * - Plain datasets return one row per source row; `columns` names the row fields (or transformations)
 *   returned, by default those the GraphQL selection asks for (all fields without a selection).
 * - Grouping datasets return one row per group. `group_by` names row fields or transformations;
 *   without it the rows are grouped by the non-aggregate columns asked for. With it, every
 *   non-aggregate column must be one of the groups (except `constant` fields such as tenant_id).
 *   Without any group, the aggregates cover all rows. A `groupable` plain dataset given group_by
 *   returns the distinct combinations of its columns.
 * - `where` (where.ts) filters the source rows, before grouping; the dataset's `filter` always applies.
 * - `order_by: [{column, order}]` names a returned column, a row field (a group, when grouping), a
 *   transformation or an aggregate; orders are asc, desc and their nulls_first/nulls_last forms.
 *   Ties are broken by the returned columns, in order, ascending, so pages are stable.
 * - `limit` is at most MAX_ROWS (its default); `offset` needs `order_by`.
 */
export interface AnalyticRequest {
  columns?: readonly (string | null)[] | null;
  group_by?: readonly (string | null)[] | null;
  column_transformations?: readonly TransformationRequest[] | null;
  order_by?: readonly ({ column: string; order?: string | null } | null)[] | null;
  where?: unknown;
  limit?: number | null;
  offset?: number | null;
}

export const MAX_ROWS = 10000;

export const SORT_ORDERS: Record<string, string> = {
  asc: 'ASC',
  asc_nulls_first: 'ASC NULLS FIRST',
  asc_nulls_last: 'ASC NULLS LAST',
  desc: 'DESC',
  desc_nulls_first: 'DESC NULLS FIRST',
  desc_nulls_last: 'DESC NULLS LAST',
};

export interface BuiltQuery {
  text: string;
  params: (string | null)[];
  /** The returned columns, in the order of the statement's c0, c1, ... */
  columns: string[];
}

type Resolved = Field & { name: string; aggregate: boolean };

export function buildQuery(
  ds: Dataset,
  req: AnalyticRequest,
  tenant: string,
  selected?: readonly string[],
): BuiltQuery {
  const params = new Params();
  params.bind(tenant, ds.tenant.cast);
  const grouping = !!ds.aggregates || (!!ds.groupable && !!req.group_by);
  const aggregates = ds.aggregates ?? {};
  const transforms = parseTransformations(ds, req.column_transformations, params);
  const known = () => [...Object.keys(ds.fields), ...transforms.keys(), ...Object.keys(aggregates)];
  const lookup = (name: string): Resolved | undefined => {
    const t = transforms.get(name);
    if (t) return { sql: t.sql(), type: t.type, name, aggregate: false };
    const f = ds.fields[name];
    if (f) return { ...f, name, aggregate: false };
    const a = ds.aggregates?.[name];
    if (a) return { ...a, name, aggregate: true };
    return undefined;
  };
  const resolve = (name: unknown, what: string, path: string): Resolved => {
    const r = typeof name === 'string' ? lookup(name) : undefined;
    if (!r) throw unknownName(`${what} of ${ds.name}`, name, known(), path);
    return r;
  };

  // group_by
  let groups: Resolved[] | undefined;
  if (req.group_by) {
    if (!grouping) throw invalid(`${ds.name} does not group rows; group_by is not accepted`, '$.group_by');
    groups = req.group_by.map((g, i) => {
      const r = resolve(g, 'group_by column', `$.group_by[${i}]`);
      if (r.aggregate)
        throw invalid(
          `cannot group by the aggregate ${r.name}; group by row fields (${Object.keys(ds.fields).join(', ')}) or transformations`,
          `$.group_by[${i}]`,
        );
      return r;
    });
  }

  // columns
  let columns: Resolved[];
  if (req.columns) {
    columns = req.columns.map((c, i) => resolve(c, 'column', `$.columns[${i}]`));
  } else if (selected) {
    columns = selected.map(lookup).filter((r): r is Resolved => !!r);
  } else if (grouping) {
    columns = [...(groups ?? []), ...Object.keys(aggregates).map((n) => lookup(n)!)];
  } else {
    columns = Object.keys(ds.fields).map((n) => lookup(n)!);
  }
  columns = columns.filter((c, i) => columns.findIndex((o) => o.name === c.name) === i);
  if (grouping) {
    const plain = columns.filter((c) => !c.aggregate);
    if (groups) {
      for (const c of plain) {
        if (c.constant && !groups.some((g) => g.name === c.name)) groups.push(c);
        if (!groups.some((g) => g.name === c.name)) {
          const i = req.columns ? req.columns.indexOf(c.name) : -1;
          throw invalid(
            `column ${c.name} is neither in group_by (${groups.map((g) => g.name).join(', ') || 'empty'}) nor an aggregate (${Object.keys(aggregates).join(', ')})`,
            i >= 0 ? `$.columns[${i}]` : '$.group_by',
          );
        }
      }
    } else groups = plain;
  } else if (columns.some((c) => c.aggregate)) throw invalid('aggregates need a grouping operation', '$.columns');

  const where = whereSql(ds, req.where, params);

  // order_by
  const order: string[] = [];
  (req.order_by ?? []).forEach((o, i) => {
    const path = `$.order_by[${i}]`;
    if (!o) return;
    const r = resolve(o.column, 'order_by column', `${path}.column`);
    if (grouping && !r.aggregate && !groups!.some((g) => g.name === r.name)) {
      throw invalid(
        `cannot order by ${r.name}: it is neither a group (${groups!.map((g) => g.name).join(', ') || 'none'}) nor an aggregate`,
        `${path}.column`,
      );
    }
    const dir = SORT_ORDERS[o.order ?? 'asc'];
    if (!dir) throw unknownName('sort order', o.order, Object.keys(SORT_ORDERS), `${path}.order`);
    order.push(`${r.sql} ${dir}`);
  });
  const ordered = order.length > 0;
  for (const c of columns) order.push(`${c.sql} ASC NULLS LAST`);

  const limit = req.limit ?? MAX_ROWS;
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_ROWS)
    throw invalid(`limit must be an integer from 0 to ${MAX_ROWS}`, '$.limit');
  const offset = req.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw invalid('offset must be a non-negative integer', '$.offset');
  if (req.offset !== null && req.offset !== undefined && !ordered)
    throw invalid('"offset" can only be used together with "order_by"', '$.offset');

  const select = columns.length ? columns.map((c, i) => `to_json(${c.sql})::text AS c${i}`).join(', ') : 'NULL AS c';
  let text = `SELECT ${select} FROM ${ds.from} WHERE ${ds.tenant.sql} = $1::${ds.tenant.cast}${ds.filter ? ` AND (${ds.filter})` : ''} AND ${where}`;
  if (grouping && groups!.length) text += ` GROUP BY ${groups!.map((g) => g.sql).join(', ')}`;
  if (order.length) text += ` ORDER BY ${order.join(', ')}`;
  text += ` LIMIT ${limit}`;
  if (offset) text += ` OFFSET ${offset}`;
  return { text, params: params.values, columns: columns.map((c) => c.name) };
}

/** The rows of a built query, as objects of the returned columns. */
export function rowsOf(built: BuiltQuery, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map((row) =>
    Object.fromEntries(
      built.columns.map((name, i) => {
        const text = row[`c${i}`];
        return [name, text === null || text === undefined ? null : JSON.parse(String(text))];
      }),
    ),
  );
}
