import { sql, type Sql } from '../api';
import type { Dataset, WhereField, WhereType } from './dataset';
import { invalid, unknownName } from './errors';
import { slot } from './slots';
import { boundValue, checkedValue } from './values';

/**
 * `where`: QueryWhere{String,Float,Int,Boolean,Datetime}Request per field, combined with `_and`,
 * `_or` and `_not`; the fields of one object are combined with AND. `_eq_f`, `_gt_f`, ... compare the
 * field with the where field the value names. An operator whose value is null is ignored.
 * Values only ever travel as bind parameters.
 */

const COMPARE: Record<string, string> = { _eq: '=', _neq: '<>', _gt: '>', _gte: '>=', _lt: '<', _lte: '<=' };
const COMPARE_F: Record<string, string> = {
  _eq_f: '=',
  _neq_f: '<>',
  _gt_f: '>',
  _gte_f: '>=',
  _get_f: '>=',
  _lt_f: '<',
  _lte_f: '<=',
};
const ORDERED = ['_gt', '_gte', '_lt', '_lte', '_gt_f', '_gte_f', '_get_f', '_lt_f', '_lte_f', '_between'];

/** The operators of each where type (`_get_f` is the reference's spelling of `_gte_f` on Int). */
export const OPERATORS: Record<WhereType, readonly string[]> = {
  string: [
    '_eq',
    '_neq',
    '_in',
    '_not_in',
    '_is_null',
    '_like',
    '_nlike',
    '_ilike',
    '_nilike',
    '_contains',
    '_has_key',
    '_eq_f',
    '_neq_f',
    '_like_f',
    '_ilike_f',
  ],
  float: ['_eq', '_neq', '_in', '_not_in', '_is_null', '_eq_f', '_neq_f', ...ORDERED],
  int: ['_eq', '_neq', '_in', '_not_in', '_is_null', '_eq_f', '_neq_f', ...ORDERED],
  datetime: ['_eq', '_neq', '_in', '_not_in', '_is_null', '_eq_f', '_neq_f', ...ORDERED],
  boolean: ['_eq', '_neq', '_is_null'],
};

const BETWEEN = ['_gt', '_gte', '_lt', '_lte', '_is_null'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const TRUE = sql.text('TRUE');
const FALSE = sql.text('FALSE');

export function whereSql(ds: Dataset, where: unknown, path = '$.where'): Sql {
  if (where === null || where === undefined) return TRUE;
  if (!isObject(where)) throw invalid(`where must be an object at ${path}`, path);
  const parts: Sql[] = [];
  for (const [key, value] of Object.entries(where)) {
    const at = `${path}.${key}`;
    if (value === null || value === undefined) continue;
    if (key === '_and' || key === '_or') parts.push(combined(ds, key, value, at));
    else if (key === '_not') parts.push(sql`NOT coalesce(${whereSql(ds, value, at)}, FALSE)`);
    else parts.push(...fieldConditions(ds, key, value, at));
  }
  return parts.length ? sql`(${sql.join(parts, ' AND ')})` : TRUE;
}

/** `_and` / `_or` of a list of where objects; an empty list is TRUE / FALSE. */
function combined(ds: Dataset, key: '_and' | '_or', value: unknown, at: string): Sql {
  if (!Array.isArray(value)) throw invalid(`${key} takes a list of where objects`, at);
  const subs = value.map((w, i) => whereSql(ds, w, `${at}[${i}]`));
  if (!subs.length) return key === '_and' ? TRUE : FALSE;
  return sql`(${sql.join(subs, key === '_and' ? ' AND ' : ' OR ')})`;
}

/** A where field of the dataset being compared: its name, definition and SQL. */
interface Operand {
  ds: Dataset;
  name: string;
  field: WhereField;
  sql: Sql;
}

function fieldConditions(ds: Dataset, name: string, ops: unknown, at: string): Sql[] {
  const field = ds.where[name];
  if (!field)
    throw unknownName(`where field of ${ds.name}`, name, [...Object.keys(ds.where), '_and', '_or', '_not'], at);
  if (!isObject(ops))
    throw invalid(`where.${name} takes an object of operators (${OPERATORS[field.type].join(', ')})`, at);
  const o: Operand = { ds, name, field, sql: sql.text(field.sql) };
  return Object.entries(ops).flatMap(([op, v]) => operatorConditions(o, op, v, `${at}.${op}`));
}

const LIKE: Record<string, string> = { _like: 'LIKE', _nlike: 'NOT LIKE', _ilike: 'ILIKE', _nilike: 'NOT ILIKE' };
const LIKE_F: Record<string, string> = { _like_f: 'LIKE', _ilike_f: 'ILIKE' };

/** The conditions of one operator on a where field (none for a null value). */
function operatorConditions(o: Operand, op: string, v: unknown, at: string): Sql[] {
  const { type } = o.field;
  if (!OPERATORS[type].includes(op)) throw unknownName(`operator for ${o.name} (${type})`, op, OPERATORS[type], at);
  if (v === null || v === undefined) return [];
  if (o.field.uuid && UUID_OPS.includes(op)) return [uuidCondition(o, o.field.uuid, op, v, at)];
  if (COMPARE[op]) return [sql`${o.sql} ${sql.text(COMPARE[op])} ${comparedValue(type, v, at)}`];
  if (COMPARE_F[op]) return [sql`${o.sql} ${sql.text(COMPARE_F[op])} ${otherField(o, v, at, comparable(type))}`];
  if (LIKE[op]) return [sql`${o.sql} ${sql.text(LIKE[op])} ${boundValue(type, v, at)}`];
  if (LIKE_F[op]) return [sql`${o.sql} ${sql.text(LIKE_F[op])} ${otherField(o, v, at, ['string'])}`];
  if (op === '_in' || op === '_not_in') return [inList(o, op, v, at)];
  if (op === '_is_null') return [isNull(o, v, at)];
  if (op === '_contains') return [contains(o, v, at)];
  if (op === '_has_key') return [hasKey(o, v, at)];
  if (op === '_between') return between(o, v, at);
  return [];
}

const UUID_OPS = ['_eq', '_neq', '_in', '_not_in'];
/** The text form of a uuid: PostgreSQL writes every uuid this way (lowercase, hyphenated), no other text is one's. */
export const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * `_eq`, `_neq`, `_in`, `_not_in` on the text of a uuid column, as a comparison of the bare column
 * (which its indexes serve) with the same meaning as comparing the text: a value that is not the
 * text form of a uuid (invalid, uppercase, braced...) equals no row's text, so it is left out
 * rather than cast, and bad input never becomes a database error. (Such a condition is FALSE where
 * the text comparison was NULL for a null column; `_not` reads both as false, so rows are the same.)
 */
function uuidCondition(o: Operand, column: string, op: string, v: unknown, at: string): Sql {
  const list = op === '_in' || op === '_not_in';
  if (list && !Array.isArray(v)) throw invalid(`${op} takes a list`, at);
  const values = (list ? (v as unknown[]) : [v]).map((x, i) => {
    const path = list ? `${at}[${i}]` : at;
    return { text: checkedValue('string', x, path) as string, path };
  });
  const items = values
    .filter((x) => UUID_TEXT.test(x.text))
    .map((x) => sql`${slot(x.text, x.path, (y) => checkedValue('string', y, x.path))}::uuid`);
  const col = sql.text(column);
  const positive = op === '_eq' || op === '_in';
  if (!items.length) return values.length && !positive ? sql`${col} IS NOT NULL` : positive ? FALSE : TRUE;
  if (!list) return sql`${col} ${sql.text(positive ? '=' : '<>')} ${items[0]}`;
  return sql`${col} ${sql.text(positive ? 'IN' : 'NOT IN')} (${sql.join(items, ', ')})`;
}

const comparable = (type: WhereType): WhereType[] => (type === 'float' || type === 'int' ? ['float', 'int'] : [type]);

/** The where field a `_*_f` operator names, to compare with. */
function otherField(o: Operand, v: unknown, at: string, types: WhereType[]): Sql {
  const { ds } = o;
  const other = typeof v === 'string' ? ds.where[v] : undefined;
  if (!other)
    throw unknownName(
      `where field to compare ${o.name} with`,
      v,
      Object.keys(ds.where).filter((n) => types.includes(ds.where[n].type)),
      at,
    );
  if (!types.includes(other.type))
    throw invalid(`cannot compare ${o.name} (${o.field.type}) with ${String(v)} (${other.type})`, at);
  return sql.text(other.sql);
}

function inList(o: Operand, op: '_in' | '_not_in', v: unknown, at: string): Sql {
  if (!Array.isArray(v)) throw invalid(`${op} takes a list`, at);
  const items = v.map((x, i) => boundValue(o.field.type, x, `${at}[${i}]`));
  if (!items.length) return op === '_in' ? FALSE : TRUE;
  return sql`${o.sql} ${sql.text(op === '_in' ? 'IN' : 'NOT IN')} (${sql.join(items, ', ')})`;
}

function isNull(o: Operand, v: unknown, at: string): Sql {
  if (typeof v !== 'boolean') throw invalid(`_is_null takes a boolean`, at);
  return sql`${o.sql} ${sql.text(v ? 'IS NULL' : 'IS NOT NULL')}`;
}

/** JSON containment on a jsonb field, substring search on the others. */
function contains(o: Operand, v: unknown, at: string): Sql {
  const { jsonb } = o.field;
  if (!jsonb) return sql`strpos(${o.sql}, ${boundValue(o.field.type, v, at)}) > 0`;
  const doc = (x: unknown) => jsonDocument(o, x, at);
  return sql`${sql.text(jsonb)} @> ${slot(doc(v), at, doc)}::jsonb`;
}

/**
 * The value a comparison takes: bound, except a boolean, written into the text (TRUE or FALSE). A
 * request's booleans are part of its statement's shape anyway (statements.ts), and with the value in
 * the text a prepared statement's generic plan knows how many rows it selects: with `is_anomaly = $2`
 * it guessed 3,502 of anomaly_v2's rows where 4,893 are anomalous at scale 100, costed itself above
 * the custom plans, and PostgreSQL planned the statement anew on every run (0.11 ms of 0.25).
 */
function comparedValue(type: WhereType, v: unknown, at: string): Sql {
  if (type === 'boolean' && typeof v === 'boolean') return sql.text(v ? 'TRUE' : 'FALSE');
  return boundValue(type, v, at);
}

/** The JSON text `_contains` takes on a jsonb field, normalised. */
function jsonDocument(o: Operand, v: unknown, at: string): string {
  if (typeof v !== 'string') throw invalid(`expected a string (JSON text) at ${at}`, at);
  try {
    return JSON.stringify(JSON.parse(v));
  } catch {
    throw invalid(`_contains on ${o.name} takes JSON text, e.g. {"app":"api"}; got ${JSON.stringify(v)}`, at);
  }
}

function hasKey(o: Operand, v: unknown, at: string): Sql {
  const { ds } = o;
  if (!o.field.jsonb)
    throw invalid(
      `_has_key applies to JSON fields only; ${o.name} is not one (JSON fields: ${
        Object.keys(ds.where)
          .filter((n) => ds.where[n].jsonb)
          .join(', ') || 'none'
      })`,
      at,
    );
  return sql`jsonb_exists(${sql.text(o.field.jsonb)}, ${boundValue(o.field.type, v, at)})`;
}

/** `_between`: bounds (and `_is_null`) of one field, each a condition. */
function between(o: Operand, v: unknown, at: string): Sql[] {
  if (!isObject(v)) throw invalid(`_between takes an object with _gt, _gte, _lt, _lte`, at);
  const out: Sql[] = [];
  for (const [bop, bv] of Object.entries(v)) {
    const bat = `${at}.${bop}`;
    if (!BETWEEN.includes(bop)) throw unknownName('_between bound', bop, BETWEEN, bat);
    if (bv === null || bv === undefined) continue;
    if (bop === '_is_null') out.push(isNull(o, bv, bat));
    else out.push(sql`${o.sql} ${sql.text(COMPARE[bop])} ${boundValue(o.field.type, bv, bat)}`);
  }
  return out;
}
