import { TRUE } from './bool-exp';
import { ADMIN_ROLE } from '../../core/session';
import { readableColumns } from './secret-columns';
import {
  type DeletePermission,
  type InsertPermission,
  type Model,
  type SelectPermission,
  type Table,
  type UpdatePermission,
} from './model-types';

/**
 * What one role may do with each table. The admin role may do everything but read secrets (secret-columns.ts); any other role only what
 * its permissions grant. Schema building and planning both ask here, so they cannot disagree.
 */
export class RolePermissions {
  readonly isAdmin: boolean;
  constructor(
    readonly model: Model,
    readonly role: string,
  ) {
    this.isAdmin = role === ADMIN_ROLE;
  }

  private allColumns(table: Table): Set<string> {
    return new Set(readableColumns(table.columns).map((c) => c.name));
  }

  select(table: Table): SelectPermission | undefined {
    if (this.isAdmin) return { columns: this.allColumns(table), filter: TRUE, allowAggregations: true };
    return table.permissions.get(this.role)?.select;
  }

  insert(table: Table): InsertPermission | undefined {
    if (this.isAdmin)
      return {
        columns: new Set(table.columns.filter((c) => !c.generated).map((c) => c.name)),
        check: TRUE,
        set: new Map(),
      };
    return table.permissions.get(this.role)?.insert;
  }

  update(table: Table): UpdatePermission | undefined {
    if (this.isAdmin)
      return {
        columns: new Set(table.columns.filter((c) => !c.generated).map((c) => c.name)),
        filter: TRUE,
        check: TRUE,
        set: new Map(),
      };
    return table.permissions.get(this.role)?.update;
  }

  delete(table: Table): DeletePermission | undefined {
    if (this.isAdmin) return { filter: TRUE };
    return table.permissions.get(this.role)?.delete;
  }

  /** Tables the role can read at all. */
  readableTables(): Table[] {
    return this.model.tables.filter((t) => this.select(t));
  }

  canRunAction(name: string): boolean {
    if (this.isAdmin) return true;
    const action = this.model.metadata.actions.find((a) => a.name === name);
    return !!action?.permissions?.some((p) => p.role === this.role);
  }
}

/**
 * The roles that may write on a tenant's behalf: those the metadata gives an insert, update or delete
 * permission on some table, or a mutation among its actions. A role with none of them is read-only,
 * and the operations that are queries but write or spend (an analysis made by a language model) refuse
 * it. The admin role is not listed: it may do everything.
 */
export function writerRoles(model: Model): string[] {
  const writers = new Set<string>();
  for (const table of model.tables)
    for (const [role, p] of table.permissions) if (p.insert || p.update || p.delete) writers.add(role);
  for (const action of model.metadata.actions)
    if (action.definition.type !== 'query') for (const p of action.permissions ?? []) writers.add(p.role);
  writers.delete(ADMIN_ROLE);
  return [...writers].sort();
}
