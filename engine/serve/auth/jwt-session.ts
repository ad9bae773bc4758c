import type { AuthConfig } from '../../core/config';
import { RequestError } from '../../core/errors';
import { header, type HeaderBag } from '../../core/headers';
import { Lru } from '../../core/lru';
import { ADMIN_ROLE, type Session } from '../../core/session';
import { looksLikeApiToken } from './api-tokens';
import { verifyApiJwt, type ApiJwtClaims } from './jwt';
import type { Refusal, Revocations } from './revocation';

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
  'session-ended': 'the session has ended',
};

/** The JWT of an `Authorization: Bearer <JWT>` header; a header of another shape, or an API token, is refused. */
function bearerToken(authorization: string): string {
  // The scheme is the text before the first white space, the token the rest. Found with a search that
  // stops at the scheme's end: a pattern whose `(.*)` ran over the whole JWT cost 1.2% of the engine's
  // CPU on a read with a Bearer JWT (perf, ex_ListCloudAccounts).
  const value = authorization.trim();
  const gap = value.search(/\s/);
  const scheme = gap < 0 ? value : value.slice(0, gap);
  if (scheme.toLowerCase() !== 'bearer') throw invalidJwt('the Authorization header must be "Bearer <JWT>"');
  const token = gap < 0 ? '' : value.slice(gap + 1).trim();
  if (!token) throw invalidJwt('the JWT is missing: the Authorization header has nothing after "Bearer"');
  if (looksLikeApiToken(token)) {
    throw invalidJwt(
      'an API token is not accepted as a Bearer token: exchange it for a JWT at POST /api/auth/token first',
    );
  }
  return token;
}

/** The role a JWT acts as: its own, which a requested x-hasura-role may only repeat; never admin. */
function roleOf(c: ApiJwtClaims, headers: HeaderBag): string {
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
  return c.role;
}

/**
 * The sessions of Bearer JWTs from the token exchange: the JWT verified (or remembered as verified
 * until it expires), its role checked against x-hasura-role, and its token and user against what the
 * instance knows (revocation.ts). Anything wrong is 401 invalid-jwt saying what.
 */
export function bearerSessions(auth: AuthConfig, revocations: Revocations) {
  const verified = new Lru<string, { token: string; claims: ApiJwtClaims & { exp: number } }>(VERIFIED_JWTS);

  /**
   * The claims of a JWT: from memory when this instance verified it before, and it has not expired since.
   * Kept by its signature, and found only when the whole JWT is the same. A key is hashed on every
   * look-up, and a signature is a short part of a JWT: hashing the whole JWT was 2.4% of the engine's
   * CPU on a read with a Bearer JWT (perf, ex_ListCloudAccounts). Comparing the whole JWT with the one
   * of the same signature tells nothing to a caller who does not hold that JWT already.
   */
  async function claimsOf(token: string): Promise<ApiJwtClaims & { exp: number }> {
    const key = token.slice(token.lastIndexOf('.') + 1);
    const known = verified.get(key);
    if (known && known.token === token && known.claims.exp > Date.now() / 1000) return known.claims;
    if (token.length > MAX_JWT_LENGTH) throw invalidJwt('the JWT is malformed: it is too long');
    const claims = await verifyApiJwt(auth, token);
    verified.set(key, { token, claims });
    return claims;
  }

  return async (authorization: string, headers: HeaderBag): Promise<Session> => {
    const c = await claimsOf(bearerToken(authorization));
    const role = roleOf(c, headers);
    const refusal = await revocations.checkToken(c.tokenId, c.userId, c.tenantId, role);
    if (refusal) throw invalidJwt(REFUSED[refusal]);
    return {
      role,
      vars: {
        'x-hasura-role': role,
        'x-hasura-user-id': c.userId,
        'x-hasura-tenant-id': c.tenantId,
        'x-hasura-token-id': c.tokenId,
      },
      isAdmin: false,
      via: 'jwt',
    };
  };
}
