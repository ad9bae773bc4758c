/*
 * engine/compile/plan: a validated operation to the intermediate representation (ir.ts), with the
 * role's permission filters folded in and every value kept as a source (literal, variable, session)
 * rather than a value. Imports compile/schema, compile/model and engine/core.
 */
import {
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type OperationDefinitionNode,
} from 'graphql';
import type { Table } from '../model/model-types';
import type { RoleSchema } from '../schema/role-schema';
import { meaningOf } from '../schema/meaning';
import { fieldArgs } from './arguments';
import { collectFields, fieldDef, subSelections } from './collect';
import type { PlanContext, RuntimeCheck } from './context';
import { RequestError } from '../../core/errors';
import type { RootField } from './ir';
import { planMutation } from './plan-mutation';
import { planNativeQuery } from './plan-native-query';
import { planStream } from './plan-stream';
import { objectTypeOf, planAggregate, planFields, planRows } from './plan-select';
import { planBoolExp } from './plan-bool-exp';
import { and } from './ir';
import type { Arg, Variables } from './values';

/** A root field answered by graphql-js itself: actions, introspection, __typename. */
export interface GraphqlRootField {
  kind: 'graphql';
  alias: string;
  nodes: FieldNode[];
}

export interface OperationIR {
  /** A subscription is planned as a query of its one root field (a live query). */
  operation: 'query' | 'mutation' | 'subscription';
  /** Root fields in response order. */
  fields: (RootField | GraphqlRootField)[];
  checks: RuntimeCheck[];
}

export interface PlanInput {
  role: RoleSchema;
  operation: OperationDefinitionNode;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Variables;
  maxRows: number;
  maxDepth: number;
}

/** A validated operation to IR: each root field either a table operation or one for graphql-js. */
export function planOperation(input: PlanInput): OperationIR {
  const { role, operation } = input;
  const rootType = (
    operation.operation === 'mutation'
      ? role.schema.getMutationType()
      : operation.operation === 'subscription'
        ? role.schema.getSubscriptionType()
        : role.schema.getQueryType()
  ) as GraphQLObjectType;
  if (!rootType)
    throw new RequestError('validation-failed', `no ${operation.operation}s exist for role "${role.role}"`, '$');
  const ctx: PlanContext = {
    fragments: input.fragments,
    variables: input.variables,
    perms: role.perms,
    maxRows: input.maxRows,
    maxDepth: input.maxDepth,
    checks: [],
  };
  const fields: OperationIR['fields'] = [];
  for (const [alias, nodes] of collectFields(rootType, [operation.selectionSet], ctx)) {
    // Introspection and __typename are graphql-js's to answer.
    if (nodes[0].name.value.startsWith('__')) fields.push({ kind: 'graphql', alias, nodes });
    else fields.push(planRootField(rootType, alias, nodes, ctx));
  }
  return { operation: operation.operation, fields, checks: ctx.checks };
}

/** One root field, by what its schema field means: a table read, a native query, a mutation, an action. */
function planRootField(
  rootType: GraphQLObjectType,
  alias: string,
  nodes: FieldNode[],
  ctx: PlanContext,
): RootField | GraphqlRootField {
  const node = nodes[0];
  const path = `$.selectionSet.${alias}`;
  const def = fieldDef(rootType, node, path);
  const m = meaningOf(def);
  const target = objectTypeOf(def.type);
  switch (m?.kind) {
    case 'select': {
      const rows = planRows(m.table, node, def, ctx, path, 'list');
      return { kind: 'select', alias, rows, fields: planFields(m.table, target, subSelections(nodes), ctx, path, 1) };
    }
    case 'aggregate': {
      const rows = planRows(m.table, node, def, ctx, path, 'aggregate');
      const fields = planAggregate(m.table, target, subSelections(nodes), ctx, path, 1);
      return { kind: 'aggregate', alias, rows, fields };
    }
    case 'selectByPk': {
      const perm = ctx.perms.select(m.table)!;
      const where = planBoolExp(m.table, pkArg(node, def, ctx, m.table, path), ctx, `${path}.args`);
      return {
        kind: 'selectByPk',
        alias,
        table: m.table,
        where: and(where, perm.filter),
        fields: planFields(m.table, target, subSelections(nodes), ctx, path, 1),
      };
    }
    case 'stream':
      return planStream(m.table, alias, nodes, def, target, ctx, path);
    case 'nativeQuery':
      return planNativeQuery(m.query, alias, nodes, def, ctx, path);
    case 'insert':
    case 'update':
    case 'updateMany':
    case 'delete':
      return planMutation(m, alias, nodes, def, ctx, path);
    case 'action':
    case 'placeholder':
      return { kind: 'graphql', alias, nodes };
    default:
      throw new RequestError(
        'validation-failed',
        `field "${node.name.value}" not found in type: '${rootType.name}'`,
        path,
      );
  }
}

/** by_pk arguments as a where of `_eq` comparisons, so that one code path binds them. */
function pkArg(
  node: FieldNode,
  def: GraphQLField<unknown, unknown>,
  ctx: PlanContext,
  table: Table,
  path: string,
): Arg {
  const given = fieldArgs(node, def, ctx);
  const fields = new Map<string, Arg>();
  for (const column of table.primaryKey) {
    const arg = given.get(column.gqlName);
    if (!arg || arg.kind !== 'leaf')
      throw new RequestError(
        'validation-failed',
        `missing primary key argument "${column.gqlName}"`,
        `${path}.args.${column.gqlName}`,
      );
    fields.set(column.gqlName, { kind: 'object', fields: new Map([['_eq', arg]]) });
  }
  return { kind: 'object', fields };
}

export function graphqlOnlyDocument(
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  nodes: FieldNode[],
) {
  return {
    kind: Kind.DOCUMENT,
    definitions: [
      { ...operation, selectionSet: { kind: Kind.SELECTION_SET, selections: nodes } },
      ...Object.values(fragments),
    ],
  } as DocumentNode;
}
