import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';
import type { AuthConfig } from '../../core/config';
import { purposeKey } from '../../core/secrets';
import { openSignedValue, signValue } from '../auth/signed-value';

/**
 * The state of a provider sign-in between /api/auth/signin/<provider> and /api/auth/callback/<provider>:
 * the provider, the `state` and `nonce` sent to it, the PKCE code verifier and where to go afterwards,
 * in a cookie signed with HMAC-SHA256 under a key derived from NEXTAUTH_SECRET (auth/signed-value.ts),
 * so that any instance that shares the secret can finish a sign-in another one started. It lasts 10
 * minutes (a person may take a while at the provider's login page), checked against the signed start
 * time; the callback clears it, so a callback URL followed again finds no state.
 *
 * SameSite=Lax: the provider sends the browser back with a top-level GET, which carries Lax cookies.
 */
export const FLOW_COOKIE = 'platform_oauth_state';
export const FLOW_MAX_AGE_SECONDS = 600;
const PATH = '/api/auth/callback';

export interface FlowState {
  provider: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  /** Where to go after sign-in (a local path). */
  next: string;
  /** Start of the sign-in, milliseconds since the epoch. */
  startedAt: number;
}

const flowKey = (auth: AuthConfig) => purposeKey(auth.sessionSecret, 'oauth flow state');

const cookieOptions = (auth: AuthConfig): CookieOptions => ({
  path: PATH,
  httpOnly: true,
  sameSite: 'Lax',
  ...(auth.baseUrl.startsWith('https:') ? { secure: true } : {}),
});

/** The signed cookie value (exported for tests, which make stale and foreign ones). */
export function flowCookieValue(auth: AuthConfig, f: FlowState): string {
  return signValue(flowKey(auth), {
    v: 1,
    p: f.provider,
    s: f.state,
    n: f.nonce,
    cv: f.codeVerifier,
    rs: f.next,
    t: f.startedAt,
  });
}

export const setFlowCookie = (c: Context, auth: AuthConfig, f: FlowState) =>
  setCookie(c, FLOW_COOKIE, flowCookieValue(auth, f), { ...cookieOptions(auth), maxAge: FLOW_MAX_AGE_SECONDS });

export const clearFlowCookie = (c: Context, auth: AuthConfig) => {
  deleteCookie(c, FLOW_COOKIE, cookieOptions(auth));
};

/** The state of the request's cookie when its signature is right and the sign-in began at most 10 minutes ago. */
export function readFlow(c: Context, auth: AuthConfig, now = Date.now()): FlowState | undefined {
  const value = getCookie(c, FLOW_COOKIE);
  return value ? readFlowValue(auth, value, now) : undefined;
}

/** The state of a cookie value (exported for tests): signature, shape and age checked. */
export function readFlowValue(auth: AuthConfig, value: string, now = Date.now()): FlowState | undefined {
  const p = openSignedValue(flowKey(auth), value) as Record<string, unknown> | undefined;
  if (p?.v !== 1 || typeof p.t !== 'number') return undefined;
  const strings = [p.p, p.s, p.n, p.cv, p.rs];
  if (!strings.every((x) => typeof x === 'string')) return undefined;
  if (now - p.t > FLOW_MAX_AGE_SECONDS * 1000 || p.t > now + 5000) return undefined;
  const [provider, state, nonce, codeVerifier, next] = strings as string[];
  return { provider, state, nonce, codeVerifier, next, startedAt: p.t };
}
