import type { EngineConfig } from '../../core/config';
import type { Database, Queryable } from '../../core/db/database';
import { loadUserSession, normaliseEmail, TENANT_ROLES, type UserSession } from '../auth/users';
import type { License } from './license';
import { SamlLoginError, type SamlIdentity } from './acs';
import { recordAudit } from '../../core/audit';

/**
 * The roles an assertion's groups give, by the spec's rules: SAML_GROUP_MAPPING matches group names
 * exactly and case-sensitively and maps to tenant_admin or tenant_admin_readonly (configuration drops
 * any other value); with SAML_INCLUDE_UNMAPPED_GROUPS, unmapped group names pass through unchanged.
 */
export function rolesFromGroups(saml: EngineConfig['saml'], groups: string[]): string[] {
  const roles = new Set<string>();
  for (const g of groups) {
    const mapped = Object.prototype.hasOwnProperty.call(saml.groupMapping, g) ? saml.groupMapping[g] : undefined;
    if (mapped) roles.add(mapped);
    else if (saml.includeUnmappedGroups && g.trim() !== '') roles.add(g);
  }
  return [...roles];
}

export interface ResolveDeps {
  config: Pick<EngineConfig, 'saml' | 'deploymentMode'>;
  /** The on-premise license (read at start-up). */
  license: () => License | undefined;
}

interface UserRow {
  id: string;
  status: string;
  display_name: string;
}

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
    throw new SamlLoginError(
      `the e-mail domain ${domain} is claimed by more than one tenant (allowed_domains); ask an administrator`,
      403,
    );
  return rows[0]
    ? { id: String(rows[0].id), defaultRole: (rows[0].auth_default_role as string | null) ?? null }
    : undefined;
}

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

/** Where a sign-in puts the user, and the role a new member gets there. */
interface Target {
  id: string;
  defaultRole: string;
}

/** The user of this IdP account: the one linked to it, else the one with its e-mail; refused unless active. */
async function existingUser(tx: Queryable, id: SamlIdentity, email: string): Promise<UserRow | undefined> {
  const linked = (await tx.query(
    `SELECT u.id::text AS id, u.status, u.display_name FROM user_saml_links l JOIN users u ON u.id = l.user_id WHERE l.issuer = $1::text AND l.name_id = $2::text`,
    [id.issuer, id.nameId],
  )) as unknown as UserRow[];
  let user = linked[0];
  if (!user) {
    const same = (await tx.query(
      `SELECT id::text AS id, status, display_name FROM users WHERE lower(username) = $1::text`,
      [email],
    )) as unknown as UserRow[];
    user = same[0];
  }
  if (user && user.status !== 'active')
    throw new SamlLoginError('Sign-in not allowed: this account is suspended. Ask an administrator.', 403);
  return user;
}

/** On-premise: the license's tenant. Without a valid license only existing users may sign in. */
function licensedTenant(deps: ResolveDeps, user: UserRow | undefined): Target | undefined {
  const license = deps.license();
  if (license?.ok) return { id: license.tenantId, defaultRole: deps.config.saml.defaultRole };
  if (!user)
    throw new SamlLoginError(
      `new users cannot be created: ${license?.problem ?? 'the license has not been read'}`,
      403,
    );
  return undefined;
}

/** SaaS: the tenant of the e-mail's domain, with its auth_default_role when that is a tenant role. */
async function domainTenant(
  tx: Queryable,
  deps: ResolveDeps,
  email: string,
  user: UserRow | undefined,
): Promise<Target | undefined> {
  const t = await tenantOfDomain(tx, email);
  if (t) {
    const own = t.defaultRole && (TENANT_ROLES as readonly string[]).includes(t.defaultRole) ? t.defaultRole : null;
    return { id: t.id, defaultRole: own ?? deps.config.saml.defaultRole };
  }
  if (!user)
    throw new SamlLoginError(
      `no tenant accepts sign-ins from the e-mail domain ${email.slice(email.indexOf('@') + 1)} (tenant attribute allowed_domains)`,
      403,
    );
  return undefined;
}

/** The tenant this sign-in is for; undefined for an existing user whom no rule places. */
async function targetTenant(
  tx: Queryable,
  deps: ResolveDeps,
  email: string,
  user: UserRow | undefined,
): Promise<Target | undefined> {
  const target =
    deps.config.deploymentMode === 'onprem' ? licensedTenant(deps, user) : await domainTenant(tx, deps, email, user);
  if (target) {
    const exists = await tx.query('SELECT 1 FROM tenant WHERE id = $1::uuid', [target.id]);
    if (exists.length === 0) throw new SamlLoginError('the tenant named by the license does not exist', 403);
  }
  return target;
}

async function createSamlUser(tx: Queryable, email: string, displayName: string): Promise<UserRow> {
  const rows = (await tx.query(
    `INSERT INTO users (username, display_name, status) VALUES ($1::text, $2::text, 'active') RETURNING id::text AS id, status, display_name`,
    [email, displayName],
  )) as unknown as UserRow[];
  return rows[0];
}

/** Links the user to this IdP account (or notes the login on the link). */
async function linkSamlAccount(tx: Queryable, userId: string, id: SamlIdentity): Promise<void> {
  await tx.query(
    `INSERT INTO user_saml_links (user_id, issuer, name_id, last_login_at) VALUES ($1::uuid, $2::text, $3::text, now())
     ON CONFLICT (issuer, name_id) DO UPDATE SET last_login_at = now()`,
    [userId, id.issuer, id.nameId],
  );
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
  if (!tenantId) throw new SamlLoginError('this account belongs to no tenant', 403);
  return { tenantId, member };
}

/**
 * A new member joins the tenant (their default when it is their first) with the roles of their groups,
 * or the tenant's default role. A member's roles follow the groups when SAML_SYNC_ROLES_ON_LOGIN says so.
 */
async function joinOrSyncRoles(
  tx: Queryable,
  saml: EngineConfig['saml'],
  at: { userId: string; tenantId: string; member: boolean; target: Target | undefined },
  id: SamlIdentity,
): Promise<void> {
  const { userId, tenantId } = at;
  const roles = rolesFromGroups(saml, id.groups);
  if (!at.member) {
    const others = await tx.query(`SELECT 1 FROM tenant_users WHERE "user" = $1::uuid`, [userId]);
    await tx.query(
      `INSERT INTO tenant_users (tenant, "user", is_default, created_by, updated_by) VALUES ($1::uuid, $2::uuid, $3::boolean, $2::uuid, $2::uuid)`,
      [tenantId, userId, String(others.length === 0)],
    );
    // Not a member means the tenant came from a rule (membership() places no one else): target is set.
    const given = roles.length > 0 ? roles : [at.target!.defaultRole];
    await setRoles(tx, userId, tenantId, given, false);
    const detail = { roles: given, groups: id.groups.length };
    await recordAudit(tx, { type: 'saml_tenant_joined', outcome: 'success', method: 'saml', userId, tenantId, detail });
  } else if (saml.syncRolesOnLogin && id.hasGroupAttribute && roles.length > 0) {
    // No group attribute, or no group that gives a role: the roles stay as they are (never none).
    const changed = await setRoles(tx, userId, tenantId, roles, saml.removeOldRoles);
    if (changed.added.length || changed.removed.length)
      await recordAudit(tx, {
        type: 'saml_roles_synced',
        outcome: 'success',
        method: 'saml',
        userId,
        tenantId,
        detail: changed,
      });
  }
}

/** The whole resolution inside one transaction: the user's id and the tenant they sign in to. */
async function provision(
  tx: Queryable,
  deps: ResolveDeps,
  id: SamlIdentity,
  email: string,
): Promise<{ userId: string; tenantId: string }> {
  const existing = await existingUser(tx, id, email);
  const target = await targetTenant(tx, deps, email, existing);
  const user = existing ?? (await createSamlUser(tx, email, id.displayName || email));
  if (!existing)
    await recordAudit(tx, { type: 'saml_user_created', outcome: 'success', method: 'saml', email, userId: user.id });
  await linkSamlAccount(tx, user.id, id);
  const { tenantId, member } = await membership(tx, user.id, target);
  await joinOrSyncRoles(tx, deps.config.saml, { userId: user.id, tenantId, member, target }, id);
  if (existing && id.displayName && id.displayName !== user.display_name) {
    await tx.query('UPDATE users SET display_name = $2::text, updated_at = now() WHERE id = $1::uuid', [
      user.id,
      id.displayName,
    ]);
  }
  return { userId: user.id, tenantId };
}

/**
 * The spec's user resolution: a user linked to this IdP account signs in directly; otherwise a user
 * with the same e-mail is linked; otherwise a user is created (on-premise in the license's tenant
 * with AUTH_DEFAULT_ROLE, SaaS in the tenant of the e-mail's domain with its auth_default_role). A
 * user who is not active is refused ("not allowed"). Roles follow the groups as configured. All in
 * one transaction.
 */
export async function resolveSamlUser(db: Database, deps: ResolveDeps, id: SamlIdentity): Promise<UserSession> {
  const email = normaliseEmail(id.email);
  const { userId, tenantId } = await db.transaction((tx) => provision(tx, deps, id, email));
  const session = await loadUserSession(db, userId, tenantId);
  if (!session)
    throw new SamlLoginError('Sign-in not allowed: this account has no role in its tenant. Ask an administrator.', 403);
  return session;
}

/**
 * Records an assertion ID as used; false when it was used before (a replay), on any instance. Expired
 * entries are pruned on the way.
 */
export async function acceptAssertionOnce(db: Queryable, id: SamlIdentity): Promise<boolean> {
  await db.query('DELETE FROM saml_assertions_seen WHERE expires_at < now()');
  const rows = await db.query(
    `INSERT INTO saml_assertions_seen (issuer, assertion_id, expires_at) VALUES ($1::text, $2::text, $3::timestamptz)
     ON CONFLICT (issuer, assertion_id) DO NOTHING RETURNING assertion_id`,
    [id.issuer, id.assertionId, id.expiresAt.toISOString()],
  );
  return rows.length === 1;
}
