import type { Context } from 'hono';
import type { EngineConfig } from '../../core/config';
import type { Database } from '../../core/db/database';
import type { Logger } from '../../core/logger';
import type { TenantLicense } from '../auth/provision-user';
import { issueCsrfToken } from '../web/csrf';
import { signInPage } from '../web/pages';
import type { SignInMethods } from '../web/provider-buttons';

export interface OAuthDeps {
  db: Database;
  config: Pick<EngineConfig, 'auth' | 'providers' | 'saml' | 'deploymentMode'>;
  /** The on-premise license as read at start-up: the tenant of new users. */
  license: () => TenantLicense | undefined;
  log: Logger;
  /** Whether the sign-in page shows the SAML button too. */
  samlEnabled: () => boolean;
  /** Clock of the flow state (tests move it). */
  now?: () => number;
}

/** The buttons and forms of the sign-in page: every enabled provider, and the e-mail link. */
export const oauthSignInMethods = (config: Pick<EngineConfig, 'providers'>): SignInMethods => ({
  providers: config.providers.oauth.map((p) => ({ id: p.id, name: p.name })),
  email: config.providers.email !== undefined,
});

/** The sign-in page, with an error or the e-mail link form's notice. */
export function signInAgain(c: Context, deps: OAuthDeps, status: number, say: { error?: string; notice?: string }) {
  const token = issueCsrfToken(c, deps.config.auth.baseUrl.startsWith('https://'));
  c.header('cache-control', 'no-store');
  const methods = { ...oauthSignInMethods(deps.config), emailNotice: say.notice };
  return c.html(signInPage({ csrf: token, samlEnabled: deps.samlEnabled(), methods, error: say.error }), status as 401);
}
