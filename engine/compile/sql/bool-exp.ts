import type { Relationship } from '../model/model';
import type { BoolExp, CompareOp } from '../plan/ir';
import { ident, tableName, type SqlWriter } from './writer';

const OPERATORS: Record<CompareOp, string> = {
  _eq: '=',
  _neq: '<>',
  _gt: '>',
  _lt: '<',
  _gte: '>=',
  _lte: '<=',
  _in: '= ANY',
  _nin: '<> ALL',
  _like: 'LIKE',
  _nlike: 'NOT LIKE',
  _ilike: 'ILIKE',
  _nilike: 'NOT ILIKE',
  _similar: 'SIMILAR TO',
  _nsimilar: 'NOT SIMILAR TO',
  _regex: '~',
  _nregex: '!~',
  _iregex: '~*',
  _niregex: '!~*',
  _contains: '@>',
  _contained_in: '<@',
  _has_key: '?',
  _has_keys_any: '?|',
  _has_keys_all: '?&',
};

export function compare(left: string, op: CompareOp, right: string): string {
  return op === '_in' || op === '_nin' ? `${left} ${OPERATORS[op]}(${right})` : `${left} ${OPERATORS[op]} ${right}`;
}

/** The join condition of a relationship, between the source row alias and the target alias. */
export function joinCondition(rel: Relationship, source: string, target: string): string {
  return rel.mapping.map(([s, t]) => `${target}.${ident(t.name)} = ${source}.${ident(s.name)}`).join(' AND ');
}

/** A boolean expression over the row named `alias`. */
export function boolExpSql(exp: BoolExp, alias: string, w: SqlWriter): string {
  switch (exp.kind) {
    case 'true':
      return 'true';
    case 'and':
      return exp.items.length ? `(${exp.items.map((e) => boolExpSql(e, alias, w)).join(' AND ')})` : 'true';
    case 'or':
      return exp.items.length ? `(${exp.items.map((e) => boolExpSql(e, alias, w)).join(' OR ')})` : 'false';
    case 'not':
      return `(NOT ${boolExpSql(exp.item, alias, w)})`;
    case 'compare':
      return `(${compare(`${alias}.${ident(exp.column.name)}`, exp.op, w.bind(exp.value))})`;
    case 'isNull': {
      const col = `${alias}.${ident(exp.column.name)}`;
      // A literal keeps the plain form, which indexes can serve.
      if (exp.value.source.from === 'literal')
        return exp.value.source.value ? `(${col} IS NULL)` : `(${col} IS NOT NULL)`;
      return `((${col} IS NULL) = ${w.bind(exp.value)})`;
    }
    case 'relationship': {
      const t = w.alias();
      return `EXISTS (SELECT 1 FROM ${tableName(exp.rel.target)} AS ${t} WHERE ${joinCondition(exp.rel, alias, t)} AND ${boolExpSql(exp.where, t, w)})`;
    }
    case 'exists': {
      const t = w.alias();
      return `EXISTS (SELECT 1 FROM ${tableName(exp.table)} AS ${t} WHERE ${boolExpSql(exp.where, t, w)})`;
    }
    case 'aggregate': {
      const t = w.alias();
      const cols = exp.columns.map((c) => `${t}.${ident(c.name)}`);
      const arg = cols.length === 0 ? '*' : cols.length === 1 ? cols[0] : `(${cols.join(', ')})`;
      const agg = `count(${exp.distinct && cols.length ? 'DISTINCT ' : ''}${arg})`;
      const value = `(SELECT ${agg} FROM ${tableName(exp.rel.target)} AS ${t} WHERE ${joinCondition(exp.rel, alias, t)} AND ${boolExpSql(exp.filter, t, w)})`;
      return `(${exp.predicate.map((p) => compare(value, p.op, w.bind(p.value))).join(' AND ') || 'true'})`;
    }
  }
}
