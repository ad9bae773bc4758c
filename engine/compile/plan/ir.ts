import type { Column, NativeQuery, Relationship, Table } from '../model/model';

/**
 * The intermediate representation: what a GraphQL request means, with permissions folded in, before
 * any SQL is written. `engine/sql/` turns it into SQL text; nothing else does.
 */

/** Where a bound value comes from when the plan runs. Plans are cached, so values are never inlined. */
export type ValueSource =
  | { from: 'literal'; value: unknown }
  | { from: 'variable'; name: string; path: readonly (string | number)[] }
  | { from: 'session'; name: string }
  | { from: 'list'; items: ValueSource[] };

/** A value bound as a parameter, with the SQL type it is cast to. */
export interface ValueRef {
  source: ValueSource;
  sqlType: string;
  /** Bound as a PostgreSQL array of `sqlType`. */
  array?: boolean;
}

export type CompareOp =
  | '_eq'
  | '_neq'
  | '_gt'
  | '_lt'
  | '_gte'
  | '_lte'
  | '_in'
  | '_nin'
  | '_like'
  | '_nlike'
  | '_ilike'
  | '_nilike'
  | '_similar'
  | '_nsimilar'
  | '_regex'
  | '_nregex'
  | '_iregex'
  | '_niregex'
  | '_contains'
  | '_contained_in'
  | '_has_key'
  | '_has_keys_any'
  | '_has_keys_all';

export type BoolExp =
  | { kind: 'true' }
  | { kind: 'and' | 'or'; items: BoolExp[] }
  | { kind: 'not'; item: BoolExp }
  | { kind: 'compare'; column: Column; op: CompareOp; value: ValueRef }
  | { kind: 'isNull'; column: Column; value: ValueRef }
  /** Some row of the relationship's target satisfies `where` (exists semantics). */
  | { kind: 'relationship'; rel: Relationship; where: BoolExp }
  /** `_exists` of Hasura permissions: some row of an unrelated table. */
  | { kind: 'exists'; table: Table; where: BoolExp }
  | {
      kind: 'aggregate';
      rel: Relationship;
      fn: 'count' | 'bool_and' | 'bool_or';
      columns: Column[];
      distinct: boolean;
      filter: BoolExp;
      predicate: { op: CompareOp; value: ValueRef }[];
    };

export const TRUE: BoolExp = { kind: 'true' };

export function and(...items: BoolExp[]): BoolExp {
  const kept = items.filter((i) => i.kind !== 'true');
  if (kept.length === 0) return TRUE;
  return kept.length === 1 ? kept[0] : { kind: 'and', items: kept };
}

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
  /** Fixed cap from permissions and the engine's maximum rows, applied on top of `limit`. */
  maxRows?: number;
}

export type Field =
  | { kind: 'column'; alias: string; column: Column }
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

export interface OnConflict {
  constraint: string;
  updateColumns: Column[];
  where: BoolExp;
}

export type MutationField =
  | {
      kind: 'insert';
      alias: string;
      table: Table;
      rows: Assignment[][];
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
      check: BoolExp;
      one: boolean;
      output: MutationOutput;
    }
  | { kind: 'delete'; alias: string; table: Table; where: BoolExp; one: boolean; output: MutationOutput };

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
  | { kind: 'select'; alias: string; rows: RowSource; fields: Field[] }
  | { kind: 'selectByPk'; alias: string; table: Table; where: BoolExp; fields: Field[] }
  | { kind: 'aggregate'; alias: string; rows: RowSource; fields: AggregateField[] }
  | MutationField;
