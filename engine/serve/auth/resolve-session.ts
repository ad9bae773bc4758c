/**
 * The auth room: who is asking. Sessions (the browser session cookie, the JWTs of the API-token
 * exchange, the admin secret) and credentials (passwords, API tokens, their revocation, failure
 * throttling). It may import engine/core and libraries only: the route rooms (http, saml, web) use it,
 * never the other way round. This file puts the ways in, in their order, into one SessionResolver.
 */
import type { AuthConfig } from '../../core/config';
import { RequestError } from '../../core/errors';
import { header, type HeaderBag } from '../../core/headers';
import { ADMIN_ROLE, type Session, type SessionResolver } from '../../core/session';
import { adminSession } from './admin-secret';
import { bearerSessions } from './jwt-session';
import type { Revocations } from './revocation';
import { openSessionCookie, sessionCookieIn } from './session-cookie';

export interface SessionDeps {
  auth: AuthConfig;
  revocations: Revocations;
  adminSecret?: string;
}

/**
 * The session of a browser session cookie: its user, tenant and role while the cookie's signature and
 * expiry hold, the session has not ended (sign-out, password change, suspension, sign out
 * everywhere) and the user still has the role. Otherwise 401 asking to sign in again, unless the
 * admin secret comes along (then undefined: the admin secret decides).
 */
async function cookieSession(deps: SessionDeps, cookie: string, headers: HeaderBag): Promise<Session | undefined> {
  const opened = openSessionCookie({ auth: deps.auth }, cookie);
  const s = opened?.session;
  const check = (o: NonNullable<typeof opened>) =>
    deps.revocations.checkSession(o.idHash, o.issuedMs, o.session.userId, o.session.tenantId, o.session.role);
  if (opened && s && s.role !== ADMIN_ROLE && !(await check(opened))) {
    return {
      role: s.role,
      vars: { 'x-hasura-role': s.role, 'x-hasura-user-id': s.userId, 'x-hasura-tenant-id': s.tenantId },
      isAdmin: false,
      via: 'cookie',
    };
  }
  if (header(headers, 'x-hasura-admin-secret') === undefined) {
    throw new RequestError('access-denied', 'the session has expired or is no longer valid: sign in again', '$', 401);
  }
  return undefined;
}

/**
 * Who is asking, in this order:
 * 1. `Authorization: Bearer <JWT>` from the token exchange. Once the header is there it decides: a bad
 *    JWT is 401 invalid-jwt saying what is wrong, and an API token is refused (it must be exchanged).
 * 2. The browser session cookie (`platform_session`) set by sign-in.
 * 3. The admin secret (`x-hasura-admin-secret`), which may name a role and session variables.
 * Nothing: 401 access-denied.
 *
 * A JWT or cookie session carries the role and x-hasura-user-id / x-hasura-tenant-id (and for a JWT
 * x-hasura-token-id); other x-hasura-* headers are ignored. The token behind a JWT and the user behind
 * either are checked against what the instance knows (see revocation.ts): no database round trip
 * while that is fresh.
 */
export function createSessionResolver(deps: SessionDeps): SessionResolver {
  const bearer = bearerSessions(deps.auth, deps.revocations);
  return async (headers) => {
    const authorization = header(headers, 'authorization');
    if (authorization !== undefined) return bearer(authorization, headers);
    const cookie = sessionCookieIn(header(headers, 'cookie'));
    if (cookie !== undefined) {
      const session = await cookieSession(deps, cookie, headers);
      if (session) return session;
    }
    return adminSession(headers, deps.adminSecret);
  };
}
