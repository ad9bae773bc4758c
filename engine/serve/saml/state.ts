import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { AuthConfig } from '../../core/config';

/**
 * The state of an SP-initiated login between /api/auth/saml/login and the ACS: the AuthnRequest's ID,
 * the relay state and the start time, in a cookie signed with HMAC-SHA256 under a key derived from
 * NEXTAUTH_SECRET. Any instance that shares the secret can finish a login another one started. It is
 * valid for 60 seconds (the spec's "SAML session token validity"), checked against the signed start
 * time, not only the cookie's Max-Age.
 *
 * The IdP posts to the ACS from another site: with an https NEXTAUTH_URL the cookie is SameSite=None;
 * Secure so the browser sends it along; with plain http (development) it has no SameSite attribute,
 * which browsers still send on a top-level cross-site POST within two minutes of setting it.
 */
export const STATE_COOKIE = 'platform_saml_state';
export const STATE_MAX_AGE_SECONDS = 60;
const PATH = '/api/auth/saml';

export interface SamlState {
  /** The AuthnRequest ID the response must answer (InResponseTo). */
  requestId: string;
  /** Where to go after sign-in (a local path). */
  relayState: string;
  /** Start of the login, milliseconds since the epoch. */
  startedAt: number;
}

const keyOf = (auth: AuthConfig) => Buffer.from(hkdfSync('sha256', auth.sessionSecret, '', 'platform saml state', 32));
const sign = (auth: AuthConfig, data: string) => createHmac('sha256', keyOf(auth)).update(data).digest();

const attributes = (auth: AuthConfig, maxAge: number) =>
  `Path=${PATH}; HttpOnly; Max-Age=${maxAge}${auth.baseUrl.startsWith('https:') ? '; SameSite=None; Secure' : ''}`;

/** The signed cookie value (exported for tests, which make stale ones). */
export function stateCookieValue(auth: AuthConfig, s: SamlState): string {
  const data = Buffer.from(
    JSON.stringify({ v: 1, id: s.requestId, rs: s.relayState, t: s.startedAt }),
    'utf8',
  ).toString('base64url');
  return `${data}.${sign(auth, data).toString('base64url')}`;
}

export const stateCookie = (auth: AuthConfig, s: SamlState) =>
  `${STATE_COOKIE}=${stateCookieValue(auth, s)}; ${attributes(auth, STATE_MAX_AGE_SECONDS)}`;
export const clearStateCookie = (auth: AuthConfig) => `${STATE_COOKIE}=; ${attributes(auth, 0)}`;

/** The state of a Cookie header when its signature is right and the login began at most 60 seconds ago. */
export function readState(auth: AuthConfig, cookieHeader: string | undefined, now = Date.now()): SamlState | undefined {
  let value: string | undefined;
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === STATE_COOKIE) value = part.slice(eq + 1).trim();
  }
  if (!value) return undefined;
  const dot = value.indexOf('.');
  if (dot <= 0) return undefined;
  const data = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1), 'base64url');
  const expected = sign(auth, data);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let p: { v?: number; id?: unknown; rs?: unknown; t?: unknown };
  try {
    p = JSON.parse(Buffer.from(data, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (p.v !== 1 || typeof p.id !== 'string' || typeof p.rs !== 'string' || typeof p.t !== 'number') return undefined;
  if (now - p.t > STATE_MAX_AGE_SECONDS * 1000 || p.t > now + 5000) return undefined;
  return { requestId: p.id, relayState: p.rs, startedAt: p.t };
}
