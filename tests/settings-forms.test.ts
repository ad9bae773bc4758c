import { DEMO } from '../demo/demo-data';
import { authEnv, gqlWith, newSecret, signInForm, withPassword } from './support/auth';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * The settings forms over plain HTTP, for what a browser does not show: the one-time cookie that
 * carries a new token's secret from "Create Token" to the page it redirects to (its attributes, that
 * it does not hold the secret in clear, that it is bound to its user and refused when altered), and
 * the password change (throttled like sign-in, the other sessions ended, the new cookie working).
 */
const alice = DEMO.tenants.acme.users.admin;
const bob = DEMO.tenants.acme.users.readonly;

describe(`settings forms on ${backendName}`, () => {
  let server: TestServer;
  const passwords = { alice: `pw-${newSecret()}`, bob: `pw-${newSecret()}` };

  beforeAll(async () => {
    server = await startTestServer({ env: authEnv({ AUTH_MAX_FAILURES: '3', AUTH_RECHECK_SECONDS: '300' }) });
    await withPassword(server.started.db, alice.username, passwords.alice);
    await withPassword(server.started.db, bob.username, passwords.bob);
  });
  afterAll(() => server?.close());

  const signIn = async (email: string, password: string) => {
    const res = await signInForm(server, email, password);
    expect(res.status).toBe(303);
    return /platform_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
  };
  const post = (path: string, cookie: string, fields: Record<string, string>) => {
    const csrf = newSecret();
    return fetch(`${server.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${cookie}; platform_csrf=${csrf}` },
      body: new URLSearchParams({ csrf, ...fields }).toString(),
    });
  };
  const get = (path: string, cookie: string) =>
    fetch(`${server.url}${path}`, { redirect: 'manual', headers: { cookie } });
  const tokens = async () => Number((await server.started.db.query('SELECT count(*)::int AS n FROM api_tokens'))[0].n);

  test('Create Token: 303 to a page of its own, the secret in a one-time encrypted cookie', async () => {
    const session = await signIn(alice.username, passwords.alice);
    const before = await tokens();
    const res = await post('/settings/tokens', session, { name: 'nightly' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/settings/tokens/created');
    expect(await tokens()).toBe(before + 1);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^platform_new_token=[^;]+; Max-Age=120; Path=\/settings; HttpOnly; SameSite=Strict$/);
    const carried = /platform_new_token=[^;]+/.exec(setCookie)![0];

    const page = await get('/settings/tokens/created', `${session}; ${carried}`);
    const html = await page.text();
    const secret = /<code id="token-secret">(plat_[A-Za-z0-9_-]+)<\/code>/.exec(html)![1];
    expect(carried).not.toContain(secret);
    expect(carried).not.toContain(secret.slice(5, 20));
    // Shown, and the cookie deleted in the same answer.
    expect(page.headers.get('set-cookie')).toMatch(/^platform_new_token=; Max-Age=0; Path=\/settings/);
    expect(page.headers.get('cache-control')).toBe('no-store');

    // The cookie is Alice's: with Bob's session it shows nothing; altered, nothing either.
    const bobs = await get('/settings/tokens/created', `${await signIn(bob.username, passwords.bob)}; ${carried}`);
    expect(await bobs.text()).not.toContain(secret);
    // A character in the middle: the last one of base64url text may carry bits that decode to nothing.
    const at = carried.indexOf('=') + 10;
    const altered = carried.slice(0, at) + (carried[at] === 'A' ? 'B' : 'A') + carried.slice(at + 1);
    const tampered = await (await get('/settings/tokens/created', `${session}; ${altered}`)).text();
    expect(tampered).not.toContain('token-secret');
    expect(tampered).toContain('shown once only');
  });

  test('a bad name answers 400 on the form, and creates nothing', async () => {
    const session = await signIn(alice.username, passwords.alice);
    const before = await tokens();
    const res = await post('/settings/tokens', session, { name: ' ' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Give the token a name');
    expect(await tokens()).toBe(before);
  });

  test('the password change: throttled like sign-in, ends the other sessions, keeps this one', async () => {
    const here = await signIn(bob.username, passwords.bob);
    const elsewhere = await signIn(bob.username, passwords.bob);
    const next = `pw-${newSecret()}`;
    const change = (current: string, password = next, confirm = password) =>
      post('/settings/password', here, { current, password, confirm });

    expect((await change(passwords.bob, 'short')).status).toBe(400);
    expect((await change(passwords.bob, passwords.bob)).status).toBe(400);
    expect(await (await change(passwords.bob, next, `${next}!`)).text()).toContain('The two new passwords differ');
    // Wrong current passwords count as failed sign-ins: AUTH_MAX_FAILURES is 3 here, the 4th is refused.
    for (const attempt of [1, 2, 3]) expect((await change(`wrong-${attempt}`)).status).toBe(401);
    const fourth = await change('wrong-4');
    expect(fourth.status).toBe(429);
    expect(await fourth.text()).toContain('Too many failed attempts');
    expect((await change(passwords.bob)).status).toBe(429); // locked, even with the right one
    await server.started.db.query('DELETE FROM auth_failures');

    const ok = await change(passwords.bob);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/settings?tab=profile&changed=password');
    const renewed = /platform_session=[^;]+/.exec(ok.headers.get('set-cookie') ?? '')![0];
    expect((await gqlWith(server, { cookie: renewed }, '{ tenant { id } }')).status).toBe(200);
    expect((await gqlWith(server, { cookie: elsewhere }, '{ tenant { id } }')).status).toBe(401);
    expect((await gqlWith(server, { cookie: here }, '{ tenant { id } }')).status).toBe(401);
    expect((await signInForm(server, bob.username, passwords.bob)).status).toBe(401);
    expect((await signInForm(server, bob.username, next)).status).toBe(303);
  });
});
