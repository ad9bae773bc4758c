import { createUser } from '../engine/cli/admin';
import { loadConfig } from '../engine/core/config';
import { waitInWords } from '../engine/serve/auth/throttle';
import { DEMO } from '../demo/demo-data';
import { authEnv, exchange, newSecret, signInForm, startSibling, tokenFor } from './support/auth';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * Failed sign-in attempts (token exchange and browser sign-in) are limited by three counters kept in
 * PostgreSQL, so every instance enforces them: one address guessing one e-mail (AUTH_MAX_FAILURES),
 * one e-mail from every address (AUTH_MAX_FAILURES_PER_EMAIL), one address for every e-mail
 * (AUTH_MAX_FAILURES_PER_ADDRESS, a ceiling against spraying). Past one, 429 for the rest of the
 * window, even with the right secret. Here: 3, 5 and 8 per 10-second window, and the client address
 * comes from X-Forwarded-For (TRUST_PROXY) so that one test can play several clients.
 */
const acme = DEMO.tenants.acme;
// Long enough that a test's attempts (scrypt checks on a busy machine) fall in one window.
const WINDOW = 10;
const ENV = authEnv({
  AUTH_MAX_FAILURES: '3',
  AUTH_MAX_FAILURES_PER_EMAIL: '5',
  AUTH_MAX_FAILURES_PER_ADDRESS: '8',
  AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW),
  TRUST_PROXY: 'true',
});
const from = (ip: string) => ({ 'x-forwarded-for': ip });
const wrong = 'plat_' + 'A'.repeat(43);

/** Fresh users with a token and a password: tests do not share counters. */
function users(server: () => TestServer) {
  let n = 0;
  return async () => {
    const email = `limit.${++n}.${newSecret().slice(0, 6)}@acme.example.com`;
    const password = `pw-${newSecret()}`;
    await createUser(server().started.db, {
      tenant: acme.id,
      email,
      name: `Limit ${n}`,
      role: 'tenant_admin',
      password,
    });
    return { email, password, secret: (await tokenFor(server().started.db, email)).secret };
  };
}

describe(`failed sign-ins are rate limited on ${backendName}`, () => {
  let server: TestServer;
  const user = users(() => server);

  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
  });
  afterAll(() => server.close());

  test('one address, one e-mail: AUTH_MAX_FAILURES 401s, then 429 with Retry-After, free again after the window', async () => {
    const u = await user();
    for (let i = 0; i < 3; i++) expect((await exchange(server, u.email, wrong, from('10.1.0.1'))).status).toBe(401);
    const locked = await fetch(`${server.url}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...from('10.1.0.1') },
      body: JSON.stringify({ email: u.email, secret: u.secret }),
    });
    expect(locked.status).toBe(429);
    const retry = Number(locked.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(WINDOW);
    const body = await locked.json();
    expect(body.errors[0].extensions.code).toBe('too-many-requests');
    expect(body.errors[0].message).toBe(`too many failed attempts: try again in ${waitInWords(retry)}`);
    expect(body.errors[0].message).toMatch(/try again in ([1-9]|10) seconds?$/);
    // The browser sign-in counts the same failures.
    expect((await signInForm(server, u.email, u.password, from('10.1.0.1'))).status).toBe(429);
    // The same user from another address is not locked out (4 < AUTH_MAX_FAILURES_PER_EMAIL).
    expect((await exchange(server, u.email, u.secret, from('10.1.0.2'))).status).toBe(200);
    await new Promise((r) => setTimeout(r, (WINDOW + 0.5) * 1000));
    expect((await exchange(server, u.email, u.secret, from('10.1.0.1'))).status).toBe(200);
  });

  test('a shared address (an office NAT): one user’s failures lock out neither the exchange nor the sign-in of the others', async () => {
    const [a, b] = [await user(), await user()];
    for (let i = 0; i < 3; i++) expect((await exchange(server, a.email, wrong, from('10.2.0.1'))).status).toBe(401);
    expect((await exchange(server, a.email, a.secret, from('10.2.0.1'))).status).toBe(429);
    expect((await exchange(server, b.email, b.secret, from('10.2.0.1'))).status).toBe(200);
    const signedIn = await signInForm(server, b.email, b.password, from('10.2.0.1'));
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('set-cookie')).toContain('platform_session=');
    // The browser sign-in's failures are per user too.
    for (let i = 0; i < 3; i++)
      expect((await signInForm(server, b.email, 'wrong-password', from('10.2.0.1'))).status).toBe(401);
    expect((await signInForm(server, b.email, b.password, from('10.2.0.1'))).status).toBe(429);
    const c = await user();
    expect((await signInForm(server, c.email, c.password, from('10.2.0.1'))).status).toBe(303);
  });

  test('one e-mail from many addresses: AUTH_MAX_FAILURES_PER_EMAIL, then 429 from every address', async () => {
    const u = await user();
    for (let i = 1; i <= 5; i++) expect((await exchange(server, u.email, wrong, from(`10.3.0.${i}`))).status).toBe(401);
    expect((await exchange(server, u.email, wrong, from('10.3.0.6'))).status).toBe(429);
    expect((await exchange(server, u.email, u.secret, from('10.3.0.9'))).status).toBe(429);
    expect((await signInForm(server, u.email, u.password, from('10.3.0.9'))).status).toBe(429);
    // Other users at those addresses are not affected.
    const other = await user();
    expect((await exchange(server, other.email, other.secret, from('10.3.0.1'))).status).toBe(200);
  });

  test('one address for many e-mails: AUTH_MAX_FAILURES_PER_ADDRESS locks everyone there, and a success does not reset it', async () => {
    const bystander = await user();
    const guess = (i: number) => exchange(server, `sprayed.${i % 4}@acme.example.com`, wrong, from('10.4.0.1'));
    for (let i = 0; i < 4; i++) expect((await guess(i)).status).toBe(401);
    // A good account of the sprayer's own clears its e-mail's counters, not the address's.
    expect((await exchange(server, bystander.email, bystander.secret, from('10.4.0.1'))).status).toBe(200);
    for (let i = 4; i < 8; i++) expect((await guess(i)).status).toBe(401);
    expect((await guess(8)).status).toBe(429);
    const everyone = await user();
    const locked = await exchange(server, everyone.email, everyone.secret, from('10.4.0.1'));
    expect(locked.status).toBe(429);
    expect(locked.body.errors[0].extensions.code).toBe('too-many-requests');
    expect((await signInForm(server, everyone.email, everyone.password, from('10.4.0.1'))).status).toBe(429);
    // Another address is not affected.
    expect((await exchange(server, everyone.email, everyone.secret, from('10.4.0.2'))).status).toBe(200);
  });

  test('a success clears the e-mail’s failures', async () => {
    const u = await user();
    for (let i = 0; i < 4; i++) expect((await exchange(server, u.email, wrong, from(`10.5.0.${i}`))).status).toBe(401);
    expect((await exchange(server, u.email, u.secret, from('10.5.0.9'))).status).toBe(200);
    // Without the clearing the second of these would be the e-mail's sixth failure: 429.
    for (let i = 0; i < 4; i++) expect((await exchange(server, u.email, wrong, from(`10.5.1.${i}`))).status).toBe(401);
    expect((await exchange(server, u.email, u.secret, from('10.5.1.9'))).status).toBe(200);
  });

  test('malformed requests are 400 and do not count', async () => {
    for (let i = 0; i < 5; i++)
      expect((await server.post('/api/auth/token', '{"email":1}', from('10.6.0.1'))).status).toBe(400);
    const u = await user();
    expect((await exchange(server, u.email, u.secret, from('10.6.0.1'))).status).toBe(200);
  });

  test('the counts are shared by every instance on the database', async () => {
    const sibling = await startSibling(server, ENV, { ownPool: true });
    try {
      const u = await user();
      expect((await exchange(server, u.email, wrong, from('10.7.0.1'))).status).toBe(401);
      expect((await exchange(sibling, u.email, wrong, from('10.7.0.1'))).status).toBe(401);
      expect((await exchange(server, u.email, wrong, from('10.7.0.1'))).status).toBe(401);
      expect((await exchange(sibling, u.email, u.secret, from('10.7.0.1'))).status).toBe(429);
      expect((await exchange(server, u.email, u.secret, from('10.7.0.1'))).status).toBe(429);
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

/**
 * The limit is exact under load: each failure is recorded and checked in one statement, so parallel
 * requests on several instances cannot all pass the check before any records. Default limits and window.
 */
describe(`parallel failures on ${backendName}`, () => {
  const DEFAULTS = authEnv({ TRUST_PROXY: 'true' });
  let server: TestServer;
  const user = users(() => server);

  beforeAll(async () => {
    server = await startTestServer({ env: DEFAULTS });
  });
  afterAll(() => server.close());

  test('100 parallel wrong exchanges on two instances: exactly 10 answers 401, 90 answers 429 saying "15 minutes"', async () => {
    const sibling = await startSibling(server, DEFAULTS, { ownPool: true });
    try {
      const u = await user();
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => exchange(i % 2 ? sibling : server, u.email, wrong, from('10.8.0.1'))),
      );
      const count = (status: number) => answers.filter((a) => a.status === status).length;
      expect([count(401), count(429)]).toEqual([10, 90]);
      for (const a of answers.filter((x) => x.status === 429))
        expect(a.body.errors[0]).toEqual({
          message: 'too many failed attempts: try again in 15 minutes',
          extensions: { code: 'too-many-requests', path: '$' },
        });
      // The right secret from that address is refused too, with the wait in seconds in Retry-After.
      const locked = await fetch(`${server.url}/api/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...from('10.8.0.1') },
        body: JSON.stringify({ email: u.email, secret: u.secret }),
      });
      expect(locked.status).toBe(429);
      const retry = Number(locked.headers.get('retry-after'));
      expect(retry).toBeGreaterThan(800);
      expect(retry).toBeLessThanOrEqual(900);
    } finally {
      await sibling.stop();
    }
  });

  test('the sign-in page says the wait in words', async () => {
    const u = await user();
    const tries = await Promise.all(
      Array.from({ length: 12 }, () => signInForm(server, u.email, 'wrong-password', from('10.9.0.1'))),
    );
    expect(tries.filter((t) => t.status === 401)).toHaveLength(10);
    const locked = await signInForm(server, u.email, u.password, from('10.9.0.1'));
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    const page = await locked.text();
    expect(page).toContain('Too many failed attempts. Try again in 15 minutes.');
    expect(page).not.toMatch(/\d{3} seconds/);
  });
});

describe('a wait in words', () => {
  test.each([
    [1, '1 second'],
    [30, '30 seconds'],
    [59.2, '1 minute'],
    [60, '1 minute'],
    [61, '2 minutes'],
    [898, '15 minutes'],
    [900, '15 minutes'],
    [3600, '1 hour'],
    [5400, '1 hour and 30 minutes'],
    [7260, '2 hours and 1 minute'],
  ])('%d seconds: %s', (seconds, words) => {
    expect(waitInWords(seconds)).toBe(words);
  });
});

describe('the failure limits', () => {
  const limits = (env: Record<string, string>) => {
    const a = loadConfig(env).auth;
    return [a.maxFailures, a.maxFailuresPerEmail, a.maxFailuresPerAddress];
  };

  test('default to 10 per address and e-mail, 30 per e-mail and 100 per address, the wider ones scaling with AUTH_MAX_FAILURES', () => {
    expect(limits({})).toEqual([10, 30, 100]);
    expect(limits({ AUTH_MAX_FAILURES: '5' })).toEqual([5, 15, 50]);
    expect(limits({ AUTH_MAX_FAILURES_PER_EMAIL: '12', AUTH_MAX_FAILURES_PER_ADDRESS: '500' })).toEqual([10, 12, 500]);
  });

  test.each(['AUTH_MAX_FAILURES_PER_EMAIL', 'AUTH_MAX_FAILURES_PER_ADDRESS'])(
    '%s below AUTH_MAX_FAILURES, zero or not a number stops start-up naming it',
    (name) => {
      expect(() => loadConfig({ [name]: '9' })).toThrow(`${name} must be at least AUTH_MAX_FAILURES (10), got "9"`);
      expect(() => loadConfig({ [name]: '0' })).toThrow(`${name} must be a positive integer`);
      expect(() => loadConfig({ [name]: 'many' })).toThrow(`${name} must be a non-negative integer`);
    },
  );
});
