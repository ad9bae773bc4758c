/*
 * engine/compile/schema: a GraphQL schema per role, built from the model (a column the role may not
 * read does not exist for it), with meaning.ts telling the planner what each field means. Imports
 * compile/model and engine/core.
 */
import {
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  isIntrospectionType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
} from 'graphql';
import type { Model, Table } from '../model/model-types';
import { RolePermissions } from '../model/role-permissions';
import type { ActionField } from './action-types';
import { SharedInputs } from './input-types';
import { ext } from './meaning';
import { MutationTypes } from './mutation-types';
import { nativeQueryFields } from './native-query-fields';
import { streamFields } from './stream-fields';
import { TableTypes } from './table-types';

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

export interface RoleSchema {
  role: string;
  schema: GraphQLSchema;
  perms: RolePermissions;
}

function pkArgs(table: Table, types: TableTypes): GraphQLFieldConfigArgumentMap {
  return Object.fromEntries(
    table.primaryKey.map((c) => [c.gqlName, { type: new GraphQLNonNull(types.shared.columnScalar(c)) }]),
  );
}

function queryFields(model: Model, types: TableTypes): Fields {
  const fields: Fields = {};
  for (const table of types.perms.readableTables().filter((t) => types.selectable(t))) {
    const names = table.rootFields;
    if (names.select) {
      fields[names.select] = {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(types.object(table)))),
        description: `fetch data from the table: "${table.name}"`,
        args: types.selectArgs(table),
        extensions: ext({ kind: 'select', table }),
      };
    }
    if (names.select_aggregate && types.canAggregate(table)) {
      fields[names.select_aggregate] = {
        type: new GraphQLNonNull(types.aggregate(table)),
        description: `fetch aggregated fields from the table: "${table.name}"`,
        args: types.selectArgs(table),
        extensions: ext({ kind: 'aggregate', table }),
      };
    }
    const pkReadable =
      table.primaryKey.length > 0 && table.primaryKey.every((c) => types.perms.select(table)!.columns.has(c.name));
    if (names.select_by_pk && pkReadable) {
      fields[names.select_by_pk] = {
        type: types.object(table),
        description: `fetch data from the table: "${table.name}" using primary key columns`,
        args: pkArgs(table, types),
        extensions: ext({ kind: 'selectByPk', table }),
      };
    }
  }
  return fields;
}

/**
 * insert_T (many rows) and insert_T_one (a row, read back, so only for a role that may select). A role
 * that may set no column gets neither: an input object needs a field, so the schema could not be built.
 */
function insertFields(table: Table, types: TableTypes, mt: MutationTypes, fields: Fields): void {
  if (mt.insertColumns(table).length === 0) return;
  const names = table.rootFields;
  const onConflict = mt.onConflict(table);
  const conflictArg: GraphQLFieldConfigArgumentMap = onConflict
    ? { on_conflict: { type: onConflict, description: 'upsert condition' } }
    : {};
  if (names.insert) {
    fields[names.insert] = {
      type: mt.response(table),
      description: `insert data into the table: "${table.name}"`,
      args: {
        objects: {
          type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(mt.insertInput(table)))),
          description: 'the rows to be inserted',
        },
        ...conflictArg,
      },
      extensions: ext({ kind: 'insert', table, one: false }),
    };
  }
  if (names.insert_one && types.selectable(table)) {
    fields[names.insert_one] = {
      type: types.object(table),
      description: `insert a single row into the table: "${table.name}"`,
      args: {
        object: { type: new GraphQLNonNull(mt.insertInput(table)), description: 'the row to be inserted' },
        ...conflictArg,
      },
      extensions: ext({ kind: 'insert', table, one: true }),
    };
  }
}

/** update_T (by a where) and update_T_by_pk (a row, read back); none for a role that may set no column. */
function updateFields(table: Table, types: TableTypes, mt: MutationTypes, fields: Fields): void {
  if (mt.updateColumns(table).length === 0) return;
  const names = table.rootFields;
  const setArgs: GraphQLFieldConfigArgumentMap = mt.updateOperatorArgs(table);
  if (names.update) {
    fields[names.update] = {
      type: mt.response(table),
      description: `update data of the table: "${table.name}"`,
      args: {
        ...setArgs,
        where: {
          type: new GraphQLNonNull(types.boolExp(table)),
          description: 'filter the rows which have to be updated',
        },
      },
      extensions: ext({ kind: 'update', table, one: false }),
    };
  }
  if (names.update_by_pk && byPk(table, types)) {
    fields[names.update_by_pk] = {
      type: types.object(table),
      description: `update single row of the table: "${table.name}"`,
      args: { ...setArgs, pk_columns: { type: new GraphQLNonNull(mt.pkColumnsInput(table)) } },
      extensions: ext({ kind: 'update', table, one: true }),
    };
  }
  if (names.update_many) {
    fields[names.update_many] = {
      type: new GraphQLList(mt.response(table)),
      description: `update multiples rows of table: "${table.name}"`,
      args: {
        updates: {
          type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(mt.updatesInput(table)))),
          description: 'updates to execute, in order',
        },
      },
      extensions: ext({ kind: 'updateMany', table }),
    };
  }
}

/** delete_T (by a where) and delete_T_by_pk (a row, read back). */
function deleteFields(table: Table, types: TableTypes, mt: MutationTypes, fields: Fields): void {
  const names = table.rootFields;
  if (names.delete) {
    fields[names.delete] = {
      type: mt.response(table),
      description: `delete data from the table: "${table.name}"`,
      args: {
        where: {
          type: new GraphQLNonNull(types.boolExp(table)),
          description: 'filter the rows which have to be deleted',
        },
      },
      extensions: ext({ kind: 'delete', table, one: false }),
    };
  }
  if (names.delete_by_pk && byPk(table, types)) {
    fields[names.delete_by_pk] = {
      type: types.object(table),
      description: `delete single row from the table: "${table.name}"`,
      args: pkArgs(table, types),
      extensions: ext({ kind: 'delete', table, one: true }),
    };
  }
}

/** A `_by_pk` mutation needs a primary key, and returns the row, so the role must be able to read it. */
const byPk = (table: Table, types: TableTypes) => table.primaryKey.length > 0 && types.selectable(table);

function mutationFields(model: Model, types: TableTypes, mt: MutationTypes): Fields {
  const fields: Fields = {};
  for (const table of model.tables) {
    if (types.perms.insert(table)) insertFields(table, types, mt, fields);
    if (types.perms.update(table)) updateFields(table, types, mt, fields);
    if (types.perms.delete(table)) deleteFields(table, types, mt, fields);
  }
  return fields;
}

function actionFields(
  actions: Map<string, ActionField>,
  perms: RolePermissions,
  operation: 'query' | 'mutation',
  resolve: GraphQLFieldResolver<unknown, unknown>,
): Fields {
  const fields: Fields = {};
  for (const [name, a] of actions) {
    if (a.operation !== operation || !perms.canRunAction(name)) continue;
    fields[name] = {
      type: a.type,
      args: a.args,
      description: a.description,
      resolve,
      extensions: ext({ kind: 'action', action: a.action }),
    };
  }
  return fields;
}

/**
 * The schema of one role: only what its permissions allow exists in it, introspection included.
 * A role that may write nothing has no mutation type at all, one that may read no table no
 * subscription type.
 */
export function buildRoleSchema(
  model: Model,
  role: string,
  actions: Map<string, ActionField>,
  resolveAction: GraphQLFieldResolver<unknown, unknown>,
): RoleSchema {
  const perms = new RolePermissions(model, role);
  const types = new TableTypes(perms, new SharedInputs());
  const mt = new MutationTypes(types);
  const query = {
    ...queryFields(model, types),
    ...nativeQueryFields(model, types),
    ...actionFields(actions, perms, 'query', resolveAction),
  };
  const mutation = { ...mutationFields(model, types, mt), ...actionFields(actions, perms, 'mutation', resolveAction) };
  // Subscriptions: the role's table reads (live queries) and streams, never actions or native queries.
  const subscription = { ...queryFields(model, types), ...streamFields(types) };
  if (Object.keys(query).length === 0) query.no_queries_available = NO_QUERIES;
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'query_root', fields: query }),
    mutation: Object.keys(mutation).length
      ? new GraphQLObjectType({ name: 'mutation_root', fields: mutation })
      : undefined,
    subscription: Object.keys(subscription).length
      ? new GraphQLObjectType({ name: 'subscription_root', fields: subscription })
      : undefined,
  });
  return { role, schema: inHasuraOrder(schema), perms };
}

const NO_QUERIES_TEXT =
  "There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn't have the required permissions.";

/**
 * Hasura's placeholder: GraphQL needs a query type with a field, so a role that can read nothing (or a
 * metadata that tracks nothing) gets `no_queries_available`, which answers with its own description.
 */
const NO_QUERIES: Fields[string] = {
  type: new GraphQLNonNull(GraphQLString),
  description: NO_QUERIES_TEXT,
  resolve: () => NO_QUERIES_TEXT,
  extensions: ext({ kind: 'placeholder' }),
};

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Introspection in Hasura's order: `__schema.types` sorted by name, and each field's arguments sorted by
 * name, as Hasura's introspection sorts both. Fields, input fields and enum values keep the order they
 * are built in: tables as the metadata lists them, columns as the database orders them, relationships
 * as the metadata lists them, enum-table values sorted.
 */
function inHasuraOrder(schema: GraphQLSchema): GraphQLSchema {
  const types = Object.values(schema.getTypeMap()).sort(byName);
  for (const t of types) {
    if (!isObjectType(t) || isIntrospectionType(t)) continue;
    for (const f of Object.values(t.getFields())) (f.args as GraphQLArgument[]).sort(byName);
  }
  return new GraphQLSchema({ ...schema.toConfig(), types });
}
