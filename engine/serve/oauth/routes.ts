/**
 * The OAuth room: sign-in with OpenID Connect / OAuth 2.0 providers (Google, Azure AD, Azure AD B2C,
 * Auth0, OneLogin, a generic OpenID Connect provider). The relying party (client.ts, through
 * openid-client), the flow's state cookie (flow-state.ts) and the two routes. It may import
 * serve/auth (users, session cookie), the web room's sign-in page and CSRF cookie, and engine/core.
 */
import type { Context, Hono } from 'hono';
import { providerNamed } from '../../core/sign-in-providers';
import { providerAccount } from '../auth/provider-links';
import { resolveOutsideUser, SignInRefused } from '../auth/provision-user';
import { sessionCookie } from '../auth/session-cookie';
import { authorizationUrl, finishAuthorization, newChecks, type ProviderSettings } from './client';
import { clearFlowCookie, readFlow, setFlowCookie } from './flow-state';
import { mountEmailLinkRoutes } from './email-routes';
import { signInAgain, type OAuthDeps } from './sign-in-page';

export { oauthSignInMethods, type OAuthDeps } from './sign-in-page';

/** A path after sign-in that can only lead back into this application. */
const localPath = (p: string | undefined) =>
  p && p.startsWith('/') && !p.startsWith('//') && !p.includes('\\') ? p : '/';

/** The sign-in page again, saying why the provider sign-in failed; the flow's state is dropped. */
function refuse(c: Context, deps: OAuthDeps, err: SignInRefused) {
  clearFlowCookie(c, deps.config.auth);
  return signInAgain(c, deps, err.status, { error: err.message });
}

/** The provider of the route, or a refusal: unknown, not enabled, or its variables half set. */
function settingsOf(c: Context, deps: OAuthDeps): ProviderSettings {
  const found = providerNamed(deps.config.providers, c.req.param('provider') ?? '');
  if ('problem' in found) throw new SignInRefused(found.problem, found.status);
  return { provider: found.provider, timeoutSeconds: deps.config.providers.timeoutSeconds };
}

/** GET /api/auth/signin/<provider>: state, nonce and PKCE verifier in the flow cookie; off to the provider. */
async function startSignIn(c: Context, deps: OAuthDeps, now: () => number) {
  const settings = settingsOf(c, deps);
  const checks = newChecks();
  const url = await authorizationUrl(settings, checks);
  setFlowCookie(c, deps.config.auth, {
    provider: settings.provider.id,
    ...checks,
    next: localPath(c.req.query('next')),
    startedAt: now(),
  });
  c.header('cache-control', 'no-store');
  return c.redirect(url, 302);
}

/**
 * GET /api/auth/callback/<provider>: the flow state of this browser, the code exchange and every
 * check of the ID token (client.ts), the user (auth/provision-user.ts), then the session cookie.
 */
async function finishSignIn(c: Context, deps: OAuthDeps, now: () => number) {
  const settings = settingsOf(c, deps);
  const flow = readFlow(c, deps.config.auth, now());
  if (!flow || flow.provider !== settings.provider.id)
    throw new SignInRefused(
      'Invalid sign-in state: the sign-in took longer than 10 minutes, was already finished, or was not started in this browser. Start the sign-in again.',
    );
  const query = new URL(c.req.url).search.slice(1);
  if (!c.req.query('error') && c.req.query('state') !== flow.state)
    throw new SignInRefused("Invalid sign-in state: the provider's answer belongs to another sign-in. Start again.");
  const identity = await finishAuthorization(settings, query, flow);
  const { saml, deploymentMode } = deps.config;
  const rules = { deploymentMode, defaultRole: saml.defaultRole, license: deps.license };
  const session = await resolveOutsideUser(deps.db, rules, providerAccount(identity));
  deps.log({
    level: 'info',
    msg: `${settings.provider.name} sign-in`,
    provider: settings.provider.id,
    user: session.userId,
    tenant: session.tenantId,
  });
  clearFlowCookie(c, deps.config.auth);
  c.header('set-cookie', sessionCookie(deps.config, session), { append: true });
  c.header('cache-control', 'no-store');
  return c.redirect(flow.next, 303);
}

/**
 * - GET /api/auth/signin/<provider>    ?next=/path: redirect to the provider (authorization code + PKCE)
 * - GET /api/auth/callback/<provider>  the provider's answer: checks, user, session cookie, redirect
 * A refusal is the sign-in page with the reason, and nothing written.
 */
export function mountOAuthRoutes(app: Hono, deps: OAuthDeps): void {
  const now = deps.now ?? Date.now;
  const guarded =
    (step: (c: Context, deps: OAuthDeps, now: () => number) => Promise<Response>) => async (c: Context) => {
      try {
        return await step(c, deps, now);
      } catch (err) {
        if (!(err instanceof SignInRefused)) throw err;
        deps.log({ level: 'warn', msg: `provider sign-in refused: ${err.message}`, provider: c.req.param('provider') });
        return refuse(c, deps, err);
      }
    };
  mountEmailLinkRoutes(app, deps, guarded);
  app.get('/api/auth/signin/:provider', guarded(startSignIn));
  app.get('/api/auth/callback/:provider', guarded(finishSignIn));
}
