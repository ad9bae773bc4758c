import { activateUser, suspendUser } from '../engine/cli/admin';
import { DEMO } from '../demo/demo-data';
import { authEnv, gqlWith, newSecret, signInForm, startSibling, within, withPassword } from './support/auth';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * Sessions end server-side: a signed-out cookie, copied before sign-out, is refused on a second
 * instance too (the NOTIFY of ended_sessions, not the recheck period, which is set long here); a
 * password change, a suspension and "sign out everywhere" end all of the user's sessions.
 */
const acme = DEMO.tenants.acme;
const alice = acme.users.admin;
const ENV = authEnv({ AUTH_RECHECK_SECONDS: '300' });
const TENANT = '{ tenant { id } }';

describe(`sessions ended server-side on ${backendName}`, () => {
  let a: TestServer;
  let b: Awaited<ReturnType<typeof startSibling>>;
  let password = `pw-${newSecret()}`;

  beforeAll(async () => {
    a = await startTestServer({ env: ENV });
    b = await startSibling(a, ENV);
    await withPassword(a.started.db, alice.username, password);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.close();
  });

  /** Signs in on the first instance; the session cookie's `name=value`. */
  const signIn = async () => {
    const res = await signInForm(a, alice.username, password);
    expect(res.status).toBe(303);
    return /platform_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
  };
  const works = async (server: { post: TestServer['post'] }, cookie: string) => {
    const res = await gqlWith(server, { cookie }, TENANT);
    if (res.status === 200) {
      expect(res.body.data.tenant).toEqual([{ id: acme.id }]);
      return true;
    }
    expect([res.status, res.body.errors[0].extensions.code]).toEqual([401, 'access-denied']);
    return false;
  };
  const refusedOnB = async (cookie: string) => within(2000, async () => !(await works(b, cookie)));
  const form = (path: string, cookie: string) => {
    const csrf = newSecret();
    return fetch(`${a.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${cookie}; platform_csrf=${csrf}` },
      body: new URLSearchParams({ csrf }).toString(),
    });
  };

  test('a copy of the cookie stops working on the other instance when the session signs out', async () => {
    const cookie = await signIn();
    const copy = `${cookie}`;
    expect(await works(b, copy)).toBe(true);
    expect(await works(b, copy)).toBe(true); // now remembered by the second instance
    const db = a.started.db;
    await db.query(
      `INSERT INTO ended_sessions (id_hash, user_id, expires_at) VALUES ('expired', $1::uuid, now() - interval '1 minute')`,
      [alice.id],
    );
    const out = await form('/signout', cookie);
    // Recorded as a hash only, until the cookie would expire; rows past that are pruned.
    const rows = await db.query('SELECT id_hash FROM ended_sessions WHERE user_id = $1::uuid', [alice.id]);
    expect(rows.map((r) => String(r.id_hash))).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/)]);
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^platform_session=; /);
    expect(await refusedOnB(copy)).toBeGreaterThanOrEqual(0);
    expect(await works(a, copy)).toBe(false);
    // The page on the first instance too.
    const page = await fetch(`${a.url}/settings`, { redirect: 'manual', headers: { cookie: copy } });
    expect([page.status, page.headers.get('location')]).toEqual([303, '/signin']);
    // Another session of the same user goes on.
    expect(await works(b, await signIn())).toBe(true);
  });

  test("a password change ends all the user's sessions; signing in with the new one works", async () => {
    const [one, two] = [await signIn(), await signIn()];
    expect((await works(b, one)) && (await works(b, two))).toBe(true);
    password = `pw-${newSecret()}`;
    await withPassword(a.started.db, alice.username, password);
    expect(await refusedOnB(one)).toBeGreaterThanOrEqual(0);
    expect(await refusedOnB(two)).toBeGreaterThanOrEqual(0);
    expect(await works(b, await signIn())).toBe(true);
  });

  test('a suspension ends them for good: reactivated, the user must sign in again', async () => {
    const cookie = await signIn();
    expect(await works(b, cookie)).toBe(true);
    await suspendUser(a.started.db, alice.username);
    try {
      expect(await refusedOnB(cookie)).toBeGreaterThanOrEqual(0);
    } finally {
      await activateUser(a.started.db, alice.username);
    }
    expect(await works(b, cookie)).toBe(false);
    expect(await works(a, cookie)).toBe(false);
    expect(await works(b, await signIn())).toBe(true);
  });

  test('"sign out everywhere" on the Profile page ends every session of the user', async () => {
    const [here, elsewhere] = [await signIn(), await signIn()];
    const profile = await fetch(`${a.url}/settings?tab=profile`, { headers: { cookie: here } });
    expect(await profile.text()).toContain('action="/signout/everywhere"');
    expect((await works(b, here)) && (await works(b, elsewhere))).toBe(true);
    expect((await form('/signout/everywhere', here)).status).toBe(303);
    expect(await refusedOnB(elsewhere)).toBeGreaterThanOrEqual(0);
    expect(await works(b, here)).toBe(false);
    expect(await works(b, await signIn())).toBe(true);
  });
});
