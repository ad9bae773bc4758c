/**
 * The metadata as written in YAML, in Hasura's config v3 keys. Only what the engine reads is typed;
 * `metadata-schema.ts` is the authority on what is allowed.
 */
export type BoolExpJson = Record<string, unknown>;

export interface TableRef {
  name: string;
  schema?: string;
}

export interface RelationshipJson {
  name: string;
  using: {
    foreign_key_constraint_on?:
      string | string[] | { column?: string; columns?: string | string[]; table: TableRef | string };
    manual_configuration?: {
      remote_table: TableRef | string;
      column_mapping: Record<string, string>;
      insertion_order?: 'before_parent' | 'after_parent' | null;
    };
  };
  comment?: string;
}

export interface SelectPermissionJson {
  columns: string[] | '*';
  filter?: BoolExpJson;
  limit?: number;
  allow_aggregations?: boolean;
  computed_fields?: string[];
}
export interface InsertPermissionJson {
  check?: BoolExpJson;
  columns?: string[] | '*';
  set?: Record<string, unknown>;
  backend_only?: boolean;
}
export interface UpdatePermissionJson {
  columns?: string[] | '*';
  filter?: BoolExpJson;
  check?: BoolExpJson | null;
  set?: Record<string, unknown>;
}
export interface DeletePermissionJson {
  filter?: BoolExpJson;
}

export interface RolePermission<P> {
  role: string;
  permission: P;
  comment?: string;
}

export type RootFieldKey =
  | 'select'
  | 'select_by_pk'
  | 'select_aggregate'
  | 'insert'
  | 'insert_one'
  | 'update'
  | 'update_by_pk'
  | 'update_many'
  | 'delete'
  | 'delete_by_pk';

export interface TableJson {
  table: TableRef;
  is_enum?: boolean;
  configuration?: {
    custom_name?: string;
    custom_root_fields?: Partial<Record<RootFieldKey, string | { name?: string; comment?: string }>>;
    column_config?: Record<string, { custom_name?: string; comment?: string }>;
    custom_column_names?: Record<string, string>;
    /** Not in Hasura: a primary key for views and tables without one. */
    primary_key?: string[];
  };
  object_relationships?: RelationshipJson[];
  array_relationships?: RelationshipJson[];
  select_permissions?: RolePermission<SelectPermissionJson>[];
  insert_permissions?: RolePermission<InsertPermissionJson>[];
  update_permissions?: RolePermission<UpdatePermissionJson>[];
  delete_permissions?: RolePermission<DeletePermissionJson>[];
  /** Accepted, and left aside with a warning when not empty. */
  event_triggers?: unknown[];
  computed_fields?: unknown[];
  remote_relationships?: unknown[];
}

export interface SourceJson {
  name: string;
  kind: string;
  configuration?: unknown;
  tables: TableJson[];
  logical_models?: LogicalModelJson[];
  native_queries?: NativeQueryJson[];
  /** Accepted, and left aside with a warning when not empty. */
  functions?: unknown;
  customization?: unknown;
}

/** A logical model field's type: Hasura's exported form `{scalar, nullable}`, or the type name alone. */
export type LogicalModelTypeJson = string | { scalar: string; nullable?: boolean };

export interface LogicalModelJson {
  name: string;
  description?: string;
  fields: { name: string; type: LogicalModelTypeJson; nullable?: boolean; description?: string }[];
  select_permissions?: RolePermission<{ columns: string[] | '*'; filter?: BoolExpJson }>[];
}

export interface NativeQueryJson {
  root_field_name: string;
  /** SQL with `{{argument}}` placeholders. */
  code: string;
  returns: string;
  arguments?: Record<string, { type: string; nullable?: boolean; description?: string }>;
  description?: string;
  type?: 'query';
}

/** A metadata entry with the file and place it was read from, for error messages. */
export interface Located<T> {
  json: T;
  file: string;
  where: string;
}

export interface ActionJson {
  name: string;
  definition: { kind?: 'synchronous' | 'asynchronous'; handler: string; type?: 'query' | 'mutation'; timeout?: number };
  permissions?: { role: string }[];
  comment?: string;
}

export interface MetadataJson {
  version: number;
  sources: SourceJson[];
  actions: ActionJson[];
  /** The SDL of actions.graphql, '' when there is none. */
  actionsSdl: string;
}
