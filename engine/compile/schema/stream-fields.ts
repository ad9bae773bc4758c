/**
 * Streaming subscriptions, Hasura's `T_stream(batch_size: Int!, cursor: [T_stream_cursor_input]!,
 * where: T_bool_exp)`: rows after the cursor, in batches, each once. The cursor names one column and
 * its initial value; the engine moves it past each batch it sends.
 */
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import type { Table } from '../model/model-types';
import { ext } from './meaning';
import type { TableTypes } from './table-types';

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

/** The subscription root's `T_stream` field of each table the role may read. */
export function streamFields(types: TableTypes): Fields {
  const fields: Fields = {};
  const ordering = new GraphQLEnumType({
    name: 'cursor_ordering',
    description: 'ordering argument of a cursor',
    values: {
      ASC: { description: 'ascending ordering of the cursor' },
      DESC: { description: 'descending ordering of the cursor' },
    },
  });
  for (const table of types.perms.readableTables().filter((t) => types.selectable(t))) {
    const select = table.rootFields.select;
    if (!select) continue;
    const name = types.object(table).name;
    const values: GraphQLInputFieldConfigMap = {};
    for (const c of types.columns(table)) values[c.gqlName] = { type: types.shared.columnScalar(c) };
    const valueInput = new GraphQLInputObjectType({
      name: `${name}_stream_cursor_value_input`,
      description: 'Initial value of the column from where the streaming should start',
      fields: values,
    });
    const cursorInput = new GraphQLInputObjectType({
      name: `${name}_stream_cursor_input`,
      description: `Streaming cursor of the table "${table.name}"`,
      fields: {
        initial_value: { type: new GraphQLNonNull(valueInput), description: 'Stream column input with initial value' },
        ordering: { type: ordering, description: 'cursor ordering' },
      },
    });
    fields[`${select}_stream`] = streamField(table, types, cursorInput);
  }
  return fields;
}

function streamField(table: Table, types: TableTypes, cursorInput: GraphQLInputObjectType): Fields[string] {
  return {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(types.object(table)))),
    description: `fetch data from the table in a streaming manner: "${table.name}"`,
    args: {
      batch_size: {
        type: new GraphQLNonNull(GraphQLInt),
        description: 'maximum number of rows returned in a single batch',
      },
      cursor: {
        type: new GraphQLNonNull(new GraphQLList(cursorInput)),
        description: 'cursor to stream the results returned by the query',
      },
      where: { type: types.boolExp(table), description: 'filter the rows returned' },
    },
    extensions: ext({ kind: 'stream', table }),
  };
}
