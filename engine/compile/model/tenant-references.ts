import { and } from './bool-exp';
import type { CatalogForeignKey, CatalogTable } from './catalog';
import type { TableJson } from './metadata-types';
import type { BoolExp, Column, ColumnCondition, Relationship, Table } from './model-types';
import { parsePermissionBoolExp } from './permissions';

/** Which table holds the tenants and which session variable names the session's tenant. */
export interface Tenancy {
  table: { schema: string; name: string };
  /** Lower case, as session variables are kept (`x-hasura-tenant-id`). */
  variable: string;
}

const key = (t: { schema: string; name: string }) => `${t.schema}.${t.name}`;

/**
 * The column that says which tenant a row belongs to: the tenant table's own key, or the column of a
 * one-column foreign key to it. Tables without one are not tenant-owned.
 */
function ownerColumn(table: Table, tenant: Table, catalog: Map<string, CatalogTable>): Column | undefined {
  if (table === tenant) return tenant.primaryKey[0];
  const fk = catalog
    .get(key(table))
    ?.foreignKeys.find(
      (f) =>
        f.columns.length === 1 &&
        f.refSchema === tenant.schema &&
        f.refTable === tenant.name &&
        f.refColumns[0] === tenant.primaryKey[0].name,
    );
  return fk && table.columnByName.get(fk.columns[0]);
}

/** Roles whose permissions name the tenant session variable anywhere: the tenant roles. */
function tenantRoles(tablesJson: TableJson[], variable: string): Set<string> {
  const roles = new Set<string>();
  for (const t of tablesJson) {
    const lists = [t.select_permissions, t.insert_permissions, t.update_permissions, t.delete_permissions];
    for (const list of lists)
      for (const p of list ?? []) if (JSON.stringify(p.permission).toLowerCase().includes(variable)) roles.add(p.role);
  }
  return roles;
}

/**
 * `fk IS NULL OR the referenced row's owner = the session's tenant`: any NULL column of the key leaves
 * it unchecked, as PostgreSQL's own MATCH SIMPLE foreign keys do. When the key itself names the owner
 * (a key to the tenants table, or one that includes the target's tenant column), the foreign key
 * already guarantees the referenced row, so comparing the written column costs no lookup of it.
 */
function referenceCondition(table: Table, fk: CatalogForeignKey, target: Table, owner: Column, t: Tenancy): BoolExp {
  const at = { file: 'tenancy', where: `${table.name}.${fk.name}` };
  const nulls = fk.columns.map((c) => parsePermissionBoolExp(table, { [c]: { _is_null: true } }, at));
  const own = fk.refColumns.indexOf(owner.name);
  if (own >= 0)
    return {
      kind: 'or',
      items: [...nulls, parsePermissionBoolExp(table, { [fk.columns[own]]: { _eq: t.variable } }, at)],
    };
  const mapping = fk.columns.map((c, i) => [table.columnByName.get(c)!, target.columnByName.get(fk.refColumns[i])!]);
  const rel: Relationship = {
    name: fk.name,
    kind: 'object',
    source: table,
    target,
    mapping: mapping as [Column, Column][],
    insertion: 'before_parent',
  };
  const owned = parsePermissionBoolExp(target, { [owner.name]: { _eq: t.variable } }, at);
  return { kind: 'or', items: [...nulls, { kind: 'relationship', rel, where: owned }] };
}

function referencesOf(table: Table, tables: Map<string, Table>, catalog: Map<string, CatalogTable>, t: Tenancy) {
  const tenant = tables.get(key(t.table))!;
  const out: ColumnCondition[] = [];
  for (const fk of catalog.get(key(table))?.foreignKeys ?? []) {
    const target = tables.get(`${fk.refSchema}.${fk.refTable}`);
    const owner = target && ownerColumn(target, tenant, catalog);
    if (!target || !owner) continue;
    out.push({ columns: fk.columns, condition: referenceCondition(table, fk, target, owner, t) });
  }
  return out;
}

/** The references a write can set: a column of the key given or preset. */
function settable(refs: ColumnCondition[], columns: Set<string>, set: Map<string, unknown>): ColumnCondition[] {
  return refs.filter((r) => r.columns.some((c) => columns.has(c) || set.has(c)));
}

/**
 * For every tenant role, each insert check also requires every tenant-owned row the written row
 * references (through a foreign key whose columns the role may set) to be the session's tenant's;
 * each update check the same for the keys the update sets (the planner adds `references` of those).
 * Added here rather than in the metadata so that a table added later is covered without anyone
 * remembering to write the condition; the checks already run in the writing statement (or, for nested
 * inserts, in the same transaction), so every way of writing is covered.
 */
export function addTenantReferenceChecks(
  tables: Map<string, Table>,
  catalog: Map<string, CatalogTable>,
  tablesJson: TableJson[],
  tenancy: Tenancy | undefined,
): void {
  const tenant = tenancy && tables.get(key(tenancy.table));
  if (!tenancy || !tenant || tenant.primaryKey.length !== 1) return;
  const roles = tenantRoles(tablesJson, tenancy.variable);
  for (const table of tables.values()) {
    const refs = referencesOf(table, tables, catalog, tenancy);
    if (refs.length === 0) continue;
    for (const [role, perms] of table.permissions) {
      if (!roles.has(role)) continue;
      const { insert, update } = perms;
      if (insert)
        insert.check = and(insert.check, ...settable(refs, insert.columns, insert.set).map((r) => r.condition));
      if (update) update.references = settable(refs, update.columns, update.set);
    }
  }
}
