import type { Context, Hono } from 'hono';
import { sessionCookie, clearSessionCookie } from '../auth/session-cookie';
import { clearFailures, lockedFor, recordFailure, throttleKeys } from '../auth/throttle';
import { verifyCredentials } from '../auth/users';
import { clientAddress } from '../http/read-request';
import { NO_STORE, refuseForm, type PageSession, type WebDeps } from './page-session';
import { signInPage } from './pages';

/** GET and POST /signin (built-in credentials) and POST /signout. */
export function mountSignInRoutes(app: Hono, deps: WebDeps, page: PageSession): void {
  const auth = deps.config.auth;
  /** The sign-in page, with the e-mail typed and what went wrong when an attempt failed. */
  const signInAnswer = (c: Context, status: 200 | 401 | 429, attempt: { email?: string; error?: string } = {}) =>
    c.html(signInPage({ csrf: page.csrf(c), samlEnabled: deps.samlEnabled(), ...attempt }), status, NO_STORE);

  app.get('/signin', async (c) => {
    if (await page.signedIn(c)) return c.redirect('/', 303);
    return signInAnswer(c, 200);
  });

  app.post('/signin', async (c) => {
    const f = await page.checkedForm(c);
    if (!f) return refuseForm(c);
    // The same failure counters as the token exchange: per client address and per e-mail.
    const keys = throttleKeys(clientAddress(c, auth), f.email ?? '');
    const wait = await lockedFor(deps.db, auth, keys);
    if (wait > 0) {
      c.header('retry-after', String(wait));
      return signInAnswer(c, 429, { email: f.email, error: `Too many failed attempts. Try again in ${wait} seconds.` });
    }
    const user = f.email && f.password ? await verifyCredentials(deps.db, f.email, f.password) : null;
    if (!user) {
      await recordFailure(deps.db, auth, keys);
      // One answer for unknown e-mail, wrong password and suspended account.
      return signInAnswer(c, 401, { email: f.email, error: 'Wrong e-mail or password.' });
    }
    await clearFailures(deps.db, keys);
    c.header('set-cookie', sessionCookie(deps.config, user), { append: true });
    return c.redirect('/', 303);
  });

  app.post('/signout', async (c) => {
    if (!(await page.checkedForm(c))) return refuseForm(c);
    c.header('set-cookie', clearSessionCookie(deps.config), { append: true });
    return c.redirect('/signin', 303);
  });
}
