import type { GraphQLField } from 'graphql';
import type { ActionJson } from '../model/metadata-types';
import type { Column, NativeQuery, Relationship, Table } from '../model/model-types';

/**
 * What a field of a generated schema stands for. The schema builder attaches it to each field's
 * `extensions.engine`; the planner reads it back while walking a document, so the two share no tables
 * of names.
 */
export type Meaning =
  | { kind: 'select'; table: Table }
  | { kind: 'selectByPk'; table: Table }
  | { kind: 'aggregate'; table: Table }
  /** `T_stream`, a subscription's rows after a cursor, in batches. */
  | { kind: 'stream'; table: Table }
  | { kind: 'insert'; table: Table; one: boolean }
  | { kind: 'update'; table: Table; one: boolean }
  /** `update_T_many`: a list of updates, each with its own operators and where. */
  | { kind: 'updateMany'; table: Table }
  | { kind: 'delete'; table: Table; one: boolean }
  | { kind: 'nativeQuery'; query: NativeQuery }
  | { kind: 'action'; action: ActionJson }
  | { kind: 'column'; column: Column }
  | { kind: 'objectRel'; rel: Relationship }
  | { kind: 'arrayRel'; rel: Relationship }
  | { kind: 'arrayRelAggregate'; rel: Relationship }
  | { kind: 'aggregateFields' }
  | { kind: 'nodes' }
  | { kind: 'count' }
  | { kind: 'aggregateFunction'; fn: string }
  | { kind: 'affectedRows' }
  | { kind: 'returning' }
  /** `no_queries_available`, the query root's one field when a role can read nothing: graphql-js answers it. */
  | { kind: 'placeholder' };

export function meaningOf(field: GraphQLField<unknown, unknown>): Meaning | undefined {
  return (field.extensions as { engine?: Meaning } | undefined)?.engine;
}

export const ext = (engine: Meaning) => ({ engine });
