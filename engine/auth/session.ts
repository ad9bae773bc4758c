import { timingSafeEqual } from 'node:crypto';
import { ADMIN_ROLE } from '../metadata/model';
import { header, type HeaderBag } from '../http/read-request';
import { RequestError } from '../plan/errors';

/** Who is asking: the role whose schema and permissions apply, and the session variables. */
export interface Session {
  role: string;
  /** Session variables by lower-case name (`x-hasura-tenant-id`). */
  vars: Record<string, string>;
  /** Admin-secret holders may see internal error details. */
  isAdmin: boolean;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The admin secret (`x-hasura-admin-secret`) lets platform engineers and services act as any role
 * (`x-hasura-role`) with any session variables (`x-hasura-*` headers). Without credentials the answer
 * is 401 `access-denied`. Sign-in sessions and JWTs join here in their own module.
 */
export function adminSession(headers: HeaderBag, adminSecret: string | undefined): Session {
  const given = header(headers, 'x-hasura-admin-secret');
  if (given === undefined) throw new RequestError('access-denied', 'missing credentials: send a Bearer token or the admin secret', '$', 401);
  if (!adminSecret || !sameSecret(given, adminSecret)) throw new RequestError('access-denied', 'invalid admin secret', '$', 401);
  const vars: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const n = name.toLowerCase();
    if (n.startsWith('x-hasura-') && n !== 'x-hasura-admin-secret') vars[n] = header(headers, name)!;
  }
  const role = vars['x-hasura-role'] || ADMIN_ROLE;
  return { role, vars, isAdmin: true };
}
