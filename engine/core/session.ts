import type { HeaderBag } from './headers';

/** The role that sees every table and row; only the admin secret gives it. */
export const ADMIN_ROLE = 'admin';

/** Who is asking: the role whose schema and permissions apply, and the session variables. */
export interface Session {
  role: string;
  /** Session variables by lower-case name (`x-hasura-tenant-id`). */
  vars: Record<string, string>;
  /** Admin-secret holders may see internal error details. */
  isAdmin: boolean;
}

/** Finds the session of a request from its headers (JWT, session cookie or admin secret), or throws. */
export type SessionResolver = (headers: HeaderBag) => Promise<Session> | Session;
