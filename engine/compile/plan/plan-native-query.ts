import type { FieldNode, GraphQLField } from 'graphql';
import type { NativeQuery, NativeQueryArgument } from '../model/model-types';
import { subSelections } from './collect';
import { fieldArgs, objectFields } from './arguments';
import type { PlanContext } from './context';
import { validationError } from '../../core/errors';
import type { RootField, ValueRef } from './ir';
import { objectTypeOf, planFields, planRows } from './plan-select';
import type { Arg } from './values';

/** One argument's value, bound with the argument's type; an absent nullable argument is NULL. */
function argumentRef(a: NativeQueryArgument, given: Arg | undefined, path: string): ValueRef {
  if (given?.kind === 'leaf') return { source: given.source, sqlType: a.sqlType };
  if (!a.nullable) throw validationError(`missing required argument "${a.name}"`, `${path}.args.args.${a.name}`);
  return { source: { from: 'literal', value: null }, sqlType: a.sqlType };
}

/**
 * A native query's root field: the rows of a table select (where, order_by, distinct_on, paging, the
 * role's filter, the row cap), read from the native query's SQL instead of a table.
 */
export function planNativeQuery(
  query: NativeQuery,
  alias: string,
  nodes: FieldNode[],
  def: GraphQLField<unknown, unknown>,
  ctx: PlanContext,
  path: string,
): RootField {
  const node = nodes[0];
  const given = new Map(objectFields(fieldArgs(node, def, ctx).get('args')));
  const args = new Map(query.arguments.map((a) => [a.name, argumentRef(a, given.get(a.name), path)]));
  const rows = { ...planRows(query.returns, node, def, ctx, path, 'list'), call: { query, args } };
  return {
    kind: 'select',
    alias,
    rows,
    fields: planFields(query.returns, objectTypeOf(def.type), subSelections(nodes), ctx, path, 1),
  };
}
