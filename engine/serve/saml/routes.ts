/**
 * The SAML room: SAML 2.0 single sign-on for the Enterprise edition. The routes (health, SP metadata,
 * SP-initiated login, the ACS), the response checks (acs.ts), user provisioning (provision.ts), the
 * login state cookie (state.ts), the license and the IdP certificate. It may import serve/auth (the
 * session cookie, users), the web room's sign-in page and CSRF cookie, and engine/core.
 */
import type { Context, Hono } from 'hono';
import { sessionCookie } from '../auth/session-cookie';
import { recordAudit } from '../../core/audit';
import { clientAddress } from '../http/read-request';
import type { EngineConfig } from '../../core/config';
import type { Database } from '../../core/db/database';
import type { Logger } from '../../core/logger';
import { issueCsrfToken } from '../web/csrf';
import { signInPage } from '../web/pages';
import type { SignInMethods } from '../web/provider-buttons';
import { SamlLoginError, validateSamlResponse } from './acs';
import { samlAvailable, samlHealth } from './health';
import type { License } from './license';
import { isConfigured, loginRedirect, serviceProviderMetadata } from './provider';
import { acceptAssertionOnce, resolveSamlUser } from './provision';
import { clearStateCookie, readState, setStateCookie } from './state';

export interface SamlDeps {
  db: Database;
  config: Pick<EngineConfig, 'auth' | 'saml' | 'edition' | 'deploymentMode'>;
  /** The on-premise license as read at start-up (undefined: not read, or SaaS). */
  license: () => License | undefined;
  log: Logger;
  /** Clock of the login checks (tests move it). */
  now?: () => number;
  /** The other sign-in methods the sign-in page offers beside SAML (provider buttons, e-mail link). */
  signInMethods?: () => SignInMethods;
}

/** A relay state that can only lead back into this application. */
const localPath = (p: string | undefined) =>
  p && p.startsWith('/') && !p.startsWith('//') && !p.includes('\\') ? p : '/';

/** Largest ACS body accepted (a SAML response is a few kilobytes; base64 of 512 KB at most). */
const MAX_ACS_BYTES = 1024 * 1024;

/** The sign-in page again, saying why SAML sign-in failed; the login's state is dropped. */
function refuse(c: Context, deps: SamlDeps, err: SamlLoginError) {
  const { auth } = deps.config;
  const token = issueCsrfToken(c, auth.baseUrl.startsWith('https://'));
  clearStateCookie(c, auth);
  c.header('cache-control', 'no-store');
  return c.html(
    signInPage({
      csrf: token,
      samlEnabled: samlAvailable(deps.config),
      methods: deps.signInMethods?.(),
      error: `SAML sign-in failed: ${err.message}`,
    }),
    err.status as 401,
  );
}

/** Why SAML sign-in cannot start or finish on this instance, if it cannot. */
function unavailable(config: SamlDeps['config']): SamlLoginError | undefined {
  const { saml } = config;
  if (config.edition === 'community')
    return new SamlLoginError('SAML single sign-on is not available in the Community edition', 404);
  if (!saml.enabled) return new SamlLoginError('SAML single sign-on is not enabled (SAML_ENABLED)', 404);
  if (!isConfigured(saml)) return new SamlLoginError(`SAML not configured: ${saml.missing.join(', ')} missing`, 503);
  return undefined;
}

/** GET /api/auth/saml/login: the state cookie, and off to the IdP with an AuthnRequest. */
function startLogin(c: Context, deps: SamlDeps, now: () => number) {
  const { auth, saml } = deps.config;
  const problem = unavailable(deps.config);
  if (problem || !isConfigured(saml)) return refuse(c, deps, problem!);
  const relayState = localPath(c.req.query('next'));
  const { url, requestId } = loginRedirect(saml, relayState);
  setStateCookie(c, auth, { requestId, relayState, startedAt: now() });
  c.header('cache-control', 'no-store');
  return c.redirect(url, 302);
}

/**
 * POST /api/auth/saml/acs: every check of the IdP's response, the replay check, the user, then the
 * session cookie and back to where the login started. A refusal throws SamlLoginError.
 */
async function finishLogin(c: Context, deps: SamlDeps, now: () => number) {
  const { auth, saml } = deps.config;
  const problem = unavailable(deps.config);
  if (problem) throw problem;
  const length = Number(c.req.header('content-length') ?? '0');
  if (length > MAX_ACS_BYTES) throw new SamlLoginError('the SAML response is too large', 413);
  const form = (await c.req.parseBody()) as Record<string, unknown>;
  const state = readState(c, auth, now());
  const identity = await validateSamlResponse(saml, form.SAMLResponse, state, now());
  if (!(await acceptAssertionOnce(deps.db, identity)))
    throw new SamlLoginError('this SAML response has already been used (replay); start the sign-in again');
  const session = await resolveSamlUser(deps.db, { config: deps.config, license: deps.license }, identity);
  deps.log({
    level: 'info',
    msg: 'SAML sign-in',
    user: session.userId,
    tenant: session.tenantId,
    role: session.role,
  });
  await recordAudit(deps.db, {
    type: 'signin',
    outcome: 'success',
    method: 'saml',
    email: session.email,
    userId: session.userId,
    tenantId: session.tenantId,
    clientAddress: clientAddress(c, auth),
    detail: { role: session.role },
  });
  clearStateCookie(c, auth);
  c.header('set-cookie', sessionCookie({ auth }, session), { append: true });
  c.header('cache-control', 'no-store');
  return c.redirect(localPath(identity.relayState), 303);
}

/**
 * The SAML routes: health, SP metadata, SP-initiated login (HTTP-Redirect) and the ACS (HTTP-POST).
 *
 * - GET  /api/auth/saml/health    the spec's health object
 * - GET  /api/auth/saml/metadata  this service provider's metadata XML, to register at the IdP
 * - GET  /api/auth/saml/login     redirect to the IdP with an AuthnRequest; ?next=/path for afterwards
 * - POST /api/auth/saml/acs       the IdP's response: checks, user resolution, session cookie, redirect
 */
export function mountSamlRoutes(app: Hono, deps: SamlDeps): void {
  const now = deps.now ?? Date.now;

  app.get('/api/auth/saml/health', (c) =>
    c.json(samlHealth(deps.config, deps.license(), new Date(now())), 200, { 'cache-control': 'no-store' }),
  );

  app.get('/api/auth/saml/metadata', (c) => {
    if (deps.config.edition === 'community')
      return c.text('SAML single sign-on is not available in the Community edition', 404);
    return c.body(serviceProviderMetadata(deps.config.saml), 200, {
      'content-type': 'application/samlmetadata+xml; charset=utf-8',
    });
  });

  app.get('/api/auth/saml/login', (c) => startLogin(c, deps, now));

  app.post('/api/auth/saml/acs', async (c) => {
    try {
      return await finishLogin(c, deps, now);
    } catch (err) {
      if (!(err instanceof SamlLoginError)) throw err;
      deps.log({ level: 'warn', msg: `SAML sign-in refused: ${err.message}` });
      await recordAudit(deps.db, {
        type: 'signin',
        outcome: 'failure',
        method: 'saml',
        reason: err.message,
        clientAddress: clientAddress(c, deps.config.auth),
      });
      return refuse(c, deps, err);
    }
  });
}
