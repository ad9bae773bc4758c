import type { BoolExp, Column, NativeQuery, Relationship, Table, ValueRef, ValueSource } from '../model/model-types';
import type { JsonbOperator } from '../model/operators';

/**
 * The intermediate representation: what a GraphQL request means, with permissions folded in, before
 * any SQL is written. `engine/sql/` turns it into SQL text; nothing else does. Boolean expressions
 * and value sources are the model's own (permissions are written in them), re-exported here so that
 * the IR reads as one vocabulary.
 */
export type { BoolExp, ValueRef, ValueSource } from '../model/model-types';
export type { CompareOp, JsonbOperator } from '../model/operators';
export { and, TRUE } from '../model/bool-exp';

export type OrderDirection =
  'asc' | 'asc_nulls_first' | 'asc_nulls_last' | 'desc' | 'desc_nulls_first' | 'desc_nulls_last';

/** What a sort key is computed from, relative to the row being sorted. */
export type OrderTarget =
  | { kind: 'column'; column: Column }
  /** A column reached through object relationships (the path), permission filters included. */
  | { kind: 'object'; rel: Relationship; where: BoolExp; next: OrderTarget }
  /** An aggregate over an array relationship: count, or fn(column). */
  | { kind: 'aggregate'; rel: Relationship; where: BoolExp; fn: string; column?: Column };

export interface OrderItem {
  target: OrderTarget;
  direction: OrderDirection;
}

/** A native query with the values of its arguments, to be read as a relation. */
export interface NativeQueryCall {
  query: NativeQuery;
  args: ReadonlyMap<string, ValueRef>;
}

/** Which rows of a table: filter (user where AND permission), order, paging. */
export interface RowSource {
  /** The table, or the logical model, whose columns the rows have. */
  table: Table;
  /** Set when the rows come from a native query (whose logical model is `table`) rather than a table. */
  call?: NativeQueryCall;
  where: BoolExp;
  orderBy: OrderItem[];
  distinctOn: Column[];
  limit?: ValueRef;
  offset?: ValueRef;
  /**
   * Fixed cap from permissions and the engine's maximum rows, applied on top of `limit`. Under an
   * aggregate it caps `nodes` only: the aggregates are over every permitted row.
   */
  maxRows?: number;
}

export type Field =
  /**
   * A column's value; for json and jsonb, `path` (a text[] parameter) selects a part of it (`#>`).
   * `asText`: its text, exact whatever the type (a stream's cursor: a bigint past 2^53 stays whole).
   */
  | { kind: 'column'; alias: string; column: Column; path?: ValueRef; asText?: boolean }
  | { kind: 'typename'; alias: string; name: string }
  | { kind: 'object'; alias: string; rel: Relationship; where: BoolExp; fields: Field[] }
  | { kind: 'array'; alias: string; rel: Relationship; rows: RowSource; fields: Field[] }
  | { kind: 'arrayAggregate'; alias: string; rel: Relationship; rows: RowSource; fields: AggregateField[] };

export type AggregateField =
  | { kind: 'typename'; alias: string; name: string }
  | { kind: 'aggregate'; alias: string; items: AggregateItem[] }
  | { kind: 'nodes'; alias: string; fields: Field[] };

export type AggregateItem =
  | { kind: 'typename'; alias: string; name: string }
  | { kind: 'count'; alias: string; columns: Column[]; distinct: boolean }
  | {
      kind: 'function';
      alias: string;
      fn: string;
      fields: ({ kind: 'column'; alias: string; column: Column } | { kind: 'typename'; alias: string; name: string })[];
    };

/** Values written by a mutation: a column and where its value comes from. */
export interface Assignment {
  column: Column;
  value: ValueRef;
}

/** A jsonb update operator (Hasura's): the column's new value computed from its old one and a bound value. */
export interface JsonbAssignment {
  column: Column;
  op: JsonbOperator;
  value: ValueRef;
}

export interface OnConflict {
  constraint: string;
  updateColumns: Column[];
  where: BoolExp;
}

/**
 * Rows inserted through a relationship of a row being inserted (Hasura's nested insert). When the row
 * holds the foreign key (`rel.insertion` before_parent: an object relationship) the related row is written
 * first and fills the row's `rel.mapping` source columns; otherwise (an array relationship, or an object
 * relationship seen from the referenced side) the rows are written after, their mapping target columns
 * filled from the row.
 */
export interface NestedInsert {
  rel: Relationship;
  rows: Assignment[][];
  nested: NestedRows[];
  onConflict?: OnConflict;
  check: BoolExp;
  /** Path of the relationship's field in the request, for errors. */
  path: string;
}
/** The nested inserts of one row, by insertion order, and the row's path in the request. */
export interface NestedRows {
  before: NestedInsert[];
  after: NestedInsert[];
  path: string;
}

export type MutationField =
  | {
      kind: 'insert';
      alias: string;
      table: Table;
      rows: Assignment[][];
      /** Set when some row inserts through relationships: one entry per row of `rows`. */
      nested?: NestedRows[];
      onConflict?: OnConflict;
      check: BoolExp;
      one: boolean;
      output: MutationOutput;
    }
  | {
      kind: 'update';
      alias: string;
      table: Table;
      where: BoolExp;
      set: Assignment[];
      inc: Assignment[];
      jsonb: JsonbAssignment[];
      check: BoolExp;
      one: boolean;
      output: MutationOutput;
    }
  /** `update_T_many`: each update in order, each a statement that sees the ones before. */
  | { kind: 'updateMany'; alias: string; table: Table; updates: UpdateField[] }
  | { kind: 'delete'; alias: string; table: Table; where: BoolExp; one: boolean; output: MutationOutput };

export type UpdateField = Extract<MutationField, { kind: 'update' }>;

/** `returning`/`affected_rows` of a many-row mutation, or the row of a `_one`/`_by_pk` mutation. */
export interface MutationOutput {
  /** Select permission filter of the role: returned rows must pass it. */
  visible: BoolExp;
  fields: MutationOutputField[];
}
export type MutationOutputField =
  | { kind: 'typename'; alias: string; name: string }
  | { kind: 'affected_rows'; alias: string }
  | { kind: 'returning'; alias: string; fields: Field[] }
  /** For `_one` / `_by_pk` mutations, the row's own fields. */
  | Field;

export type RootField =
  /** `stream`: a T_stream field, whose cursor starts at `initial` (plan-stream.ts). */
  | { kind: 'select'; alias: string; rows: RowSource; fields: Field[]; stream?: { initial: ValueSource } }
  | { kind: 'selectByPk'; alias: string; table: Table; where: BoolExp; fields: Field[] }
  | { kind: 'aggregate'; alias: string; rows: RowSource; fields: AggregateField[] }
  | MutationField;
