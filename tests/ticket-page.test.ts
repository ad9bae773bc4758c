import { SESSION_COOKIE, sessionCookieValue } from '../engine/serve/auth/session-cookie';
import { DEMO } from '../demo/demo-data';
import { authEnv } from './support/auth';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * The URL a platform ticket is answered with ({NEXTAUTH_URL}/tickets/<id>) leads to a page of that
 * ticket for a signed-in user of its tenant; another tenant's user finds no such ticket, and a
 * visitor without a session is sent to the sign-in page.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const ENV = authEnv();
const TICKET = `mutation($o: TicketsInsertOneInput!) { tickets_insert_one(object: $o) { data { insert_tickets_one { ticket_id url } } } }`;

describe(`the ticket page on ${backendName}`, () => {
  let server: TestServer;
  const cookieOf = (tenant: typeof acme | typeof globex) => ({
    cookie: `${SESSION_COOKIE}=${sessionCookieValue(server.started.engine.config, {
      userId: tenant.users.admin.id,
      tenantId: tenant.id,
      role: 'tenant_admin',
      email: tenant.users.admin.username,
      displayName: tenant.users.admin.displayName,
    })}`,
  });
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers, redirect: 'manual' });

  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
  });
  afterAll(() => server.close());

  test('the answered URL shows the ticket to its tenant, with what was filed', async () => {
    const object = {
      title: 'Disk <full> on db-1',
      description: 'Volume at 97%\nsince 02:00',
      severity: 'High',
      project_key: 'PAGE',
      integration_id: acme.integrationId,
      account_id: acme.cloudAccounts.aws,
    };
    const res = await server.gql(TICKET, { o: object }, as('tenant_admin', acme.id, acme.users.admin.id));
    const { ticket_id: id, url } = res.body.data.tickets_insert_one.data.insert_tickets_one;
    expect(url).toBe(`${ENV.NEXTAUTH_URL}/tickets/${id}`);
    const page = await get(new URL(url).pathname, cookieOf(acme));
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain(`<span class="muted">${id}</span> Disk &lt;full&gt; on db-1`); // escaped, never markup
    expect(body).toContain('Volume at 97%\nsince 02:00');
    expect(body).toMatch(/<th>Severity<\/th><td>High<\/td>/);
    expect(body).toMatch(/<th>Status<\/th><td>Open<\/td>/);
    expect(body).toMatch(/<th>Project<\/th><td>PAGE<\/td>/);
  });

  test("another tenant's user: not found; no session: to the sign-in page", async () => {
    const res = await server.gql(
      TICKET,
      { o: { title: 'Acme only', project_key: 'PAGE', integration_id: acme.integrationId } },
      as('tenant_admin', acme.id, acme.users.admin.id),
    );
    const { url } = res.body.data.tickets_insert_one.data.insert_tickets_one;
    const path = new URL(url).pathname;
    const other = await get(path, cookieOf(globex));
    expect(other.status).toBe(404);
    const text = await other.text();
    expect(text).toContain('There is no ticket');
    expect(text).not.toContain('Acme only');
    const anonymous = await get(path);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/signin');
  });
});
