/*
 * engine/cli: the operators' look at accounts (`npm run admin -- list-users | list-tokens`) and the
 * commands that undo (`delete-token`, `clear-lockout`). Never a secret or a hash in what they print.
 */
import type { Queryable } from '../core/db/database';
import { hintTokenDeleted } from '../serve/auth/revocation';
import { clearLockout } from '../serve/auth/throttle';
import { normaliseEmail } from '../serve/auth/users';
import { isUuid } from '../core/uuid';
import { recordAudit } from '../core/audit';

export class AccountsError extends Error {}

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI')`;

/** Rows as columns aligned under their headings, for a terminal. */
export function table(headings: string[], rows: string[][]): string[] {
  const widths = headings.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(headings), ...rows.map(line)];
}

/** A tenant filter as SQL and its parameter: a tenant id, or a name matched without case. */
function tenantFilter(tenant: string | undefined, column: string, n: number): { sql: string; params: string[] } {
  if (!tenant) return { sql: 'true', params: [] };
  if (isUuid(tenant)) return { sql: `${column} = $${n}::uuid`, params: [tenant] };
  return { sql: `${column} IN (SELECT id FROM tenant WHERE lower(name) = lower($${n}::text))`, params: [tenant] };
}

export interface UserLine {
  email: string;
  name: string;
  status: string;
  password: boolean;
  roles: string;
}

/** Users with their status, whether they have a password, and their roles by tenant (of one tenant when asked). */
export async function listUsers(db: Queryable, opts: { tenant?: string }): Promise<UserLine[]> {
  const filter = tenantFilter(opts.tenant, 'r.tenant_id', 1);
  const rows = await db.query(
    `SELECT u.username AS email, u.display_name AS name, u.status, u.password_hash IS NOT NULL AS password,
            string_agg(coalesce(t.name, r.entity_id) || ': ' || r.role, ', ' ORDER BY t.name, r.role) AS roles
     FROM users u JOIN user_roles r ON r.user_id = u.id LEFT JOIN tenant t ON t.id = r.tenant_id
     WHERE ${filter.sql}
     GROUP BY u.id, u.username, u.display_name, u.status, u.password_hash
     ORDER BY lower(u.username)`,
    filter.params,
  );
  return rows.map((r) => ({
    email: r.email as string,
    name: r.name as string,
    status: r.status as string,
    password: r.password === true,
    roles: (r.roles as string | null) ?? '',
  }));
}

export interface TokenLine {
  id: string;
  prefix: string;
  name: string;
  email: string;
  tenant: string;
  created: string;
  lastUsed: string;
}

/** Live API tokens (not deleted), of one user and/or tenant when asked; never their secrets or hashes. */
export async function listTokens(db: Queryable, opts: { email?: string; tenant?: string }): Promise<TokenLine[]> {
  const params: string[] = [];
  let where = 'k.deleted_at IS NULL';
  if (opts.email) {
    params.push(normaliseEmail(opts.email));
    where += ` AND lower(u.username) = $${params.length}::text`;
  }
  const filter = tenantFilter(opts.tenant, 'k.tenant_id', params.length + 1);
  params.push(...filter.params);
  const rows = await db.query(
    `SELECT k.id::text AS id, k.prefix, k.name, u.username AS email, t.name AS tenant,
            ${iso('k.created_at')} AS created, ${iso('k.last_used_at')} AS last_used
     FROM api_tokens k JOIN users u ON u.id = k.user_id JOIN tenant t ON t.id = k.tenant_id
     WHERE ${where} AND ${filter.sql}
     ORDER BY k.created_at DESC, k.id`,
    params,
  );
  return rows.map((r) => ({
    id: r.id as string,
    prefix: r.prefix as string,
    name: r.name as string,
    email: r.email as string,
    tenant: r.tenant as string,
    created: r.created as string,
    lastUsed: (r.last_used as string | null) ?? 'never',
  }));
}

/**
 * Deletes a token by its id, whoever holds it (soft, irreversible, like deleting it in the settings).
 * The database trigger tells every engine (NOTIFY platform_auth); this process's engine is told at once.
 */
export async function deleteToken(db: Queryable, id: string | undefined): Promise<{ name: string; email: string }> {
  if (!id) throw new AccountsError('--id is required (the token id, as list-tokens shows it)');
  if (!isUuid(id)) throw new AccountsError(`--id must be a token id (a UUID), got "${id}"`);
  const rows = await db.query(
    `UPDATE api_tokens k SET deleted_at = now() FROM users u
     WHERE k.id = $1::uuid AND k.deleted_at IS NULL AND u.id = k.user_id
     RETURNING k.name, u.username AS email, k.user_id::text AS user_id, k.tenant_id::text AS tenant_id`,
    [id],
  );
  if (rows.length === 0) throw new AccountsError(`no live API token with the id ${id}`);
  const [row] = rows;
  await recordAudit(db, {
    type: 'api_token_deleted',
    outcome: 'success',
    method: 'cli',
    userId: row.user_id as string,
    tenantId: row.tenant_id as string,
    tokenId: id.toLowerCase(),
    detail: { name: row.name as string },
  });
  hintTokenDeleted(id.toLowerCase());
  return { name: rows[0].name as string, email: rows[0].email as string };
}

/**
 * Forgets failed sign-in attempts (auth/throttle.ts): of an e-mail (from any address), of a client
 * address, or `all` of them. The number of counters cleared.
 */
export async function clearLockouts(
  db: Queryable,
  opts: { email?: string; address?: string; all?: boolean },
): Promise<number> {
  if (opts.all) {
    if (opts.email || opts.address) throw new AccountsError('--all clears every counter: give it alone');
    return (await db.query('DELETE FROM auth_failures RETURNING key')).length;
  }
  if (!opts.email && !opts.address)
    throw new AccountsError('--email <e-mail>, --address <client address> or --all is required');
  return clearLockout(db, { email: opts.email, clientAddress: opts.address });
}
