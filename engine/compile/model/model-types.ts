import type { LoadedMetadata } from './load';
import type { RootFieldKey } from './metadata-types';
import type { CompareOp } from './operators';

/**
 * The resolved model: metadata joined with the database catalog. Everything downstream (schema,
 * planner, SQL) reads tables, columns and permissions from here, never from YAML or the catalog.
 */
export interface Column {
  name: string;
  /** The GraphQL name: `column_config.custom_name` or the column name. */
  gqlName: string;
  /** The SQL type for casts, as format_type() prints it. */
  sqlType: string;
  /** The GraphQL scalar's name (`uuid`, `String`, `recommendation_status_type_enum`, ...). */
  scalar: string;
  nullable: boolean;
  hasDefault: boolean;
  generated: boolean;
  /** For a column that references a lookup (is_enum) table: the allowed values. */
  enumValues?: string[];
  /** That lookup table, whose values (with their comments) become the column's GraphQL enum. */
  enumTable?: Table;
}

export interface Relationship {
  name: string;
  kind: 'object' | 'array';
  source: Table;
  target: Table;
  /** Pairs of (source column, target column) that join the two. */
  mapping: [Column, Column][];
  /**
   * When a nested insert writes the related row: `before_parent` when this table holds the foreign key
   * (the related row's key fills it), `after_parent` when the related table does (an array relationship,
   * or an object relationship seen from the referenced side). Hasura's `insertion_order`.
   */
  insertion: 'before_parent' | 'after_parent';
}

export interface SelectPermission {
  columns: Set<string>;
  filter: BoolExp;
  limit?: number;
  allowAggregations: boolean;
}
export interface InsertPermission {
  columns: Set<string>;
  check: BoolExp;
  set: Map<string, ValueSource>;
}
export interface UpdatePermission {
  columns: Set<string>;
  filter: BoolExp;
  check: BoolExp;
  set: Map<string, ValueSource>;
  /**
   * Conditions the planner adds to `check` for the columns an update sets: a tenant role's references
   * to tenant-owned rows (tenant-references.ts). An update that leaves a key as it is is not checked on it.
   */
  references?: ColumnCondition[];
}
/** A condition on the row that holds when `columns` are written. */
export interface ColumnCondition {
  columns: string[];
  condition: BoolExp;
}
export interface DeletePermission {
  filter: BoolExp;
}
export interface TablePermissions {
  select?: SelectPermission;
  insert?: InsertPermission;
  update?: UpdatePermission;
  delete?: DeletePermission;
}

/**
 * A tracked table or view, or a logical model (Hasura's name for the row type of a native query): a
 * logical model has columns and select permissions only, no schema, keys, relationships or root fields.
 */
export interface Table {
  schema: string;
  name: string;
  gqlName: string;
  kind: 'table' | 'view' | 'logical_model';
  description?: string;
  columns: Column[];
  columnByName: Map<string, Column>;
  columnByGql: Map<string, Column>;
  primaryKey: Column[];
  /** Primary key and unique constraints, for on_conflict. */
  constraints: { name: string; columns: string[] }[];
  isEnum: boolean;
  enumValues: { value: string; comment: string | null }[];
  relationships: Relationship[];
  relByName: Map<string, Relationship>;
  rootFields: Record<RootFieldKey, string | null>;
  permissions: Map<string, TablePermissions>;
}

export interface NativeQueryArgument {
  name: string;
  sqlType: string;
  scalar: string;
  nullable: boolean;
  description?: string;
}

/** A native query: SQL with `{{argument}}` placeholders whose rows have a logical model's columns. */
export interface NativeQuery {
  rootField: string;
  returns: Table;
  arguments: NativeQueryArgument[];
  /** The code cut at its placeholders: SQL text and argument references, in order. */
  parts: (string | { argument: string })[];
  description?: string;
}

export interface Model {
  tables: Table[];
  logicalModels: Table[];
  nativeQueries: NativeQuery[];
  /** Every role named anywhere in the metadata, plus `admin`. */
  roles: string[];
  metadata: LoadedMetadata;
}

/** Where a bound value comes from when the plan runs. Plans are cached, so values are never inlined. */
export type ValueSource =
  | { from: 'literal'; value: unknown }
  | { from: 'variable'; name: string; path: readonly (string | number)[] }
  | { from: 'session'; name: string }
  | { from: 'list'; items: ValueSource[] }
  /**
   * A json/jsonb (or GeoJSON) literal holding variables (`{name: {first: $first}}`), filled when the plan
   * runs; `geo` when the filled value must be a GeoJSON geometry.
   */
  | { from: 'json'; template: JsonPart; geo?: boolean };

/** A json/jsonb literal's parts: constant JSON, variables, and the lists and objects around them. */
export type JsonPart =
  { literal: unknown } | { variable: string } | { list: JsonPart[] } | { object: [string, JsonPart][] };

/** A value bound as a parameter, with the SQL type it is cast to. */
export interface ValueRef {
  source: ValueSource;
  sqlType: string;
  /** Bound as a PostgreSQL array of `sqlType`. */
  array?: boolean;
}

/**
 * A boolean expression over the rows of a table: a permission's filter or check, and (in plan/ir) a
 * request's `where`. It lives here with Table because each names the other: a table's permissions
 * hold expressions, and expressions name columns, relationships and tables.
 */
export type BoolExp =
  | { kind: 'true' }
  | { kind: 'and' | 'or'; items: BoolExp[] }
  | { kind: 'not'; item: BoolExp }
  /** `column op value`, with one of the operators of model/operators.ts (`_is_null` included). */
  | {
      kind: 'compare';
      column: Column;
      op: CompareOp;
      value: ValueRef;
      /** An object operand's fields (`_st_d_within: {distance, from}`), bound one by one; `value` is unused. */
      operands?: Readonly<Record<string, ValueRef>>;
      /** `_cast`: the column is cast to these SQL types, in order, before it is compared. */
      cast?: readonly string[];
    }
  /**
   * `column op other` with a column operator (`_ceq`, ...): `other` is a column of the same row or, with
   * `root`, of the row the enclosing `scope` stands for (Hasura's `["$", column]` in permissions).
   */
  | { kind: 'compareColumn'; column: Column; op: CompareOp; other: Column; root: boolean }
  /** A permission's expression as a whole: root references inside `item` name the row it is applied to. */
  | { kind: 'scope'; item: BoolExp }
  /** Some row of the relationship's target satisfies `where` (exists semantics). */
  | { kind: 'relationship'; rel: Relationship; where: BoolExp }
  /** `_exists` of Hasura permissions: some row of an unrelated table. */
  | { kind: 'exists'; table: Table; where: BoolExp }
  /** The count of the related rows that pass `filter` satisfies every comparison of `predicate`. */
  | {
      kind: 'aggregate';
      rel: Relationship;
      columns: Column[];
      distinct: boolean;
      filter: BoolExp;
      predicate: { op: CompareOp; value: ValueRef }[];
    };
