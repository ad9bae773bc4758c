import { createUser, suspendUser } from '../engine/cli/admin';
import { DEMO } from '../demo/demo-data';
import { authEnv, bearer, claimsOf, exchange, gqlWith, tokenFor } from './support/auth';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * POST /api/auth/token through HTTP: {email, secret} -> {token, expiry}; Last Used; the one 401 for
 * every wrong credential; 400 naming what is malformed; the API token is never a Bearer token.
 */
const acme = DEMO.tenants.acme;
const alice = acme.users.admin;
const victor = acme.users.readonly;
const grace = DEMO.tenants.globex.users.admin;
// Failures here are on purpose: the lock-out has a test file of its own.
const ENV = authEnv({ AUTH_MAX_FAILURES: '1000' });

describe(`token exchange on ${backendName}`, () => {
  let server: TestServer;
  const lastUsed = async (id: string) => {
    const [row] = await server.started.db.query('SELECT last_used_at FROM api_tokens WHERE id = $1::uuid', [id]);
    return row.last_used_at === null ? null : new Date(row.last_used_at as string).getTime();
  };

  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
  });
  afterAll(() => server.close());

  test('a token of the user exchanges for a JWT naming the user, the tenant, the role and the token', async () => {
    const t = await tokenFor(server.started.db, alice.username, 'ci');
    const res = await exchange(server, alice.username, t.secret);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['expiry', 'token']);
    expect(res.body.expiry).toBe(3600);
    const c = claimsOf(res.body.token);
    expect(c).toMatchObject({
      sub: alice.id,
      email: alice.username,
      tenant_id: acme.id,
      role: 'tenant_admin',
      token_id: t.id,
      iss: ENV.NEXTAUTH_URL,
      aud: `${ENV.NEXTAUTH_URL}/api/graphql`,
      'https://hasura.io/jwt/claims': {
        'x-hasura-default-role': 'tenant_admin',
        'x-hasura-allowed-roles': ['tenant_admin'],
        'x-hasura-user-id': alice.id,
        'x-hasura-tenant-id': acme.id,
        'x-hasura-token-id': t.id,
      },
    });
    expect(c.exp - c.iat).toBe(3600);
    // `kid` names the key (a hash of it), so that a JWT of a replaced key is refused saying so.
    expect(JSON.parse(Buffer.from(res.body.token.split('.')[0], 'base64url').toString())).toEqual({
      alg: 'HS256',
      typ: 'JWT',
      kid: expect.stringMatching(/^[A-Za-z0-9_-]{8,}$/),
    });
    // The JWT works at once.
    const q = await gqlWith(server, bearer(res.body.token), '{ tenant { id } }');
    expect(q.body).toEqual({ data: { tenant: [{ id: acme.id }] } });
    expect(res.text).not.toContain(t.secret);
  });

  test('the e-mail matches whatever its case and surrounding spaces', async () => {
    const t = await tokenFor(server.started.db, alice.username);
    expect((await exchange(server, `  ${alice.username.toUpperCase()} `, t.secret)).status).toBe(200);
  });

  test('each successful exchange updates Last Used; a failed one does not', async () => {
    const t = await tokenFor(server.started.db, victor.username, 'last used');
    expect(await lastUsed(t.id)).toBeNull();
    const before = Date.now();
    expect((await exchange(server, victor.username, t.secret)).status).toBe(200);
    const first = await lastUsed(t.id);
    expect(first).not.toBeNull();
    expect(Math.abs(first! - before)).toBeLessThan(60_000);
    await new Promise((r) => setTimeout(r, 30));
    expect((await exchange(server, victor.username, t.secret)).status).toBe(200);
    const second = await lastUsed(t.id);
    expect(second!).toBeGreaterThan(first!);
    expect((await exchange(server, grace.username, t.secret)).status).toBe(401);
    expect(await lastUsed(t.id)).toBe(second);
  });

  describe('every wrong credential gets the same 401', () => {
    let bodies: Record<string, { status: number; text: string }>;

    beforeAll(async () => {
      const db = server.started.db;
      await createUser(db, {
        tenant: acme.id,
        email: 'sam.suspended@acme.example.com',
        name: 'Sam Suspended',
        role: 'tenant_admin',
      });
      const good = await tokenFor(db, alice.username, 'good');
      const deleted = await tokenFor(db, alice.username, 'to delete');
      const suspended = await tokenFor(db, 'sam.suspended@acme.example.com', 'suspended');
      const graces = await tokenFor(db, grace.username, 'grace');
      await db.query('UPDATE api_tokens SET deleted_at = now() WHERE id = $1::uuid', [deleted.id]);
      await suspendUser(db, 'sam.suspended@acme.example.com');
      const flip = good.secret.slice(0, -1) + (good.secret.endsWith('A') ? 'B' : 'A');
      const cases: Record<string, [string, string]> = {
        'wrong secret': [alice.username, flip],
        'a secret that is not a token': [alice.username, 'hunter2'],
        'unknown e-mail': ['nobody@acme.example.com', good.secret],
        "another user's e-mail": [victor.username, good.secret],
        "another tenant's user with this token": [grace.username, good.secret],
        "another user's token with this e-mail": [alice.username, graces.secret],
        'deleted token': [alice.username, deleted.secret],
        'suspended user': ['sam.suspended@acme.example.com', suspended.secret],
      };
      bodies = {};
      for (const [name, [email, secret]] of Object.entries(cases)) {
        const res = await exchange(server, email, secret);
        bodies[name] = { status: res.status, text: res.text };
      }
      // The right pair still works: nothing above was a lock-out.
      expect((await exchange(server, alice.username, good.secret)).status).toBe(200);
    });

    test.each([
      'wrong secret',
      'a secret that is not a token',
      'unknown e-mail',
      "another user's e-mail",
      "another tenant's user with this token",
      "another user's token with this e-mail",
      'deleted token',
      'suspended user',
    ])('%s: 401, same body', (name) => {
      expect(bodies[name].status).toBe(401);
      expect(bodies[name].text).toBe(bodies['wrong secret'].text);
      expect(JSON.parse(bodies[name].text)).toEqual({
        errors: [{ message: 'invalid e-mail or API token', extensions: { code: 'invalid-credentials', path: '$' } }],
      });
    });
  });

  describe('a malformed request is 400 naming the problem', () => {
    const post = (body: string, headers: Record<string, string> = {}) => server.post('/api/auth/token', body, headers);
    test.each([
      ['not JSON', '{"email": ', {}, 'not valid JSON', '$'],
      ['an array', '[]', {}, 'must be a JSON object', '$'],
      ['a string', '"x"', {}, 'must be a JSON object', '$'],
      ['no email', '{"secret":"plat_x"}', {}, '"email" is required', '$.email'],
      ['no secret', '{"email":"a@b.example"}', {}, '"secret" is required', '$.secret'],
      ['email a number', '{"email":1,"secret":"plat_x"}', {}, '"email" must be a string', '$.email'],
      ['secret an object', '{"email":"a@b.example","secret":{}}', {}, '"secret" must be a string', '$.secret'],
      ['empty secret', '{"email":"a@b.example","secret":" "}', {}, '"secret" must not be empty', '$.secret'],
      [
        'a form post',
        'email=a&secret=b',
        { 'content-type': 'application/x-www-form-urlencoded' },
        'content-type must be application/json',
        '$',
      ],
    ])('%s', async (_name, body, headers, message, path) => {
      const res = await post(body, headers);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions).toEqual({ code: 'bad-request', path });
      expect(res.body.errors[0].message).toContain(message);
    });

    test('a huge body is 413', async () => {
      const res = await post(JSON.stringify({ email: 'a@b.example', secret: 'x'.repeat(100_000) }));
      expect(res.status).toBe(413);
    });
  });

  test('the API token itself is never accepted as a Bearer token', async () => {
    const t = await tokenFor(server.started.db, alice.username);
    const res = await gqlWith(server, bearer(t.secret), '{ tenant { id } }');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('invalid-jwt');
    expect(res.body.errors[0].message).toContain('exchange it for a JWT at POST /api/auth/token');
    expect(res.text).not.toContain(t.secret);
  });

  test('secrets are random, 256 bits and more, with the product prefix; only a hash is stored', async () => {
    const a = await tokenFor(server.started.db, alice.username);
    const b = await tokenFor(server.started.db, alice.username);
    for (const t of [a, b]) {
      expect(t.secret).toMatch(/^plat_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(t.secret.slice(5), 'base64url')).toHaveLength(32);
    }
    expect(a.secret).not.toBe(b.secret);
    const [row] = await server.started.db.query('SELECT to_json(t)::text AS j FROM api_tokens t WHERE id = $1::uuid', [
      a.id,
    ]);
    expect(row.j as string).not.toContain(a.secret.slice(5));
    expect(JSON.parse(row.j as string).prefix).toBe(a.secret.slice(0, 9));
  });
});
