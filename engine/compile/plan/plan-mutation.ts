import type { FieldNode, GraphQLField, GraphQLObjectType } from 'graphql';
import type { Column, Relationship, Table } from '../model/model-types';
import { meaningOf, type Meaning } from '../schema/meaning';
import { fieldArgs, listItems, objectFields } from './arguments';
import { collectFields, fieldDef, subSelections } from './collect';
import type { PlanContext } from './context';
import { validationError } from '../../core/errors';
import {
  and,
  TRUE,
  type Assignment,
  type BoolExp,
  type MutationField,
  type MutationOutput,
  type NestedInsert,
  type NestedRows,
  type OnConflict,
  type ValueSource,
} from './ir';
import { planBoolExp } from './plan-bool-exp';
import { objectTypeOf, planFields } from './plan-select';
import type { Arg } from './values';

function assignments(table: Table, arg: Arg | Map<string, Arg> | undefined, path: string): Assignment[] {
  return (arg instanceof Map ? [...arg] : objectFields(arg)).map(([key, v]) => {
    const column = table.columnByGql.get(key);
    if (!column) throw validationError(`field "${key}" not found in table "${table.name}"`, `${path}.${key}`);
    const source: ValueSource = v.kind === 'leaf' ? v.source : { from: 'literal', value: null };
    return { column, value: { source, sqlType: column.sqlType } };
  });
}

function presets(table: Table, set: Map<string, ValueSource>): Assignment[] {
  return [...set].map(([name, source]) => {
    const column = table.columnByName.get(name) as Column;
    return { column, value: { source, sqlType: column.sqlType } };
  });
}

/** `returning`/`affected_rows` for many-row mutations, the row itself for `_one` and `_by_pk`. */
function planOutput(
  table: Table,
  type: GraphQLObjectType,
  nodes: FieldNode[],
  one: boolean,
  ctx: PlanContext,
  path: string,
): MutationOutput {
  const visible = ctx.perms.select(table)?.filter ?? TRUE;
  if (one) return { visible, fields: planFields(table, type, subSelections(nodes), ctx, path, 1) };
  const fields: MutationOutput['fields'] = [];
  for (const [alias, ns] of collectFields(type, subSelections(nodes), ctx)) {
    const here = `${path}.selectionSet.${alias}`;
    if (ns[0].name.value === '__typename') {
      fields.push({ kind: 'typename', alias, name: type.name });
      continue;
    }
    const def = fieldDef(type, ns[0], here);
    const m = meaningOf(def);
    if (m?.kind === 'affectedRows') fields.push({ kind: 'affected_rows', alias });
    else if (m?.kind === 'returning')
      fields.push({
        kind: 'returning',
        alias,
        fields: planFields(table, objectTypeOf(def.type), subSelections(ns), ctx, here, 2),
      });
  }
  return { visible, fields };
}

function pkWhere(table: Table, arg: Arg | Map<string, Arg>, path: string): BoolExp {
  const fields = arg instanceof Map ? arg : new Map(objectFields(arg));
  return and(
    ...table.primaryKey.map((column): BoolExp => {
      const v = fields.get(column.gqlName);
      if (!v || v.kind !== 'leaf') throw validationError(`missing primary key column "${column.gqlName}"`, path);
      return { kind: 'compare', column, op: '_eq', value: { source: v.source, sqlType: column.sqlType } };
    }),
  );
}

function planOnConflict(table: Table, arg: Arg | undefined, ctx: PlanContext, path: string): OnConflict | undefined {
  if (!arg || arg.kind !== 'object') return undefined;
  const f = arg.fields;
  const constraint = f.get('constraint');
  const update = ctx.perms.update(table)!;
  return {
    constraint: String(constraint?.kind === 'enum' ? constraint.value : ''),
    updateColumns: listItems(f.get('update_columns'))
      .map((a) => table.columnByName.get(String(a.kind === 'enum' ? a.value : ''))!)
      .filter(Boolean),
    where: and(planBoolExp(table, f.get('where'), ctx, `${path}.where`), update.filter),
  };
}

/** Columns a relationship fills on the row it is written for: `from` is the side the value comes from. */
function filledBy(rel: Relationship, side: 'source' | 'target'): Column[] {
  return rel.mapping.map(([s, t]) => (side === 'source' ? s : t));
}

/**
 * One object to insert, with its nested inserts (Hasura's `<table>_obj_rel_insert_input` and
 * `_arr_rel_insert_input` fields); `filled` are the columns a relationship fills, which it may not set.
 */
function planInsertRow(
  table: Table,
  arg: Arg | undefined,
  filled: Column[],
  ctx: PlanContext,
  path: string,
): { row: Assignment[]; nested: NestedRows } {
  const columns = new Map<string, Arg>();
  const nested: NestedRows = { before: [], after: [] };
  for (const [key, v] of objectFields(arg)) {
    const rel = table.columnByGql.has(key) ? undefined : table.relByName.get(key);
    if (!rel) columns.set(key, v);
    else if (rel.kind === 'object') nested.before.push(planNestedInsert(rel, v, ctx, `${path}.${key}`));
    else nested.after.push(planNestedInsert(rel, v, ctx, `${path}.${key}`));
  }
  const row = assignments(table, columns, path);
  const given = row.map((a) => a.column);
  checkNotDetermined(given, filled, nested, path);
  const taken = new Set([...filled, ...nested.before.flatMap((n) => filledBy(n.rel, 'source'))]);
  const perm = ctx.perms.insert(table)!;
  row.push(...presets(table, perm.set).filter((a) => !taken.has(a.column)));
  return { row, nested };
}

/** As Hasura refuses them: a column given that a parent row or an object relationship also fills. */
function checkNotDetermined(given: Column[], filled: Column[], nested: NestedRows, path: string): void {
  const names = (cs: Column[]) => cs.map((c) => `"${c.name}"`).join(', ');
  const twice = given.filter((c) => filled.includes(c));
  if (twice.length)
    throw validationError(
      `cannot insert ${names(twice)} columns as their values are already being determined by parent insert`,
      path,
    );
  for (const n of nested.before) {
    const clash = filledBy(n.rel, 'source').filter((c) => given.includes(c) || filled.includes(c));
    if (clash.length)
      throw validationError(
        `cannot insert object relationship "${n.rel.name}" as ${names(clash)} column values are already determined`,
        n.path,
      );
  }
}

function planNestedInsert(rel: Relationship, arg: Arg, ctx: PlanContext, path: string): NestedInsert {
  const f = arg.kind === 'object' ? arg.fields : new Map<string, Arg>();
  const data = f.get('data');
  const items = rel.kind === 'object' ? [data] : listItems(data);
  const filled = rel.kind === 'object' ? [] : filledBy(rel, 'target');
  const planned = items.map((o, i) =>
    planInsertRow(rel.target, o, filled, ctx, rel.kind === 'object' ? `${path}.data` : `${path}.data[${i}]`),
  );
  return {
    rel,
    rows: planned.map((p) => p.row),
    nested: planned.map((p) => p.nested),
    onConflict: planOnConflict(rel.target, f.get('on_conflict'), ctx, `${path}.on_conflict`),
    check: ctx.perms.insert(rel.target)!.check,
    path,
  };
}

export function planMutation(
  m: Extract<Meaning, { kind: 'insert' | 'update' | 'delete' }>,
  alias: string,
  nodes: FieldNode[],
  def: GraphQLField<unknown, unknown>,
  ctx: PlanContext,
  path: string,
): MutationField {
  const { table, one } = m;
  const args = fieldArgs(nodes[0], def, ctx);
  const output = planOutput(table, objectTypeOf(def.type), nodes, one, ctx, path);
  if (m.kind === 'insert') {
    const perm = ctx.perms.insert(table)!;
    const objects = one ? [args.get('object')] : listItems(args.get('objects'));
    const planned = objects.map((o, i) =>
      planInsertRow(table, o, [], ctx, one ? `${path}.args.object` : `${path}.args.objects[${i}]`),
    );
    const nested = planned.some((p) => p.nested.before.length + p.nested.after.length > 0);
    return {
      kind: 'insert',
      alias,
      table,
      rows: planned.map((p) => p.row),
      ...(nested ? { nested: planned.map((p) => p.nested) } : {}),
      onConflict: planOnConflict(table, args.get('on_conflict'), ctx, `${path}.args.on_conflict`),
      check: perm.check,
      one,
      output,
    };
  }
  if (m.kind === 'update') {
    const perm = ctx.perms.update(table)!;
    const set = assignments(table, args.get('_set'), `${path}.args._set`);
    const inc = assignments(table, args.get('_inc'), `${path}.args._inc`);
    if (set.length + inc.length === 0)
      throw validationError('at least one of "_set" or "_inc" with a column is expected', `${path}.args`);
    const where = one
      ? pkWhere(table, args.get('pk_columns')!, `${path}.args.pk_columns`)
      : planBoolExp(table, args.get('where'), ctx, `${path}.args.where`);
    return {
      kind: 'update',
      alias,
      table,
      where: and(where, perm.filter),
      set: [...set, ...presets(table, perm.set)],
      inc,
      check: perm.check,
      one,
      output,
    };
  }
  const perm = ctx.perms.delete(table)!;
  const where = one
    ? pkWhere(table, args, `${path}.args`)
    : planBoolExp(table, args.get('where'), ctx, `${path}.args.where`);
  return { kind: 'delete', alias, table, where: and(where, perm.filter), one, output };
}
