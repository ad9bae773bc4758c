import { html } from 'hono/html';
import type { LinkedMethod } from '../auth/provider-links';

/**
 * The sign-in methods beside credentials and SAML that the sign-in page offers, and the methods
 * linked to a user that the Profile page lists. Kept apart from pages.ts, which calls them.
 */
export interface SignInMethods {
  /** Enabled OpenID Connect / OAuth providers: a button each. */
  providers: Array<{ id: string; name: string }>;
  /** The e-mail link form (EMAIL_SERVER and EMAIL_FROM set). */
  email?: boolean;
  /** What the e-mail link form says after a request ("a link is on its way"). */
  emailNotice?: string;
}

/** The e-mail link form: POST /api/auth/signin/email sends a one-time sign-in link. */
function emailForm(m: SignInMethods, csrf: string) {
  if (!m.email) return '';
  return html`<div class="divider">or</div>
  <form method="post" action="/api/auth/signin/email" class="email-link">
    <input type="hidden" name="csrf" value="${csrf}">
    <label for="link-email">E-mail me a sign-in link</label>
    <input id="link-email" name="email" type="email" autocomplete="email" required>
    ${m.emailNotice ? html`<div class="notice" role="status">${m.emailNotice}</div>` : ''}
    <button class="secondary full" type="submit">Send sign-in link</button>
  </form>`;
}

/**
 * A button per enabled provider, each starting its sign-in (GET /api/auth/signin/<id>), and the
 * e-mail link form.
 */
export function providerButtons(m: SignInMethods | undefined, csrf: string) {
  if (!m) return '';
  return html`${emailForm(m, csrf)}${m.providers.length === 0 ? '' : html`<div class="divider">or</div>`}
  ${m.providers.map(
    (p) =>
      html`<a class="button secondary full provider" style="text-align:center;margin-bottom:8px" data-provider="${p.id}" href="/api/auth/signin/${p.id}">Sign in with ${p.name}</a>`,
  )}`;
}

const METHOD_NAMES: Record<string, string> = {
  credentials: 'E-mail and password',
  saml: 'SSO (SAML)',
  google: 'Google',
  'azure-ad': 'Microsoft (Azure AD)',
  'azure-ad-b2c': 'Azure AD B2C',
  auth0: 'Auth0',
  onelogin: 'OneLogin',
  oidc: 'OpenID Connect',
  email: 'E-mail link',
};

/** A time as the pages show it (pages.ts `when`, which imports this file). */
const when = (d: string | null) => (d ? new Date(d).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : 'Never');

/** The Profile page's "Sign-in methods": each method linked to the user, with its account and last use. */
export function linkedMethodsTable(methods: LinkedMethod[] | undefined) {
  if (!methods) return '';
  return html`<h3>Sign-in methods</h3>
  <table class="sign-in-methods"><thead><tr><th>Method</th><th>Account</th><th>Last used</th></tr></thead><tbody>
  ${
    methods.length === 0
      ? html`<tr><td colspan="3" class="muted">None.</td></tr>`
      : methods.map(
          (m) =>
            html`<tr data-method="${m.provider}"><td>${METHOD_NAMES[m.provider] ?? m.provider}</td><td>${m.account}</td><td>${m.provider === 'credentials' ? '' : when(m.lastLoginAt)}</td></tr>`,
        )
  }</tbody></table>`;
}
