import type { Context, Hono } from 'hono';
import { createApiToken, deleteApiToken, listApiTokens } from '../auth/api-tokens';
import { sessionCookie } from '../auth/session-cookie';
import { clearFailures, lockedFor, recordFailure, successKeys, throttleKeys, waitInWords } from '../auth/throttle';
import { changePassword, hasPassword, type UserSession } from '../auth/users';
import { clientAddress } from '../http/read-request';
import { sealNewToken, takeNewToken } from './new-token-cookie';
import { linkedMethods } from '../auth/provider-links';
import { NO_STORE, refuseForm, type PageSession, type WebDeps } from './page-session';
import { settingsPage, type SettingsView } from './pages';

type Status = 200 | 400 | 401 | 429;

/**
 * User Settings: the profile with the password change, and the user's API tokens (list, create,
 * delete after confirmation).
 */
export function mountSettingsRoutes(app: Hono, deps: WebDeps, page: PageSession): void {
  const settings = settingsAnswer(deps, page);
  app.get(
    '/settings',
    page.withUser((c, user) => {
      if (c.req.query('tab') !== 'profile') return settings(c, user, { tab: 'tokens' });
      const changed = c.req.query('changed') === 'password';
      return settings(c, user, { tab: 'profile', notice: changed ? 'Your password was changed.' : undefined });
    }),
  );
  mountTokenRoutes(app, deps, page, settings);
  mountPasswordRoute(app, deps, page, settings);
}

type SettingsAnswer = (
  c: Context,
  user: UserSession,
  view: Partial<SettingsView>,
  status?: Status,
) => Promise<Response>;

/** The settings dialog with `view` (tab, messages, the token being created or deleted). */
function settingsAnswer(deps: WebDeps, page: PageSession): SettingsAnswer {
  return async (c: Context, user: UserSession, view: Partial<SettingsView>, status: Status = 200) => {
    const [tokens, who, password] = [
      await listApiTokens(deps.db, user.userId),
      await page.who(user),
      view.tab === 'profile' ? await hasPassword(deps.db, user.userId) : undefined,
    ];
    const linked = view.tab === 'profile' ? await linkedMethods(deps.db, user.userId) : undefined;
    return c.html(
      settingsPage({
        csrf: page.csrf(c),
        user: { email: user.email, displayName: user.displayName, role: user.role },
        who,
        tab: 'tokens',
        tokens,
        hasPassword: password,
        linked,
        ...view,
      }),
      status,
      NO_STORE,
    );
  };
}

/** The API Tokens tab: create (POST-redirect-GET), show the secret once, delete after confirmation. */
function mountTokenRoutes(app: Hono, deps: WebDeps, page: PageSession, settings: SettingsAnswer): void {
  const { withUser } = page;
  app.get(
    '/settings/tokens/new',
    withUser((c, user) => settings(c, user, { creating: true })),
  );

  app.post(
    '/settings/tokens',
    withUser(async (c, user) => {
      const f = await page.checkedForm(c);
      if (!f) return refuseForm(c);
      const name = (f.name ?? '').trim();
      if (name.length < 1 || name.length > 100)
        return settings(c, user, { creating: true, error: 'Give the token a name of 1 to 100 characters.' }, 400);
      const created = await createApiToken(deps.db, user, name, 'settings_page');
      // POST-redirect-GET: a reload of the next page cannot create a second token. The secret goes
      // along in a one-time encrypted cookie, never in the URL (new-token-cookie.ts).
      sealNewToken(c, deps.config.auth, user.userId, { name: created.name, secret: created.secret });
      return c.redirect('/settings/tokens/created', 303);
    }),
  );

  app.get(
    '/settings/tokens/created',
    withUser((c, user) => {
      const created = takeNewToken(c, deps.config.auth, user.userId);
      if (created) return settings(c, user, { created });
      return settings(c, user, { notice: 'A new token’s secret is shown once only: it cannot be shown again.' });
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
      if (!(await page.checkedForm(c))) return refuseForm(c);
      await deleteApiToken(deps.db, user.userId, c.req.param('id') ?? '', 'settings_page');
      return c.redirect('/settings?tab=tokens', 303);
    }),
  );
}

/**
 * POST /settings/password: the current password, checked and counted as sign-in failures are (a
 * stolen session must not become a way to guess it), the new one twice. Success ends every other
 * session (the trigger on users) and gives this browser a new session cookie issued after that.
 */
function mountPasswordRoute(app: Hono, deps: WebDeps, page: PageSession, settings: SettingsAnswer): void {
  const auth = deps.config.auth;
  app.post(
    '/settings/password',
    page.withUser(async (c, user) => {
      const f = await page.checkedForm(c);
      if (!f) return refuseForm(c);
      const refuse = (error: string, status: Status) => settings(c, user, { tab: 'profile', error }, status);
      const keys = throttleKeys(auth, clientAddress(c, auth), user.email);
      const locked = await lockedFor(deps.db, auth, keys);
      if (locked > 0) return refuse(`Too many failed attempts. Try again in ${waitInWords(locked)}.`, 429);
      if ((f.password ?? '') !== (f.confirm ?? '')) return refuse('The two new passwords differ.', 400);
      const result = await changePassword(deps.db, user.userId, f.current ?? '', f.password ?? '');
      if (!result.ok && result.wrongCurrent) {
        const wait = await recordFailure(deps.db, auth, keys);
        if (wait > 0) return refuse(`Too many failed attempts. Try again in ${waitInWords(wait)}.`, 429);
        return refuse('The current password is wrong.', 401);
      }
      if (!result.ok) return refuse(`${result.problem[0].toUpperCase()}${result.problem.slice(1)}.`, 400);
      await clearFailures(deps.db, successKeys(keys));
      c.header('set-cookie', sessionCookie(deps.config, user, result.sessionsValidAfterMs), { append: true });
      return c.redirect('/settings?tab=profile&changed=password', 303);
    }),
  );
}
