/**
 * `T_stream(batch_size, cursor, where)`: a list of the rows after the cursor, ordered by the cursor's
 * column, at most batch_size of them. The cursor's value is a placeholder of its own (the variable
 * STREAM_CURSOR), so that the live query can move it past each batch it sends without a new plan;
 * the rows carry the column's text under STREAM_CURSOR too, for the live query to read the last one.
 */
import type { FieldNode, GraphQLField, GraphQLObjectType } from 'graphql';
import { validationError } from '../../core/errors';
import type { Table } from '../model/model-types';
import { fieldArgs, listItems, objectFields } from './arguments';
import { subSelections } from './collect';
import type { PlanContext } from './context';
import { and, type RootField, type ValueRef } from './ir';
import { planBoolExp } from './plan-bool-exp';
import { planFields } from './plan-select';

/** The name of the cursor's variable and of the cursor column in each streamed row. */
export const STREAM_CURSOR = '__cursor';

export function planStream(
  table: Table,
  alias: string,
  nodes: FieldNode[],
  def: GraphQLField<unknown, unknown>,
  target: GraphQLObjectType,
  ctx: PlanContext,
  path: string,
): RootField {
  const args = fieldArgs(nodes[0], def, ctx);
  const perm = ctx.perms.select(table)!;
  const cursors = listItems(args.get('cursor'));
  if (cursors.length !== 1) throw validationError('exactly one cursor must be given', `${path}.args.cursor`);
  const cursor = new Map(objectFields(cursors[0]));
  const initial = objectFields(cursor.get('initial_value'));
  if (initial.length !== 1)
    throw validationError('the cursor\'s "initial_value" must name exactly one column', `${path}.args.cursor`);
  const [name, value] = initial[0];
  const column = table.columns.find((c) => c.gqlName === name)!;
  if (value.kind !== 'leaf')
    throw validationError("the cursor's initial value may not be null", `${path}.args.cursor.initial_value.${name}`);
  const ordering = cursor.get('ordering');
  const desc = ordering?.kind === 'enum' && ordering.value === 'DESC';
  const batch = args.get('batch_size');
  if (!batch || batch.kind !== 'leaf') throw validationError('"batch_size" is required', `${path}.args.batch_size`);
  if (batch.source.from === 'literal' && !(Number(batch.source.value) > 0))
    throw validationError('"batch_size" must be a positive integer', `${path}.args.batch_size`);
  if (batch.source.from === 'variable') ctx.checks.push({ source: batch.source, path, rule: 'nonNegative' });
  const at: ValueRef = { source: { from: 'variable', name: STREAM_CURSOR, path: [] }, sqlType: column.sqlType };
  const where = planBoolExp(table, args.get('where'), ctx, `${path}.args.where`);
  const after = { kind: 'compare' as const, column, op: desc ? ('_lt' as const) : ('_gt' as const), value: at };
  const caps = [perm.limit, ctx.maxRows].filter((n): n is number => n !== undefined && n > 0);
  const fields = planFields(table, target, subSelections(nodes), ctx, path, 1);
  fields.push({ kind: 'column', alias: STREAM_CURSOR, column, asText: true });
  return {
    kind: 'select',
    alias,
    rows: {
      table,
      where: and(and(where, perm.filter), after),
      orderBy: [{ target: { kind: 'column', column }, direction: desc ? 'desc' : 'asc' }],
      distinctOn: [],
      limit: { source: batch.source, sqlType: 'integer' },
      maxRows: caps.length ? Math.min(...caps) : undefined,
    },
    fields,
    stream: { initial: value.source },
  };
}
