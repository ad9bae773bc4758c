import type { Queryable } from '../../core/db/database';
import { readableColumns, refuseWriteOnly } from './secret-columns';
import { MetadataError, placeIn } from './load';
import type { Located, LogicalModelJson, LogicalModelTypeJson, RootFieldKey } from './metadata-types';
import type { Column, Table } from './model-types';
import { parsePermissionBoolExp } from './permissions';
import { scalarForType } from './scalar-types';

/**
 * Logical models (Hasura's `logical_models` of a source): named row types with PostgreSQL-typed
 * fields and select permissions. They are built as `Table`s of kind `logical_model`, so that the
 * schema builder, the planner and the SQL writer treat their rows as they treat a table's.
 */

/** A PostgreSQL type named in metadata, as the database resolves it. */
export interface ResolvedType {
  sqlType: string;
  typeName: string;
  typeKind: string;
}

// Names the database resolves, the same way the catalog describes columns (domains to their base).
const TYPES_SQL = `
SELECT n.name, format_type(t.oid, NULL) AS sql_type,
  CASE WHEN t.typcategory = 'A' THEN et.typname || '[]' ELSE bt.typname END AS type_name,
  coalesce(bt.typtype, t.typtype) AS type_kind
FROM unnest($1::text[]) AS n(name)
LEFT JOIN pg_type t ON t.oid = to_regtype(n.name)
LEFT JOIN pg_type et ON et.oid = t.typelem AND t.typcategory = 'A'
LEFT JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END`;

/** Characters a type name may hold (`text`, `timestamp with time zone`, `numeric(10,2)`, `"My Type"`, `int[]`). */
const TYPE_NAME = /^[A-Za-z_"][A-Za-z0-9_ ."(),[\]]*$/;

/** Resolves type names in one round trip; a name the database does not know is absent from the map. */
export async function resolveTypes(db: Queryable, names: string[]): Promise<Map<string, ResolvedType>> {
  const wanted = [...new Set(names.filter((n) => TYPE_NAME.test(n)))];
  if (wanted.length === 0) return new Map();
  const literal = `{${wanted.map((n) => `"${n.replace(/(["\\])/g, '\\$1')}"`).join(',')}}`;
  const rows = await db.query(TYPES_SQL, [literal]);
  const out = new Map<string, ResolvedType>();
  for (const r of rows) {
    if (r.type_name === null || r.type_name === undefined) continue;
    out.set(String(r.name), {
      sqlType: String(r.sql_type),
      typeName: String(r.type_name),
      typeKind: String(r.type_kind),
    });
  }
  return out;
}

const VALID_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
const NO_ROOT_FIELDS = Object.fromEntries(
  [
    'select',
    'select_by_pk',
    'select_aggregate',
    'insert',
    'insert_one',
    'update',
    'update_by_pk',
    'update_many',
    'delete',
    'delete_by_pk',
  ].map((k) => [k, null]),
) as Record<RootFieldKey, null>;

/** `{scalar, nullable}` or a bare type name; Hasura's default is not nullable. */
function fieldType(type: LogicalModelTypeJson, nullable: boolean | undefined): { name: string; nullable: boolean } {
  if (typeof type === 'string') return { name: type, nullable: nullable ?? false };
  return { name: type.scalar, nullable: type.nullable ?? nullable ?? false };
}

function fieldColumns(lm: Located<LogicalModelJson>, types: Map<string, ResolvedType>): Column[] {
  const seen = new Set<string>();
  return lm.json.fields.map((f, i) => {
    const at = placeIn(lm.where, `fields[${i}]`);
    if (!VALID_NAME.test(f.name))
      throw new MetadataError(lm.file, `${at}.name`, `"${f.name}" is not a valid GraphQL name`);
    if (seen.has(f.name)) throw new MetadataError(lm.file, `${at}.name`, `field "${f.name}" is declared twice`);
    seen.add(f.name);
    const t = fieldType(f.type, f.nullable);
    const resolved = types.get(t.name);
    if (!resolved) throw new MetadataError(lm.file, `${at}.type`, `unknown PostgreSQL type "${t.name}"`);
    return {
      name: f.name,
      gqlName: f.name,
      sqlType: resolved.sqlType,
      scalar: scalarForType(resolved.typeName, resolved.typeKind),
      nullable: t.nullable,
      hasDefault: false,
      generated: false,
    };
  });
}

function logicalModelTable(lm: Located<LogicalModelJson>, types: Map<string, ResolvedType>): Table {
  const columns = fieldColumns(lm, types);
  const byName = new Map(columns.map((c) => [c.name, c]));
  return {
    schema: '',
    name: lm.json.name,
    gqlName: lm.json.name,
    kind: 'logical_model',
    description: lm.json.description,
    columns,
    columnByName: byName,
    columnByGql: byName,
    primaryKey: [],
    constraints: [],
    isEnum: false,
    enumValues: [],
    relationships: [],
    relByName: new Map(),
    rootFields: { ...NO_ROOT_FIELDS },
    permissions: new Map(),
  };
}

/** select_permissions of a logical model: columns and a filter, as for a table (no limit, no aggregates). */
function addPermissions(
  table: Table,
  lm: Located<LogicalModelJson>,
  roles: Set<string>,
  tables: Map<string, Table>,
): void {
  for (const [i, { role, permission: p }] of (lm.json.select_permissions ?? []).entries()) {
    const at = placeIn(lm.where, `select_permissions[${i}].permission`);
    if (table.permissions.has(role))
      throw new MetadataError(lm.file, at, `role "${role}" has two select permissions on "${table.name}"`);
    const columns = p.columns === '*' ? readableColumns(table.columns).map((c) => c.name) : p.columns;
    refuseWriteOnly(new Set(columns), lm.file, `${at}.columns`);
    for (const c of columns) {
      if (!table.columnByName.has(c))
        throw new MetadataError(
          lm.file,
          `${at}.columns`,
          `field "${c}" does not exist in logical model "${table.name}"`,
        );
    }
    const filter = parsePermissionBoolExp(table, p.filter ?? {}, { file: lm.file, where: `${at}.filter`, tables });
    table.permissions.set(role, { select: { columns: new Set(columns), filter, allowAggregations: false } });
    roles.add(role);
  }
}

/** The logical models by name; a name already used by a table's GraphQL type is refused. */
export async function buildLogicalModels(
  db: Queryable,
  models: Located<LogicalModelJson>[],
  tables: Map<string, Table>,
  roles: Set<string>,
): Promise<Map<string, Table>> {
  const typeNames = models.flatMap((m) => m.json.fields.map((f) => fieldType(f.type, f.nullable).name));
  const types = await resolveTypes(db, typeNames);
  const tableTypes = new Set([...tables.values()].map((t) => t.gqlName));
  const out = new Map<string, Table>();
  for (const lm of models) {
    const at = placeIn(lm.where, 'name');
    if (!VALID_NAME.test(lm.json.name))
      throw new MetadataError(lm.file, at, `"${lm.json.name}" is not a valid GraphQL name`);
    if (out.has(lm.json.name))
      throw new MetadataError(lm.file, at, `logical model "${lm.json.name}" is declared twice`);
    if (tableTypes.has(lm.json.name))
      throw new MetadataError(lm.file, at, `logical model "${lm.json.name}" has the GraphQL name of a tracked table`);
    const table = logicalModelTable(lm, types);
    addPermissions(table, lm, roles, tables);
    out.set(table.name, table);
  }
  return out;
}
