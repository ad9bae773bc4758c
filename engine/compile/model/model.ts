/*
 * engine/compile/model: the first stage of the compiler. Metadata (Hasura's config v3 YAML, checked
 * against its JSON Schema) joined with the database catalog into the Model: tables, columns,
 * relationships, permissions, native queries, the boolean-expression types and the one operator
 * table (operators.ts). Imports engine/core only.
 */
import type { Queryable } from '../../core/db/database';
import { ADMIN_ROLE } from '../../core/session';
import { readCatalog, type CatalogTable } from './catalog';
import type { LoadedMetadata } from './load';
import { MetadataError } from './load';
import type { RelationshipJson, RootFieldKey, TableJson, TableRef } from './metadata-types';
import type { Column, Model, Relationship, Table } from './model-types';
import { parsePermissionBoolExp, parsePresets } from './permissions';
import { scalarForType } from './scalar-types';
import { buildLogicalModels } from './logical-models';
import { buildNativeQueries } from './native-queries';
import { addTenantReferenceChecks, type Tenancy } from './tenant-references';
import { isHiddenColumn, readableColumns, refuseSecretTable, refuseWriteOnly } from './secret-columns';

function ref(t: TableRef | string): { schema: string; name: string } {
  return typeof t === 'string' ? { schema: 'public', name: t } : { schema: t.schema ?? 'public', name: t.name };
}
const key = (t: { schema: string; name: string }) => `${t.schema}.${t.name}`;

function rootFieldNames(name: string, json: TableJson): Record<RootFieldKey, string | null> {
  const custom = json.configuration?.custom_root_fields ?? {};
  const pick = (k: RootFieldKey, fallback: string): string | null => {
    const v = custom[k];
    if (typeof v === 'string') return v;
    if (v && typeof v === 'object' && v.name) return v.name;
    return fallback;
  };
  return {
    select: pick('select', name),
    select_by_pk: pick('select_by_pk', `${name}_by_pk`),
    select_aggregate: pick('select_aggregate', `${name}_aggregate`),
    insert: pick('insert', `insert_${name}`),
    insert_one: pick('insert_one', `insert_${name}_one`),
    update: pick('update', `update_${name}`),
    update_by_pk: pick('update_by_pk', `update_${name}_by_pk`),
    update_many: pick('update_many', `update_${name}_many`),
    delete: pick('delete', `delete_${name}`),
    delete_by_pk: pick('delete_by_pk', `delete_${name}_by_pk`),
  };
}

function buildTable(json: TableJson, cat: CatalogTable | undefined, file: string): Table {
  const { schema, name } = ref(json.table);
  if (!cat) throw new MetadataError(file, 'table', `table "${schema}"."${name}" does not exist in the database`);
  refuseSecretTable(schema, name, file);
  const config = json.configuration ?? {};
  const customNames = new Map<string, string>(Object.entries(config.custom_column_names ?? {}));
  for (const [col, c] of Object.entries(config.column_config ?? {}))
    if (c.custom_name) customNames.set(col, c.custom_name);
  for (const col of customNames.keys()) {
    if (!cat.columns.some((c) => c.name === col))
      throw new MetadataError(
        file,
        `configuration.column_config.${col}`,
        `column "${col}" does not exist in "${schema}"."${name}"`,
      );
  }
  const columns: Column[] = cat.columns
    .filter((c) => !isHiddenColumn(c.name))
    .map((c) => ({
      name: c.name,
      gqlName: customNames.get(c.name) ?? c.name,
      sqlType: c.sqlType,
      scalar: scalarForType(c.typeName, c.typeKind),
      nullable: !c.notNull,
      hasDefault: c.hasDefault || c.isIdentity,
      generated: c.isGenerated,
    }));
  const columnByName = new Map(columns.map((c) => [c.name, c]));
  const pkNames = config.primary_key ?? cat.primaryKey?.columns ?? [];
  const primaryKey = pkNames.map((n) => {
    const c = columnByName.get(n);
    if (!c)
      throw new MetadataError(
        file,
        'configuration.primary_key',
        `column "${n}" does not exist in "${schema}"."${name}"`,
      );
    return c;
  });
  const gqlName = config.custom_name ?? name;
  return {
    schema,
    name,
    gqlName,
    kind: cat.kind,
    columns,
    columnByName,
    columnByGql: new Map(columns.map((c) => [c.gqlName, c])),
    primaryKey,
    constraints: [...(cat.primaryKey ? [cat.primaryKey] : []), ...cat.uniques],
    isEnum: json.is_enum === true,
    enumValues: [],
    relationships: [],
    relByName: new Map(),
    rootFields: rootFieldNames(gqlName, json),
    permissions: new Map(),
  };
}

function columnOf(table: Table, name: string, file: string, where: string): Column {
  const c = table.columnByName.get(name);
  if (!c) throw new MetadataError(file, where, `column "${name}" does not exist in "${table.schema}"."${table.name}"`);
  return c;
}

/** The same columns in any order: a composite key may be listed in another order than the constraint's. */
const sameColumns = (a: string[], b: string[]) => a.length === b.length && a.every((c) => b.includes(c));

function buildRelationship(
  source: Table,
  json: RelationshipJson,
  kind: 'object' | 'array',
  ctx: BuildContext,
  file: string,
): Relationship {
  const where = `${kind}_relationships.${json.name}`;
  const targetOf = (t: TableRef | string) => {
    const target = ctx.tables.get(key(ref(t)));
    if (!target) throw new MetadataError(file, where, `target table "${key(ref(t))}" is not tracked in the metadata`);
    return target;
  };
  const { foreign_key_constraint_on: fk, manual_configuration: manual } = json.using;
  if (manual) {
    const target = targetOf(manual.remote_table);
    const mapping = Object.entries(manual.column_mapping).map(
      ([l, r]) => [columnOf(source, l, file, where), columnOf(target, r, file, where)] as [Column, Column],
    );
    // Hasura's default for a manual object relationship is the related row first.
    const order = kind === 'array' ? 'after_parent' : (manual.insertion_order ?? 'before_parent');
    return { name: json.name, kind, source, target, mapping, insertion: order };
  }
  if (typeof fk === 'string' || Array.isArray(fk)) {
    // Through a foreign key of this table (an object relationship), on one column or several.
    const cols = typeof fk === 'string' ? [fk] : fk;
    const found = ctx.catalog.get(key(source))!.foreignKeys.find((f) => sameColumns(f.columns, cols));
    if (!found) throw new MetadataError(file, where, `no foreign key on "${source.name}"(${cols.join(', ')})`);
    const target = targetOf({ schema: found.refSchema, name: found.refTable });
    const mapping = found.columns.map(
      (c, i) =>
        [columnOf(source, c, file, where), columnOf(target, found.refColumns[i], file, where)] as [Column, Column],
    );
    return { name: json.name, kind, source, target, mapping, insertion: 'before_parent' };
  }
  if (fk && typeof fk === 'object') {
    // Through a foreign key of the remote table that points here: `{table, column}` or `{table, columns}`.
    const target = targetOf(fk.table);
    const cols = typeof fk.columns === 'string' ? [fk.columns] : (fk.columns ?? (fk.column ? [fk.column] : []));
    const found = ctx.catalog
      .get(key(target))!
      .foreignKeys.find(
        (f) => sameColumns(f.columns, cols) && f.refSchema === source.schema && f.refTable === source.name,
      );
    if (!found)
      throw new MetadataError(
        file,
        where,
        `no foreign key on "${target.name}"(${cols.join(', ')}) referencing "${source.name}"`,
      );
    const mapping = found.columns.map(
      (c, i) =>
        [columnOf(source, found.refColumns[i], file, where), columnOf(target, c, file, where)] as [Column, Column],
    );
    return { name: json.name, kind, source, target, mapping, insertion: 'after_parent' };
  }
  throw new MetadataError(file, where, 'relationship needs foreign_key_constraint_on or manual_configuration');
}

interface BuildContext {
  tables: Map<string, Table>;
  catalog: Map<string, CatalogTable>;
}

function permissionColumns(table: Table, cols: string[] | '*' | undefined, file: string, where: string): Set<string> {
  if (cols === undefined || cols === '*') return new Set(table.columns.map((c) => c.name));
  return new Set(cols.map((c) => columnOf(table, c, file, where).name));
}

/** A select permission's columns: `*` is every column but the write-only ones, which a list may not name. */
function selectColumns(table: Table, cols: string[] | '*' | undefined, file: string, where: string): Set<string> {
  if (cols === undefined || cols === '*') return new Set(readableColumns(table.columns).map((c) => c.name));
  const set = permissionColumns(table, cols, file, where);
  refuseWriteOnly(set, file, where);
  return set;
}

function buildPermissions(
  table: Table,
  json: TableJson,
  roles: Set<string>,
  file: string,
  tables: Map<string, Table>,
): void {
  const perms = (role: string) => {
    roles.add(role);
    if (!table.permissions.has(role)) table.permissions.set(role, {});
    return table.permissions.get(role)!;
  };
  const parse = (exp: unknown, where: string) => parsePermissionBoolExp(table, exp ?? {}, { file, where, tables });
  for (const [i, { role, permission: p }] of (json.select_permissions ?? []).entries()) {
    const at = `select_permissions[${i}].permission`;
    perms(role).select = {
      columns: selectColumns(table, p.columns, file, `${at}.columns`),
      filter: parse(p.filter, `${at}.filter`),
      limit: p.limit,
      allowAggregations: p.allow_aggregations === true,
    };
  }
  for (const [i, { role, permission: p }] of (json.insert_permissions ?? []).entries()) {
    const at = `insert_permissions[${i}].permission`;
    perms(role).insert = {
      columns: permissionColumns(table, p.columns, file, `${at}.columns`),
      check: parse(p.check, `${at}.check`),
      set: parsePresets(table, p.set ?? {}, { file, where: `${at}.set` }),
    };
  }
  for (const [i, { role, permission: p }] of (json.update_permissions ?? []).entries()) {
    const at = `update_permissions[${i}].permission`;
    perms(role).update = {
      columns: permissionColumns(table, p.columns, file, `${at}.columns`),
      filter: parse(p.filter, `${at}.filter`),
      check: parse(p.check ?? {}, `${at}.check`),
      set: parsePresets(table, p.set ?? {}, { file, where: `${at}.set` }),
    };
  }
  for (const [i, { role, permission: p }] of (json.delete_permissions ?? []).entries()) {
    perms(role).delete = { filter: parse(p.filter, `delete_permissions[${i}].permission.filter`) };
  }
}

/**
 * Lookup tables: their values become the allowed values of every column that references them. All of
 * them are read by one statement: one each was a tenth of the embedded database's start-up.
 */
async function loadEnumValues(db: Queryable, enums: { table: Table; file: string }[]): Promise<void> {
  if (!enums.length) return;
  const q = (n: string) => `"${n.replace(/"/g, '""')}"`;
  const selects = enums.map(({ table, file }, i) => {
    if (table.primaryKey.length !== 1 || table.primaryKey[0].scalar !== 'String') {
      throw new MetadataError(file, 'is_enum', `enum table "${table.name}" needs a single text primary key`);
    }
    const valueCol = table.primaryKey[0].name;
    const commentCol = table.columns.find((c) => c.name !== valueCol && c.scalar === 'String')?.name;
    const comment = commentCol ? `${q(commentCol)}::text` : 'NULL::text';
    return `SELECT ${i} AS t, ${q(valueCol)}::text AS value, ${comment} AS comment FROM ${q(table.schema)}.${q(table.name)}`;
  });
  const rows = await db.query(selects.join('\nUNION ALL\n'));
  for (const [i, { table, file }] of enums.entries()) {
    table.enumValues = rows
      .filter((r) => Number(r.t) === i)
      .map((r) => ({ value: String(r.value), comment: (r.comment as string | null) ?? null }))
      .sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    checkEnumValues(table, file);
  }
}

/** A column with a foreign key to a lookup table takes that table's values. */
function enumColumns(ctx: BuildContext): void {
  for (const t of ctx.tables.values()) {
    for (const fk of ctx.catalog.get(key(t))!.foreignKeys) {
      const target = ctx.tables.get(`${fk.refSchema}.${fk.refTable}`);
      if (!target?.isEnum || fk.columns.length !== 1) continue;
      const col = t.columnByName.get(fk.columns[0])!;
      col.scalar = `${target.gqlName}_enum`;
      col.enumValues = target.enumValues.map((v) => v.value);
      col.enumTable = target;
    }
  }
}

/**
 * As Hasura requires of an enum table: at least one row, and every value a valid GraphQL enum value
 * name (letters, digits and `_`, not starting with a digit; not true, false or null), since each
 * becomes a value of the `<table>_enum` type.
 */
function checkEnumValues(table: Table, file: string): void {
  if (table.enumValues.length === 0)
    throw new MetadataError(
      file,
      'is_enum',
      `enum table "${table.name}" has no rows; an enum needs at least one value`,
    );
  const invalid = table.enumValues
    .map((v) => v.value)
    .filter((v) => !/^[_A-Za-z][_0-9A-Za-z]*$/.test(v) || ['true', 'false', 'null'].includes(v));
  if (invalid.length)
    throw new MetadataError(
      file,
      'is_enum',
      `enum table "${table.name}" has values that are not valid GraphQL enum names: ${invalid.map((v) => JSON.stringify(v)).join(', ')} ` +
        '(a value starts with a letter or _, holds only letters, digits and _, and is not true, false or null)',
    );
}

/**
 * Joins the metadata with the database catalog; any name that does not resolve stops start-up. With
 * `tenancy`, tenant roles' writes may reference only their own tenant's rows (tenant-references.ts).
 */
export async function buildModel(db: Queryable, metadata: LoadedMetadata, tenancy?: Tenancy): Promise<Model> {
  const tablesJson = metadata.sources.flatMap((s) => s.tables);
  const schemas = [...new Set(tablesJson.map((t) => ref(t.table).schema))];
  const catalog = await readCatalog(db, schemas.length ? schemas : ['public']);
  const fileOf = (t: TableJson) => metadata.tableFiles.get(key(ref(t.table))) ?? 'databases.yaml';

  const ctx: BuildContext = { tables: new Map(), catalog };
  for (const json of tablesJson) {
    const k = key(ref(json.table));
    if (ctx.tables.has(k)) throw new MetadataError(fileOf(json), 'table', `table ${k} is tracked twice`);
    ctx.tables.set(k, buildTable(json, catalog.get(k), fileOf(json)));
  }
  for (const json of tablesJson) {
    const table = ctx.tables.get(key(ref(json.table)))!;
    for (const [kind, list] of [
      ['object', json.object_relationships],
      ['array', json.array_relationships],
    ] as const) {
      for (const r of list ?? []) {
        if (table.relByName.has(r.name) || table.columnByGql.has(r.name)) {
          throw new MetadataError(
            fileOf(json),
            `${kind}_relationships.${r.name}`,
            `name "${r.name}" is already a column or relationship of "${table.name}"`,
          );
        }
        const rel = buildRelationship(table, r, kind, ctx, fileOf(json));
        table.relationships.push(rel);
        table.relByName.set(rel.name, rel);
      }
    }
  }
  const tables = [...ctx.tables.values()];
  const tableFile = (t: Table) => fileOf(tablesJson.find((j) => key(ref(j.table)) === key(t))!);
  await loadEnumValues(
    db,
    tables.filter((t) => t.isEnum).map((t) => ({ table: t, file: tableFile(t) })),
  );
  enumColumns(ctx);
  const roles = new Set<string>([ADMIN_ROLE]);
  for (const json of tablesJson)
    buildPermissions(ctx.tables.get(key(ref(json.table)))!, json, roles, fileOf(json), ctx.tables);
  addTenantReferenceChecks(ctx.tables, catalog, tablesJson, tenancy);
  for (const a of metadata.actions) for (const p of a.permissions ?? []) roles.add(p.role);
  const logicalModels = await buildLogicalModels(db, metadata.logicalModels, ctx.tables, roles);
  const nativeQueries = await buildNativeQueries(
    db,
    metadata.nativeQueries,
    logicalModels,
    tables,
    metadata.actions.map((a) => a.name),
  );
  return { tables, logicalModels: [...logicalModels.values()], nativeQueries, roles: [...roles], metadata };
}
