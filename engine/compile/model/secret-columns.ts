import { MetadataError } from './load';
import type { Column } from './model-types';

/**
 * Secret material the API never shows to any role, the admin role included, nor through introspection.
 * Hasura's admin role sees every tracked column; this engine keeps one rule on top, by name, so that a
 * table tracked tomorrow cannot leak a hash by forgetting a permission. Operators still reach all of it
 * with SQL.
 *
 * - A column named `hash` or ending in `_hash` (`users.password_hash`, `api_tokens.secret_hash`) holds a
 *   hash of a secret: it is not part of the API at all, neither read nor written.
 * - A column whose name has a `secret` or `password` part (`cloud_accounts.access_secret`,
 *   `agent.access_secret_v2`) holds a credential the tenant hands over: write-only. Insert and update
 *   permissions may list it; no select permission may, and the admin role cannot read it either.
 * - The engine's own sign-in tables (API tokens, sign-in sessions, failed-attempt counters, SAML replay
 *   store) hold nothing but secret material or its bookkeeping: tracking one stops start-up.
 */
const HASH = /(^|_)hash$/;
const WRITE_ONLY = /(^|_)(secret|password)(_|$)/;
export const SECRET_TABLES = new Set(['api_tokens', 'auth_failures', 'saml_assertions_seen', 'ended_sessions']);

/** Whether a column is left out of the API entirely. */
export const isHiddenColumn = (name: string) => HASH.test(name);

/** Whether a column may be written but never read. */
export const isWriteOnlyColumn = (name: string) => !HASH.test(name) && WRITE_ONLY.test(name);

export function refuseSecretTable(schema: string, name: string, file: string): void {
  if (SECRET_TABLES.has(name))
    throw new MetadataError(
      file,
      'table',
      `table "${schema}"."${name}" holds secret sign-in material and cannot be tracked; it is reachable through SQL only`,
    );
}

/** A select permission's columns, refusing a secret one by name (`*` leaves them out). */
export function refuseWriteOnly(columns: Set<string>, file: string, where: string): void {
  for (const c of columns)
    if (isWriteOnlyColumn(c) || isHiddenColumn(c))
      throw new MetadataError(file, where, `column "${c}" holds a secret: it may be written but not selected`);
}

/** The columns the admin role, or a `*` select permission, may read. */
export const readableColumns = (columns: Column[]) =>
  columns.filter((c) => !isWriteOnlyColumn(c.name) && !isHiddenColumn(c.name));
