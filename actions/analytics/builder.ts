import {
  render,
  sql,
  TextRowsWriter,
  type JsonKind,
  type JsonRows,
  type Sql,
  type Statement,
  type TextForm,
} from '../api';
import { definitionSql, type Dataset, type FieldType } from './dataset';
import { invalid, unknownName } from './errors';
import { slot, TENANT } from './slots';
import { parseTransformations, type Transformation, type TransformationRequest } from './transformations';
import { whereSql } from './where';

/**
 * The one analytic query builder: a dataset definition and a request become one SQL statement (an
 * `Sql` fragment: every value bound) that compares the dataset's tenant column with the session's
 * tenant, never one taken from the request.
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
 * - The transformations the statement uses are computed once per row, in a LATERAL subquery named
 *   `transformed`, so that their values (bound once) are the same expression wherever they are used.
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

export interface BuiltQuery extends Statement {
  /** The statement, for `query`; `text` and `params` are its rendering. */
  fragment: Sql;
  /**
   * The writer of the rows' JSON from the returned columns' texts (c0, c1, ...: rowsAnswer); its
   * `columns` are theirs, in order. Made once per statement.
   */
  writer: TextRowsWriter;
  /** Whether the request gave an order (which `offset` needs). */
  ordered: boolean;
  /** The most rows to answer: the statement may return more (its LIMIT is rounded up), rowsOf cuts them. */
  limit: number;
}

/** A name of a request resolved: a row field, a transformation or an aggregate, with its SQL. */
interface Resolved {
  /** The name resolved: one name is one expression, so equal names are equal SQL. */
  name: string;
  type: FieldType;
  constant?: boolean;
  /** Returned as its text (Field.text). */
  text?: boolean;
  /** The uuid column whose text it is (uuidText). */
  uuid?: string;
  aggregate: boolean;
  sql: Sql;
}

export function buildQuery(
  ds: Dataset,
  req: AnalyticRequest,
  tenant: string,
  selected?: readonly string[],
): BuiltQuery {
  const tenantValue = sql`${slot(tenant, TENANT)}::${sql.text(ds.tenant.cast)}`;
  const names = new Names(ds, parseTransformations(ds, req.column_transformations, tenantValue), tenantValue);
  const grouping = !!ds.aggregates || (!!ds.groupable && !!req.group_by);
  const requested = requestedGroups(ds, req, grouping, names);
  const columns = returnedColumns(ds, req, grouping, requested, names, selected);
  const groups = grouping ? groupsOf(ds, req, columns, requested) : undefined;
  const where = whereSql(ds, req.where);
  const order = orderOf(req, groups, columns, names);
  // Aggregates without groups are one row: nothing to order or cut, but for an offset or a limit of 0.
  const oneRow = groups?.length === 0;
  const page = pageOf(req, order.ordered, oneRow);
  // After every name is resolved: the LATERAL subquery holds the transformations used.
  const from = sql`${definitionSql(ds.from, tenantValue)}${names.lateral()}`;
  const filter = ds.filter ? sql` AND (${sql.text(ds.filter)})` : EMPTY;
  const rows = sql`FROM ${from} WHERE ${sql.text(ds.tenant.sql)} = ${tenantValue}${filter} AND ${where}${groupBy(groups)}`;
  const fragment = pagedRows(columns, order.keys, rows, page.inner, groups);
  const writer = new TextRowsWriter(
    columns.map((c) => ({ key: c.name, kind: returnedOf(c).kind, nullable: true })),
    columns.map((_, i) => `c${i}`),
    columns.map((c) => returnedOf(c).form),
  );
  return {
    ...render(fragment),
    fragment,
    writer,
    ordered: order.ordered,
    limit: page.limit,
  };
}

const EMPTY = sql.text('');

/** The names a request may use, resolved; the transformations used are collected for the LATERAL subquery. */
class Names {
  private readonly used: Sql[] = [];
  private readonly aliases = new Map<string, Sql>();

  constructor(
    readonly ds: Dataset,
    private readonly transforms: Map<string, Transformation>,
    private readonly tenant: Sql,
  ) {}

  lookup(name: string): Resolved | undefined {
    const t = this.transforms.get(name);
    if (t) return { sql: this.transformed(name, t), type: t.type, name, aggregate: false };
    const f = this.ds.fields[name];
    if (f) return { ...f, sql: definitionSql(f.sql, this.tenant), name, aggregate: false };
    const a = this.ds.aggregates?.[name];
    if (a) return { ...a, sql: definitionSql(a.sql, this.tenant), name, aggregate: true };
    return undefined;
  }

  resolve(name: unknown, what: string, path: string): Resolved {
    const r = typeof name === 'string' ? this.lookup(name) : undefined;
    if (!r) throw unknownName(`${what} of ${this.ds.name}`, name, this.known(), path);
    return r;
  }

  /** `, LATERAL (SELECT <transformation> AS t0, ...) AS transformed`, or nothing without transformations. */
  lateral(): Sql {
    return this.used.length ? sql`, LATERAL (SELECT ${sql.join(this.used, ', ')}) AS transformed` : EMPTY;
  }

  private transformed(name: string, t: Transformation): Sql {
    let ref = this.aliases.get(name);
    if (!ref) {
      const alias = sql.ident(`t${this.aliases.size}`);
      this.used.push(sql`${t.sql} AS ${alias}`);
      ref = sql`transformed.${alias}`;
      this.aliases.set(name, ref);
    }
    return ref;
  }

  private known(): string[] {
    return [...Object.keys(this.ds.fields), ...this.transforms.keys(), ...Object.keys(this.ds.aggregates ?? {})];
  }
}

/** The groups `group_by` names (row fields or transformations), undefined without it. */
function requestedGroups(ds: Dataset, req: AnalyticRequest, grouping: boolean, names: Names): Resolved[] | undefined {
  if (!req.group_by) return undefined;
  if (!grouping) throw invalid(`${ds.name} does not group rows; group_by is not accepted`, '$.group_by');
  return req.group_by.map((g, i) => {
    const r = names.resolve(g, 'group_by column', `$.group_by[${i}]`);
    if (r.aggregate)
      throw invalid(
        `cannot group by the aggregate ${r.name}; group by row fields (${Object.keys(ds.fields).join(', ')}) or transformations`,
        `$.group_by[${i}]`,
      );
    return r;
  });
}

/** The returned columns, once each: those asked for, else those selected, else the defaults. */
function returnedColumns(
  ds: Dataset,
  req: AnalyticRequest,
  grouping: boolean,
  groups: Resolved[] | undefined,
  names: Names,
  selected: readonly string[] | undefined,
): Resolved[] {
  const all = (list: string[]) => list.map((n) => names.lookup(n)!);
  let columns: Resolved[];
  if (req.columns) columns = req.columns.map((c, i) => names.resolve(c, 'column', `$.columns[${i}]`));
  else if (selected) columns = selected.map((n) => names.lookup(n)).filter((r): r is Resolved => !!r);
  else if (grouping) columns = [...(groups ?? []), ...all(Object.keys(ds.aggregates ?? {}))];
  else columns = all(Object.keys(ds.fields));
  columns = columns.filter((c, i) => columns.findIndex((o) => o.name === c.name) === i);
  if (!grouping && columns.some((c) => c.aggregate)) throw invalid('aggregates need a grouping operation', '$.columns');
  return columns;
}

/**
 * The groups of a grouping statement: with group_by, its groups plus the constant columns returned
 * (every other non-aggregate column returned must be a group); without, the non-aggregate columns.
 */
function groupsOf(
  ds: Dataset,
  req: AnalyticRequest,
  columns: Resolved[],
  requested: Resolved[] | undefined,
): Resolved[] {
  const plain = columns.filter((c) => !c.aggregate);
  if (!requested) return plain;
  const groups = requested;
  for (const c of plain) {
    if (c.constant && !groups.some((g) => g.name === c.name)) groups.push(c);
    if (!groups.some((g) => g.name === c.name)) {
      const i = req.columns ? req.columns.indexOf(c.name) : -1;
      throw invalid(
        `column ${c.name} is neither in group_by (${groups.map((g) => g.name).join(', ') || 'empty'}) nor an aggregate (${Object.keys(ds.aggregates ?? {}).join(', ')})`,
        i >= 0 ? `$.columns[${i}]` : '$.group_by',
      );
    }
  }
  return groups;
}

/** An ORDER BY key: a requested order, or a returned column as a tie breaker. */
interface OrderKey {
  name: string;
  sql: Sql;
  dir: string;
}

/** The order: the requested orders, then the returned columns as tie breakers (ascending, nulls last). */
function orderOf(
  req: AnalyticRequest,
  groups: Resolved[] | undefined,
  columns: Resolved[],
  names: Names,
): { keys: OrderKey[]; ordered: boolean } {
  const keys: OrderKey[] = [];
  (req.order_by ?? []).forEach((o, i) => {
    const path = `$.order_by[${i}]`;
    if (!o) return;
    const r = names.resolve(o.column, 'order_by column', `${path}.column`);
    if (groups && !r.aggregate && !groups.some((g) => g.name === r.name)) {
      throw invalid(
        `cannot order by ${r.name}: it is neither a group (${groups.map((g) => g.name).join(', ') || 'none'}) nor an aggregate`,
        `${path}.column`,
      );
    }
    const dir = SORT_ORDERS[o.order ?? 'asc'];
    if (!dir) throw unknownName('sort order', o.order, Object.keys(SORT_ORDERS), `${path}.order`);
    keys.push({ name: r.name, sql: r.sql, dir });
  });
  return { keys, ordered: keys.length > 0 };
}

/**
 * The page, checked: `inner` cuts the ordered rows (` LIMIT n[ OFFSET m]`); `limit` is the exact
 * limit, to which rowsOf cuts the rows. The limit is written into the text, rounded up to one of a few
 * forms (roundedLimit): bound, it left a generic plan guessing that 10% of the rows are read, and that
 * plan then preferred reading them in order through an index (a fast start) to a hash aggregate or a
 * top-N sort, up to 2x slower. Rounded, a statement has at most 25 forms, whatever limits clients send
 * (each form is a prepared statement on every connection). The exact limit is not bound in an outer
 * LIMIT either, for the same guess: recommendation_missconfig_v2's generic plan, with `LIMIT $2` over
 * the subquery, read the tenant's recommendations through the created_at index (2.7 ms at scale 100)
 * where its custom plan and the floor's sort the category's 95 rows (0.6 ms). Returning up to the
 * rounded limit costs a few rows' JSON. Offsets, one per page, stay bound.
 */
function pageOf(req: AnalyticRequest, ordered: boolean, oneRow: boolean): { inner: Sql; limit: number } {
  const { limit, offset } = checkedPage(req, ordered);
  if (oneRow && !offset && limit > 0) return { inner: EMPTY, limit };
  const rounded = sql.text(` LIMIT ${roundedLimit(limit)}`);
  return { inner: offset ? sql`${rounded} OFFSET ${slot(offset, '$.offset')}::bigint` : rounded, limit };
}

/** The request's limit and offset (their defaults when absent), checked. */
export function checkedPage(req: AnalyticRequest, ordered: boolean): { limit: number; offset: number } {
  const limit = req.limit ?? MAX_ROWS;
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_ROWS)
    throw invalid(`limit must be an integer from 0 to ${MAX_ROWS}`, '$.limit');
  const offset = req.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw invalid('offset must be a non-negative integer', '$.offset');
  if (req.offset !== null && req.offset !== undefined && !ordered)
    throw invalid('"offset" can only be used together with "order_by"', '$.offset');
  return { limit, offset };
}

/**
 * The limits written into statements: the powers of two and the round limits clients mostly send
 * (1, 2, 5 times a power of ten), up to MAX_ROWS: 25 forms. A round limit is its own form, so that
 * a page of 50 or 100 rows makes the JSON of those rows only, not of 64 or 128 (about 2 µs a row).
 */
const LIMIT_FORMS = [
  ...new Set([
    ...Array.from({ length: 14 }, (_, k) => 2 ** k),
    ...[1, 10, 100, 1000].flatMap((p) => [p, 2 * p, 5 * p]),
    MAX_ROWS,
  ]),
]
  .filter((n) => n <= MAX_ROWS)
  .sort((a, b) => a - b);

/** The smallest limit form at least `limit` (0 stays 0). */
export function roundedLimit(limit: number): number {
  if (limit <= 1) return limit;
  return LIMIT_FORMS.find((n) => n >= limit) ?? MAX_ROWS;
}

/**
 * ` GROUP BY ...`, or nothing without groups. A uuid's text is grouped by the uuid itself, whose text
 * the select then makes once a group, as hand-written SQL does: the same groups, compared as 16 bytes
 * instead of as text in the database's collation, and no text made for each row read (about a tenth
 * of k8s_cluster_groupings_v2's time by account, on 96 nodes).
 */
function groupBy(groups: Resolved[] | undefined): Sql {
  if (!groups?.length) return EMPTY;
  return sql` GROUP BY ${sql.join(
    groups.map((g) => (g.uuid === undefined ? g.sql : sql.text(g.uuid))),
    ', ',
  )}`;
}

/**
 * The statement: the returned columns (c0, c1, ...) and the requested order keys that are not
 * returned (o0, ...) of the ordered, limited rows in a subquery, and only then each returned column's
 * text (RETURNED: `::text`, which costs PostgreSQL what writing the value into JSON would), so that the
 * texts are made for the rows returned, not for every row the ORDER BY reads. The engine writes the
 * rows' JSON from those texts (rowsAnswer, core/json-rows.ts TextRowsWriter): an object per row made by
 * PostgreSQL (row_to_json of a LATERAL subquery, as before) cost it about 1 µs a row more. The outer
 * ORDER BY repeats the inner one over its output columns because the order of a subquery's rows is
 * not one SQL promises to keep; it costs nothing when it names the same expressions as the inner one,
 * which PostgreSQL then knows its rows to be sorted by. So an order key that is also a returned column
 * is read from that column, and a key is written once (a later one on the same name never breaks a
 * tie): with `created_at` both ordered by and returned as o0 and c3, recommendation_missconfig_v2's
 * rows were sorted a second time.
 */
function pagedRows(columns: Resolved[], requested: OrderKey[], rows: Sql, inner: Sql, groups?: Resolved[]): Sql {
  if (!columns.length) return sql`SELECT NULL AS c FROM (SELECT 1 AS one ${rows}${orderBy(requested)}${inner}) AS q`;
  const c = columns.map((_, i) => sql.text(`c${i}`));
  const extra = requested.filter((k) => !columns.some((col) => col.name === k.name));
  const refOf = (k: OrderKey) => {
    const i = columns.findIndex((col) => col.name === k.name);
    return i >= 0 ? c[i] : sql.text(`o${extra.indexOf(k)}`);
  };
  const select = [
    ...columns.map((col, i) => sql`${col.sql} AS ${c[i]}`),
    ...extra.map((k) => sql`${k.sql} AS ${refOf(k)}`),
  ];
  const keys = [...requested, ...columns.map((col) => ({ name: col.name, sql: col.sql, dir: 'ASC NULLS LAST' }))];
  const order = untilGrouped(
    keys.filter((k, i) => keys.findIndex((o) => o.name === k.name) === i),
    groups,
  );
  const outerOrder = order.map((k) => ({ ...k, sql: sql`q.${refOf(k)}` }));
  const texts = sql.join(
    c.map((x, i) => sql`${returnedOf(columns[i]).text(sql`q.${x}`)} AS ${x}`),
    ', ',
  );
  return sql`SELECT ${texts} FROM (SELECT ${sql.join(select, ', ')} ${rows}${orderBy(order)}${inner}) AS q${orderBy(outerOrder)}`;
}

/**
 * The order keys up to the one after which every group is ordered by: groups are distinct, so no
 * later key breaks a tie, and sorting by it (an aggregate, a sum) only costs PostgreSQL comparisons.
 * Aggregates without groups are one row: no key at all. Without groups (a list), every key.
 */
function untilGrouped(keys: OrderKey[], groups: Resolved[] | undefined): OrderKey[] {
  if (!groups) return keys;
  const left = new Set(groups.map((g) => g.name));
  const kept: OrderKey[] = [];
  for (const k of keys) {
    if (left.size === 0) break;
    kept.push(k);
    left.delete(k.name);
  }
  return left.size === 0 ? kept : keys;
}

/** How a returned column is read: the SQL of its text from its value, and the JSON that text is. */
interface Returned {
  kind: JsonKind;
  form: TextForm;
  text: (value: Sql) => Sql;
}

const asText = (value: Sql) => sql`${value}::text`;

/**
 * Each field type's returned text: strings quoted, numbers and booleans as they are, jsonb's text as
 * it is, and a timestamp's JSON (ISO 8601 with a T, its zone as +hh:mm) as to_json writes it.
 */
const RETURNED: Record<FieldType, Returned> = {
  string: { kind: 'string', form: 'string', text: asText },
  datetime: { kind: 'string', form: 'json', text: (value) => sql`to_json(${value})::text` },
  float: { kind: 'number', form: 'literal', text: asText },
  int: { kind: 'integer', form: 'literal', text: asText },
  boolean: { kind: 'boolean', form: 'literal', text: asText },
  json: { kind: 'any', form: 'json', text: asText },
};

/** A returned column's text; a field returned as its text (Field.text) is a string. */
const returnedOf = (col: Resolved): Returned => (col.text ? RETURNED.string : RETURNED[col.type]);

/** ` ORDER BY ...`, or nothing without keys. */
function orderBy(keys: OrderKey[]): Sql {
  return keys.length
    ? sql` ORDER BY ${sql.join(
        keys.map((k) => sql`${k.sql} ${sql.text(k.dir)}`),
        ', ',
      )}`
    : EMPTY;
}

/** The rows of a built query, at most its limit, as objects of the returned columns (an SQL null is null). */
export function rowsOf(
  built: Pick<BuiltQuery, 'limit' | 'writer'>,
  all: Record<string, unknown>[],
): Record<string, unknown>[] {
  return [...rowsAnswer(built, all)] as Record<string, unknown>[];
}

/**
 * The rows of the answer, at most the request's limit (the statement's LIMIT is rounded up): their
 * JSON text, written from the columns' texts (JsonRows: the engine puts it into the answer as it is
 * where the selection is those columns in that order), or, for rows of no columns, empty objects.
 */
export function rowsAnswer(
  built: Pick<BuiltQuery, 'limit' | 'writer'>,
  all: Record<string, unknown>[],
): Record<string, unknown>[] | JsonRows {
  if (!built.writer.columns.length) return all.slice(0, built.limit).map(() => ({}));
  return built.writer.rows(all, built.limit);
}
