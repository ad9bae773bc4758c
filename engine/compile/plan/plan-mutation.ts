import type { FieldNode, GraphQLField, GraphQLObjectType } from 'graphql';
import type { Column, Table } from '../model/model-types';
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
  type OnConflict,
  type ValueSource,
} from './ir';
import { planBoolExp } from './plan-bool-exp';
import { objectTypeOf, planFields } from './plan-select';
import type { Arg } from './values';

function assignments(table: Table, arg: Arg | undefined, path: string): Assignment[] {
  return objectFields(arg).map(([key, v]) => {
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
    const rows = objects.map((o, i) => [
      ...assignments(table, o, `${path}.args.objects[${i}]`),
      ...presets(table, perm.set),
    ]);
    return {
      kind: 'insert',
      alias,
      table,
      rows,
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
