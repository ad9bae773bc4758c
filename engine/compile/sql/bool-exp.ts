import type { Relationship } from '../model/model-types';
import { operator } from '../model/operators';
import type { BoolExp, CompareOp, ValueRef } from '../plan/ir';
import { ident, tableName, type SqlWriter } from './writer';

/**
 * `left op value` in the SQL form the operator table gives it; a literal operand may have a simpler
 * form (`IS NULL` rather than a bound boolean), which indexes can serve.
 */
function compare(
  left: string,
  op: CompareOp,
  value: ValueRef,
  w: SqlWriter,
  operands?: Readonly<Record<string, ValueRef>>,
): string {
  const o = operator(op);
  if (operands) return o.sql(left, '', Object.fromEntries(Object.entries(operands).map(([k, v]) => [k, w.bind(v)])));
  if (o.literalSql && value.source.from === 'literal') return o.literalSql(left, value.source.value);
  return o.sql(left, w.bind(value));
}

/**
 * `count` over some columns, as Hasura writes it: `count((a, b))`. Over one column that counts its
 * non-null values; over several it counts a row value, which is never null itself, so every row
 * counts (and `distinct` counts the distinct combinations, nulls included). Over no columns, every row.
 */
export function countSql(columns: string[], distinct: boolean): string {
  if (columns.length === 0) return 'count(*)';
  const d = distinct ? 'DISTINCT ' : '';
  return `count(${d}(${columns.join(', ')}))`;
}

/** The join condition of a relationship, between the source row alias and the target alias. */
export function joinCondition(rel: Relationship, source: string, target: string): string {
  return rel.mapping.map(([s, t]) => `${target}.${ident(t.name)} = ${source}.${ident(s.name)}`).join(' AND ');
}

/**
 * A boolean expression over the row named `alias`. `root` is the row a permission's root references
 * (`["$", column]`) name: the row its `scope` was applied to.
 */
export function boolExpSql(exp: BoolExp, alias: string, w: SqlWriter, root: string = alias): string {
  switch (exp.kind) {
    case 'true':
      return 'true';
    case 'and':
      return exp.items.length ? `(${exp.items.map((e) => boolExpSql(e, alias, w, root)).join(' AND ')})` : 'true';
    case 'or':
      return exp.items.length ? `(${exp.items.map((e) => boolExpSql(e, alias, w, root)).join(' OR ')})` : 'false';
    case 'not':
      return `(NOT ${boolExpSql(exp.item, alias, w, root)})`;
    case 'scope':
      return boolExpSql(exp.item, alias, w, alias);
    case 'compare': {
      // `_cast`: the column cast along the chain of types, each cast in parentheses.
      const left = (exp.cast ?? []).reduce((l, t) => `(${l})::${t}`, `${alias}.${ident(exp.column.name)}`);
      return `(${compare(left, exp.op, exp.value, w, exp.operands)})`;
    }
    case 'compareColumn': {
      // The operand is a column of the model, written as an identifier: no value enters the SQL text.
      const other = `${exp.root ? root : alias}.${ident(exp.other.name)}`;
      return `(${operator(exp.op).sql(`${alias}.${ident(exp.column.name)}`, other)})`;
    }
    case 'relationship': {
      const t = w.alias();
      return `EXISTS (SELECT 1 FROM ${tableName(exp.rel.target)} AS ${t} WHERE ${joinCondition(exp.rel, alias, t)} AND ${boolExpSql(exp.where, t, w, root)})`;
    }
    case 'exists': {
      const t = w.alias();
      return `EXISTS (SELECT 1 FROM ${tableName(exp.table)} AS ${t} WHERE ${boolExpSql(exp.where, t, w, root)})`;
    }
    case 'aggregate': {
      const t = w.alias();
      const agg = countSql(
        exp.columns.map((c) => `${t}.${ident(c.name)}`),
        exp.distinct,
      );
      const value = `(SELECT ${agg} FROM ${tableName(exp.rel.target)} AS ${t} WHERE ${joinCondition(exp.rel, alias, t)} AND ${boolExpSql(exp.filter, t, w, root)})`;
      return `(${exp.predicate.map((p) => compare(value, p.op, p.value, w)).join(' AND ') || 'true'})`;
    }
  }
}
