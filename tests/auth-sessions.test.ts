import {
  clearSessionCookie,
  readSessionCookie,
  SESSION_COOKIE,
  sessionCookie,
  sessionCookieValue,
} from '../engine/serve/auth/session-cookie';
import { loadUserSession, verifyCredentials, type UserSession } from '../engine/serve/auth/users';
import { activateUser, suspendUser } from '../engine/cli/admin';
import { loadConfig } from '../engine/core/config';
import { DEMO } from '../demo/demo-data';
import { authEnv, bearer, gqlWith, jwtFor, newSecret, within, withPassword } from './support/auth';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * The three ways into the GraphQL API, in their order: a Bearer JWT, the browser session cookie set by
 * sign-in, the admin secret. Also built-in credentials (the sign-in page's check), whose passwords the
 * tests set: the demo data has none.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const alice = acme.users.admin;
const victor = acme.users.readonly;
const ENV = authEnv();
const TENANT = '{ tenant { id } }';

describe(`sessions on ${backendName}`, () => {
  let server: TestServer;
  const config = () => server.started.engine.config;
  let aliceSession: UserSession;
  const cookie = (value: string) => ({ cookie: `theme=dark; ${SESSION_COOKIE}=${value}; other=1` });

  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
    aliceSession = {
      userId: alice.id,
      tenantId: acme.id,
      role: 'tenant_admin',
      email: alice.username,
      displayName: alice.displayName,
    };
  });
  afterAll(() => server.close());

  describe('built-in credentials', () => {
    const password = `pw-${newSecret()}`;
    beforeAll(() => withPassword(server.started.db, alice.username, password));

    test('the right password gives the session of the default tenant', async () => {
      expect(await verifyCredentials(server.started.db, alice.username.toUpperCase(), password)).toEqual(aliceSession);
    });

    test('a wrong password, an unknown e-mail, a user without a password: null', async () => {
      expect(await verifyCredentials(server.started.db, alice.username, `${password}x`)).toBeNull();
      expect(await verifyCredentials(server.started.db, 'nobody@acme.example.com', password)).toBeNull();
      expect(await verifyCredentials(server.started.db, victor.username, password)).toBeNull();
    });

    test('the stored value is a salted scrypt hash', async () => {
      const [row] = await server.started.db.query('SELECT password_hash FROM users WHERE id = $1::uuid', [alice.id]);
      expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
      expect(row.password_hash).not.toContain(password);
    });

    test('tenant roles cannot read password hashes through GraphQL', async () => {
      const { jwt } = await jwtFor(server, alice.username);
      const res = await gqlWith(server, bearer(jwt), '{ users { password_hash } }');
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
    });

    test('a suspended user: null, even with the right password', async () => {
      await suspendUser(server.started.db, alice.username);
      try {
        expect(await verifyCredentials(server.started.db, alice.username, password)).toBeNull();
        expect(await loadUserSession(server.started.db, alice.id, acme.id)).toBeNull();
      } finally {
        await activateUser(server.started.db, alice.username);
      }
      expect(await loadUserSession(server.started.db, alice.id, acme.id)).toEqual(aliceSession);
      expect(await loadUserSession(server.started.db, alice.id, globex.id)).toBeNull();
    });
  });

  describe('the session cookie', () => {
    test('Set-Cookie: HttpOnly, SameSite=Lax, Path=/, 8 hours; Secure when NEXTAUTH_URL is https', () => {
      const set = sessionCookie(config(), aliceSession);
      expect(set).toMatch(
        new RegExp(`^${SESSION_COOKIE}=[\\w-]+\\.[\\w-]+; Path=/; HttpOnly; SameSite=Lax; Max-Age=28800$`),
      );
      const https = loadConfig({ ...ENV, NEXTAUTH_URL: 'https://platform.example.com' });
      expect(sessionCookie(https, aliceSession)).toMatch(/; Secure$/);
      expect(clearSessionCookie(config())).toBe(`${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`);
    });

    test('it signs in to GraphQL as its user, in its tenant', async () => {
      const value = sessionCookieValue(config(), aliceSession);
      const res = await gqlWith(
        server,
        cookie(value),
        '{ tenant { id } cloud_accounts_aggregate { aggregate { count } } }',
      );
      expect(res.body).toEqual({
        data: {
          tenant: [{ id: acme.id }],
          cloud_accounts_aggregate: { aggregate: { count: DEMO.perTenant.cloudAccounts } },
        },
      });
      const list = await gqlWith(server, cookie(value), '{ api_tokens { id } }');
      expect(list.body.errors).toBeUndefined();
    });

    test('readSessionCookie checks the signature and expiry, and with the database the user', async () => {
      const value = sessionCookieValue(config(), aliceSession);
      expect(await readSessionCookie(config(), `a=b; ${SESSION_COOKIE}=${value}`)).toEqual(aliceSession);
      expect(await readSessionCookie(config(), `${SESSION_COOKIE}=${value}`, server.started.db)).toEqual(aliceSession);
      expect(await readSessionCookie(config(), `${SESSION_COOKIE}=${value}x`)).toBeUndefined();
      expect(await readSessionCookie(config(), undefined)).toBeUndefined();
      const old = sessionCookieValue(config(), aliceSession, Math.floor(Date.now() / 1000) - 9 * 3600);
      expect(await readSessionCookie(config(), `${SESSION_COOKIE}=${old}`)).toBeUndefined();
    });

    test.each([
      ['tampered', () => sessionCookieValue(config(), aliceSession).replace(/^./, (c) => (c === 'e' ? 'f' : 'e'))],
      ['expired', () => sessionCookieValue(config(), aliceSession, Math.floor(Date.now() / 1000) - 9 * 3600)],
      [
        'signed with another secret',
        () => sessionCookieValue(loadConfig({ ...ENV, NEXTAUTH_SECRET: newSecret() }), aliceSession),
      ],
      ['not a cookie of ours', () => 'garbage'],
    ])('%s: 401 asking to sign in again', async (_name, make) => {
      const res = await gqlWith(server, cookie(make()), TENANT);
      expect(res.status).toBe(401);
      expect(res.body.errors[0]).toEqual({
        message: 'the session has expired or is no longer valid: sign in again',
        extensions: { code: 'access-denied', path: '$' },
      });
    });

    test('claims edited in the cookie (another tenant) break its signature', async () => {
      const [data, sig] = sessionCookieValue(config(), aliceSession).split('.');
      const payload = JSON.parse(Buffer.from(data, 'base64url').toString());
      payload.tid = globex.id;
      const res = await gqlWith(
        server,
        cookie(`${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`),
        TENANT,
      );
      expect(res.status).toBe(401);
    });

    test('a read-only user’s cookie cannot mutate', async () => {
      const value = sessionCookieValue(config(), {
        userId: victor.id,
        tenantId: acme.id,
        role: 'tenant_admin_readonly',
        email: victor.username,
        displayName: victor.displayName,
      });
      const res = await gqlWith(
        server,
        cookie(value),
        'mutation { delete_cloud_accounts(where: {}) { affected_rows } }',
      );
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
    });

    test('a suspended user’s cookie stops working within a second', async () => {
      const value = sessionCookieValue(config(), aliceSession);
      expect((await gqlWith(server, cookie(value), TENANT)).status).toBe(200);
      await suspendUser(server.started.db, alice.username);
      try {
        expect(
          await within(1000, async () => (await gqlWith(server, cookie(value), TENANT)).status === 401),
        ).toBeGreaterThanOrEqual(0);
        expect(await readSessionCookie(config(), `${SESSION_COOKIE}=${value}`, server.started.db)).toBeUndefined();
      } finally {
        await activateUser(server.started.db, alice.username);
      }
    });

    test('a cookie claiming a role the user does not hold is refused', async () => {
      const value = sessionCookieValue(config(), { ...aliceSession, userId: victor.id });
      expect((await gqlWith(server, cookie(value), TENANT)).status).toBe(401);
    });
  });

  describe('the order: Bearer JWT, then the cookie, then the admin secret', () => {
    test('a Bearer header decides, even next to a good cookie or the admin secret', async () => {
      const value = sessionCookieValue(config(), aliceSession);
      const res = await gqlWith(
        server,
        { ...bearer('not-a-jwt'), ...cookie(value), 'x-hasura-admin-secret': 'test-admin-secret' },
        TENANT,
      );
      expect(res.status).toBe(401);
      expect(res.body.errors[0].extensions.code).toBe('invalid-jwt');
    });

    test('a good cookie wins over the admin secret; a bad one leaves it to the admin secret', async () => {
      const value = sessionCookieValue(config(), aliceSession);
      const withCookie = await gqlWith(
        server,
        { ...cookie(value), 'x-hasura-admin-secret': 'test-admin-secret' },
        TENANT,
      );
      expect(withCookie.body.data.tenant).toEqual([{ id: acme.id }]);
      const badCookie = await gqlWith(
        server,
        { ...cookie('garbage'), 'x-hasura-admin-secret': 'test-admin-secret' },
        TENANT,
      );
      expect(badCookie.body.data.tenant).toHaveLength(2);
    });

    test('a cookie value is not a Bearer JWT, and an API JWT is not a cookie', async () => {
      const value = sessionCookieValue(config(), aliceSession);
      expect((await gqlWith(server, bearer(value), TENANT)).status).toBe(401);
      const { jwt } = await jwtFor(server, alice.username);
      expect((await gqlWith(server, cookie(jwt), TENANT)).status).toBe(401);
    });
  });
});
