import { html, raw } from 'hono/html';
import { roleInWords } from '../auth/users';
import { page } from './layout';
import { shell, tenantAndRole, type Who } from './pages';

/** The console's first query: the platform's own data, not GraphiQL's welcome text. */
export const FIRST_QUERY = `# Cloud accounts, their spend.
# Run: ▶ or Ctrl-Enter.
# Explorer (folder icon):
#   tick fields to add them.
query CloudAccountsWithSpend {
  cloud_accounts(order_by: {account_name: asc}) {
    account_name
    cloud_provider
    spends_aggregate {
      aggregate {
        sum {
          amount
        }
      }
    }
  }
}
`;

/**
 * What runs in the browser: GraphiQL with the Explorer plugin, sending the session cookie; or, once
 * an operator gives the admin secret, that secret with the role and tenant they pick (the cookie is
 * then left out, as a cookie session would decide otherwise). The secret stays in this tab's
 * sessionStorage. A new fetcher makes GraphiQL load the schema of the role it now speaks as.
 */
const CONSOLE_SCRIPT = `
(function () {
  const cfg = JSON.parse(document.getElementById('console-config').textContent);
  const KEY = 'platform-console-admin';
  const $ = (id) => document.getElementById(id);
  let admin = JSON.parse(sessionStorage.getItem(KEY) || 'null');
  const explorer = GraphiQLPluginExplorer.explorerPlugin();
  const root = ReactDOM.createRoot($('graphiql'));
  const words = (role) => cfg.roleWords[role] || role;
  function headers() {
    if (!admin) return {};
    const h = { 'x-hasura-admin-secret': admin.secret, 'x-hasura-role': admin.role };
    if (admin.tenantId) h['x-hasura-tenant-id'] = admin.tenantId;
    return h;
  }
  function render() {
    $('console-identity').textContent = admin
      ? 'Admin secret: ' + (admin.tenantId ? admin.tenantName + ' — ' : '') + words(admin.role)
      : cfg.who;
    $('console-identity').title = admin ? admin.role : cfg.role;
    $('admin-off').hidden = !admin;
    const fetcher = GraphiQL.createFetcher({
      url: '/api/graphql',
      headers: headers(),
      fetch: (url, init) => fetch(url, { ...init, credentials: admin ? 'omit' : 'same-origin' }),
    });
    root.render(React.createElement(GraphiQL, {
      fetcher,
      plugins: [explorer],
      defaultQuery: cfg.firstQuery,
      visiblePlugin: window.innerWidth > 900 ? explorer : undefined,
      defaultEditorToolsVisibility: false,
    }));
  }
  async function loadTenants(secret) {
    const res = await fetch('/api/graphql', {
      method: 'POST',
      credentials: 'omit',
      headers: { 'content-type': 'application/json', 'x-hasura-admin-secret': secret },
      body: JSON.stringify({ query: '{ tenant(order_by: {name: asc}) { id name } }' }),
    });
    const body = await res.json();
    if (!res.ok || body.errors) throw new Error((body.errors && body.errors[0].message) || res.statusText);
    return body.data.tenant;
  }
  $('admin-load').addEventListener('click', async () => {
    $('admin-error').textContent = '';
    try {
      const tenants = await loadTenants($('admin-secret').value);
      $('admin-tenant').replaceChildren(new Option('(no tenant)', ''), ...tenants.map((t) => new Option(t.name, t.id)));
      $('admin-choose').hidden = false;
    } catch (err) {
      $('admin-error').textContent = 'The admin secret was refused: ' + err.message;
    }
  });
  $('admin-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const tenant = $('admin-tenant').selectedOptions[0];
    const role = $('admin-role').value;
    if (role !== 'admin' && !tenant.value) {
      $('admin-error').textContent = 'Pick a tenant for the role ' + role + '.';
      return;
    }
    admin = { secret: $('admin-secret').value, role, tenantId: tenant.value, tenantName: tenant.value ? tenant.text : '' };
    sessionStorage.setItem(KEY, JSON.stringify(admin));
    $('admin-switch').open = false;
    render();
  });
  $('admin-off').addEventListener('click', () => {
    admin = null;
    sessionStorage.removeItem(KEY);
    render();
  });
  render();
})();
`;

/** The console's settings, for the script: JSON in a script element, with `<` escaped. */
const configJson = (o: object) => raw(JSON.stringify(o).replace(/</g, '\\u003c'));

/**
 * GraphiQL with the Explorer plugin, served from this server's own copies (no CDN), sending the
 * browser session cookie. A bar above it says who the queries run as; with the admin secret an
 * operator may switch role and tenant there. GraphiQL's own settings gear is hidden: the sidebar's
 * gear (User Settings) is the one.
 */
export function consolePage(o: { csrf: string; who: Who; roles: readonly string[] }) {
  const roleWords = Object.fromEntries(o.roles.map((r) => [r, roleInWords(r)]));
  const config = { who: tenantAndRole(o.who), role: o.who.role, roleWords, firstQuery: FIRST_QUERY };
  const roleOptions = ['admin', ...o.roles.filter((r) => r !== 'admin')].map(
    (r) => html`<option value="${r}">${roleInWords(r)} (${r})</option>`,
  );
  return page(
    'GraphQL console',
    shell(
      { csrf: o.csrf, active: 'console', who: o.who },
      html`
  <link rel="stylesheet" href="/assets/graphiql.min.css">
  <link rel="stylesheet" href="/assets/graphiql-plugin-explorer.css">
  <div class="console">
  <div class="console-bar">
    <span>Queries run as <strong id="console-identity">${tenantAndRole(o.who)}</strong></span>
    <button type="button" class="secondary small" id="admin-off" hidden>Back to my session</button>
    <details id="admin-switch"><summary>Switch role (admin)</summary>
      <form id="admin-form" class="admin-form">
        <label for="admin-secret">Admin secret</label>
        <div class="row"><input id="admin-secret" type="password" autocomplete="off" required><button type="button" class="secondary" id="admin-load">Next</button></div>
        <div id="admin-choose" hidden>
          <label for="admin-role">Role</label><select id="admin-role">${roleOptions}</select>
          <label for="admin-tenant">Tenant</label><select id="admin-tenant"></select>
          <button type="submit" id="admin-apply" style="margin-top:10px">Query as this role</button>
        </div>
        <div class="error" id="admin-error" role="alert"></div>
      </form>
    </details>
  </div>
  <div id="graphiql"></div>
  </div>
  <script type="application/json" id="console-config">${configJson(config)}</script>
  <script src="/assets/react.production.min.js"></script>
  <script src="/assets/react-dom.production.min.js"></script>
  <script src="/assets/graphiql.min.js"></script>
  <script src="/assets/graphiql-plugin-explorer.umd.js"></script>
  <script>${raw(CONSOLE_SCRIPT)}</script>`,
    ),
  );
}
