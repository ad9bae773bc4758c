import { header, type HeaderBag } from '../../core/headers';
import { ADMIN_ROLE, type Session, type SessionResolver } from '../../core/session';
import { RequestError } from '../../core/errors';
import { sameSecret } from '../../core/secrets';

/**
 * The admin secret (`x-hasura-admin-secret`) lets platform engineers and services act as any role
 * (`x-hasura-role`) with any session variables (`x-hasura-*` headers). Without credentials the answer
 * is 401 `access-denied`. Sign-in sessions and JWTs join here in their own module.
 */
export function adminSession(headers: HeaderBag, adminSecret: string | undefined): Session {
  const given = header(headers, 'x-hasura-admin-secret');
  if (given === undefined)
    throw new RequestError('access-denied', 'missing credentials: send a Bearer token or the admin secret', '$', 401);
  if (!adminSecret || !sameSecret(given, adminSecret))
    throw new RequestError('access-denied', 'invalid admin secret', '$', 401);
  const vars: Record<string, string> = {};
  // A HeaderBag's names are lower-case already (core/headers.ts).
  for (const name of Object.keys(headers))
    if (name.startsWith('x-hasura-') && name !== 'x-hasura-admin-secret') vars[name] = header(headers, name)!;
  const role = vars['x-hasura-role'] || ADMIN_ROLE;
  return { role, vars, isAdmin: true, via: 'admin-secret' };
}

/** The default session resolver: the admin secret; sign-in methods are added in front of it. */
export const adminSecretSessions =
  (secret: string | undefined): SessionResolver =>
  (headers) =>
    adminSession(headers, secret);
