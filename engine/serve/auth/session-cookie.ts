import { parse } from 'hono/utils/cookie';
import type { AuthConfig } from '../../core/config';
import type { Queryable } from '../../core/db/database';
import { purposeKey } from '../../core/secrets';
import { openSignedValue, signValue } from './signed-value';
import { loadUserSession, type UserSession } from './users';

/**
 * The browser session: a cookie holding the user, tenant, role and expiry, signed with HMAC-SHA256
 * under a key derived from NEXTAUTH_SECRET, so any instance that shares the secret accepts it.
 * Value: base64url(JSON payload) "." base64url(signature) (signed-value.ts). HttpOnly, SameSite=Lax,
 * Path=/, and Secure when NEXTAUTH_URL is https.
 */
export const SESSION_COOKIE = 'platform_session';

type WithAuth = { auth: AuthConfig };

interface Payload {
  v: 1;
  sub: string;
  tid: string;
  role: string;
  email: string;
  name: string;
  iat: number;
  exp: number;
}

const sessionKey = (config: WithAuth) => purposeKey(config.auth.sessionSecret, 'session cookie');
// Written here rather than with Hono's serialize: the Set-Cookie text is part of the contract (tests
// pin it attribute by attribute) and Hono's puts Max-Age first and Secure before SameSite.
const attributes = (config: WithAuth, maxAge: number) =>
  `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${config.auth.baseUrl.startsWith('https:') ? '; Secure' : ''}`;

/** The cookie's value for a session that starts now (exported for tests and for the pages). */
export function sessionCookieValue(config: WithAuth, s: UserSession, now = Math.floor(Date.now() / 1000)): string {
  const payload: Payload = {
    v: 1,
    sub: s.userId,
    tid: s.tenantId,
    role: s.role,
    email: s.email,
    name: s.displayName,
    iat: now,
    exp: now + config.auth.sessionMaxAgeSeconds,
  };
  return signValue(sessionKey(config), payload);
}

/** A full Set-Cookie value that signs `s` in for SESSION_MAX_AGE_SECONDS. */
export function sessionCookie(config: WithAuth, s: UserSession): string {
  return `${SESSION_COOKIE}=${sessionCookieValue(config, s)}; ${attributes(config, config.auth.sessionMaxAgeSeconds)}`;
}

/** A Set-Cookie value that signs out. */
export function clearSessionCookie(config: WithAuth): string {
  return `${SESSION_COOKIE}=; ${attributes(config, 0)}`;
}

/**
 * The raw value of the session cookie in a Cookie header, if any. From the header, not a Hono Context:
 * the GraphQL route has Node's headers only (serve/http/read-request.ts).
 */
export function sessionCookieIn(cookieHeader: string | undefined): string | undefined {
  return cookieHeader ? parse(cookieHeader, SESSION_COOKIE)[SESSION_COOKIE] : undefined;
}

/** The session a cookie value carries when its signature is right and it has not expired. */
export function decodeSessionCookie(config: WithAuth, value: string): UserSession | undefined {
  const p = openSignedValue(sessionKey(config), value) as Payload | undefined;
  if (p?.v !== 1 || typeof p.exp !== 'number' || p.exp <= Date.now() / 1000) return undefined;
  if (![p.sub, p.tid, p.role, p.email, p.name].every((x) => typeof x === 'string')) return undefined;
  return { userId: p.sub, tenantId: p.tid, role: p.role, email: p.email, displayName: p.name };
}

/**
 * The signed-in user of a request's Cookie header: signature and expiry checked. With `db`, the user
 * must also still be active and a member of the tenant: the answer is then the session as it stands in
 * the database (the role may have changed since sign-in). Without `db`, the cookie alone decides.
 */
export async function readSessionCookie(
  config: WithAuth,
  cookieHeader: string | undefined,
  db?: Queryable,
): Promise<UserSession | undefined> {
  const value = sessionCookieIn(cookieHeader);
  const s = value ? decodeSessionCookie(config, value) : undefined;
  if (!s || !db) return s;
  return (await loadUserSession(db, s.userId, s.tenantId)) ?? undefined;
}
