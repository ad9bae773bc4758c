import { recordAudit, type AuditEvent } from '../../core/audit';
import type { DeploymentMode } from '../../core/config';
import type { Database, Queryable } from '../../core/db/database';
import { loadUserSession, normaliseEmail, TENANT_ROLES, type UserSession } from './users';

/**
 * The spec's user resolution, shared by every sign-in that an outside party vouches for (SAML,
 * OpenID Connect / OAuth providers, the e-mail link): a user linked to the outside account signs in;
 * else a user with the same e-mail is linked, but only when the outside party says the e-mail is
 * verified (linking on an unverified e-mail would hand the account to whoever typed it in at the
 * provider); else a user is created, on-premise in the license's tenant with AUTH_DEFAULT_ROLE, SaaS
 * in the tenant whose allowed_domains holds the e-mail's domain with its auth_default_role. A user who
 * is not active is refused. How the outside account is linked (its table) is the caller's.
 */

/** A refused sign-in: the message is shown to the person signing in; never a key or a secret. */
export class SignInRefused extends Error {
  constructor(
    message: string,
    readonly status = 401,
  ) {
    super(message);
  }
}

/** What placing a new user needs to know of the license (saml/license.ts License fits). */
export type TenantLicense = { ok: true; tenantId: string } | { ok: false; problem: string };

export interface PlacementRules {
  deploymentMode: DeploymentMode;
  /** AUTH_DEFAULT_ROLE: role of new users on-premise, and of a SaaS tenant without auth_default_role. */
  defaultRole: string;
  /** The on-premise license as read at start-up. */
  license: () => TenantLicense | undefined;
}

/** The outside account signing in, and how it is linked to a user. */
export interface OutsideAccount {
  email: string;
  /** Whether the outside party vouches for the e-mail; without it no existing user is linked by e-mail. */
  emailVerified: boolean;
  displayName: string;
  /** The user linked to this account already, if any. */
  linkedUser(tx: Queryable): Promise<string | undefined>;
  /** Links the user to this account (or notes the sign-in on the link). */
  link(tx: Queryable, userId: string): Promise<void>;
  /** Roles a new member gets (none: the tenant's default role). */
  roles: string[];
  /** Roles of an existing member follow `roles` on every sign-in (SAML group sync). */
  syncRoles?: { removeOthers: boolean };
  /** How the person signs in, for the audit events of what the sign-in provisions. */
  method: 'saml' | 'oidc' | 'email_link';
  /** What the audit events add about the account (SAML: the number of groups). */
  auditDetail?: Record<string, number | string>;
}

interface UserRow {
  id: string;
  status: string;
  display_name: string;
}

/** Where a sign-in puts the user, and the role a new member gets there. */
interface Target {
  id: string;
  defaultRole: string;
}

const USER_COLUMNS = 'u.id::text AS id, u.status, u.display_name';

/** The tenant SaaS sign-in puts a user in: the tenant whose allowed_domains holds the e-mail's domain. */
async function tenantOfDomain(
  db: Queryable,
  email: string,
): Promise<{ id: string; defaultRole: string | null } | undefined> {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const rows = await db.query(
    `SELECT a.tenant_id::text AS id, a.auth_default_role
       FROM tenant_attrs a
      WHERE EXISTS (SELECT 1 FROM unnest(a.allowed_domains) d WHERE lower(d) = $1::text)
      ORDER BY a.tenant_id
      LIMIT 2`,
    [domain],
  );
  if (rows.length > 1)
    throw new SignInRefused(
      `the e-mail domain ${domain} is claimed by more than one tenant (allowed_domains); ask an administrator`,
      403,
    );
  return rows[0]
    ? { id: String(rows[0].id), defaultRole: (rows[0].auth_default_role as string | null) ?? null }
    : undefined;
}

/** Gives the roles (and takes the others, when asked); what changed, for the audit. */
async function setRoles(
  tx: Queryable,
  userId: string,
  tenantId: string,
  roles: string[],
  removeOthers: boolean,
): Promise<{ added: string[]; removed: string[] }> {
  const added: string[] = [];
  for (const role of roles) {
    const rows = await tx.query(
      `INSERT INTO user_roles (user_id, role, entity_type, entity_id, tenant_id, created_by)
       VALUES ($1::uuid, $2::text, 'tenant', $3::text, $3::uuid, $1::uuid)
       ON CONFLICT (user_id, entity_type, entity_id, role) DO NOTHING RETURNING role`,
      [userId, role, tenantId],
    );
    if (rows.length) added.push(role);
  }
  const removed = removeOthers
    ? await tx.query(
        `DELETE FROM user_roles WHERE user_id = $1::uuid AND entity_type = 'tenant' AND tenant_id = $2::uuid AND role NOT IN (SELECT jsonb_array_elements_text($3::jsonb)) RETURNING role`,
        [userId, tenantId, JSON.stringify(roles)],
      )
    : [];
  return { added, removed: removed.map((r) => String(r.role)) };
}

/** The audit event of a provisioning step, named for SAML or for the other outside sign-ins. */
const provisioned = (
  account: OutsideAccount,
  step: 'user_created' | 'tenant_joined' | 'roles_synced',
  event: Omit<AuditEvent, 'type' | 'outcome' | 'method'>,
): AuditEvent => ({
  type: account.method === 'saml' ? `saml_${step}` : `provider_${step}`,
  outcome: 'success',
  method: account.method,
  ...event,
});

/** A user with this e-mail who is not linked to the account yet. */
async function userOfEmail(tx: Queryable, email: string): Promise<UserRow | undefined> {
  const rows = (await tx.query(`SELECT ${USER_COLUMNS} FROM users u WHERE lower(u.username) = $1::text`, [
    email,
  ])) as unknown as UserRow[];
  return rows[0];
}

/**
 * The user of this outside account: the one linked to it, else the one with its e-mail when the
 * e-mail is verified; refused unless active. An unverified e-mail that belongs to a user is refused
 * outright rather than creating a second account with the same e-mail.
 */
async function existingUser(tx: Queryable, account: OutsideAccount, email: string): Promise<UserRow | undefined> {
  const linkedId = await account.linkedUser(tx);
  let user: UserRow | undefined;
  if (linkedId) {
    const rows = (await tx.query(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1::uuid`, [
      linkedId,
    ])) as unknown as UserRow[];
    user = rows[0];
  } else {
    user = await userOfEmail(tx, email);
    if (user && !account.emailVerified)
      throw new SignInRefused(
        'Sign-in not allowed: the provider does not say that this e-mail address is verified, and an account with it exists already. Verify the address at the provider, or sign in another way.',
        403,
      );
  }
  if (user && user.status !== 'active')
    throw new SignInRefused('Sign-in not allowed: this account is suspended. Ask an administrator.', 403);
  return user;
}

/** On-premise: the license's tenant. Without a valid license only existing users may sign in. */
function licensedTenant(rules: PlacementRules, user: UserRow | undefined): Target | undefined {
  const license = rules.license();
  if (license?.ok) return { id: license.tenantId, defaultRole: rules.defaultRole };
  if (!user)
    throw new SignInRefused(`new users cannot be created: ${license?.problem ?? 'the license has not been read'}`, 403);
  return undefined;
}

/** SaaS: the tenant of the e-mail's domain, with its auth_default_role when that is a tenant role. */
async function domainTenant(
  tx: Queryable,
  rules: PlacementRules,
  email: string,
  user: UserRow | undefined,
): Promise<Target | undefined> {
  const t = await tenantOfDomain(tx, email);
  if (t) {
    const own = t.defaultRole && (TENANT_ROLES as readonly string[]).includes(t.defaultRole) ? t.defaultRole : null;
    return { id: t.id, defaultRole: own ?? rules.defaultRole };
  }
  if (!user)
    throw new SignInRefused(
      `no tenant accepts sign-ins from the e-mail domain ${email.slice(email.indexOf('@') + 1)} (tenant attribute allowed_domains)`,
      403,
    );
  return undefined;
}

/** The tenant this sign-in is for; undefined for an existing user whom no rule places. */
async function targetTenant(
  tx: Queryable,
  rules: PlacementRules,
  email: string,
  user: UserRow | undefined,
): Promise<Target | undefined> {
  const target =
    rules.deploymentMode === 'onprem' ? licensedTenant(rules, user) : await domainTenant(tx, rules, email, user);
  if (target) {
    const exists = await tx.query('SELECT 1 FROM tenant WHERE id = $1::uuid', [target.id]);
    if (exists.length === 0) throw new SignInRefused('the tenant named by the license does not exist', 403);
  }
  return target;
}

async function createUser(tx: Queryable, email: string, displayName: string): Promise<UserRow> {
  const rows = (await tx.query(
    `INSERT INTO users (username, display_name, status) VALUES ($1::text, $2::text, 'active') RETURNING id::text AS id, status, display_name`,
    [email, displayName],
  )) as unknown as UserRow[];
  return rows[0];
}

/** The tenant the user signs in to, and whether they are a member of it already. */
async function membership(
  tx: Queryable,
  userId: string,
  target: Target | undefined,
): Promise<{ tenantId: string; member: boolean }> {
  let tenantId = target?.id;
  let member = false;
  if (tenantId) {
    const rows = await tx.query(`SELECT 1 FROM tenant_users WHERE tenant = $1::uuid AND "user" = $2::uuid`, [
      tenantId,
      userId,
    ]);
    member = rows.length > 0;
  } else {
    // An existing user whom no rule places: their default tenant, as a password sign-in would.
    const rows = await tx.query(
      `SELECT tenant::text AS id FROM tenant_users WHERE "user" = $1::uuid ORDER BY is_default DESC, created_at LIMIT 1`,
      [userId],
    );
    tenantId = rows[0] ? String(rows[0].id) : undefined;
    member = tenantId !== undefined;
  }
  if (!tenantId) throw new SignInRefused('this account belongs to no tenant', 403);
  return { tenantId, member };
}

/**
 * A new member joins the tenant (their default when it is their first) with the account's roles, or
 * the tenant's default role. A member's roles follow the account's when it asks for it (syncRoles).
 */
async function joinOrSyncRoles(
  tx: Queryable,
  account: OutsideAccount,
  at: { userId: string; tenantId: string; member: boolean; target: Target | undefined },
): Promise<void> {
  const { userId, tenantId } = at;
  if (!at.member) {
    const others = await tx.query(`SELECT 1 FROM tenant_users WHERE "user" = $1::uuid`, [userId]);
    await tx.query(
      `INSERT INTO tenant_users (tenant, "user", is_default, created_by, updated_by) VALUES ($1::uuid, $2::uuid, $3::boolean, $2::uuid, $2::uuid)`,
      [tenantId, userId, String(others.length === 0)],
    );
    // Not a member means the tenant came from a rule (membership() places no one else): target is set.
    const given = account.roles.length > 0 ? account.roles : [at.target!.defaultRole];
    await setRoles(tx, userId, tenantId, given, false);
    const detail = { roles: given, ...account.auditDetail };
    await recordAudit(tx, provisioned(account, 'tenant_joined', { userId, tenantId, detail }));
  } else if (account.syncRoles && account.roles.length > 0) {
    // No role from the account: the roles stay as they are (never none).
    const changed = await setRoles(tx, userId, tenantId, account.roles, account.syncRoles.removeOthers);
    if (changed.added.length || changed.removed.length)
      await recordAudit(tx, provisioned(account, 'roles_synced', { userId, tenantId, detail: changed }));
  }
}

/** The whole resolution inside one transaction: the user's id and the tenant they sign in to. */
async function provision(
  tx: Queryable,
  rules: PlacementRules,
  account: OutsideAccount,
  email: string,
): Promise<{ userId: string; tenantId: string }> {
  const existing = await existingUser(tx, account, email);
  const target = await targetTenant(tx, rules, email, existing);
  const user = existing ?? (await createUser(tx, email, account.displayName || email));
  if (!existing) await recordAudit(tx, provisioned(account, 'user_created', { email, userId: user.id }));
  await account.link(tx, user.id);
  const { tenantId, member } = await membership(tx, user.id, target);
  await joinOrSyncRoles(tx, account, { userId: user.id, tenantId, member, target });
  if (existing && account.displayName && account.displayName !== user.display_name) {
    await tx.query('UPDATE users SET display_name = $2::text, updated_at = now() WHERE id = $1::uuid', [
      user.id,
      account.displayName,
    ]);
  }
  return { userId: user.id, tenantId };
}

/** The user an outside account signs in as, with the tenant and role of the session; all in one transaction. */
export async function resolveOutsideUser(
  db: Database,
  rules: PlacementRules,
  account: OutsideAccount,
): Promise<UserSession> {
  const email = normaliseEmail(account.email);
  const { userId, tenantId } = await db.transaction((tx) => provision(tx, rules, account, email));
  const session = await loadUserSession(db, userId, tenantId);
  if (!session)
    throw new SignInRefused('Sign-in not allowed: this account has no role in its tenant. Ask an administrator.', 403);
  return session;
}
