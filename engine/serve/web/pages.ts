import { html } from 'hono/html';
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

function shell(o: { csrf: string; active: 'home' | 'console' | 'settings' }, content: unknown) {
  return html`<div class="shell">
  <aside class="sidebar">
    <a href="/console" title="GraphQL console" class="${o.active === 'console' ? 'active' : ''}">${ICONS.console}</a>
    <div class="bottom">
      <a href="/settings" title="User Settings" aria-label="User Settings" id="user-settings" class="${o.active === 'settings' ? 'active' : ''}">${ICONS.gear}</a>
      <form method="post" action="/signout"><input type="hidden" name="csrf" value="${o.csrf}"><button class="icon" title="Sign out" aria-label="Sign out" style="color:#cbd5e1">${ICONS.signout}</button></form>
    </div>
  </aside>
  <main class="main">${content}</main>
</div>`;
}

export interface SettingsView {
  csrf: string;
  user: { email: string; displayName: string; role: string };
  tab: 'profile' | 'tokens';
  tokens: TokenRow[];
  /** Show the "new token" form. */
  creating?: boolean;
  /** The token just created: its secret is shown this once. */
  created?: { name: string; secret: string };
  /** The token whose deletion awaits confirmation. */
  confirmDelete?: TokenRow;
  error?: string;
  /** The sign-in methods linked to the user (Profile tab). */
  linked?: LinkedMethod[];
}

function tokensTab(v: SettingsView) {
  return html`<header><h2>API Tokens</h2>${v.creating || v.created ? '' : html`<a class="button" href="/settings/tokens/new" id="create-new-token">Create New Token</a>`}</header>
  <p class="muted">Exchange a token for a short-lived JWT at <code>POST /api/auth/token</code> with your e-mail and the token as <code>secret</code>.</p>
  ${v.error ? html`<div class="error" role="alert">${v.error}</div>` : ''}
  ${
    v.creating
      ? html`<form method="post" action="/settings/tokens" class="row" id="new-token-form">
      <input type="hidden" name="csrf" value="${v.csrf}">
      <div><label for="token-name">Name</label><input id="token-name" name="name" type="text" maxlength="100" required autofocus placeholder="e.g. cost report script"></div>
      <button type="submit" id="create-token">Create Token</button>
      <a class="button secondary" href="/settings?tab=tokens">Cancel</a>
    </form>`
      : ''
  }
  ${
    v.created
      ? html`<div id="new-token">
      <p>Token <strong>${v.created.name}</strong> created. Copy it now:</p>
      <div class="secret"><code id="token-secret">${v.created.secret}</code><button type="button" class="secondary" id="copy-token" onclick="navigator.clipboard.writeText(document.getElementById('token-secret').textContent).then(()=>{this.textContent='Copied'})">Copy</button></div>
      <p class="warning" role="alert">This token will not be shown again. Store it somewhere safe; if you lose it, delete it and create a new one.</p>
      <a class="button secondary" href="/settings?tab=tokens" id="done">Done</a>
    </div>`
      : ''
  }
  ${
    v.confirmDelete
      ? html`<form method="post" action="/settings/tokens/${v.confirmDelete.id}/delete" class="warning" id="confirm-delete">
      <input type="hidden" name="csrf" value="${v.csrf}">
      Delete <strong>${v.confirmDelete.name}</strong>? Scripts using it stop working immediately. This cannot be undone.
      <div style="margin-top:10px"><button class="danger" type="submit" id="confirm-delete-button">Delete</button> <a class="button secondary" href="/settings?tab=tokens">Cancel</a></div>
    </form>`
      : ''
  }
  <table id="tokens">
    <thead><tr><th>Name</th><th>Created</th><th>Last Used</th><th></th></tr></thead>
    <tbody>${
      v.tokens.length === 0
        ? html`<tr><td colspan="4" class="muted">No tokens yet.</td></tr>`
        : v.tokens.map(
            (t) => html`<tr data-token-id="${t.id}">
      <td>${t.name} <span class="muted">${t.prefix}…</span></td><td>${when(t.createdAt)}</td><td class="last-used">${when(t.lastUsedAt)}</td>
      <td style="text-align:right"><a href="/settings/tokens/${t.id}/delete" title="Delete token" aria-label="Delete ${t.name}" class="delete-token"><button class="icon" type="button" tabindex="-1">${ICONS.trash}</button></a></td>
    </tr>`,
          )
    }</tbody>
  </table>`;
}

function profileTab(v: SettingsView) {
  return html`<header><h2>Profile</h2></header>
  <table><tbody>
    <tr><th>Name</th><td>${v.user.displayName}</td></tr>
    <tr><th>E-mail</th><td>${v.user.email}</td></tr>
    <tr><th>Role</th><td>${v.user.role}</td></tr>
  </tbody></table>
  ${linkedMethodsTable(v.linked)}
  <form method="post" action="/signout/everywhere"><input type="hidden" name="csrf" value="${v.csrf}">
    <p>Signs out this browser and every other one where you are signed in.</p>
    <button>Sign out everywhere</button></form>`;
}

/** User Settings, as a dialog over the signed-in shell, with its Profile and API Tokens tabs. */
export function settingsPage(v: SettingsView) {
  return page(
    'User Settings',
    shell(
      { csrf: v.csrf, active: 'settings' },
      html`
  <h1>Welcome, ${v.user.displayName}</h1>
  <div class="overlay"><div class="dialog" role="dialog" aria-label="User Settings">
    <nav><div class="muted" style="padding:0 10px 8px;font-weight:600">User Settings</div>
      <a href="/settings?tab=profile" class="${v.tab === 'profile' ? 'active' : ''}">Profile</a>
      <a href="/settings?tab=tokens" class="${v.tab === 'tokens' ? 'active' : ''}" id="api-tokens-tab">API Tokens</a>
      <a href="/" style="margin-top:16px">Close</a>
    </nav>
    <section>${v.tab === 'tokens' ? tokensTab(v) : profileTab(v)}</section>
  </div></div>`,
    ),
  );
}

/** The signed-in start page. */
export function homePage(o: { csrf: string; displayName: string; tenantRole: string }) {
  return page(
    'Platform',
    shell(
      { csrf: o.csrf, active: 'home' },
      html`
  <h1>Welcome, ${o.displayName}</h1>
  <p class="muted">Signed in as ${o.tenantRole}.</p>
  <div class="card" style="width:auto;max-width:640px">
    <h2>Use the API</h2>
    <p>Open <strong>User Settings</strong> (the gear at the bottom of the sidebar), then <strong>API Tokens</strong>, to create a token for your scripts.
    Exchange it at <code>POST /api/auth/token</code> for a JWT and send that as <code>Authorization: Bearer</code> to <code>/api/graphql</code>.</p>
    <p>Or try queries in the <a href="/console">GraphQL console</a>.</p>
  </div>`,
    ),
  );
}

/** GraphiQL, served from this server's own copy (no CDN), sending the browser session cookie. */
export function consolePage(o: { csrf: string }) {
  return page(
    'GraphQL console',
    shell(
      { csrf: o.csrf, active: 'console' },
      html`
  <link rel="stylesheet" href="/assets/graphiql.min.css">
  <div id="graphiql" style="height:calc(100vh - 64px)"></div>
  <script src="/assets/react.production.min.js"></script>
  <script src="/assets/react-dom.production.min.js"></script>
  <script src="/assets/graphiql.min.js"></script>
  <script>
    const fetcher = GraphiQL.createFetcher({ url: '/api/graphql', fetch: (url, init) => fetch(url, { ...init, credentials: 'same-origin' }) });
    ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, { fetcher }));
  </script>`,
    ),
  );
}

/**
 * A page of the signed-in application (sidebar and sign-out form) around `content`: what pages that
 * other rooms add (SignedInPage) are shown in.
 */
export function appPage(o: { csrf: string; title: string; content: unknown }) {
  return page(o.title, shell({ csrf: o.csrf, active: 'home' }, o.content));
}
