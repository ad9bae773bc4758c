import { deleteApiToken } from '../engine/serve/auth/api-tokens';
import { SESSION_COOKIE, sessionCookieValue } from '../engine/serve/auth/session-cookie';
import { DEMO } from '../demo/demo-data';
import { authEnv, bearer, exchange, gqlWith, jwtFor, tokenFor } from './support/auth';
import { backendName } from './support/database';
import { ADMIN_SECRET, as, startTestServer, type TestServer } from './support/server';

/**
 * The settings page's GraphQL operations on the signed-in user's own API tokens (create with a name,
 * list Name / Created / Last Used, delete), and what deletion does: the exchange and every JWT minted
 * from the token fail at once. Creating is for a browser session (the session cookie) only: a JWT
 * lists and deletes, but cannot mint itself a long-lived token.
 */
const acme = DEMO.tenants.acme;
const alice = acme.users.admin;
const victor = acme.users.readonly;
const grace = DEMO.tenants.globex.users.admin;

const LIST = '{ api_tokens { id name prefix created_at last_used_at } }';
const CREATE = 'mutation($name: String!) { create_api_token(name: $name) { id name prefix created_at secret } }';
const DELETE = 'mutation($id: uuid!) { delete_api_token(id: $id) { id deleted } }';

describe(`API tokens through GraphQL on ${backendName}`, () => {
  let server: TestServer;
  let aliceJwt: string;
  let victorJwt: string;
  let graceJwt: string;
  const gql = (jwt: string, query: string, variables?: Record<string, unknown>) =>
    gqlWith(server, bearer(jwt), query, variables);
  const ok = async (jwt: string, query: string, variables?: Record<string, unknown>) => {
    const res = await gql(jwt, query, variables);
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };
  /** The headers of a signed-in browser: the user's session cookie. */
  const browser = (u: { id: string; username: string; displayName: string }, tenantId: string) => ({
    cookie: `${SESSION_COOKIE}=${sessionCookieValue(server.started.engine.config, {
      userId: u.id,
      tenantId,
      role: 'tenant_admin',
      email: u.username,
      displayName: u.displayName,
    })}`,
  });
  /** create_api_token from the user's browser session. */
  const create = (u: typeof alice, tenantId: string, name: string) =>
    gqlWith(server, browser(u, tenantId), CREATE, { name });
  const created = async (u: typeof alice, tenantId: string, name: string) => {
    const res = await create(u, tenantId, name);
    expect(res.body.errors).toBeUndefined();
    return res.body.data.create_api_token;
  };
  const aliceCreates = (name: string) => created(alice, acme.id, name);
  const graceCreates = (name: string) => created(grace, DEMO.tenants.globex.id, name);

  beforeAll(async () => {
    server = await startTestServer({ env: authEnv({ AUTH_MAX_FAILURES: '1000' }) });
    aliceJwt = (await jwtFor(server, alice.username, 'bootstrap')).jwt;
    victorJwt = (await jwtFor(server, victor.username, 'bootstrap')).jwt;
    graceJwt = (await jwtFor(server, grace.username, 'bootstrap')).jwt;
  });
  afterAll(() => server.close());

  test('create returns the secret once; the list shows Name, Created and Last Used, never the secret', async () => {
    const created = await aliceCreates('  deploy script  ');
    expect(created).toMatchObject({ name: 'deploy script', prefix: created.secret.slice(0, 9) });
    expect(created.secret).toMatch(/^plat_[\w-]{43}$/);
    expect(Math.abs(Date.parse(created.created_at) - Date.now())).toBeLessThan(60_000);
    const listed = await gql(aliceJwt, LIST);
    const mine = listed.body.data.api_tokens.find((t: { id: string }) => t.id === created.id);
    expect(mine).toEqual({
      id: created.id,
      name: 'deploy script',
      prefix: created.prefix,
      created_at: created.created_at,
      last_used_at: null,
    });
    expect(listed.text).not.toContain(created.secret.slice(9));
    // The secret cannot be asked for again: the list type has no such field.
    const again = await gql(aliceJwt, '{ api_tokens { secret } }');
    expect(again.body.errors[0].extensions.code).toBe('validation-failed');
    // The created secret works in the exchange, and Last Used appears in the list.
    expect((await exchange(server, alice.username, created.secret)).status).toBe(200);
    const after = (await ok(aliceJwt, LIST)).api_tokens.find((t: { id: string }) => t.id === created.id);
    expect(Date.parse(after.last_used_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at));
  });

  test('the list is the user’s own live tokens, newest first', async () => {
    const a = await graceCreates('first');
    await new Promise((r) => setTimeout(r, 5));
    const b = await graceCreates('second');
    const list = (await ok(graceJwt, LIST)).api_tokens as { id: string; created_at: string }[];
    expect(list.slice(0, 2).map((t) => t.id)).toEqual([b.id, a.id]);
    const times = list.map((t) => Date.parse(t.created_at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    const [{ n }] = await server.started.db.query(
      'SELECT count(*)::int AS n FROM api_tokens WHERE user_id = $1::uuid AND deleted_at IS NULL',
      [grace.id],
    );
    expect(list).toHaveLength(n as number);
    // Alice sees none of Grace's tokens.
    const alices = (await ok(aliceJwt, LIST)).api_tokens.map((t: { id: string }) => t.id);
    expect(alices).not.toContain(a.id);
    expect(alices).not.toContain(b.id);
  });

  test('a token belongs to the user and the tenant of the session', async () => {
    const t = (await ok(victorJwt, LIST)).api_tokens;
    expect(t.length).toBeGreaterThan(0);
    const created = await aliceCreates('tenant check');
    const [row] = await server.started.db.query(
      'SELECT user_id::text AS u, tenant_id::text AS t FROM api_tokens WHERE id = $1::uuid',
      [created.id],
    );
    expect(row).toEqual({ u: alice.id, t: acme.id });
  });

  test.each([
    ['empty', '', 'must not be empty'],
    ['blank', '   ', 'must not be empty'],
    ['101 characters', 'x'.repeat(101), 'at most 100 characters'],
    ['a control character', 'a\u0007b', 'control characters'],
  ])('a name that is %s is refused', async (_n, name, message) => {
    const res = await create(alice, acme.id, name);
    expect(res.body.errors[0].extensions.code).toBe('validation-failed');
    expect(res.body.errors[0].message).toContain(message);
  });

  test('100 characters is a name', async () => {
    expect((await aliceCreates('y'.repeat(100))).name).toHaveLength(100);
  });

  describe('only a browser session creates tokens', () => {
    const count = async () =>
      (
        await server.started.db.query(
          'SELECT count(*)::int AS n FROM api_tokens WHERE user_id = $1::uuid AND deleted_at IS NULL',
          [alice.id],
        )
      )[0].n as number;
    const refusal = {
      code: 'access-denied',
      message: expect.stringContaining('API tokens are created from a browser session'),
    };

    test('a JWT cannot mint a long-lived token; it lists and deletes its user’s own', async () => {
      const before = await count();
      const res = await gql(aliceJwt, CREATE, { name: 'from a JWT' });
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors).toHaveLength(1);
      expect({ code: res.body.errors[0].extensions.code, message: res.body.errors[0].message }).toEqual(refusal);
      expect(await count()).toBe(before);
      // The same JWT lists and deletes.
      const mine = await aliceCreates('for the JWT to delete');
      expect((await ok(aliceJwt, LIST)).api_tokens.map((t: { id: string }) => t.id)).toContain(mine.id);
      expect((await ok(aliceJwt, DELETE, { id: mine.id })).delete_api_token).toEqual({ id: mine.id, deleted: true });
      expect(await count()).toBe(before);
    });

    test('the admin secret acting as a user cannot either (operators use npm run admin -- create-token)', async () => {
      const before = await count();
      const res = await gqlWith(
        server,
        { 'x-hasura-admin-secret': ADMIN_SECRET, ...as('tenant_admin', acme.id, alice.id) },
        CREATE,
        { name: 'from the admin secret' },
      );
      expect({ code: res.body.errors[0].extensions.code, message: res.body.errors[0].message }).toEqual(refusal);
      expect(await count()).toBe(before);
    });

    test('the session cookie creates one', async () => {
      const before = await count();
      expect((await aliceCreates('from the browser')).secret).toMatch(/^plat_/);
      expect(await count()).toBe(before + 1);
    });
  });

  test('the read-only role lists its tokens but has no token mutations (its settings page manages them server-side)', async () => {
    expect(Array.isArray((await ok(victorJwt, LIST)).api_tokens)).toBe(true);
    for (const [q, v] of [
      [CREATE, { name: 'x' }],
      [DELETE, { id: acme.id }],
    ] as const) {
      const res = await gql(victorJwt, q, v);
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      expect(res.body.data).toBeUndefined();
    }
  });

  test('a session without a user cannot manage tokens', async () => {
    const res = await server.gql(LIST, {}, as('tenant_admin', acme.id));
    expect(res.body.errors[0].extensions.code).toBe('access-denied');
    expect(res.body.errors[0].message).toContain('x-hasura-user-id');
  });

  describe('deletion', () => {
    test('the exchange and every JWT minted from the token fail at once; other tokens go on', async () => {
      const t = await tokenFor(server.started.db, alice.username, 'to delete');
      const jwts: string[] = [];
      for (let i = 0; i < 3; i++) jwts.push((await exchange(server, alice.username, t.secret)).body.token);
      const other = await jwtFor(server, alice.username, 'kept');
      for (const jwt of jwts) expect((await gql(jwt, '{ tenant { id } }')).status).toBe(200);

      const res = await gql(aliceJwt, DELETE, { id: t.id });
      expect(res.body).toEqual({ data: { delete_api_token: { id: t.id, deleted: true } } });

      // The very next requests: no wait.
      const ex = await exchange(server, alice.username, t.secret);
      expect(ex.status).toBe(401);
      expect(ex.body.errors[0].extensions.code).toBe('invalid-credentials');
      for (const jwt of jwts) {
        const r = await gql(jwt, '{ tenant { id } }');
        expect(r.status).toBe(401);
        expect(r.body.errors[0]).toEqual({
          message: 'the API token this JWT was issued for has been deleted',
          extensions: { code: 'invalid-jwt', path: '$' },
        });
      }
      expect((await gql(other.jwt, '{ tenant { id } }')).status).toBe(200);
      expect((await ok(aliceJwt, LIST)).api_tokens.map((x: { id: string }) => x.id)).not.toContain(t.id);
      // Deleting is once: a second time finds nothing.
      expect((await gql(aliceJwt, DELETE, { id: t.id })).body).toEqual({
        data: { delete_api_token: { id: t.id, deleted: false } },
      });
    });

    test('a JWT can delete its own token, and is refused from the next request on', async () => {
      const self = await jwtFor(server, alice.username, 'self');
      expect((await gql(self.jwt, DELETE, { id: self.tokenId })).body.data.delete_api_token.deleted).toBe(true);
      expect((await gql(self.jwt, '{ tenant { id } }')).status).toBe(401);
    });

    test('the settings page’s server-side call does the same', async () => {
      const t = await jwtFor(server, victor.username, 'page');
      expect((await gql(t.jwt, '{ tenant { id } }')).status).toBe(200);
      expect(await deleteApiToken(server.started.db, victor.id, t.tokenId)).toBe(true);
      expect((await gql(t.jwt, '{ tenant { id } }')).status).toBe(401);
      expect((await exchange(server, victor.username, t.secret)).status).toBe(401);
    });

    test('a user cannot delete another user’s token', async () => {
      const theirs = await jwtFor(server, grace.username, 'not yours');
      expect((await gql(aliceJwt, DELETE, { id: theirs.tokenId })).body).toEqual({
        data: { delete_api_token: { id: theirs.tokenId, deleted: false } },
      });
      expect(await deleteApiToken(server.started.db, alice.id, theirs.tokenId)).toBe(false);
      expect((await gql(theirs.jwt, '{ tenant { id } }')).status).toBe(200);
      expect((await exchange(server, grace.username, theirs.secret)).status).toBe(200);
    });

    test('a malformed id is a validation error', async () => {
      const res = await gql(aliceJwt, DELETE, { id: 'nope' });
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
    });
  });
});
