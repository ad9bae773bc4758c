import type { Context } from 'hono';
import type { AuthConfig } from '../../core/config';
import type { Database, Queryable } from '../../core/db/database';
import { readSessionCookie } from '../auth/session-cookie';
import { tenantName, type UserSession } from '../auth/users';
import { csrfToken, csrfValid } from './csrf';
import type { SignInMethods } from './provider-buttons';

export interface WebDeps {
  db: Database;
  /** Sign-in settings: cookie keys, base URL, failure limits. */
  config: { auth: AuthConfig };
  /** Whether the SAML button is shown (SAML enabled in an edition that has it). */
  samlEnabled: () => boolean;
  /** The other sign-in methods the sign-in page offers (provider buttons). */
  signInMethods?: () => SignInMethods;
  /** Pages other rooms add behind sign-in (the tickets family's ticket page). */
  pages?: readonly SignedInPage[];
  /** The roles of the metadata, for the console's role switch. */
  roles?: () => readonly string[];
}

/**
 * A page behind sign-in that another room contributes (the composition root hands them over), so
 * that the web room serves, say, the tickets family's page without knowing its table. Without a
 * session the visitor goes to the sign-in page first.
 */
export interface SignedInPage {
  /** A Hono route path, e.g. `/tickets/:ticketId`. */
  path: string;
  answer(request: {
    db: Queryable;
    user: UserSession;
    /** A path parameter's value ('' when absent). */
    param(name: string): string;
  }): Promise<{ status: number; title: string; content: unknown }>;
}

/** The pages are one user's at one moment: no cache keeps them. */
export const NO_STORE = { 'cache-control': 'no-store' };

export type Form = Record<string, string | undefined>;
type UserHandler = (c: Context, user: UserSession) => Promise<Response> | Response;

/** The answer to a form whose CSRF token is missing or wrong. */
export const refuseForm = (c: Context) =>
  c.text('The form expired or came from another site. Reload the page and try again.', 403);

/**
 * The browser's session as every page handler needs it: who is signed in, the CSRF token for the
 * page's forms, and a posted form once its token is checked.
 */
export function pageSession(deps: WebDeps) {
  const secure = deps.config.auth.baseUrl.startsWith('https://');
  // With the database: a suspended user loses the pages at once, not when the cookie expires.
  const signedIn = async (c: Context): Promise<UserSession | undefined> =>
    readSessionCookie(deps.config, c.req.header('cookie'), deps.db);
  return {
    signedIn,
    /** Who the pages say is signed in: name, tenant's name, role. */
    who: async (user: UserSession) => ({
      name: user.displayName,
      tenant: await tenantName(deps.db, user.tenantId),
      role: user.role,
    }),
    /** The page's CSRF token: the browser's existing one, or a new one set with the answer. */
    csrf: (c: Context): string => csrfToken(c, secure),
    /** Pages behind sign-in: without a session, to the sign-in page. */
    withUser: (handler: UserHandler) => async (c: Context) => {
      const user = await signedIn(c);
      return user ? handler(c, user) : c.redirect('/signin', 303);
    },
    /** The posted form, or undefined when its CSRF token does not match the cookie's (refuseForm then). */
    checkedForm: async (c: Context): Promise<Form | undefined> => {
      const form = (await c.req.parseBody()) as Form;
      return csrfValid(c, form.csrf) ? form : undefined;
    },
  };
}

export type PageSession = ReturnType<typeof pageSession>;
