import type { Dataset, WhereField, WhereType } from './dataset';
import { invalid, unknownName } from './errors';
import type { Params } from './params';
import { placeholder, sqlValue } from './values';

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

export function whereSql(ds: Dataset, where: unknown, params: Params, path = '$.where'): string {
  if (where === null || where === undefined) return 'TRUE';
  if (!isObject(where)) throw invalid(`where must be an object at ${path}`, path);
  const parts: string[] = [];
  for (const [key, value] of Object.entries(where)) {
    const at = `${path}.${key}`;
    if (value === null || value === undefined) continue;
    if (key === '_and' || key === '_or') {
      if (!Array.isArray(value)) throw invalid(`${key} takes a list of where objects`, at);
      const subs = value.map((w, i) => whereSql(ds, w, params, `${at}[${i}]`));
      parts.push(subs.length ? `(${subs.join(key === '_and' ? ' AND ' : ' OR ')})` : key === '_and' ? 'TRUE' : 'FALSE');
    } else if (key === '_not') {
      parts.push(`NOT coalesce(${whereSql(ds, value, params, at)}, FALSE)`);
    } else {
      const field = ds.where[key];
      if (!field)
        throw unknownName(`where field of ${ds.name}`, key, [...Object.keys(ds.where), '_and', '_or', '_not'], at);
      if (!isObject(value))
        throw invalid(`where.${key} takes an object of operators (${OPERATORS[field.type].join(', ')})`, at);
      parts.push(...fieldSql(ds, key, field, value, params, at));
    }
  }
  return parts.length ? `(${parts.join(' AND ')})` : 'TRUE';
}

function fieldSql(
  ds: Dataset,
  name: string,
  f: WhereField,
  ops: Record<string, unknown>,
  params: Params,
  path: string,
): string[] {
  const out: string[] = [];
  const bind = (text: string, cast: string) => params.bind(text, cast);
  const value = (v: unknown, at: string) => placeholder(sqlValue(f.type, v, at), bind);
  const other = (v: unknown, at: string, types: WhereType[]) => {
    const o = typeof v === 'string' ? ds.where[v] : undefined;
    if (!o)
      throw unknownName(
        `where field to compare ${name} with`,
        v,
        Object.keys(ds.where).filter((n) => types.includes(ds.where[n].type)),
        at,
      );
    if (!types.includes(o.type)) throw invalid(`cannot compare ${name} (${f.type}) with ${String(v)} (${o.type})`, at);
    return o.sql;
  };
  const comparable: WhereType[] = f.type === 'float' || f.type === 'int' ? ['float', 'int'] : [f.type];
  for (const [op, v] of Object.entries(ops)) {
    const at = `${path}.${op}`;
    if (!OPERATORS[f.type].includes(op))
      throw unknownName(`operator for ${name} (${f.type})`, op, OPERATORS[f.type], at);
    if (v === null || v === undefined) continue;
    if (COMPARE[op]) out.push(`${f.sql} ${COMPARE[op]} ${value(v, at)}`);
    else if (COMPARE_F[op]) out.push(`${f.sql} ${COMPARE_F[op]} ${other(v, at, comparable)}`);
    else if (op === '_in' || op === '_not_in') {
      if (!Array.isArray(v)) throw invalid(`${op} takes a list`, at);
      const items = v.map((x, i) => value(x, `${at}[${i}]`));
      if (op === '_in') out.push(items.length ? `${f.sql} IN (${items.join(', ')})` : 'FALSE');
      else out.push(items.length ? `${f.sql} NOT IN (${items.join(', ')})` : 'TRUE');
    } else if (op === '_is_null') {
      if (typeof v !== 'boolean') throw invalid(`_is_null takes a boolean`, at);
      out.push(`${f.sql} IS ${v ? '' : 'NOT '}NULL`);
    } else if (op === '_like' || op === '_nlike' || op === '_ilike' || op === '_nilike') {
      const sqlOp = { _like: 'LIKE', _nlike: 'NOT LIKE', _ilike: 'ILIKE', _nilike: 'NOT ILIKE' }[op];
      out.push(`${f.sql} ${sqlOp} ${value(v, at)}`);
    } else if (op === '_like_f' || op === '_ilike_f') {
      out.push(`${f.sql} ${op === '_like_f' ? 'LIKE' : 'ILIKE'} ${other(v, at, ['string'])}`);
    } else if (op === '_contains') {
      if (f.jsonb) {
        if (typeof v !== 'string') throw invalid(`expected a string (JSON text) at ${at}`, at);
        let doc: string;
        try {
          doc = JSON.stringify(JSON.parse(v));
        } catch {
          throw invalid(`_contains on ${name} takes JSON text, e.g. {"app":"api"}; got ${JSON.stringify(v)}`, at);
        }
        out.push(`${f.jsonb} @> ${bind(doc, 'jsonb')}`);
      } else out.push(`strpos(${f.sql}, ${value(v, at)}) > 0`);
    } else if (op === '_has_key') {
      if (!f.jsonb)
        throw invalid(
          `_has_key applies to JSON fields only; ${name} is not one (JSON fields: ${
            Object.keys(ds.where)
              .filter((n) => ds.where[n].jsonb)
              .join(', ') || 'none'
          })`,
          at,
        );
      out.push(`jsonb_exists(${f.jsonb}, ${value(v, at)})`);
    } else if (op === '_between') {
      if (!isObject(v)) throw invalid(`_between takes an object with _gt, _gte, _lt, _lte`, at);
      for (const [bop, bv] of Object.entries(v)) {
        const bat = `${at}.${bop}`;
        if (!BETWEEN.includes(bop)) throw unknownName('_between bound', bop, BETWEEN, bat);
        if (bv === null || bv === undefined) continue;
        if (bop === '_is_null') {
          if (typeof bv !== 'boolean') throw invalid(`_is_null takes a boolean`, bat);
          out.push(`${f.sql} IS ${bv ? '' : 'NOT '}NULL`);
        } else out.push(`${f.sql} ${COMPARE[bop]} ${value(bv, bat)}`);
      }
    }
  }
  return out;
}
