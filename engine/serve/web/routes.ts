import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Context, Hono } from 'hono';
import { createApiToken, deleteApiToken, listApiTokens } from '../auth/api-tokens';
import { clearSessionCookie, readSessionCookie, sessionCookie } from '../auth/session-cookie';
import { verifyCredentials, type UserSession } from '../auth/users';
import { projectRoot, type AuthConfig } from '../../core/config';
import type { Database } from '../../core/db/database';
import { clearFailures, lockedFor, recordFailure, throttleKeys } from '../auth/throttle';
import { clientAddress } from '../http/read-request';
import { CSRF_COOKIE, cookieValue, csrfCookie, csrfValid, newCsrfToken } from './csrf';
import {
  consolePage,
  homePage,
  settingsPage,
  signInPage,
  ticketPage,
  type SettingsView,
  type TicketView,
} from './pages';

export interface WebDeps {
  db: Database;
  /** Sign-in settings: cookie keys, base URL, failure limits. */
  config: { auth: AuthConfig };
  /** Whether the SAML button is shown (SAML enabled in an edition that has it). */
  samlEnabled: () => boolean;
}

/** GraphiQL's browser bundles, served from node_modules so the console needs no network. */
const ASSETS: Record<string, { module: string; type: string }> = {
  'graphiql.min.js': { module: 'graphiql/graphiql.min.js', type: 'text/javascript' },
  'graphiql.min.css': { module: 'graphiql/graphiql.min.css', type: 'text/css' },
  'react.production.min.js': { module: 'react/umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.production.min.js': { module: 'react-dom/umd/react-dom.production.min.js', type: 'text/javascript' },
};

const NO_STORE = { 'cache-control': 'no-store' };

/** Server-rendered pages: sign-in, sign-out, User Settings (API tokens) and the GraphQL console. */
export function mountWebRoutes(app: Hono, deps: WebDeps): void {
  const secure = deps.config.auth.baseUrl.startsWith('https://');
  const cookies = (c: Context) => c.req.header('cookie');

  /** The page's CSRF token: the browser's existing one, or a new one set with the answer. */
  const csrf = (c: Context): string => {
    const have = cookieValue(cookies(c), CSRF_COOKIE);
    if (have) return have;
    const token = newCsrfToken();
    c.header('set-cookie', csrfCookie(token, secure), { append: true });
    return token;
  };
  // With the database: a suspended user loses the pages at once, not when the cookie expires.
  const signedIn = async (c: Context): Promise<UserSession | undefined> =>
    readSessionCookie(deps.config, cookies(c), deps.db);
  const form = async (c: Context) => (await c.req.parseBody()) as Record<string, string | undefined>;
  const refuse = (c: Context) =>
    c.text('The form expired or came from another site. Reload the page and try again.', 403);

  const settings = async (c: Context, user: UserSession, view: Partial<SettingsView>) => {
    const tokens = await listApiTokens(deps.db, user.userId);
    return c.html(
      settingsPage({
        csrf: csrf(c),
        user: { email: user.email, displayName: user.displayName, role: user.role },
        tab: 'tokens',
        tokens,
        ...view,
      }),
      200,
      NO_STORE,
    );
  };
  /** Pages behind sign-in: without a session, to the sign-in page. */
  const withUser = (handler: (c: Context, user: UserSession) => Promise<Response> | Response) => async (c: Context) => {
    const user = await signedIn(c);
    return user ? handler(c, user) : c.redirect('/signin', 303);
  };

  app.get(
    '/',
    withUser((c, user) =>
      c.html(homePage({ csrf: csrf(c), displayName: user.displayName, tenantRole: user.role }), 200, NO_STORE),
    ),
  );

  app.get('/signin', async (c) => {
    if (await signedIn(c)) return c.redirect('/', 303);
    return c.html(signInPage({ csrf: csrf(c), samlEnabled: deps.samlEnabled() }), 200, NO_STORE);
  });

  app.post('/signin', async (c) => {
    const f = await form(c);
    if (!csrfValid(cookies(c), f.csrf)) return refuse(c);
    const auth = deps.config.auth;
    // The same failure counters as the token exchange: per client address and per e-mail.
    const keys = throttleKeys(clientAddress(c, auth), f.email ?? '');
    const wait = await lockedFor(deps.db, auth, keys);
    if (wait > 0) {
      c.header('retry-after', String(wait));
      return c.html(
        signInPage({
          csrf: csrf(c),
          samlEnabled: deps.samlEnabled(),
          email: f.email,
          error: `Too many failed attempts. Try again in ${wait} seconds.`,
        }),
        429,
        NO_STORE,
      );
    }
    const user = f.email && f.password ? await verifyCredentials(deps.db, f.email, f.password) : null;
    if (!user) {
      await recordFailure(deps.db, auth, keys);
      // One answer for unknown e-mail, wrong password and suspended account.
      return c.html(
        signInPage({
          csrf: csrf(c),
          samlEnabled: deps.samlEnabled(),
          email: f.email,
          error: 'Wrong e-mail or password.',
        }),
        401,
        NO_STORE,
      );
    }
    await clearFailures(deps.db, keys);
    c.header('set-cookie', sessionCookie(deps.config, user), { append: true });
    return c.redirect('/', 303);
  });

  app.post('/signout', async (c) => {
    const f = await form(c);
    if (!csrfValid(cookies(c), f.csrf)) return refuse(c);
    c.header('set-cookie', clearSessionCookie(deps.config), { append: true });
    return c.redirect('/signin', 303);
  });

  app.get(
    '/settings',
    withUser((c, user) => settings(c, user, { tab: c.req.query('tab') === 'profile' ? 'profile' : 'tokens' })),
  );
  app.get(
    '/settings/tokens/new',
    withUser((c, user) => settings(c, user, { creating: true })),
  );

  app.post(
    '/settings/tokens',
    withUser(async (c, user) => {
      const f = await form(c);
      if (!csrfValid(cookies(c), f.csrf)) return refuse(c);
      const name = (f.name ?? '').trim();
      if (name.length < 1 || name.length > 100)
        return settings(c, user, { creating: true, error: 'Give the token a name of 1 to 100 characters.' });
      const created = await createApiToken(deps.db, user, name);
      // Rendered, not redirected: the secret exists only in this answer.
      return settings(c, user, { created: { name: created.name, secret: created.secret } });
    }),
  );

  app.get(
    '/settings/tokens/:id/delete',
    withUser(async (c, user) => {
      const tokens = await listApiTokens(deps.db, user.userId);
      const token = tokens.find((t) => t.id === c.req.param('id'));
      return settings(c, user, token ? { confirmDelete: token } : { error: 'No such token.' });
    }),
  );

  app.post(
    '/settings/tokens/:id/delete',
    withUser(async (c, user) => {
      const f = await form(c);
      if (!csrfValid(cookies(c), f.csrf)) return refuse(c);
      await deleteApiToken(deps.db, user.userId, c.req.param('id') ?? '');
      return c.redirect('/settings?tab=tokens', 303);
    }),
  );

  app.get(
    '/console',
    withUser((c) => c.html(consolePage({ csrf: csrf(c) }), 200, NO_STORE)),
  );

  // The platform's own tickets (tickets_insert_one answers this URL): only the user's tenant's.
  app.get(
    '/tickets/:ticketId',
    withUser(async (c, user) => {
      const ticketId = c.req.param('ticketId') ?? '';
      const [row] = await deps.db.query(
        `SELECT ticket_id, title, description, severity, status, project_key, source, assignee, platform, url,
              to_char(created_at, 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at
         FROM tickets WHERE tenant = $1::uuid AND ticket_id = $2::text ORDER BY created_at DESC LIMIT 1`,
        [user.tenantId, ticketId],
      );
      const ticket: TicketView | undefined = row && {
        ticketId: String(row.ticket_id),
        title: String(row.title),
        description: row.description as string | null,
        severity: row.severity as string | null,
        status: row.status as string | null,
        projectKey: row.project_key as string | null,
        source: row.source as string | null,
        assignee: row.assignee as string | null,
        platform: String(row.platform),
        externalUrl: row.url as string | null,
        createdAt: String(row.created_at),
      };
      return c.html(ticketPage({ csrf: csrf(c), ticket, ticketId }), ticket ? 200 : 404, NO_STORE);
    }),
  );

  app.get('/assets/:file', (c) => {
    const asset = ASSETS[c.req.param('file')];
    if (!asset) return c.notFound();
    const body = fs.readFileSync(path.join(projectRoot(), 'node_modules', asset.module));
    return c.body(body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=86400' });
  });
}
