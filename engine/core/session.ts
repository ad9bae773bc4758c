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
  /**
   * The credential it came from: a browser session cookie, a Bearer JWT of the token exchange, or the
   * admin secret. Some things are for one of them only (API tokens are created from a browser session;
   * a cookie-authenticated request must be JSON). Unknown (a session built elsewhere): none of those.
   */
  via?: 'cookie' | 'jwt' | 'admin-secret';
}

/** Finds the session of a request from its headers (JWT, session cookie or admin secret), or throws. */
export type SessionResolver = (headers: HeaderBag) => Promise<Session> | Session;
