import type { Column, Relationship, Table } from '../model/model-types';
import { typeName } from '../schema/table-types';
import { castTarget, isColumnOperator, objectOperands, operandSqlType, operator } from '../model/operators';
import type { PlanContext } from './context';
import { booleanValue, listItems, objectFields } from './arguments';
import { validationError } from '../../core/errors';
import { and, TRUE, type BoolExp, type CompareOp } from './ir';
import type { Arg } from './values';

const NULL_SOURCE = { from: 'literal', value: null } as const;
const sourceOf = (arg: Arg) => (arg.kind === 'leaf' ? arg.source : NULL_SOURCE);

/**
 * The column a column operator (`_ceq`, ...) names: written in the document, or inside a variable's
 * object (whose operand values are part of the plan's cache key, see variableShape). It must be a
 * column of the same table that the role may read, of the compared column's type.
 */
function otherColumn(table: Table, column: Column, value: Arg, ctx: PlanContext, path: string): Column {
  const s = value.kind === 'leaf' ? value.source : undefined;
  if (s?.from === 'variable' && s.path.length === 0)
    throw validationError('the column name of a column comparison cannot be a variable of its own', path);
  const name = s?.from === 'literal' ? s.value : s?.from === 'variable' ? valueAt(ctx.variables[s.name], s.path) : null;
  const other = typeof name === 'string' ? table.columnByGql.get(name) : undefined;
  if (!other || !ctx.perms.select(table)?.columns.has(other.name))
    throw validationError(`column "${String(name)}" not found in type: '${typeName(table, 'select_column')}'`, path);
  if (other.scalar !== column.scalar)
    throw validationError(
      `cannot compare column "${column.gqlName}" of type ${column.scalar} with column "${other.gqlName}" of type ${other.scalar}`,
      path,
    );
  return other;
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  return path.reduce<unknown>((v, p) => (v == null ? undefined : (v as Record<string | number, unknown>)[p]), root);
}

/** A column as `_cast` shows it: compared as a value of `scalar`/`sqlType`, cast along `cast` in SQL. */
interface CastView {
  scalar: string;
  sqlType: string;
  cast: string[];
}

/** One comparison with a value operand, or with an object operand whose fields are bound one by one. */
function valueComparison(column: Column, op: CompareOp, value: Arg, view?: CastView): BoolExp {
  const seen = view ?? column;
  const cast = view ? { cast: view.cast } : {};
  if (operator(op).operand !== 'object')
    return {
      kind: 'compare',
      column,
      op,
      value: { source: sourceOf(value), ...operandSqlType(op, seen.sqlType) },
      ...cast,
    };
  const fields = new Map(objectFields(value));
  const operands = objectOperands(
    op,
    seen,
    (name) => (fields.has(name) ? sourceOf(fields.get(name)!) : undefined),
    (v) => ({ from: 'literal', value: v }) as const,
  );
  return { kind: 'compare', column, op, value: { source: NULL_SOURCE, sqlType: 'boolean' }, operands, ...cast };
}

/** `_cast: {geography: {...}}`: the comparisons inside, of the column cast to each type named. */
function castComparisons(table: Table, column: Column, arg: Arg, ctx: PlanContext, path: string, view?: CastView) {
  return objectFields(arg).map(([name, inner]) => {
    const target = castTarget((view ?? column).scalar, name);
    if (!target) throw validationError(`cannot cast a column of type ${(view ?? column).scalar} to ${name}`, path);
    const next = { ...target, cast: [...(view?.cast ?? []), target.sqlType] };
    return comparisons(table, column, inner, ctx, `${path}.${name}`, next);
  });
}

function comparisons(table: Table, column: Column, arg: Arg, ctx: PlanContext, path: string, view?: CastView): BoolExp {
  const items: BoolExp[] = [];
  // The schema offers only the operators of model/operators.ts, so every key here is one of them.
  for (const [name, value] of objectFields(arg)) {
    const op = name as CompareOp;
    // Only `_is_null` takes null (as false, the literal SQL form of model/operators.ts).
    if (value.kind === 'null' && op !== '_is_null')
      throw validationError(`unexpected null value for operator "${op}"`, `${path}.${op}`);
    if (op === '_cast') {
      items.push(...castComparisons(table, column, value, ctx, `${path}._cast`, view));
      continue;
    }
    if (isColumnOperator(op) && view) throw validationError(`${op} cannot be used inside _cast`, `${path}.${op}`);
    if (isColumnOperator(op)) {
      const other = otherColumn(table, column, value, ctx, `${path}.${op}`);
      items.push({ kind: 'compareColumn', column, op, other, root: false });
      continue;
    }
    items.push(valueComparison(column, op, value, view));
  }
  return and(...items);
}

/**
 * A `where` argument to IR. Through relationships, the target's own select permission is added, so a
 * filter can never reveal rows the role could not read.
 */
export function planBoolExp(table: Table, arg: Arg | undefined, ctx: PlanContext, path: string): BoolExp {
  if (!arg || arg.kind === 'null') return TRUE;
  const items: BoolExp[] = [];
  for (const [key, value] of objectFields(arg)) {
    const here = `${path}.${key}`;
    if (key === '_and' || key === '_or') {
      const parts = listItems(value).map((v, i) => planBoolExp(table, v, ctx, `${here}[${i}]`));
      items.push(key === '_and' ? and(...parts) : { kind: 'or', items: parts });
    } else if (key === '_not') {
      if (value.kind !== 'null') items.push({ kind: 'not', item: planBoolExp(table, value, ctx, here) });
    } else if (table.columnByGql.has(key)) {
      items.push(comparisons(table, table.columnByGql.get(key)!, value, ctx, here));
    } else if (table.relByName.has(key)) {
      const rel = table.relByName.get(key)!;
      const perm = ctx.perms.select(rel.target)!;
      items.push({ kind: 'relationship', rel, where: and(planBoolExp(rel.target, value, ctx, here), perm.filter) });
    } else if (key.endsWith('_aggregate') && table.relByName.has(key.slice(0, -'_aggregate'.length))) {
      items.push(...aggregatePredicates(table.relByName.get(key.slice(0, -'_aggregate'.length))!, value, ctx, here));
    } else {
      throw validationError(`field "${key}" not found in type: '${typeName(table, 'bool_exp')}'`, here);
    }
  }
  return and(...items);
}

function aggregatePredicates(rel: Relationship, arg: Arg, ctx: PlanContext, path: string): BoolExp[] {
  const out: BoolExp[] = [];
  const perm = ctx.perms.select(rel.target)!;
  for (const [fn, spec] of objectFields(arg)) {
    const f = new Map(objectFields(spec));
    const columns = listItems(f.get('arguments'))
      .map((a) => rel.target.columnByName.get(String(a.kind === 'enum' ? a.value : ''))!)
      .filter(Boolean);
    const distinct = booleanValue(f.get('distinct'), ctx.variables) === true;
    const predicate = objectFields(f.get('predicate')).map(([op, v]) => {
      if (op === '_is_null' || isColumnOperator(op))
        throw validationError(`${op} is not a valid aggregate predicate`, `${path}.${fn}.predicate`);
      // The count is a bigint: operands are bound as one (or as a bigint[] for _in, _nin).
      return { op: op as CompareOp, value: { source: sourceOf(v), ...operandSqlType(op as CompareOp, 'bigint') } };
    });
    out.push({
      kind: 'aggregate',
      rel,
      columns,
      distinct,
      filter: and(planBoolExp(rel.target, f.get('filter'), ctx, `${path}.${fn}.filter`), perm.filter),
      predicate,
    });
  }
  return out;
}
