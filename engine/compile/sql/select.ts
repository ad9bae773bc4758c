import type { Column, Relationship } from '../model/model-types';
import { geoType } from '../model/scalar-types';
import type { AggregateField, AggregateItem, BoolExp, Field, OrderItem, OrderTarget, RowSource } from '../plan/ir';
import { boolExpSql, countSql, joinCondition } from './bool-exp';
import { arrayText, nameText, objectText, rowObject, type JsonValue } from './json-text';
import { nativeQuerySql } from './native-query';
import { ident, stringLiteral, tableName, type SqlWriter } from './writer';

const col = (alias: string, c: Column) => `${alias}.${ident(c.name)}`;

/**
 * A column's value for the response JSON: PostGIS values as GeoJSON objects, as Hasura writes them
 * (up to 15 decimal digits, and the long `crs` name when the value has an SRID); others as they are.
 */
function columnJson(alias: string, c: Column): string {
  return geoType(c.sqlType) ? `ST_AsGeoJSON(${col(alias, c)}, 15, 4)::json` : col(alias, c);
}

/**
 * The scalars written as JSON strings under STRINGIFY_NUMERIC_TYPES, as Hasura's stringify-numeric-types:
 * those a JSON number cannot hold exactly (real, int and smallint stay numbers).
 */
const WIDE_NUMERIC_SCALARS = new Set(['bigint', 'numeric', 'float8', 'money']);

/** A value of a column of scalar `scalar` for the response JSON: as text when it is to be a string. */
function jsonValue(sql: string, scalar: string, w: SqlWriter): string {
  return w.output.stringifyNumeric && WIDE_NUMERIC_SCALARS.has(scalar) ? `(${sql})::text` : sql;
}

/**
 * The JSON object of one row, named `alias`, with the selected fields in order, and the LEFT JOINs its
 * object relationships read: the caller puts `joins` right after the row's own FROM item.
 */
export function joinedRowJson(
  fields: Field[],
  alias: string,
  w: SqlWriter,
  counts?: string[],
): { json: string; joins: string } {
  const joins: string[] = [];
  const json = rowJson(fields, alias, w, joins, counts);
  return { json, joins: joins.join('') };
}

/**
 * `counts`, when given, asks for the row's lists to be counted too: each list is then a LATERAL join
 * beside the row (`joins`) that gives its JSON and its rows, and the rows' expressions go into `counts`.
 */
function rowJson(fields: Field[], alias: string, w: SqlWriter, joins: string[], counts?: string[]): string {
  const pairs = fields.map((f): [string, string] => [f.alias, fieldSql(f, alias, w, joins, counts)]);
  return rowObject(pairs, joins, w.alias());
}

/**
 * Whether at most one target row matches a source row: the relationship maps onto every column of the
 * target's primary key or of one of its unique constraints (an equality never matches NULL).
 */
function toOneRow(rel: Relationship): boolean {
  const mapped = new Set(rel.mapping.map(([, target]) => target.name));
  return rel.target.constraints.some((k) => k.columns.length > 0 && k.columns.every((c) => mapped.has(c)));
}

/** The condition that joins `target` (the relationship's table, permission filter included) to `alias`. */
function joinOn(rel: Relationship, where: BoolExp, alias: string, target: string, w: SqlWriter): string {
  return `${joinCondition(rel, alias, target)}${where.kind === 'true' ? '' : ` AND ${boolExpSql(where, target, w)}`}`;
}

/**
 * An object relationship's JSON, or NULL. Where at most one row can match, the target is LEFT JOINed
 * to the row (PostgreSQL may hash it, as hand-written SQL does, instead of running a subquery per
 * row); otherwise, a subquery takes the first match, as before.
 */
function objectJson(
  f: Extract<Field, { kind: 'object' }>,
  alias: string,
  w: SqlWriter,
  joins: string[],
  counts?: string[],
): string {
  const t = w.alias();
  const on = joinOn(f.rel, f.where, alias, t, w);
  if (toOneRow(f.rel)) {
    joins.push(` LEFT JOIN ${tableName(f.rel.target)} AS ${t} ON ${on}`);
    // The join columns of a matched row are never NULL (they were equal to something).
    return `CASE WHEN ${col(t, f.rel.mapping[0][1])} IS NOT NULL THEN ${rowJson(f.fields, t, w, joins, counts)} END`;
  }
  const row = joinedRowJson(f.fields, t, w);
  return `(SELECT ${row.json} FROM ${tableName(f.rel.target)} AS ${t}${row.joins} WHERE ${on} LIMIT 1)`;
}

function fieldSql(f: Field, alias: string, w: SqlWriter, joins: string[], counts?: string[]): string {
  switch (f.kind) {
    case 'column':
      if (f.path) return `(${col(alias, f.column)} #> ${w.bind(f.path)})`;
      if (f.asText) return `(${col(alias, f.column)})::text`;
      return jsonValue(columnJson(alias, f.column), f.column.scalar, w);
    case 'typename':
      return `${stringLiteral(f.name)}::text`;
    case 'object':
      return objectJson(f, alias, w, joins, counts);
    case 'array': {
      const t = w.alias();
      const join = joinCondition(f.rel, alias, t);
      if (!counts) return `(${listJson(f.rows, f.fields, t, w, join)})::json`;
      const list = countedListParts(f.rows, f.fields, t, w, join);
      const l = w.alias();
      joins.push(
        ` LEFT JOIN LATERAL (SELECT (${list.json})::json AS j, ${list.rows} AS n FROM ${list.from}) AS ${l} ON true`,
      );
      counts.push(`${l}.n`);
      return `${l}.j`;
    }
    case 'arrayAggregate': {
      const t = w.alias();
      return `(${aggregateJson(f.rows, f.fields, t, w, joinCondition(f.rel, alias, t))})::json`;
    }
  }
}

const DIRECTION_SQL: Record<string, string> = {
  asc: 'ASC NULLS LAST',
  asc_nulls_last: 'ASC NULLS LAST',
  asc_nulls_first: 'ASC NULLS FIRST',
  desc: 'DESC NULLS FIRST',
  desc_nulls_first: 'DESC NULLS FIRST',
  desc_nulls_last: 'DESC NULLS LAST',
};

/**
 * The value a row is sorted by: a column, a column through object relationships, or an aggregate. An
 * object relationship onto a key is LEFT JOINed (`joins`, for the row's FROM), as in the row's JSON.
 */
function orderValue(target: OrderTarget, alias: string, w: SqlWriter, joins: string[]): string {
  if (target.kind === 'column') return col(alias, target.column);
  const t = w.alias();
  const where = joinOn(target.rel, target.where, alias, t, w);
  if (target.kind === 'object' && toOneRow(target.rel)) {
    joins.push(` LEFT JOIN ${tableName(target.rel.target)} AS ${t} ON ${where}`);
    return orderValue(target.next, t, w, joins);
  }
  if (target.kind === 'object') {
    const inner: string[] = [];
    const value = orderValue(target.next, t, w, inner);
    return `(SELECT ${value} FROM ${tableName(target.rel.target)} AS ${t}${inner.join('')} WHERE ${where} LIMIT 1)`;
  }
  const value = target.fn === 'count' ? 'count(*)' : `${target.fn}(${col(t, target.column!)})`;
  return `(SELECT ${value} FROM ${tableName(target.rel.target)} AS ${t} WHERE ${where})`;
}

/** The relation a RowSource reads: a tracked table, or a native query as a subquery. */
function relationSql(rows: RowSource, w: SqlWriter): string {
  return rows.call ? nativeQuerySql(rows.call.query, rows.call.args, w) : tableName(rows.table);
}

interface BaseRows {
  sql: string;
  /** The ORDER BY that reproduces the base order over the base query's output. */
  outerOrder: string;
}

/**
 * The rows of a RowSource as a subquery: filter, order, distinct and paging happen here, before any
 * JSON is built, so expensive output is computed only for the rows returned. Sort keys that are not
 * plain columns are carried out as `__o<n>` columns, so the outer string_agg can keep the same order.
 */
function baseRows(rows: RowSource, alias: string, w: SqlWriter, join?: string, capped = true): BaseRows {
  const extra: string[] = [];
  const inner: string[] = [];
  const outer: string[] = [];
  const joins: string[] = [];
  rows.orderBy.forEach((o: OrderItem, i) => {
    const dir = DIRECTION_SQL[o.direction];
    if (o.target.kind === 'column') {
      inner.push(`${col(alias, o.target.column)} ${dir}`);
      outer.push(`${col(alias, o.target.column)} ${dir}`);
    } else {
      // Computed once, in the select list; ORDER BY may name an output column.
      extra.push(`${orderValue(o.target, alias, w, joins)} AS "__o${i}"`);
      inner.push(`"__o${i}" ${dir}`);
      outer.push(`${alias}."__o${i}" ${dir}`);
    }
  });
  const distinct = rows.distinctOn.length
    ? `DISTINCT ON (${rows.distinctOn.map((c) => col(alias, c)).join(', ')}) `
    : '';
  const where = [join, boolExpSql(rows.where, alias, w)].filter(Boolean).join(' AND ');
  let sql = `SELECT ${distinct}${alias}.*${extra.map((e) => `, ${e}`).join('')} FROM ${relationSql(rows, w)} AS ${alias}${joins.join('')} WHERE ${where}`;
  if (inner.length) sql += ` ORDER BY ${inner.join(', ')}`;
  const limit = rows.limit ? w.bind(rows.limit) : undefined;
  const maxRows = capped ? rows.maxRows : undefined;
  if (limit && maxRows !== undefined) sql += ` LIMIT least(${limit}, ${maxRows})`;
  else if (limit) sql += ` LIMIT ${limit}`;
  else if (maxRows !== undefined) sql += ` LIMIT ${maxRows}`;
  if (rows.offset) sql += ` OFFSET ${w.bind(rows.offset)}`;
  return { sql, outerOrder: outer.length ? ` ORDER BY ${outer.join(', ')}` : '' };
}

/** A JSON array of rows, as text: `[]` when there are none. */
export function listJson(rows: RowSource, fields: Field[], alias: string, w: SqlWriter, join?: string): string {
  const list = listParts(rows, fields, alias, w, join);
  return `(SELECT ${list.json} FROM ${list.from})`;
}

/** A list's JSON array as text (an aggregate over `from`) and its FROM clause, for a caller that reads more of them. */
function listParts(
  rows: RowSource,
  fields: Field[],
  alias: string,
  w: SqlWriter,
  join?: string,
): { json: string; from: string } {
  const base = baseRows(rows, alias, w, join);
  const row = joinedRowJson(fields, alias, w);
  return {
    json: arrayText(row.json, base.outerOrder),
    from: `(${base.sql}) AS ${alias}${row.joins}`,
  };
}

/** Whether rows of these fields hold lists (array relationships or their aggregates), at any depth. */
function holdsLists(fields: Field[]): boolean {
  return fields.some(
    (f) => f.kind === 'array' || f.kind === 'arrayAggregate' || (f.kind === 'object' && holdsLists(f.fields)),
  );
}

/**
 * Whether PostgreSQL can count the rows of a list of these fields as it builds it (countedListParts):
 * the lists under them are array relationships, reached through other lists or through object
 * relationships that are joined (onto a key); aggregates beside them hold no rows unless they select
 * `nodes`. An aggregate's nodes, or a list under an object found by a subquery, are counted by the
 * engine from the answer's text instead.
 */
export function countableRows(fields: Field[]): boolean {
  return fields.every((f) => {
    if (f.kind === 'array') return countableRows(f.fields);
    // An aggregate's rows are its nodes: without them it holds none (nested's spends_aggregate).
    if (f.kind === 'arrayAggregate') return !f.fields.some((a) => a.kind === 'nodes');
    if (f.kind === 'object') return toOneRow(f.rel) ? countableRows(f.fields) : !holdsLists(f.fields);
    return true;
  });
}

/**
 * A list's JSON array, its FROM clause, and its rows counted with the rows of the lists under it
 * (`rows`): each list under a row is a LATERAL join that carries its own count up (for fields that
 * pass countableRows). count(*) and sum() beside string_agg cost next to nothing there.
 */
export function countedListParts(
  rows: RowSource,
  fields: Field[],
  alias: string,
  w: SqlWriter,
  join?: string,
): { json: string; from: string; rows: string } {
  const base = baseRows(rows, alias, w, join);
  const counts: string[] = [];
  const row = joinedRowJson(fields, alias, w, counts);
  return {
    json: arrayText(row.json, base.outerOrder),
    from: `(${base.sql}) AS ${alias}${row.joins}`,
    rows: counts.length ? `count(*) + coalesce(sum(${counts.join(' + ')}), 0)` : 'count(*)',
  };
}

/** The JSON object of one row found by a condition, or NULL. */
export function singleRowJson(
  table: RowSource['table'],
  where: BoolExp,
  fields: Field[],
  alias: string,
  w: SqlWriter,
): string {
  const row = joinedRowJson(fields, alias, w);
  return `(SELECT ${row.json} FROM ${tableName(table)} AS ${alias}${row.joins} WHERE ${boolExpSql(where, alias, w)} LIMIT 1)`;
}

function aggregateItemSql(item: AggregateItem, alias: string, w: SqlWriter): JsonValue {
  switch (item.kind) {
    case 'typename':
      return nameText(item.name);
    case 'count': {
      const count = countSql(
        item.columns.map((c) => col(alias, c)),
        item.distinct,
      );
      return { text: `(${count})::text` };
    }
    case 'function':
      return {
        text: objectText(
          item.fields.map((f): [string, JsonValue] => [
            f.alias,
            f.kind === 'typename'
              ? nameText(f.name)
              : jsonValue(`${item.fn}(${col(alias, f.column)})`, f.column.scalar, w),
          ]),
        ),
      };
  }
}

/** `{aggregate: {...}, nodes: [...]}` over the rows of a RowSource, as text. */
export function aggregateJson(
  rows: RowSource,
  fields: AggregateField[],
  alias: string,
  w: SqlWriter,
  join?: string,
): string {
  // The role's row limit caps `nodes` only: the aggregates are over every permitted row (as Hasura).
  const base = baseRows(rows, alias, w, join, false);
  const cap = rows.maxRows;
  const capNodes = cap !== undefined && fields.some((f) => f.kind === 'nodes');
  const nodesFilter = capNodes ? ` FILTER (WHERE ${alias}."__n" <= ${cap})` : '';
  const joins: string[] = [];
  const pairs = fields.map((f): [string, JsonValue] => {
    if (f.kind === 'typename') return [f.alias, nameText(f.name)];
    if (f.kind === 'nodes')
      return [f.alias, { text: arrayText(rowJson(f.fields, alias, w, joins), base.outerOrder, nodesFilter) }];
    return [
      f.alias,
      { text: objectText(f.items.map((i): [string, JsonValue] => [i.alias, aggregateItemSql(i, alias, w)])) },
    ];
  });
  // Numbered in the base order, so the capped nodes are the first rows a list would return.
  const from = capNodes
    ? `SELECT ${alias}.*, row_number() OVER (${base.outerOrder.trim()}) AS "__n" FROM (${base.sql}) AS ${alias}`
    : base.sql;
  return `(SELECT ${objectText(pairs)} FROM (${from}) AS ${alias}${joins.join('')})`;
}
