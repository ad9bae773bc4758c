import type { Queryable } from '../../core/db/database';
import { decoyHash, hashPassword, passwordProblem, verifyPassword } from './passwords';
import { isUuid } from '../../core/uuid';

/** A signed-in user as every sign-in method ends up with: who, in which tenant, with which role. */
export interface UserSession {
  userId: string;
  tenantId: string;
  role: string;
  /** The account e-mail (users.username). */
  email: string;
  displayName: string;
}

/** The roles the engine knows for tenants, most capable first: a user holding both gets the first. */
export const TENANT_ROLES = ['tenant_admin', 'tenant_admin_readonly'] as const;

/** ORDER BY term over `r.role` that puts the tenant roles first, in TENANT_ROLES order. */
export const ROLE_ORDER_SQL = `array_position(ARRAY['${TENANT_ROLES.join("','")}']::text[], r.role) NULLS LAST`;

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * The user with the tenant and role of a session: among the tenants the user is a member of
 * (tenant_users) and holds a tenant role in (user_roles), `tenantId` when given, otherwise the default
 * one (is_default), then the oldest membership. Unknown role names sort after the tenant roles.
 */
const SESSION_SQL = (where: string) => `
  SELECT u.id::text AS user_id, u.username, u.display_name, u.status, u.password_hash, m.tenant_id, m.role
  FROM users u
  LEFT JOIN LATERAL (
    SELECT tu.tenant::text AS tenant_id, r.role
    FROM tenant_users tu
    JOIN user_roles r ON r.user_id = tu."user" AND r.entity_type = 'tenant' AND r.tenant_id = tu.tenant
    WHERE tu."user" = u.id AND ($2::uuid IS NULL OR tu.tenant = $2::uuid)
    ORDER BY tu.is_default DESC, ${ROLE_ORDER_SQL}, tu.created_at, r.role
    LIMIT 1
  ) m ON true
  WHERE ${where}`;

interface SessionRow {
  user_id: string;
  username: string;
  display_name: string;
  status: string;
  password_hash: string | null;
  tenant_id: string | null;
  role: string | null;
}

const toSession = (r: SessionRow): UserSession | null =>
  r.status === 'active' && r.tenant_id && r.role
    ? { userId: r.user_id, tenantId: r.tenant_id, role: r.role, email: r.username, displayName: r.display_name }
    : null;

/**
 * Built-in credentials. null for an unknown e-mail, a wrong password, a user without a password (SSO
 * only), a user who is not active, and a user with no tenant role: the caller answers all of them
 * the same way. An unknown e-mail costs the same scrypt work as a known one.
 */
export async function verifyCredentials(db: Queryable, email: string, password: string): Promise<UserSession | null> {
  if (typeof email !== 'string' || typeof password !== 'string') return null;
  const rows = (await db.query(SESSION_SQL('lower(u.username) = $1::text'), [
    normaliseEmail(email),
    null,
  ])) as unknown as SessionRow[];
  const row = rows[0];
  const matches = await verifyPassword(password, row?.password_hash ?? (await decoyHash()));
  if (!row || !row.password_hash || !matches) return null;
  return toSession(row);
}

/** The session of a user in a tenant, as it stands now; null when the user is not active or has no role there. */
export async function loadUserSession(db: Queryable, userId: string, tenantId: string): Promise<UserSession | null> {
  if (!isUuid(userId) || !isUuid(tenantId)) return null;
  const rows = (await db.query(SESSION_SQL('u.id = $1::uuid'), [userId, tenantId])) as unknown as SessionRow[];
  return rows[0] ? toSession(rows[0]) : null;
}

/** The name of a tenant, or its id when it has none (the pages say where a user is signed in). */
export async function tenantName(db: Queryable, tenantId: string): Promise<string> {
  if (!isUuid(tenantId)) return tenantId;
  const rows = await db.query('SELECT name FROM tenant WHERE id = $1::uuid', [tenantId]);
  return (rows[0]?.name as string | undefined) ?? tenantId;
}

/** A role as the pages name it: "administrator" rather than `tenant_admin`. */
export function roleInWords(role: string): string {
  const words: Record<string, string> = {
    tenant_admin: 'administrator',
    tenant_admin_readonly: 'read-only administrator',
    admin: 'platform administrator',
  };
  return words[role] ?? role.replace(/_/g, ' ');
}

export type PasswordChange =
  | { ok: true; sessionsValidAfterMs: number }
  | { ok: false; wrongCurrent: true }
  | { ok: false; wrongCurrent: false; problem: string };

/**
 * A user changes their own password: the current one must match (a user without one, SSO only, has
 * none to give), the new one follow passwordProblem's rule and differ from it. Storing it ends every
 * session of the user (the trigger of sql/0030_sessions.sql moves sessions_valid_after); the answer
 * carries that moment, so that the caller can give its own browser a session issued after it.
 */
export async function changePassword(
  db: Queryable,
  userId: string,
  current: string,
  next: string,
): Promise<PasswordChange> {
  const rows = await db.query(`SELECT password_hash FROM users WHERE id = $1::uuid AND status = 'active'`, [userId]);
  const stored = rows[0]?.password_hash as string | null | undefined;
  const matches = await verifyPassword(current ?? '', stored ?? (await decoyHash()));
  if (!stored || !matches) return { ok: false, wrongCurrent: true };
  const problem = passwordProblem(next) ?? (next === current ? 'the new password is the current one' : undefined);
  if (problem) return { ok: false, wrongCurrent: false, problem };
  const [row] = await db.query(
    `UPDATE users SET password_hash = $2::text, updated_at = now() WHERE id = $1::uuid
     RETURNING (extract(epoch FROM sessions_valid_after) * 1000)::float8 AS valid_after`,
    [userId, await hashPassword(next)],
  );
  return { ok: true, sessionsValidAfterMs: Number(row?.valid_after ?? 0) };
}

/** Whether the user has a built-in password (users created by SSO have none). */
export async function hasPassword(db: Queryable, userId: string): Promise<boolean> {
  const rows = await db.query('SELECT password_hash IS NOT NULL AS has FROM users WHERE id = $1::uuid', [userId]);
  return rows[0]?.has === true || rows[0]?.has === 't';
}
