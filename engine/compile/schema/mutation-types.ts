import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
} from 'graphql';
import type { Column, Table } from '../model/model-types';
import type { JsonbOperator } from '../model/operators';
import { NUMERIC_SCALARS } from '../model/scalar-types';
import { nonNullList } from './input-types';
import { ext } from './meaning';
import type { TableTypes } from './table-types';

const JSONB_OPERATORS: Record<JsonbOperator, string> = {
  _append: 'append the given jsonb value to the jsonb columns of the filtered rows',
  _prepend: 'prepend the given jsonb value to the jsonb columns of the filtered rows',
  _delete_key: 'delete a key (and its value) of an object, or string elements equal to it of an array',
  _delete_elem: 'delete the array element at the given index (negative counts from the end)',
  _delete_at_path: 'delete the field or element at the given path (negative array indexes count from the end)',
};

/** The input and output types of a table's mutations, for one role. */
export class MutationTypes {
  private memo = new Map<string, unknown>();
  constructor(readonly types: TableTypes) {}

  private once<T>(name: string, make: () => T): T {
    if (!this.memo.has(name)) this.memo.set(name, make());
    return this.memo.get(name) as T;
  }

  private get perms() {
    return this.types.perms;
  }

  /** Columns the role may give on insert: presets are set by the permission, not by the caller. */
  insertColumns(table: Table): Column[] {
    const p = this.perms.insert(table);
    if (!p) return [];
    return table.columns.filter((c) => p.columns.has(c.name) && !p.set.has(c.name) && !c.generated);
  }

  updateColumns(table: Table): Column[] {
    const p = this.perms.update(table);
    if (!p) return [];
    return table.columns.filter((c) => p.columns.has(c.name) && !p.set.has(c.name) && !c.generated);
  }

  private columnFields(cols: Column[]): GraphQLInputFieldConfigMap {
    return Object.fromEntries(cols.map((c) => [c.gqlName, { type: this.types.shared.columnScalar(c) }]));
  }

  insertInput(table: Table): GraphQLInputObjectType {
    return this.once(
      `ins:${table.gqlName}`,
      () =>
        new GraphQLInputObjectType({
          name: `${table.gqlName}_insert_input`,
          description: `input type for inserting data into table "${table.name}"`,
          fields: () => ({ ...this.columnFields(this.insertColumns(table)), ...this.relInsertFields(table) }),
        }),
    );
  }

  /** Nested inserts: a relationship to a table the role may insert into, as Hasura offers them. */
  private relInsertFields(table: Table): GraphQLInputFieldConfigMap {
    const fields: GraphQLInputFieldConfigMap = {};
    for (const r of table.relationships) {
      if (r.target.kind !== 'table' || !r.mapping.length || !this.insertColumns(r.target).length) continue;
      fields[r.name] = { type: this.relInsertInput(r.target, r.kind) };
    }
    return fields;
  }

  /** `<table>_obj_rel_insert_input` ({data: row}) or `<table>_arr_rel_insert_input` ({data: [row]}). */
  private relInsertInput(target: Table, kind: 'object' | 'array'): GraphQLInputObjectType {
    const short = kind === 'object' ? 'obj' : 'arr';
    return this.once(`${short}rel:${target.gqlName}`, () => {
      const conflict = this.onConflict(target);
      const row = new GraphQLNonNull(this.insertInput(target));
      return new GraphQLInputObjectType({
        name: `${target.gqlName}_${short}_rel_insert_input`,
        description: `input type for inserting ${kind} relation for remote table "${target.name}"`,
        fields: {
          data: { type: kind === 'object' ? row : new GraphQLNonNull(new GraphQLList(row)) },
          ...(conflict ? { on_conflict: { type: conflict, description: 'upsert condition' } } : {}),
        },
      });
    });
  }

  /** on_conflict is offered when the table has a key and the role may also update (an upsert updates). */
  onConflict(table: Table): GraphQLInputObjectType | undefined {
    if (!table.constraints.length || !this.perms.update(table)) return undefined;
    return this.once(`conflict:${table.gqlName}`, () => {
      const cols = this.updateColumns(table);
      const updateColumn = new GraphQLEnumType({
        name: `${table.gqlName}_update_column`,
        description: `update columns of table "${table.name}"`,
        values: cols.length
          ? Object.fromEntries(cols.map((c) => [c.gqlName, { value: c.name }]))
          : { _PLACEHOLDER: { value: null, description: 'placeholder (do not use)' } },
      });
      return new GraphQLInputObjectType({
        name: `${table.gqlName}_on_conflict`,
        description: `on_conflict condition type for table "${table.name}"`,
        fields: () => ({
          constraint: {
            type: new GraphQLNonNull(
              new GraphQLEnumType({
                name: `${table.gqlName}_constraint`,
                description: `unique or primary key constraints on table "${table.name}"`,
                values: Object.fromEntries(
                  table.constraints.map((k) => [
                    k.name,
                    {
                      value: k.name,
                      description: `unique or primary key constraint on columns ${k.columns.map((c) => `"${c}"`).join(', ')}`,
                    },
                  ]),
                ),
              }),
            ),
          },
          update_columns: { type: new GraphQLNonNull(nonNullList(updateColumn)), defaultValue: [] },
          where: { type: this.types.boolExp(table) },
        }),
      });
    });
  }

  setInput(table: Table): GraphQLInputObjectType {
    return this.once(
      `set:${table.gqlName}`,
      () =>
        new GraphQLInputObjectType({
          name: `${table.gqlName}_set_input`,
          description: `input type for updating data in table "${table.name}"`,
          fields: this.columnFields(this.updateColumns(table)),
        }),
    );
  }

  incInput(table: Table): GraphQLInputObjectType | undefined {
    const cols = this.updateColumns(table).filter((c) => NUMERIC_SCALARS.has(c.scalar) && !c.enumValues);
    if (!cols.length) return undefined;
    return this.once(
      `inc:${table.gqlName}`,
      () =>
        new GraphQLInputObjectType({
          name: `${table.gqlName}_inc_input`,
          description: `input type for incrementing numeric columns in table "${table.name}"`,
          fields: this.columnFields(cols),
        }),
    );
  }

  /**
   * Hasura's jsonb operators, offered for the jsonb columns the role may update: `<table>_append_input`
   * and `_prepend_input` take jsonb, `_delete_key_input` a String, `_delete_elem_input` an Int and
   * `_delete_at_path_input` a [String!] (the path).
   */
  jsonbInputs(table: Table): Partial<Record<JsonbOperator, GraphQLInputObjectType>> {
    const cols = this.updateColumns(table).filter((c) => c.sqlType === 'jsonb');
    if (!cols.length) return {};
    const make = (op: JsonbOperator, description: string, type: (c: Column) => GraphQLInputType) =>
      this.once(
        `${op}:${table.gqlName}`,
        () =>
          new GraphQLInputObjectType({
            name: `${table.gqlName}${op}_input`,
            description,
            fields: Object.fromEntries(cols.map((c) => [c.gqlName, { type: type(c) }])),
          }),
      );
    const jsonb = (c: Column) => this.types.shared.columnScalar(c);
    return {
      _append: make('_append', JSONB_OPERATORS._append, jsonb),
      _delete_at_path: make(
        '_delete_at_path',
        JSONB_OPERATORS._delete_at_path,
        () => new GraphQLList(new GraphQLNonNull(GraphQLString)),
      ),
      _delete_elem: make('_delete_elem', JSONB_OPERATORS._delete_elem, () => GraphQLInt),
      _delete_key: make('_delete_key', JSONB_OPERATORS._delete_key, () => GraphQLString),
      _prepend: make('_prepend', JSONB_OPERATORS._prepend, jsonb),
    };
  }

  /** The operators of update_T, update_T_by_pk and `<table>_updates`, in Hasura's (alphabetical) order. */
  updateOperatorArgs(table: Table): GraphQLFieldConfigArgumentMap {
    const inc = this.incInput(table);
    const jsonb = this.jsonbInputs(table);
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const op of ['_append', '_delete_at_path', '_delete_elem', '_delete_key'] as const)
      if (jsonb[op]) args[op] = { type: jsonb[op], description: JSONB_OPERATORS[op] };
    if (inc)
      args._inc = { type: inc, description: 'increments the numeric columns with given value of the filtered values' };
    if (jsonb._prepend) args._prepend = { type: jsonb._prepend, description: JSONB_OPERATORS._prepend };
    args._set = {
      type: this.setInput(table),
      description: 'sets the columns of the filtered rows to the given values',
    };
    return args;
  }

  /** `<table>_updates`: one entry of update_T_many, its operators and its where. */
  updatesInput(table: Table): GraphQLInputObjectType {
    return this.once(
      `updates:${table.gqlName}`,
      () =>
        new GraphQLInputObjectType({
          name: `${table.gqlName}_updates`,
          fields: () => ({
            ...this.updateOperatorArgs(table),
            where: {
              type: new GraphQLNonNull(this.types.boolExp(table)),
              description: 'filter the rows which have to be updated',
            },
          }),
        }),
    );
  }

  pkColumnsInput(table: Table): GraphQLInputObjectType {
    return this.once(
      `pk:${table.gqlName}`,
      () =>
        new GraphQLInputObjectType({
          name: `${table.gqlName}_pk_columns_input`,
          description: `primary key columns input for table: ${table.name}`,
          fields: Object.fromEntries(
            table.primaryKey.map((c) => [c.gqlName, { type: new GraphQLNonNull(this.types.shared.columnScalar(c)) }]),
          ),
        }),
    );
  }

  response(table: Table): GraphQLObjectType {
    return this.once(
      `resp:${table.gqlName}`,
      () =>
        new GraphQLObjectType({
          name: `${table.gqlName}_mutation_response`,
          description: `response of any mutation on the table "${table.name}"`,
          fields: () => {
            const fields: GraphQLFieldConfigMap<unknown, unknown> = {
              affected_rows: {
                type: new GraphQLNonNull(GraphQLInt),
                description: 'number of rows affected by the mutation',
                extensions: ext({ kind: 'affectedRows' }),
              },
            };
            if (this.types.selectable(table)) {
              fields.returning = {
                type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(this.types.object(table)))),
                description: 'data from the rows affected by the mutation',
                extensions: ext({ kind: 'returning' }),
              };
            }
            return fields;
          },
        }),
    );
  }
}
