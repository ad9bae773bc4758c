import type { Context, Hono } from 'hono';
import {
  clearSessionCookie,
  endAllSessions,
  endSession,
  openSessionCookie,
  sessionCookie,
  sessionCookieIn,
} from '../auth/session-cookie';
import { clearFailures, lockedFor, recordFailure, successKeys, throttleKeys, waitInWords } from '../auth/throttle';
import { verifyCredentials } from '../auth/users';
import { recordAudit, recordLockout } from '../../core/audit';
import { clientAddress } from '../http/read-request';
import { NO_STORE, refuseForm, type PageSession, type WebDeps } from './page-session';
import { signInPage } from './pages';

/**
 * GET and POST /signin (built-in credentials), POST /signout (this session, on every instance) and
 * POST /signout/everywhere (every session of the user).
 */
export function mountSignInRoutes(app: Hono, deps: WebDeps, page: PageSession): void {
  const auth = deps.config.auth;
  /** The sign-in page, with the e-mail typed and what went wrong when an attempt failed. */
  const signInAnswer = (c: Context, status: 200 | 401 | 429, attempt: { email?: string; error?: string } = {}) =>
    c.html(
      signInPage({ csrf: page.csrf(c), samlEnabled: deps.samlEnabled(), methods: deps.signInMethods?.(), ...attempt }),
      status,
      NO_STORE,
    );

  app.get('/signin', async (c) => {
    if (await page.signedIn(c)) return c.redirect('/', 303);
    return signInAnswer(c, 200);
  });

  app.post('/signin', async (c) => {
    const f = await page.checkedForm(c);
    if (!f) return refuseForm(c);
    // The same failure counters as the token exchange (throttle.ts).
    const address = clientAddress(c, auth);
    const keys = throttleKeys(auth, address, f.email ?? '');
    const who = { method: 'password' as const, email: f.email || undefined, clientAddress: address };
    const tooMany = async (wait: number) => {
      await recordLockout(deps.db, who, wait);
      c.header('retry-after', String(wait));
      const error = `Too many failed attempts. Try again in ${waitInWords(wait)}.`;
      return signInAnswer(c, 429, { email: f.email, error });
    };
    const locked = await lockedFor(deps.db, auth, keys);
    if (locked > 0) return tooMany(locked);
    const user = f.email && f.password ? await verifyCredentials(deps.db, f.email, f.password) : null;
    if (!user) {
      const wait = await recordFailure(deps.db, auth, keys);
      if (wait > 0) return tooMany(wait);
      await recordAudit(deps.db, { type: 'signin', outcome: 'failure', reason: 'wrong e-mail or password', ...who });
      // One answer for unknown e-mail, wrong password and suspended account.
      return signInAnswer(c, 401, { email: f.email, error: 'Wrong e-mail or password.' });
    }
    await clearFailures(deps.db, successKeys(keys));
    await recordAudit(deps.db, {
      type: 'signin',
      outcome: 'success',
      ...who,
      userId: user.userId,
      tenantId: user.tenantId,
      detail: { role: user.role },
    });
    c.header('set-cookie', sessionCookie(deps.config, user), { append: true });
    return c.redirect('/', 303);
  });

  const signOut = (everywhere: boolean) => async (c: Context) => {
    if (!(await page.checkedForm(c))) return refuseForm(c);
    const value = sessionCookieIn(c.req.header('cookie'));
    const opened = value ? openSessionCookie(deps.config, value) : undefined;
    if (opened) {
      // A copy of the cookie stops working too: the session ends server-side, not only in this browser.
      // Everywhere: only from a session still open, so that an ended cookie cannot end the others.
      if (everywhere && (await page.signedIn(c))) await endAllSessions(deps.db, opened.session.userId);
      else if (!everywhere) await endSession(deps.db, opened);
    }
    c.header('set-cookie', clearSessionCookie(deps.config), { append: true });
    return c.redirect('/signin', 303);
  };
  app.post('/signout', signOut(false));
  app.post('/signout/everywhere', signOut(true));
}
