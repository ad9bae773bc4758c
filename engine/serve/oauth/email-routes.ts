import type { Context, Hono } from 'hono';
import { providerAccount } from '../auth/provider-links';
import { resolveOutsideUser, SignInRefused } from '../auth/provision-user';
import { sessionCookie } from '../auth/session-cookie';
import { normaliseEmail } from '../auth/users';
import { clientAddress } from '../http/read-request';
import { csrfValid } from '../web/csrf';
import { EMAIL_SHAPE, LINK_MINUTES, newLinkToken, sendLink, useLinkToken } from './email-link';
import { signInAgain, type OAuthDeps } from './sign-in-page';

type Guarded = (
  step: (c: Context, deps: OAuthDeps, now: () => number) => Promise<Response>,
) => (c: Context) => Promise<Response>;

/** EMAIL_SERVER and EMAIL_FROM, or why e-mail sign-in is off (half set: which one is missing). */
function emailSettings(deps: OAuthDeps): { server: string; from: string } {
  const { email, problems } = deps.config.providers;
  if (email) return email;
  const problem = problems.find((p) => p.provider === 'email');
  if (problem) throw new SignInRefused(problem.message, 503);
  throw new SignInRefused('E-mail sign-in is not enabled (EMAIL_SERVER, EMAIL_FROM)', 404);
}

/**
 * POST /api/auth/signin/email: the sign-in page's e-mail link form. The answer is the same whether or
 * not the address belongs to a user (no probing): the link goes to any address, and whoever follows
 * it is resolved like any outside sign-in (the link proves the address; a new person joins a tenant
 * only where the rules place them).
 */
async function requestLink(c: Context, deps: OAuthDeps): Promise<Response> {
  const email = emailSettings(deps);
  const form = (await c.req.parseBody()) as Record<string, unknown>;
  if (!csrfValid(c, form.csrf))
    throw new SignInRefused('The form has expired. Reload the sign-in page and try again.', 403);
  const to = typeof form.email === 'string' ? normaliseEmail(form.email) : '';
  if (!EMAIL_SHAPE.test(to) || to.length > 320) throw new SignInRefused('Enter an e-mail address.', 400);
  const made = await newLinkToken(deps.db, to, clientAddress(c, deps.config.auth));
  if ('waitSeconds' in made) {
    c.header('retry-after', String(made.waitSeconds));
    throw new SignInRefused('Too many sign-in links were asked for. Try again in 15 minutes.', 429);
  }
  const url = `${deps.config.auth.baseUrl}/api/auth/callback/email?token=${made.token}`;
  try {
    await sendLink(email, to, url);
  } catch (err) {
    deps.log({ level: 'error', msg: `e-mail sign-in: the link could not be sent (${(err as Error).message})` });
    throw new SignInRefused('The sign-in link could not be sent right now. Try again later.', 502);
  }
  deps.log({ level: 'info', msg: 'e-mail sign-in link sent' });
  return signInAgain(c, deps, 200, {
    notice: `If ${to} can sign in, a sign-in link is on its way. It works once, for ${LINK_MINUTES} minutes.`,
  });
}

/** GET /api/auth/callback/email?token=...: the link's token, used up; the user; the session. */
async function followLink(c: Context, deps: OAuthDeps): Promise<Response> {
  emailSettings(deps);
  const token = c.req.query('token') ?? '';
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw new SignInRefused('This sign-in link is not valid. Ask for a new one.');
  const email = await useLinkToken(deps.db, token);
  const { saml, deploymentMode } = deps.config;
  const rules = { deploymentMode, defaultRole: saml.defaultRole, license: deps.license };
  const identity = { provider: 'email', issuer: 'email', subject: email, email, emailVerified: true, displayName: '' };
  const session = await resolveOutsideUser(deps.db, rules, providerAccount(identity));
  deps.log({ level: 'info', msg: 'e-mail link sign-in', user: session.userId, tenant: session.tenantId });
  c.header('set-cookie', sessionCookie(deps.config, session), { append: true });
  c.header('cache-control', 'no-store');
  return c.redirect('/', 303);
}

/** The e-mail link's two routes, before the providers' /api/auth/*\/:provider ones. */
export function mountEmailLinkRoutes(app: Hono, deps: OAuthDeps, guarded: Guarded): void {
  app.post('/api/auth/signin/email', guarded(requestLink));
  app.get('/api/auth/callback/email', guarded(followLink));
}
