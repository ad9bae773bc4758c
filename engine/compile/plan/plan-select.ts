import {
  getNamedType,
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';
import type { Column, Relationship, Table } from '../model/model-types';
import { meaningOf } from '../schema/meaning';
import { booleanValue, fieldArgs, listItems, objectFields } from './arguments';
import { selectedFields, subSelections } from './collect';
import type { PlanContext } from './context';
import { validationError } from '../../core/errors';
import {
  and,
  type AggregateField,
  type AggregateItem,
  type BoolExp,
  type Field,
  type OrderDirection,
  type OrderItem,
  type OrderTarget,
  type RowSource,
  type ValueRef,
} from './ir';
import { parseJsonPath } from './json-path';
import { planBoolExp } from './plan-bool-exp';
import type { Arg } from './values';

/** The object type a field returns, once lists and non-null wrappers are taken off. */
export const objectTypeOf = (t: GraphQLOutputType) => getNamedType(t) as GraphQLObjectType;

/** Fields selected on a table's object type, in response order. */
export function planFields(
  table: Table,
  type: GraphQLObjectType,
  sets: SelectionSetNode[],
  ctx: PlanContext,
  path: string,
  depth: number,
): Field[] {
  if (depth > ctx.maxDepth)
    throw validationError(`the query is nested deeper than the maximum depth of ${ctx.maxDepth}`, path);
  const out: Field[] = [];
  for (const s of selectedFields(type, sets, ctx, path)) {
    if (s.kind === 'typename') {
      out.push(s);
      continue;
    }
    const { alias, nodes, node, path: here, def } = s;
    const m = meaningOf(def);
    const sub = subSelections(nodes);
    const target = objectTypeOf(def.type);
    if (m?.kind === 'column')
      out.push({ kind: 'column', alias, column: m.column, ...columnPath(node, def, ctx, here) });
    else if (m?.kind === 'objectRel') {
      const perm = ctx.perms.select(m.rel.target)!;
      out.push({
        kind: 'object',
        alias,
        rel: m.rel,
        where: perm.filter,
        fields: planFields(m.rel.target, target, sub, ctx, here, depth + 1),
      });
    } else if (m?.kind === 'arrayRel') {
      const rows = planRows(m.rel.target, node, def, ctx, here, 'list');
      out.push({
        kind: 'array',
        alias,
        rel: m.rel,
        rows,
        fields: planFields(m.rel.target, target, sub, ctx, here, depth + 1),
      });
    } else if (m?.kind === 'arrayRelAggregate') {
      const rows = planRows(m.rel.target, node, def, ctx, here, 'aggregate');
      out.push({
        kind: 'arrayAggregate',
        alias,
        rel: m.rel,
        rows,
        fields: planAggregate(m.rel.target, target, sub, ctx, here, depth + 1),
      });
    } else {
      throw validationError(`field "${node.name.value}" cannot be selected here`, here);
    }
  }
  return out;
}

/** The `path` argument of a json or jsonb column: a path written in the document, bound as text[]. */
function columnPath(
  node: FieldNode,
  def: GraphQLField<unknown, unknown>,
  ctx: PlanContext,
  path: string,
): { path?: ValueRef } {
  if (!def.args.some((a) => a.name === 'path')) return {};
  const arg = fieldArgs(node, def, ctx).get('path');
  if (!arg || arg.kind !== 'leaf') return {};
  const s = arg.source;
  if (s.from !== 'literal')
    throw validationError('the json path must be written in the query, not given as a variable', `${path}.args.path`);
  if (s.value === null) return {};
  return {
    path: {
      source: { from: 'literal', value: parseJsonPath(String(s.value), `${path}.args.path`) },
      sqlType: 'text',
      array: true,
    },
  };
}

function limitRef(arg: Arg | undefined, name: string, ctx: PlanContext, path: string): ValueRef | undefined {
  if (!arg || arg.kind !== 'leaf') return undefined;
  const s = arg.source;
  if (s.from === 'literal' && typeof s.value === 'number' && s.value < 0)
    throw validationError(`expecting a non-negative integer for "${name}"`, path);
  if (s.from === 'variable') ctx.checks.push({ source: s, path, rule: 'nonNegative' });
  return { source: s, sqlType: 'integer' };
}

/** distinct_on, where, order_by, limit and offset of a list, with the role's filter and row limit. */
export function planRows(
  table: Table,
  node: FieldNode,
  def: GraphQLField<unknown, unknown>,
  ctx: PlanContext,
  path: string,
  use: 'list' | 'aggregate',
): RowSource {
  const args = fieldArgs(node, def, ctx);
  const perm = ctx.perms.select(table)!;
  const orderBy = planOrderBy(table, args.get('order_by'), ctx, `${path}.args.order_by`);
  const distinctOn = listItems(args.get('distinct_on')).map((a) =>
    table.columnByName.get(String(a.kind === 'enum' ? a.value : ''))!,
  );
  if (distinctOn.length) {
    const leading = orderBy
      .slice(0, distinctOn.length)
      .map((o) => (o.target.kind === 'column' ? o.target.column : undefined));
    if (!distinctOn.every((c) => leading.includes(c)) || leading.length < distinctOn.length) {
      throw validationError('"distinct_on" columns must match initial "order_by" columns', `${path}.args.distinct_on`);
    }
  }
  const offsetArg = args.get('offset');
  if (offsetArg && offsetArg.kind !== 'null' && orderBy.length === 0) {
    throw validationError('"offset" can only be used together with "order_by"', `${path}.args.offset`);
  }
  const caps = [perm.limit, use === 'list' ? ctx.maxRows : undefined].filter(
    (n): n is number => n !== undefined && n > 0,
  );
  return {
    table,
    where: and(planBoolExp(table, args.get('where'), ctx, `${path}.args.where`), perm.filter),
    orderBy,
    distinctOn,
    limit: limitRef(args.get('limit'), 'limit', ctx, `${path}.args.limit`),
    offset: limitRef(offsetArg, 'offset', ctx, `${path}.args.offset`),
    maxRows: caps.length ? Math.min(...caps) : undefined,
  };
}

const DIRECTIONS = new Set(['asc', 'asc_nulls_first', 'asc_nulls_last', 'desc', 'desc_nulls_first', 'desc_nulls_last']);

/** order_by: a list of objects (or one object); list order, then key order, gives priority. */
export function planOrderBy(table: Table, arg: Arg | undefined, ctx: PlanContext, path: string): OrderItem[] {
  const out: OrderItem[] = [];
  listItems(arg).forEach((item, i) => collectOrder(table, item, ctx, `${path}[${i}]`, (t) => t, out));
  return out;
}

function direction(arg: Arg): OrderDirection | undefined {
  return arg.kind === 'enum' && DIRECTIONS.has(String(arg.value)) ? (arg.value as OrderDirection) : undefined;
}

function collectOrder(
  table: Table,
  arg: Arg,
  ctx: PlanContext,
  path: string,
  wrap: (t: OrderTarget) => OrderTarget,
  out: OrderItem[],
): void {
  for (const [key, value] of objectFields(arg)) {
    if (value.kind === 'null') continue;
    const here = `${path}.${key}`;
    const column = table.columnByGql.get(key);
    if (column) {
      out.push({ target: wrap({ kind: 'column', column }), direction: direction(value)! });
      continue;
    }
    const rel = table.relByName.get(key);
    if (rel?.kind === 'object') {
      const where = ctx.perms.select(rel.target)!.filter;
      collectOrder(rel.target, value, ctx, here, (t) => wrap({ kind: 'object', rel, where, next: t }), out);
      continue;
    }
    const aggRel = key.endsWith('_aggregate') ? table.relByName.get(key.slice(0, -'_aggregate'.length)) : undefined;
    if (aggRel) {
      const where = ctx.perms.select(aggRel.target)!.filter;
      for (const [fn, spec] of objectFields(value)) {
        if (spec.kind === 'null') continue;
        if (fn === 'count')
          out.push({
            target: wrap({ kind: 'aggregate', rel: aggRel, where, fn: 'count' }),
            direction: direction(spec)!,
          });
        else {
          for (const [col, dir] of objectFields(spec)) {
            if (dir.kind === 'null') continue;
            out.push({
              target: wrap({ kind: 'aggregate', rel: aggRel, where, fn, column: aggRel.target.columnByGql.get(col)! }),
              direction: direction(dir)!,
            });
          }
        }
      }
      continue;
    }
    throw validationError(`field "${key}" not found in type: '${table.gqlName}_order_by'`, here);
  }
}

/** The fields of a `T_aggregate` selection: aggregate { count sum {...} ... } and nodes. */
export function planAggregate(
  table: Table,
  type: GraphQLObjectType,
  sets: SelectionSetNode[],
  ctx: PlanContext,
  path: string,
  depth: number,
): AggregateField[] {
  const out: AggregateField[] = [];
  for (const s of selectedFields(type, sets, ctx, path)) {
    if (s.kind === 'typename') {
      out.push(s);
      continue;
    }
    const { alias, nodes, path: here, def } = s;
    const m = meaningOf(def);
    if (m?.kind === 'nodes') {
      out.push({
        kind: 'nodes',
        alias,
        fields: planFields(table, objectTypeOf(def.type), subSelections(nodes), ctx, here, depth + 1),
      });
    } else if (m?.kind === 'aggregateFields') {
      out.push({
        kind: 'aggregate',
        alias,
        items: planAggregateItems(table, objectTypeOf(def.type), subSelections(nodes), ctx, here),
      });
    }
  }
  return out;
}

function planAggregateItems(
  table: Table,
  type: GraphQLObjectType,
  sets: SelectionSetNode[],
  ctx: PlanContext,
  path: string,
): AggregateItem[] {
  const out: AggregateItem[] = [];
  for (const s of selectedFields(type, sets, ctx, path)) {
    if (s.kind === 'typename') {
      out.push(s);
      continue;
    }
    const { alias, nodes, node, path: here, def } = s;
    const m = meaningOf(def);
    if (m?.kind === 'count') {
      const args = fieldArgs(node, def, ctx);
      const columns = listItems(args.get('columns')).map((a) =>
        table.columnByName.get(String(a.kind === 'enum' ? a.value : ''))!,
      ) as Column[];
      out.push({ kind: 'count', alias, columns, distinct: booleanValue(args.get('distinct'), ctx.variables) === true });
    } else if (m?.kind === 'aggregateFunction') {
      const fnType = objectTypeOf(def.type);
      const fields = selectedFields(fnType, subSelections(nodes), ctx, here).map((f) =>
        f.kind === 'typename'
          ? f
          : { kind: 'column' as const, alias: f.alias, column: (meaningOf(f.def) as { column: Column }).column },
      );
      out.push({ kind: 'function', alias, fn: m.fn, fields });
    }
  }
  return out;
}

export type { BoolExp, Relationship };
