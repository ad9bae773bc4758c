import type { Queryable } from '../../core/db/database';
import type { OutsideAccount } from './provision-user';

/**
 * The links between users and accounts at OpenID Connect / OAuth providers and the e-mail link
 * (sql/0032_sign_in_links.sql): an account is its issuer and subject, as the provider's ID token
 * names them (the subject is unique and stable per issuer; an e-mail is neither).
 */
export interface ProviderIdentity {
  /** This service's name for the provider (google, azure-ad, oidc, email...). */
  provider: string;
  issuer: string;
  subject: string;
  email: string;
  /** The provider's `email_verified`: only a verified e-mail links to an existing user. */
  emailVerified: boolean;
  displayName: string;
}

/** The identity as the shared user resolution takes it (provision-user.ts), linked through user_provider_links. */
export function providerAccount(id: ProviderIdentity): OutsideAccount {
  return {
    email: id.email,
    emailVerified: id.emailVerified,
    displayName: id.displayName,
    roles: [],
    method: id.provider === 'email' ? 'email_link' : 'oidc',
    linkedUser: async (tx) => {
      const rows = await tx.query(
        `SELECT user_id::text AS id FROM user_provider_links WHERE issuer = $1::text AND subject = $2::text`,
        [id.issuer, id.subject],
      );
      return rows[0] ? String(rows[0].id) : undefined;
    },
    link: async (tx, userId) => {
      await tx.query(
        `INSERT INTO user_provider_links (user_id, provider, issuer, subject, email, last_login_at)
         VALUES ($1::uuid, $2::text, $3::text, $4::text, $5::text, now())
         ON CONFLICT (issuer, subject) DO UPDATE SET last_login_at = now(), email = EXCLUDED.email, provider = EXCLUDED.provider`,
        [userId, id.provider, id.issuer, id.subject, id.email],
      );
    },
  };
}

/** A sign-in method linked to a user, for the Profile page. */
export interface LinkedMethod {
  /** google, azure-ad, oidc, email, saml, or credentials. */
  provider: string;
  /** The account at the provider: its e-mail, or the SAML NameID. */
  account: string;
  lastLoginAt: string | null;
}

/** Every sign-in method of a user: a password, SAML accounts and provider accounts. */
export async function linkedMethods(db: Queryable, userId: string): Promise<LinkedMethod[]> {
  const rows = await db.query(
    `SELECT 'credentials' AS provider, u.username AS account, NULL::text AS last_login_at, 0 AS o
       FROM users u WHERE u.id = $1::uuid AND u.password_hash IS NOT NULL
     UNION ALL
     SELECT 'saml', s.name_id, s.last_login_at::text, 1 FROM user_saml_links s WHERE s.user_id = $1::uuid
     UNION ALL
     SELECT p.provider, coalesce(p.email, p.subject), p.last_login_at::text, 2 FROM user_provider_links p WHERE p.user_id = $1::uuid
     ORDER BY 4, 1, 2`,
    [userId],
  );
  return rows.map((r) => ({
    provider: String(r.provider),
    account: String(r.account),
    lastLoginAt: r.last_login_at === null ? null : String(r.last_login_at),
  }));
}
