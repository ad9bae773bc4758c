import type { Relationship } from '../model/model-types';
import { operator } from '../model/operators';
import type { BoolExp, CompareOp, ValueRef } from '../plan/ir';
import { ident, tableName, type SqlWriter } from './writer';

/**
 * `left op value` in the SQL form the operator table gives it; a literal operand may have a simpler
 * form (`IS NULL` rather than a bound boolean), which indexes can serve.
 */
function compare(left: string, op: CompareOp, value: ValueRef, w: SqlWriter): string {
  const o = operator(op);
  if (o.literalSql && value.source.from === 'literal') return o.literalSql(left, value.source.value);
  return o.sql(left, w.bind(value));
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
      return `(${compare(`${alias}.${ident(exp.column.name)}`, exp.op, exp.value, w)})`;
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
      return `(${exp.predicate.map((p) => compare(value, p.op, p.value, w)).join(' AND ') || 'true'})`;
    }
  }
}
