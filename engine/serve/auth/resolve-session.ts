import type { AuthConfig } from '../../core/config';
import { Lru } from '../../core/lru';
import { header, type HeaderBag } from '../../core/headers';
import { RequestError } from '../../core/errors';
import { looksLikeApiToken } from './api-tokens';
import { decodeSessionCookie, sessionCookieIn } from './session-cookie';
import { verifyApiJwt, type ApiJwtClaims } from './jwt';
import type { Refusal, Revocations } from './revocation';
import { adminSession } from './admin-secret';
import { ADMIN_ROLE, type Session, type SessionResolver } from '../../core/session';

export interface SessionDeps {
  auth: AuthConfig;
  revocations: Revocations;
  adminSecret?: string;
}

const invalidJwt = (message: string) => new RequestError('invalid-jwt', message, '$', 401);

/** JWTs whose signature and claims were verified, kept until they expire (verification costs ~50 µs). */
const VERIFIED_JWTS = 10_000;
/** Longer than any JWT the exchange mints: not worth verifying or remembering. */
const MAX_JWT_LENGTH = 4096;

const REFUSED: Record<Exclude<Refusal, null>, string> = {
  'token-deleted': 'the API token this JWT was issued for has been deleted',
  'token-mismatch': 'the JWT does not match the API token it names',
  'user-inactive': "the JWT's user is suspended or no longer exists",
  'role-revoked': "the JWT's user no longer holds its role in its tenant",
};

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
  const { auth, revocations } = deps;
  const verified = new Lru<string, ApiJwtClaims & { exp: number }>(VERIFIED_JWTS);

  /** The claims of a JWT: from memory when this instance verified it before, and it has not expired since. */
  async function claimsOf(token: string): Promise<ApiJwtClaims & { exp: number }> {
    const known = verified.get(token);
    if (known && known.exp > Date.now() / 1000) return known;
    if (token.length > MAX_JWT_LENGTH) throw invalidJwt('the JWT is malformed: it is too long');
    const c = await verifyApiJwt(auth, token);
    verified.set(token, c);
    return c;
  }

  async function jwtSession(authorization: string, headers: HeaderBag): Promise<Session> {
    const m = /^(\S+)(?:\s+(.*))?$/.exec(authorization.trim());
    if (!m || m[1].toLowerCase() !== 'bearer') throw invalidJwt('the Authorization header must be "Bearer <JWT>"');
    const token = (m[2] ?? '').trim();
    if (!token) throw invalidJwt('the JWT is missing: the Authorization header has nothing after "Bearer"');
    if (looksLikeApiToken(token)) {
      throw invalidJwt(
        'an API token is not accepted as a Bearer token: exchange it for a JWT at POST /api/auth/token first',
      );
    }
    const c = await claimsOf(token);
    // Only the admin secret acts as admin, whatever a signed claim says.
    if (c.role === ADMIN_ROLE) throw invalidJwt(`the JWT's role "${ADMIN_ROLE}" is not accepted: use the admin secret`);
    const requested = header(headers, 'x-hasura-role');
    if (requested !== undefined && requested !== c.role) {
      throw new RequestError(
        'access-denied',
        `the requested role "${requested}" is not among the JWT's allowed roles`,
        '$',
        403,
      );
    }
    const refusal = await revocations.checkToken(c.tokenId, c.userId, c.tenantId, c.role);
    if (refusal) throw invalidJwt(REFUSED[refusal]);
    return {
      role: c.role,
      vars: {
        'x-hasura-role': c.role,
        'x-hasura-user-id': c.userId,
        'x-hasura-tenant-id': c.tenantId,
        'x-hasura-token-id': c.tokenId,
      },
      isAdmin: false,
    };
  }

  return async (headers) => {
    const authorization = header(headers, 'authorization');
    if (authorization !== undefined) return jwtSession(authorization, headers);
    const cookie = sessionCookieIn(header(headers, 'cookie'));
    if (cookie !== undefined) {
      const s = decodeSessionCookie({ auth }, cookie);
      if (s && s.role !== ADMIN_ROLE && !(await revocations.checkUser(s.userId, s.tenantId, s.role))) {
        return {
          role: s.role,
          vars: { 'x-hasura-role': s.role, 'x-hasura-user-id': s.userId, 'x-hasura-tenant-id': s.tenantId },
          isAdmin: false,
        };
      }
      if (header(headers, 'x-hasura-admin-secret') === undefined) {
        throw new RequestError(
          'access-denied',
          'the session has expired or is no longer valid: sign in again',
          '$',
          401,
        );
      }
    }
    return adminSession(headers, deps.adminSecret);
  };
}
