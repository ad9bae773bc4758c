import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { DEMO } from '../demo/demo-data';
import { keyId } from '../engine/serve/auth/jwt';
import {
  authEnv,
  bearer,
  claimsOf,
  gqlWith,
  jwtFor,
  newSecret,
  startSibling,
  tokenFor,
  exchangeAtSecond,
} from './support/auth';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * Using the JWT: `Authorization: Bearer <JWT>` on /api/graphql gives the session (user, tenant,
 * role) that the permissions filter on; every way a JWT can be wrong is 401 invalid-jwt saying which.
 * The tests forge JWTs with jose: with the engine's own key (JWT_SECRET, made by the test) to show that
 * a claim alone is refused, and with other keys and algorithms.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const alice = acme.users.admin;
const victor = acme.users.readonly;
const ENV = authEnv();
const KEY = new TextEncoder().encode(ENV.JWT_SECRET);
const ISSUER = ENV.NEXTAUTH_URL;
const AUDIENCE = `${ENV.NEXTAUTH_URL}/api/graphql`;

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe(`JWT sessions on ${backendName}`, () => {
  let server: TestServer;
  let adminJwt: string;
  let adminToken: string;
  let readerJwt: string;
  const gql = (jwt: string, query: string, variables?: Record<string, unknown>, extra: Record<string, string> = {}) =>
    gqlWith(server, { ...bearer(jwt), ...extra }, query, variables);
  /** A JWT like the engine's, signed with `key`, with claims changed by `edit`. */
  const forge = async (
    edit: (c: Record<string, unknown>) => void = () => undefined,
    opts: { key?: Uint8Array; alg?: string; exp?: number; iss?: string; aud?: string } = {},
  ) => {
    const claims = claimsOf(adminJwt);
    for (const k of ['iat', 'exp', 'iss', 'aud', 'jti']) delete claims[k];
    edit(claims);
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: opts.alg ?? 'HS256', typ: 'JWT' })
      .setIssuedAt(now)
      .setExpirationTime(opts.exp ?? now + 600)
      .setIssuer(opts.iss ?? ISSUER)
      .setAudience(opts.aud ?? AUDIENCE)
      .sign(opts.key ?? KEY);
  };
  const refused = async (jwt: string, message: string | RegExp) => {
    const res = await gql(jwt, '{ cloud_accounts { id } }');
    expect(res.status).toBe(401);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions.code).toBe('invalid-jwt');
    expect(res.body.errors[0].message).toMatch(message);
    expect(res.body.data).toBeUndefined();
  };

  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
    const a = await jwtFor(server, alice.username);
    adminJwt = a.jwt;
    adminToken = a.tokenId;
    readerJwt = (await jwtFor(server, victor.username)).jwt;
  });
  afterAll(() => server.close());

  describe('the JWT gives the session the permissions filter on', () => {
    test('rows of the JWT’s tenant only', async () => {
      const res = await gql(
        adminJwt,
        '{ cloud_accounts(order_by: {id: asc}) { id tenant } cloud_accounts_aggregate { aggregate { count } } }',
      );
      expect(res.status).toBe(200);
      expect(res.body.data.cloud_accounts.map((a: { id: string }) => a.id)).toEqual(
        Object.values(acme.cloudAccounts).sort(),
      );
      expect(res.body.data.cloud_accounts_aggregate.aggregate.count).toBe(DEMO.perTenant.cloudAccounts);
      const other = await gql(adminJwt, 'query($id: uuid!) { cloud_accounts_by_pk(id: $id) { id } }', {
        id: globex.cloudAccounts.aws,
      });
      expect(other.body).toEqual({ data: { cloud_accounts_by_pk: null } });
    });

    test('session headers cannot move a JWT to another tenant or user', async () => {
      const res = await gql(adminJwt, '{ tenant { id } }', undefined, {
        'x-hasura-tenant-id': globex.id,
        'x-hasura-user-id': globex.users.admin.id,
      });
      expect(res.body).toEqual({ data: { tenant: [{ id: acme.id }] } });
    });

    test('a mutation of tenant_admin reaches its own tenant only', async () => {
      const res = await gql(
        adminJwt,
        'mutation($ids: [uuid!]!) { update_cloud_accounts(where: {id: {_in: $ids}}, _set: {budget: 1234}) { affected_rows } }',
        {
          ids: [acme.cloudAccounts.aws, globex.cloudAccounts.aws],
        },
      );
      expect(res.body).toEqual({ data: { update_cloud_accounts: { affected_rows: 1 } } });
      const rows = await server.started.db.query('SELECT id::text AS id FROM cloud_accounts WHERE budget = 1234');
      expect(rows.map((r) => r.id)).toEqual([acme.cloudAccounts.aws]);
    });

    test('the read-only role is refused on mutations and has no mutation type', async () => {
      const res = await gql(readerJwt, 'mutation { delete_cloud_accounts(where: {}) { affected_rows } }');
      expect(res.status).toBe(200);
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      expect(res.body.data).toBeUndefined();
      expect((await gql(readerJwt, '{ __schema { mutationType { name } } }')).body).toEqual({
        data: { __schema: { mutationType: null } },
      });
      const [{ n }] = await server.started.db.query('SELECT count(*)::int AS n FROM cloud_accounts');
      expect(n).toBe(2 * DEMO.perTenant.cloudAccounts);
      // It still reads its tenant.
      expect((await gql(readerJwt, '{ tenant { id } }')).body).toEqual({ data: { tenant: [{ id: acme.id }] } });
    });

    test('x-hasura-role may only name the JWT’s own role', async () => {
      expect(
        (await gql(readerJwt, '{ tenant { id } }', undefined, { 'x-hasura-role': 'tenant_admin_readonly' })).status,
      ).toBe(200);
      const res = await gql(readerJwt, '{ tenant { id } }', undefined, { 'x-hasura-role': 'tenant_admin' });
      expect(res.status).toBe(403);
      expect(res.body.errors[0].extensions.code).toBe('access-denied');
    });

    test('the admin secret and no credentials behave as before', async () => {
      expect((await server.gql('{ tenant { id } }')).body.data.tenant).toHaveLength(2);
      const none = await gqlWith(server, {}, '{ tenant { id } }');
      expect(none.status).toBe(401);
      expect(none.body.errors[0].extensions.code).toBe('access-denied');
    });
  });

  describe('a bad JWT is 401 invalid-jwt saying which', () => {
    test('missing: nothing after Bearer', async () => {
      for (const value of ['Bearer', 'Bearer   ']) {
        const res = await gqlWith(server, { authorization: value }, '{ tenant { id } }');
        expect(res.status).toBe(401);
        expect(res.body.errors[0].extensions.code).toBe('invalid-jwt');
        expect(res.body.errors[0].message).toContain('the JWT is missing');
      }
    });

    test('the scheme in any case, the JWT after any white space', async () => {
      for (const value of [`bearer ${adminJwt}`, `BEARER \t ${adminJwt}  `, `  Bearer\t${adminJwt}`]) {
        const res = await gqlWith(server, { authorization: value }, '{ tenant { id } }');
        expect(res.status).toBe(200);
        expect(res.body.data.tenant[0].id).toBe(acme.id);
      }
      for (const value of [`Bearer: ${adminJwt}`, `Bearer${adminJwt}`, `Token ${adminJwt}`]) {
        const res = await gqlWith(server, { authorization: value }, '{ tenant { id } }');
        expect(res.status).toBe(401);
        expect(res.body.errors[0].message).toContain('must be "Bearer <JWT>"');
      }
    });

    test('not a Bearer header', async () => {
      const res = await gqlWith(
        server,
        { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
        '{ tenant { id } }',
      );
      expect(res.status).toBe(401);
      expect(res.body.errors[0].message).toContain('must be "Bearer <JWT>"');
    });

    test.each([
      ['not three parts', 'abc'],
      ['three parts that are not JSON', 'a.b.c'],
      ['a header that is not JSON', `${Buffer.from('{').toString('base64url')}.${b64({ sub: 'x' })}.c2ln`],
      ['characters outside base64url', 'a.b.c$d'],
    ])('malformed: %s', async (_name, jwt) => {
      await refused(jwt, /the JWT is malformed/);
    });

    test('expired (forged with the engine’s own key, exp in the past)', async () => {
      await refused(await forge(undefined, { exp: Math.floor(Date.now() / 1000) - 5 }), 'the JWT has expired');
    });

    test('expired for real: an engine with JWT_EXPIRY_SECONDS=2', async () => {
      const short = await startSibling(server, { ...ENV, JWT_EXPIRY_SECONDS: '2' });
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      try {
        const t = await tokenFor(server.started.db, alice.username, 'short-lived');
        const { res, expiresAt } = await exchangeAtSecond(short, alice.username, t.secret);
        expect(res.body.expiry).toBe(2);
        const jwt = res.body.token as string;
        expect((await gqlWith(short, bearer(jwt), '{ tenant { id } }')).status).toBe(200);
        await sleep(Math.max(0, expiresAt - Date.now()) + 100);
        const late = await gqlWith(short, bearer(jwt), '{ tenant { id } }');
        expect(late.status).toBe(401);
        expect(late.body.errors[0]).toEqual({
          message: 'the JWT has expired',
          extensions: { code: 'invalid-jwt', path: '$' },
        });
      } finally {
        await short.stop();
      }
    });

    test('signed with another key', async () => {
      await refused(
        await forge(undefined, { key: new TextEncoder().encode(newSecret()) }),
        'the JWT signature is invalid',
      );
    });

    test('signed with a key this server no longer has (its key id is not the server’s): told so', async () => {
      const oldKey = new TextEncoder().encode(newSecret());
      const [, payload] = (await forge()).split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const jwt = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: keyId(oldKey) })
        .sign(oldKey);
      await refused(jwt, /signed with a key this server no longer has .*exchange the API token for a new JWT/);
      // The engine's own JWTs name its key.
      expect(JSON.parse(Buffer.from(adminJwt.split('.')[0], 'base64url').toString()).kid).toBe(keyId(KEY));
    });

    test('a signature edited by one character', async () => {
      const last = adminJwt.slice(-2, -1) === 'A' ? 'B' : 'A';
      await refused(`${adminJwt.slice(0, -2)}${last}${adminJwt.slice(-1)}`, 'the JWT signature is invalid');
    });

    test('claims edited after signing (the tenant changed to another)', async () => {
      // The genuine JWT first, so that the engine remembers it as verified: verified JWTs are kept by
      // their signature, which the edited one shares.
      const genuine = await gql(adminJwt, '{ tenant { id } }');
      expect(genuine.body.data.tenant[0].id).toBe(acme.id);
      const [h, p, s] = adminJwt.split('.');
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      claims['https://hasura.io/jwt/claims']['x-hasura-tenant-id'] = globex.id;
      await refused(`${h}.${b64(claims)}.${s}`, 'the JWT signature is invalid');
      // And the genuine one is still remembered as itself.
      const again = await gql(adminJwt, '{ tenant { id } }');
      expect(again.body.data.tenant[0].id).toBe(acme.id);
    });

    test('alg: none', async () => {
      const claims = claimsOf(adminJwt);
      await refused(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`, /algorithm is not allowed: only HS256/);
    });

    test('another HMAC algorithm, even with the right key', async () => {
      await refused(await forge(undefined, { alg: 'HS512' }), /algorithm is not allowed: only HS256/);
    });

    test('the wrong issuer or audience', async () => {
      await refused(await forge(undefined, { iss: 'https://elsewhere.example' }), 'the JWT has the wrong issuer (iss)');
      await refused(
        await forge(undefined, { aud: 'https://elsewhere.example/api' }),
        'the JWT has the wrong audience (aud)',
      );
    });

    test('right key, but claims the engine did not mint', async () => {
      await refused(
        await forge((c) => delete (c['https://hasura.io/jwt/claims'] as Record<string, unknown>)['x-hasura-tenant-id']),
        'lacks a valid tenantId claim',
      );
      // A valid signature does not make up a token: the token and its owner are checked too.
      await refused(
        await forge(
          (c) => ((c['https://hasura.io/jwt/claims'] as Record<string, unknown>)['x-hasura-token-id'] = randomUUID()),
        ),
        'has been deleted',
      );
      await refused(
        await forge(
          (c) => ((c['https://hasura.io/jwt/claims'] as Record<string, unknown>)['x-hasura-tenant-id'] = globex.id),
        ),
        'the JWT does not match the API token it names',
      );
      await refused(
        await forge((c) => {
          const h = c['https://hasura.io/jwt/claims'] as Record<string, unknown>;
          h['x-hasura-default-role'] = 'admin';
          h['x-hasura-allowed-roles'] = ['admin'];
        }),
        'is not accepted: use the admin secret',
      );
      await refused(
        await forge((c) => {
          const h = c['https://hasura.io/jwt/claims'] as Record<string, unknown>;
          h['x-hasura-default-role'] = 'tenant_admin_readonly';
          h['x-hasura-allowed-roles'] = ['tenant_admin_readonly'];
        }),
        'no longer holds its role',
      );
    });

    test('a JWT of a session cookie key or of an unrelated secret is not an API JWT', async () => {
      const withSessionSecret = await forge(undefined, { key: new TextEncoder().encode(ENV.NEXTAUTH_SECRET) });
      await refused(withSessionSecret, 'the JWT signature is invalid');
    });
  });

  test('the token id in the JWT is the token’s', () => {
    expect(claimsOf(adminJwt).token_id).toBe(adminToken);
  });
});
