import { html } from 'hono/html';
import { roleInWords } from '../auth/users';
import { ICONS, page } from './layout';
import { linkedMethodsTable, providerButtons, type SignInMethods } from './provider-buttons';
import type { LinkedMethod } from '../auth/provider-links';

export interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: string | Date;
  lastUsedAt: string | Date | null;
}

/** A time as the pages show it: `2026-02-21 14:05 UTC`, or `Never`. */
export const when = (d: string | Date | null) =>
  d ? new Date(d).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : 'Never';

/** The sign-in page: built-in credentials, and the SAML button where SAML is enabled. */
export function signInPage(o: {
  csrf: string;
  error?: string;
  email?: string;
  samlEnabled: boolean;
  methods?: SignInMethods;
}) {
  return page(
    'Sign in',
    html`<div class="center"><div class="card">
  <h1>Sign in</h1>
  <form method="post" action="/signin">
    <input type="hidden" name="csrf" value="${o.csrf}">
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${o.email ?? ''}">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    ${o.error ? html`<div class="error" role="alert">${o.error}</div>` : ''}
    <button class="full" type="submit">Sign in</button>
  </form>
  ${providerButtons(o.methods, o.csrf)}
  ${o.samlEnabled ? html`<div class="divider">or</div><a class="button secondary full" style="text-align:center" href="/api/auth/saml/login">Sign in with SSO (SAML)</a>` : ''}
</div></div>`,
  );
}

/** Who is signed in, where: the user's name, the tenant's name and the role. */
export interface Who {
  name: string;
  tenant: string;
  role: string;
}

/** "Acme Corp — administrator". */
export const tenantAndRole = (w: Who) => `${w.tenant} — ${roleInWords(w.role)}`;

export function shell(o: { csrf: string; active: 'home' | 'console' | 'settings'; who: Who }, content: unknown) {
  return html`<div class="shell">
  <aside class="sidebar">
    <a href="/console" title="GraphQL console" class="${o.active === 'console' ? 'active' : ''}">${ICONS.console}</a>
    <div class="bottom">
      <a href="/settings" title="User Settings" aria-label="User Settings" id="user-settings" class="${o.active === 'settings' ? 'active' : ''}">${ICONS.gear}</a>
      <form method="post" action="/signout"><input type="hidden" name="csrf" value="${o.csrf}"><button class="icon" title="Sign out" aria-label="Sign out" style="color:#cbd5e1">${ICONS.signout}</button></form>
    </div>
  </aside>
  <main class="main">${o.active === 'console' ? '' : html`<div class="topbar"><span id="whoami" title="${o.who.role}">${o.who.name} · <strong>${tenantAndRole(o.who)}</strong></span></div>`}${content}</main>
</div>`;
}

export interface SettingsView {
  csrf: string;
  user: { email: string; displayName: string; role: string };
  who: Who;
  tab: 'profile' | 'tokens';
  tokens: TokenRow[];
  /** Show the "new token" form. */
  creating?: boolean;
  /** The token just created: its secret is shown this once. */
  created?: { name: string; secret: string };
  /** The token whose deletion awaits confirmation. */
  confirmDelete?: TokenRow;
  error?: string;
  /** A message that something went well (the password changed). */
  notice?: string;
  /** Whether the user has a built-in password to change (SSO-only users have none). */
  hasPassword?: boolean;
  /** The sign-in methods linked to the user (Profile tab). */
  linked?: LinkedMethod[];
}

const newTokenForm = (
  v: SettingsView,
) => html`<form method="post" action="/settings/tokens" class="row" id="new-token-form">
      <input type="hidden" name="csrf" value="${v.csrf}">
      <div><label for="token-name">Name</label><input id="token-name" name="name" type="text" maxlength="100" required autofocus placeholder="e.g. cost report script"></div>
      <div class="buttons"><button type="submit" id="create-token">Create Token</button>
      <a class="button secondary" href="/settings?tab=tokens">Cancel</a></div>
    </form>`;

const createdToken = (created: { name: string; secret: string }) => html`<div id="new-token">
      <p>Token <strong>${created.name}</strong> created. Copy it now:</p>
      <div class="secret"><code id="token-secret">${created.secret}</code><button type="button" class="secondary" id="copy-token" onclick="navigator.clipboard.writeText(document.getElementById('token-secret').textContent).then(()=>{this.textContent='Copied'})">Copy</button></div>
      <p class="warning" role="alert">This token will not be shown again. Store it somewhere safe; if you lose it, delete it and create a new one.</p>
      <a class="button secondary" href="/settings?tab=tokens" id="done">Done</a>
    </div>`;

const confirmDeleteForm = (
  v: SettingsView,
  t: TokenRow,
) => html`<form method="post" action="/settings/tokens/${t.id}/delete" class="warning" id="confirm-delete">
      <input type="hidden" name="csrf" value="${v.csrf}">
      Delete <strong>${t.name}</strong>? Scripts using it stop working immediately. This cannot be undone.
      <div style="margin-top:10px"><button class="danger" type="submit" id="confirm-delete-button">Delete</button> <a class="button secondary" href="/settings?tab=tokens">Cancel</a></div>
    </form>`;

const tokenTable = (tokens: TokenRow[]) => html`<div class="table-wrap"><table id="tokens">
    <thead><tr><th>Name</th><th>Created</th><th>Last Used</th><th></th></tr></thead>
    <tbody>${
      tokens.length === 0
        ? html`<tr><td colspan="4" class="muted">No tokens yet.</td></tr>`
        : tokens.map(
            (t) => html`<tr data-token-id="${t.id}">
      <td>${t.name} <span class="muted">${t.prefix}…</span></td><td class="date">${when(t.createdAt)}</td><td class="date last-used">${when(t.lastUsedAt)}</td>
      <td style="text-align:right"><a href="/settings/tokens/${t.id}/delete" title="Delete token" aria-label="Delete ${t.name}" class="delete-token"><button class="icon" type="button" tabindex="-1">${ICONS.trash}</button></a></td>
    </tr>`,
          )
    }</tbody>
  </table></div>`;

function tokensTab(v: SettingsView) {
  return html`<header><h2>API Tokens</h2>${v.creating || v.created ? '' : html`<a class="button" href="/settings/tokens/new" id="create-new-token">Create New Token</a>`}</header>
  <p class="muted">Exchange a token for a short-lived JWT at <code>POST /api/auth/token</code> with your e-mail and the token as <code>secret</code>.</p>
  ${v.error ? html`<div class="error" role="alert">${v.error}</div>` : ''}
  ${v.notice ? html`<div class="notice" role="status">${v.notice}</div>` : ''}
  ${v.creating ? newTokenForm(v) : ''}
  ${v.created ? createdToken(v.created) : ''}
  ${v.confirmDelete ? confirmDeleteForm(v, v.confirmDelete) : ''}
  ${tokenTable(v.tokens)}`;
}

const passwordForm = (v: SettingsView) => html`<form method="post" action="/settings/password" id="password-form">
    <input type="hidden" name="csrf" value="${v.csrf}">
    <input type="text" name="username" autocomplete="username" value="${v.user.email}" hidden>
    <label for="current-password">Current password</label>
    <input id="current-password" name="current" type="password" autocomplete="current-password" required>
    <label for="new-password">New password</label>
    <input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="1024">
    <label for="confirm-password">New password again</label>
    <input id="confirm-password" name="confirm" type="password" autocomplete="new-password" required minlength="8" maxlength="1024">
    <p class="muted">At least 8 characters. Changing it signs you out everywhere else; this browser stays signed in.</p>
    <button type="submit" id="change-password">Change password</button>
  </form>`;

function profileTab(v: SettingsView) {
  return html`<header><h2>Profile</h2></header>
  <div class="table-wrap"><table id="profile"><tbody>
    <tr><th>Name</th><td>${v.user.displayName}</td></tr>
    <tr><th>E-mail</th><td>${v.user.email}</td></tr>
    <tr><th>Tenant</th><td id="profile-tenant">${v.who.tenant}</td></tr>
    <tr><th>Role</th><td id="profile-role">${roleInWords(v.user.role)} <span class="muted">(${v.user.role})</span></td></tr>
  </tbody></table></div>
  ${linkedMethodsTable(v.linked)}
  <h2 style="margin-top:22px">Password</h2>
  ${v.error ? html`<div class="error" role="alert">${v.error}</div>` : ''}
  ${v.notice ? html`<div class="notice" role="status">${v.notice}</div>` : ''}
  ${v.hasPassword === false ? html`<p class="muted">You sign in through single sign-on: there is no password to change here.</p>` : passwordForm(v)}
  <h2 style="margin-top:22px">Sessions</h2>
  <form method="post" action="/signout/everywhere"><input type="hidden" name="csrf" value="${v.csrf}">
    <p>Signs out this browser and every other one where you are signed in.</p>
    <button>Sign out everywhere</button></form>`;
}

/** User Settings, as a dialog over the signed-in shell, with its Profile and API Tokens tabs. */
export function settingsPage(v: SettingsView) {
  return page(
    'User Settings',
    shell(
      { csrf: v.csrf, active: 'settings', who: v.who },
      html`
  <h1>Welcome, ${v.user.displayName}</h1>
  <div class="overlay"><div class="dialog" role="dialog" aria-label="User Settings">
    <nav><div class="muted nav-title">User Settings</div>
      <a href="/settings?tab=profile" class="${v.tab === 'profile' ? 'active' : ''}" id="profile-tab">Profile</a>
      <a href="/settings?tab=tokens" class="${v.tab === 'tokens' ? 'active' : ''}" id="api-tokens-tab">API Tokens</a>
      <a href="/" class="close">Close</a>
    </nav>
    <section>${v.tab === 'tokens' ? tokensTab(v) : profileTab(v)}</section>
  </div></div>`,
    ),
  );
}

/** The signed-in start page. */
export function homePage(o: { csrf: string; who: Who }) {
  return page(
    'Platform',
    shell(
      { csrf: o.csrf, active: 'home', who: o.who },
      html`
  <h1>Welcome, ${o.who.name}</h1>
  <p class="muted" id="signed-in-as">Signed in as ${tenantAndRole(o.who)}.</p>
  <div class="card" style="width:auto;max-width:640px">
    <h2>Use the API</h2>
    <p>Open <strong>User Settings</strong> (the gear in the sidebar), then <strong>API Tokens</strong>, to create a token for your scripts.
    Exchange it at <code>POST /api/auth/token</code> for a JWT and send that as <code>Authorization: Bearer</code> to <code>/api/graphql</code>.</p>
    <p>Or try queries in the <a href="/console">GraphQL console</a>.</p>
  </div>`,
    ),
  );
}

/**
 * A page of the signed-in application (sidebar and sign-out form) around `content`: what pages that
 * other rooms add (SignedInPage) are shown in.
 */
export function appPage(o: { csrf: string; title: string; content: unknown; who: Who }) {
  return page(o.title, shell({ csrf: o.csrf, active: 'home', who: o.who }, o.content));
}
