import {
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputType,
} from 'graphql';
import type { Model, NativeQuery } from '../model/model-types';
import { ext } from './meaning';
import { scalarType } from './scalars';
import type { TableTypes } from './table-types';

/**
 * `<root field>_arguments`: one field per argument, non-null when the argument is. Hasura's name, so
 * that clients can declare `$args: cloud_resources_v2_arguments!`.
 */
function argumentsInput(query: NativeQuery): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name: `${query.rootField}_arguments`,
    fields: Object.fromEntries(
      query.arguments.map((a) => {
        const t = scalarType(a.scalar);
        return [a.name, { type: a.nullable ? t : new GraphQLNonNull(t), description: a.description }];
      }),
    ),
  });
}

/** `args` (required when some argument is), then the list arguments every table has. */
function nativeQueryArgs(query: NativeQuery, types: TableTypes): GraphQLFieldConfigArgumentMap {
  const list = types.selectArgs(query.returns);
  if (query.arguments.length === 0) return list;
  const input: GraphQLInputType = argumentsInput(query);
  const required = query.arguments.some((a) => !a.nullable);
  return {
    args: { type: required ? new GraphQLNonNull(input) : input, description: 'input parameters for the native query' },
    ...list,
  };
}

/** A root field per native query whose logical model the role may read. */
export function nativeQueryFields(model: Model, types: TableTypes): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const query of model.nativeQueries) {
    if (!types.selectable(query.returns)) continue;
    fields[query.rootField] = {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(types.object(query.returns)))),
      description: query.description ?? `rows of the native query "${query.rootField}"`,
      args: nativeQueryArgs(query, types),
      extensions: ext({ kind: 'nativeQuery', query }),
    };
  }
  return fields;
}
