import type { EngineConfig } from '../../core/config';
import type { Database, Queryable } from '../../core/db/database';
import { resolveOutsideUser, SignInRefused } from '../auth/provision-user';
import type { UserSession } from '../auth/users';
import type { License } from './license';
import { SamlLoginError, type SamlIdentity } from './acs';

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

/**
 * The spec's user resolution (auth/provision-user.ts, shared with the other outside sign-ins) for a
 * SAML identity: linked by its issuer and NameID (user_saml_links); the IdP's signed assertion vouches
 * for the e-mail; a new member gets the roles of their groups, and a member's roles follow the groups
 * when SAML_SYNC_ROLES_ON_LOGIN says so and the assertion carries a group attribute.
 */
export async function resolveSamlUser(db: Database, deps: ResolveDeps, id: SamlIdentity): Promise<UserSession> {
  const { saml } = deps.config;
  const rules = { deploymentMode: deps.config.deploymentMode, defaultRole: saml.defaultRole, license: deps.license };
  try {
    return await resolveOutsideUser(db, rules, {
      email: id.email,
      emailVerified: true,
      displayName: id.displayName,
      roles: rolesFromGroups(saml, id.groups),
      syncRoles: saml.syncRolesOnLogin && id.hasGroupAttribute ? { removeOthers: saml.removeOldRoles } : undefined,
      method: 'saml',
      auditDetail: { groups: id.groups.length },
      linkedUser: async (tx) => {
        const rows = await tx.query(
          `SELECT user_id::text AS id FROM user_saml_links WHERE issuer = $1::text AND name_id = $2::text`,
          [id.issuer, id.nameId],
        );
        return rows[0] ? String(rows[0].id) : undefined;
      },
      link: async (tx, userId) => {
        await tx.query(
          `INSERT INTO user_saml_links (user_id, issuer, name_id, last_login_at) VALUES ($1::uuid, $2::text, $3::text, now())
           ON CONFLICT (issuer, name_id) DO UPDATE SET last_login_at = now()`,
          [userId, id.issuer, id.nameId],
        );
      },
    });
  } catch (err) {
    // The SAML routes answer their own refusals: the same message, as a SAML one.
    if (err instanceof SignInRefused && !(err instanceof SamlLoginError))
      throw new SamlLoginError(err.message, err.status);
    throw err;
  }
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
