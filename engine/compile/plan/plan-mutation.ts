import { getNamedType, isInputObjectType, type FieldNode, type GraphQLField, type GraphQLObjectType } from 'graphql';
import type { Column, Relationship, Table } from '../model/model-types';
import { meaningOf, type Meaning } from '../schema/meaning';
import { fieldArgs, listItems, objectFields } from './arguments';
import { selectedFields, subSelections } from './collect';
import type { PlanContext } from './context';
import { validationError } from '../../core/errors';
import {
  and,
  TRUE,
  type Assignment,
  type BoolExp,
  type JsonbAssignment,
  type JsonbOperator,
  type MutationField,
  type MutationOutput,
  type NestedInsert,
  type NestedRows,
  type OnConflict,
  type UpdateField,
  type ValueRef,
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
  for (const s of selectedFields(type, subSelections(nodes), ctx, path)) {
    if (s.kind === 'typename') {
      fields.push(s);
      continue;
    }
    const { alias, nodes: ns, path: here, def } = s;
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
  const nested: NestedRows = { before: [], after: [], path };
  for (const [key, v] of objectFields(arg)) {
    const rel = table.columnByGql.has(key) ? undefined : table.relByName.get(key);
    if (!rel) columns.set(key, v);
    else if (rel.insertion === 'before_parent') nested.before.push(planNestedInsert(rel, v, ctx, `${path}.${key}`));
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
  const filled = rel.insertion === 'before_parent' ? [] : filledBy(rel, 'target');
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

/** How each jsonb operator's value is bound: jsonb, a key (text), an index (integer), a path (text[]). */
const JSONB_VALUES: Record<JsonbOperator, Omit<ValueRef, 'source'>> = {
  _append: { sqlType: 'jsonb' },
  _prepend: { sqlType: 'jsonb' },
  _delete_key: { sqlType: 'text' },
  _delete_elem: { sqlType: 'integer' },
  _delete_at_path: { sqlType: 'text', array: true },
};

function jsonbAssignments(table: Table, args: Map<string, Arg>, path: string): JsonbAssignment[] {
  return (Object.keys(JSONB_VALUES) as JsonbOperator[]).flatMap((op) =>
    assignments(table, args.get(op), `${path}.${op}`).map((a) => ({
      column: a.column,
      op,
      value: { ...JSONB_VALUES[op], source: a.value.source },
    })),
  );
}

/** As Hasura refuses it: a column named by two operators (`_set` and `_append`, ...). */
function checkDisjoint(named: Column[], path: string): void {
  const twice = named.filter((c, i) => named.indexOf(c) !== i);
  if (twice.length)
    throw validationError(
      `Column found in multiple operators: [${[...new Set(twice)].map((c) => `"${c.name}"`).join(', ')}].`,
      path,
    );
}

/** Hasura's update operators, in the order its documentation lists them. */
const UPDATE_OPERATORS = ['_set', '_inc', '_append', '_prepend', '_delete_key', '_delete_elem', '_delete_at_path'];

/** The update operators a field offers the role (for update_T_many: those of an entry of `updates`). */
function offeredOperators(def: GraphQLField<unknown, unknown>): string[] {
  const updates = def.args.find((a) => a.name === 'updates');
  const entry = updates && getNamedType(updates.type);
  const names = entry && isInputObjectType(entry) ? Object.keys(entry.getFields()) : def.args.map((a) => a.name);
  return UPDATE_OPERATORS.filter((op) => names.includes(op));
}

/** One update (update_T, update_T_by_pk or an entry of update_T_many): its operators, under the permission. */
function planUpdate(
  table: Table,
  args: Map<string, Arg>,
  where: BoolExp,
  out: { alias: string; one: boolean; output: MutationOutput; offered: string[] },
  ctx: PlanContext,
  path: string,
): UpdateField {
  const perm = ctx.perms.update(table)!;
  const set = assignments(table, args.get('_set'), `${path}._set`);
  const inc = assignments(table, args.get('_inc'), `${path}._inc`);
  const jsonb = jsonbAssignments(table, args, path);
  // The permission's presets alone may be the change, as in Hasura.
  if (set.length + inc.length + jsonb.length === 0 && perm.set.size === 0)
    throw validationError(`at least any one of ${out.offered.join(', ')} is expected`, path);
  checkDisjoint(
    [...set, ...inc, ...jsonb].map((a) => a.column),
    path,
  );
  // Conditions on the columns this update writes (a tenant role's references), beside the check.
  const written = new Set([...set, ...inc, ...jsonb].map((a) => a.column.name).concat([...perm.set.keys()]));
  const references = (perm.references ?? []).filter((r) => r.columns.some((c) => written.has(c)));
  return {
    kind: 'update',
    alias: out.alias,
    one: out.one,
    output: out.output,
    table,
    where: and(where, perm.filter),
    set: [...set, ...presets(table, perm.set)],
    inc,
    jsonb,
    check: and(perm.check, ...references.map((r) => r.condition)),
  };
}

/** update_T_many: each entry of `updates` an update of its own, with the field's selection as output. */
function planUpdateMany(
  table: Table,
  alias: string,
  nodes: FieldNode[],
  def: GraphQLField<unknown, unknown>,
  ctx: PlanContext,
  path: string,
): MutationField {
  const args = fieldArgs(nodes[0], def, ctx);
  const output = planOutput(table, objectTypeOf(def.type), nodes, false, ctx, path);
  const offered = offeredOperators(def);
  const updates = listItems(args.get('updates')).map((u, i) => {
    const at = `${path}.args.updates[${i}]`;
    const fields = u.kind === 'object' ? u.fields : new Map<string, Arg>();
    const where = planBoolExp(table, fields.get('where'), ctx, `${at}.where`);
    return planUpdate(table, fields, where, { alias, one: false, output, offered }, ctx, at);
  });
  return { kind: 'updateMany', alias, table, updates };
}

/** Whether a check reads rows of `table` (through a relationship or `_exists`), beyond the row it is on. */
function readsTable(exp: BoolExp, table: Table): boolean {
  switch (exp.kind) {
    case 'and':
    case 'or':
      return exp.items.some((e) => readsTable(e, table));
    case 'not':
    case 'scope':
      return readsTable(exp.item, table);
    case 'relationship':
      return exp.rel.target === table || readsTable(exp.where, table);
    case 'exists':
      return exp.table === table || readsTable(exp.where, table);
    case 'aggregate':
      return exp.rel.target === table || readsTable(exp.filter, table);
    default:
      return false;
  }
}

export function planMutation(
  m: Extract<Meaning, { kind: 'insert' | 'update' | 'delete' | 'updateMany' }>,
  alias: string,
  nodes: FieldNode[],
  def: GraphQLField<unknown, unknown>,
  ctx: PlanContext,
  path: string,
): MutationField {
  if (m.kind === 'updateMany') return planUpdateMany(m.table, alias, nodes, def, ctx, path);
  const { table, one } = m;
  const args = fieldArgs(nodes[0], def, ctx);
  const output = planOutput(table, objectTypeOf(def.type), nodes, one, ctx, path);
  if (m.kind === 'insert') {
    const perm = ctx.perms.insert(table)!;
    const objects = one ? [args.get('object')] : listItems(args.get('objects'));
    const planned = objects.map((o, i) =>
      planInsertRow(table, o, [], ctx, one ? `${path}.args.object` : `${path}.args.objects[${i}]`),
    );
    // A check that reads the table itself (a key between rows of the insert) must see every row written:
    // the nested form checks in a second statement, which does.
    const nested =
      planned.some((p) => p.nested.before.length + p.nested.after.length > 0) ||
      (planned.length > 1 && readsTable(perm.check, table));
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
    const where = one
      ? pkWhere(table, args.get('pk_columns')!, `${path}.args.pk_columns`)
      : planBoolExp(table, args.get('where'), ctx, `${path}.args.where`);
    return planUpdate(table, args, where, { alias, one, output, offered: offeredOperators(def) }, ctx, `${path}.args`);
  }
  const perm = ctx.perms.delete(table)!;
  const where = one
    ? pkWhere(table, args, `${path}.args`)
    : planBoolExp(table, args.get('where'), ctx, `${path}.args.where`);
  return { kind: 'delete', alias, table, where: and(where, perm.filter), one, output };
}
