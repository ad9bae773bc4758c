import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';
import type { AuthConfig } from '../../core/config';
import { purposeKey } from '../../core/secrets';
import { openSignedValue, signValue } from '../auth/signed-value';

/**
 * The state of an SP-initiated login between /api/auth/saml/login and the ACS: the AuthnRequest's ID,
 * the relay state and the start time, in a cookie signed with HMAC-SHA256 under a key derived from
 * NEXTAUTH_SECRET (auth/signed-value.ts, like the session cookie). Any instance that shares the secret can finish a login another one started. It is
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

const stateKey = (auth: AuthConfig) => purposeKey(auth.sessionSecret, 'saml state');

const cookieOptions = (auth: AuthConfig): CookieOptions => ({
  path: PATH,
  httpOnly: true,
  ...(auth.baseUrl.startsWith('https:') ? { sameSite: 'None', secure: true } : {}),
});

/** The signed cookie value (exported for tests, which make stale ones). */
export function stateCookieValue(auth: AuthConfig, s: SamlState): string {
  return signValue(stateKey(auth), { v: 1, id: s.requestId, rs: s.relayState, t: s.startedAt });
}

/** Sets the state cookie of a login that starts now, for STATE_MAX_AGE_SECONDS. */
export const setStateCookie = (c: Context, auth: AuthConfig, s: SamlState) =>
  setCookie(c, STATE_COOKIE, stateCookieValue(auth, s), { ...cookieOptions(auth), maxAge: STATE_MAX_AGE_SECONDS });

/** Ends the login's state: the ACS has used it, or the login was refused. */
export const clearStateCookie = (c: Context, auth: AuthConfig) => {
  deleteCookie(c, STATE_COOKIE, cookieOptions(auth));
};

/** The state of the request's cookie when its signature is right and the login began at most 60 seconds ago. */
export function readState(c: Context, auth: AuthConfig, now = Date.now()): SamlState | undefined {
  const value = getCookie(c, STATE_COOKIE);
  if (!value) return undefined;
  const p = openSignedValue(stateKey(auth), value) as
    { v?: number; id?: unknown; rs?: unknown; t?: unknown } | undefined;
  if (p?.v !== 1 || typeof p.id !== 'string' || typeof p.rs !== 'string' || typeof p.t !== 'number') return undefined;
  if (now - p.t > STATE_MAX_AGE_SECONDS * 1000 || p.t > now + 5000) return undefined;
  return { requestId: p.id, relayState: p.rs, startedAt: p.t };
}
