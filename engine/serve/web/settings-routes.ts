import type { Context, Hono } from 'hono';
import { createApiToken, deleteApiToken, listApiTokens } from '../auth/api-tokens';
import { linkedMethods } from '../auth/provider-links';
import type { UserSession } from '../auth/users';
import { NO_STORE, refuseForm, type PageSession, type WebDeps } from './page-session';
import { settingsPage, type SettingsView } from './pages';

/** User Settings: the profile, and the user's API tokens (list, create, delete after confirmation). */
export function mountSettingsRoutes(app: Hono, deps: WebDeps, page: PageSession): void {
  const { withUser } = page;
  const settings = async (c: Context, user: UserSession, view: Partial<SettingsView>) => {
    const tokens = await listApiTokens(deps.db, user.userId);
    const linked = await linkedMethods(deps.db, user.userId);
    return c.html(
      settingsPage({
        csrf: page.csrf(c),
        user: { email: user.email, displayName: user.displayName, role: user.role },
        tab: 'tokens',
        tokens,
        linked,
        ...view,
      }),
      200,
      NO_STORE,
    );
  };

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
      const f = await page.checkedForm(c);
      if (!f) return refuseForm(c);
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
      if (!(await page.checkedForm(c))) return refuseForm(c);
      await deleteApiToken(deps.db, user.userId, c.req.param('id') ?? '');
      return c.redirect('/settings?tab=tokens', 303);
    }),
  );
}
