import { createUser } from '../engine/cli/admin';
import { DEMO } from '../demo/demo-data';
import { authEnv, exchange, startSibling, tokenFor } from './support/auth';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * Repeated failed exchanges from one client, or for one e-mail, are refused with 429 for the rest of
 * the window, even with the right secret; the counts live in PostgreSQL, so every instance enforces
 * them. Here: 3 failures per 3-second window, and the client address comes from X-Forwarded-For
 * (TRUST_PROXY) so that one test can play several clients.
 */
const acme = DEMO.tenants.acme;
const WINDOW = 3;
const ENV = authEnv({ AUTH_MAX_FAILURES: '3', AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW), TRUST_PROXY: 'true' });
const from = (ip: string) => ({ 'x-forwarded-for': ip });

describe(`failed exchanges are rate limited on ${backendName}`, () => {
  let server: TestServer;
  let n = 0;
  /** A fresh user with a token: tests do not share counters. */
  const user = async () => {
    const email = `limit.${++n}@acme.example.com`;
    await createUser(server.started.db, { tenant: acme.id, email, name: `Limit ${n}`, role: 'tenant_admin' });
    return { email, secret: (await tokenFor(server.started.db, email)).secret };
  };
  const wrong = 'plat_' + 'A'.repeat(43);

  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
  });
  afterAll(() => server.close());

  test('for one e-mail, from any number of clients: 429 with Retry-After, then free again after the window', async () => {
    const u = await user();
    for (let i = 1; i <= 3; i++) expect((await exchange(server, u.email, wrong, from(`10.1.0.${i}`))).status).toBe(401);
    const locked = await fetch(`${server.url}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...from('10.1.0.9') },
      body: JSON.stringify({ email: u.email, secret: u.secret }),
    });
    expect(locked.status).toBe(429);
    const retry = Number(locked.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(WINDOW);
    const body = await locked.json();
    expect(body.errors[0].extensions.code).toBe('too-many-requests');
    expect(body.errors[0].message).toMatch(/try again in \d+ seconds/);
    // Another e-mail from those clients is not affected.
    const other = await user();
    expect((await exchange(server, other.email, other.secret, from('10.1.0.1'))).status).toBe(200);
    // After the window the right secret works again.
    await new Promise((r) => setTimeout(r, (WINDOW + 0.5) * 1000));
    expect((await exchange(server, u.email, u.secret, from('10.1.0.9'))).status).toBe(200);
  });

  test('from one client, for any number of e-mails: 429 for that client only', async () => {
    const victim = await user();
    for (let i = 1; i <= 3; i++)
      expect((await exchange(server, `nobody.${i}@acme.example.com`, wrong, from('10.2.0.1'))).status).toBe(401);
    expect((await exchange(server, victim.email, victim.secret, from('10.2.0.1'))).status).toBe(429);
    expect((await exchange(server, 'nobody.4@acme.example.com', wrong, from('10.2.0.1'))).status).toBe(429);
    // Another client is not affected.
    expect((await exchange(server, victim.email, victim.secret, from('10.2.0.2'))).status).toBe(200);
  });

  test('a success clears the e-mail’s failures', async () => {
    const u = await user();
    for (let i = 0; i < 2; i++) expect((await exchange(server, u.email, wrong, from(`10.3.0.${i}`))).status).toBe(401);
    expect((await exchange(server, u.email, u.secret, from('10.3.0.9'))).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await exchange(server, u.email, wrong, from(`10.3.1.${i}`))).status).toBe(401);
    expect((await exchange(server, u.email, u.secret, from('10.3.1.9'))).status).toBe(200);
  });

  test('malformed requests are 400 and do not count', async () => {
    for (let i = 0; i < 5; i++)
      expect((await server.post('/api/auth/token', '{"email":1}', from('10.4.0.1'))).status).toBe(400);
    const u = await user();
    expect((await exchange(server, u.email, u.secret, from('10.4.0.1'))).status).toBe(200);
  });

  test('the counts are shared by every instance on the database', async () => {
    const sibling = await startSibling(server, ENV);
    try {
      const u = await user();
      expect((await exchange(server, u.email, wrong, from('10.5.0.1'))).status).toBe(401);
      expect((await exchange(sibling, u.email, wrong, from('10.5.0.2'))).status).toBe(401);
      expect((await exchange(server, u.email, wrong, from('10.5.0.3'))).status).toBe(401);
      expect((await exchange(sibling, u.email, u.secret, from('10.5.0.4'))).status).toBe(429);
      expect((await exchange(server, u.email, u.secret, from('10.5.0.4'))).status).toBe(429);
    } finally {
      await sibling.stop();
    }
  });

  test('the table holds no e-mail or client address', async () => {
    const rows = await server.started.db.query('SELECT key FROM auth_failures');
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.key).toMatch(/^[0-9a-f]{64}$/);
  });
});
