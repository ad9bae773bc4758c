import { createHash, randomUUID } from 'node:crypto';
import { decodeProtectedHeader, errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { AuthConfig } from '../../core/config';
import { RequestError } from '../../core/errors';
import { purposeKey } from '../../core/secrets';
import { isUuid } from '../../core/uuid';

/**
 * The JWTs of the token exchange. HS256 only: the algorithm is pinned on verification (a token that
 * names another one, `none` included, is refused before its signature is looked at), and the issuer,
 * audience and expiry are checked. The claims carry the user, the tenant, the role and the API
 * token's id, plain and in Hasura's namespace, so that a Hasura-style verifier can use them as well.
 */
export const ALGORITHM = 'HS256';
export const HASURA_CLAIMS = 'https://hasura.io/jwt/claims';

export interface ApiJwtClaims {
  userId: string;
  tenantId: string;
  role: string;
  tokenId: string;
  email: string;
}

/**
 * The API JWTs' key. JWT_SECRET, when set, is the key as it is (so that other services can verify
 * them); otherwise a key derived from NEXTAUTH_SECRET for this purpose alone (core/secrets.ts), so a
 * session cookie can never pass for an API JWT or the other way round.
 */
export const apiJwtKey = (auth: AuthConfig): Uint8Array =>
  auth.jwtSecret ? new TextEncoder().encode(auth.jwtSecret) : purposeKey(auth.sessionSecret, 'api jwt');

/**
 * The key's id (`kid` in a JWT's header): the first 12 characters of the base64url SHA-256 of the key.
 * It names the key without telling anything about it, so that a JWT refused for its signature can say
 * whether it was signed with a key this server no longer has (the secret changed since) or was altered.
 */
export const keyId = (key: Uint8Array): string => createHash('sha256').update(key).digest('base64url').slice(0, 12);

/** A JWT for an exchanged API token, and its lifetime in seconds. */
export async function mintApiJwt(auth: AuthConfig, c: ApiJwtClaims): Promise<{ token: string; expiry: number }> {
  const now = Math.floor(Date.now() / 1000);
  const key = apiJwtKey(auth);
  const token = await new SignJWT({
    email: c.email,
    tenant_id: c.tenantId,
    role: c.role,
    token_id: c.tokenId,
    [HASURA_CLAIMS]: {
      'x-hasura-default-role': c.role,
      'x-hasura-allowed-roles': [c.role],
      'x-hasura-user-id': c.userId,
      'x-hasura-tenant-id': c.tenantId,
      'x-hasura-token-id': c.tokenId,
    },
  })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT', kid: keyId(key) })
    .setSubject(c.userId)
    .setIssuer(auth.jwtIssuer)
    .setAudience(auth.jwtAudience)
    .setIssuedAt(now)
    .setExpirationTime(now + auth.jwtExpirySeconds)
    .setJti(randomUUID())
    .sign(key);
  return { token, expiry: auth.jwtExpirySeconds };
}

const invalid = (message: string) => new RequestError('invalid-jwt', message, '$', 401);

/**
 * A signature that does not match: a JWT whose key id is not this server's was signed with a key the
 * server no longer has (NEXTAUTH_SECRET or JWT_SECRET changed since it was issued, or it comes from
 * another server); one with this server's key id, or none, was altered or signed elsewhere.
 */
function badSignature(token: string, key: Uint8Array): RequestError {
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    kid = undefined;
  }
  if (typeof kid === 'string' && kid !== keyId(key))
    return invalid(
      'the JWT signature is invalid: it was signed with a key this server no longer has (the signing secret changed since it was issued); exchange the API token for a new JWT',
    );
  return invalid('the JWT signature is invalid');
}

/** What was wrong with a JWT, in words a caller can act on. */
function explain(err: unknown, token: string, key: Uint8Array): RequestError {
  if (err instanceof errors.JWTExpired) return invalid('the JWT has expired');
  if (err instanceof errors.JOSEAlgNotAllowed)
    return invalid(`the JWT's algorithm is not allowed: only ${ALGORITHM} is accepted`);
  if (err instanceof errors.JWSSignatureVerificationFailed) return badSignature(token, key);
  if (err instanceof errors.JWTClaimValidationFailed) {
    const claim = err.claim;
    if (claim === 'iss') return invalid('the JWT has the wrong issuer (iss)');
    if (claim === 'aud') return invalid('the JWT has the wrong audience (aud)');
    if (claim === 'nbf' || claim === 'iat') return invalid(`the JWT is not valid yet (${claim})`);
    return invalid(`the JWT claim "${claim}" is invalid`);
  }
  if (err instanceof errors.JOSENotSupported) return invalid(`the JWT is not supported: ${err.message}`);
  if (err instanceof errors.JOSEError) return invalid('the JWT is malformed');
  return invalid('the JWT could not be verified');
}

/** Verifies a JWT with `key` (HS256 only, issuer, audience, expiry); throws 401 invalid-jwt saying why. */
export async function verifyHs256(
  token: string,
  key: Uint8Array,
  opts: { issuer: string; audience: string },
): Promise<JWTPayload> {
  if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(token))
    throw invalid('the JWT is malformed: expected three base64url parts separated by dots');
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [ALGORITHM],
      issuer: opts.issuer,
      audience: opts.audience,
      requiredClaims: ['exp', 'sub'],
    });
    return payload;
  } catch (err) {
    throw explain(err, token, key);
  }
}

/** An API JWT's claims, or 401 invalid-jwt saying what is wrong with it. */
export async function verifyApiJwt(auth: AuthConfig, token: string): Promise<ApiJwtClaims & { exp: number }> {
  const payload = await verifyHs256(token, apiJwtKey(auth), { issuer: auth.jwtIssuer, audience: auth.jwtAudience });
  const h = payload[HASURA_CLAIMS] as Record<string, unknown> | undefined;
  const claims = {
    userId: payload.sub,
    tenantId: h?.['x-hasura-tenant-id'],
    role: h?.['x-hasura-default-role'],
    tokenId: h?.['x-hasura-token-id'],
    email: payload.email,
  };
  for (const [name, v] of Object.entries(claims)) {
    if (typeof v !== 'string' || (name !== 'role' && name !== 'email' && !isUuid(v)))
      throw invalid(`the JWT lacks a valid ${name} claim`);
  }
  if (h?.['x-hasura-user-id'] !== payload.sub) throw invalid('the JWT names two different users');
  return { ...(claims as ApiJwtClaims), exp: payload.exp! };
}
