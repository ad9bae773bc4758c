import { SESSION_COOKIE, sessionCookieValue } from '../engine/serve/auth/session-cookie';
import { loadConfig } from '../engine/core/config';
import { DEMO } from '../demo/demo-data';
import { authEnv, bearer, jwtFor, newSecret } from './support/auth';
import { backendName } from './support/database';
import { ADMIN_SECRET, startTestServer, type TestServer } from './support/server';

/**
 * Another site's page can make a signed-in browser POST to the API with its session cookie, but only
 * as a "simple" request (a form, or text/plain), which needs no CORS preflight. So a request signed in
 * by the cookie must be application/json (or carry x-csrf-token equal to the CSRF cookie); Bearer
 * and admin-secret requests, which no other site can make a browser send, are not affected. CORS is
 * for the origins of CORS_ORIGINS only, none by default.
 */
const acme = DEMO.tenants.acme;
const alice = acme.users.admin;
const ALLOWED = 'https://app.example.com';
const ALSO_ALLOWED = 'http://localhost:3000';
const CREATE = 'mutation { create_api_token(name: "cross-site") { id secret } }';
const TENANT = '{ tenant { id } }';

describe(`cross-site requests on ${backendName}`, () => {
  let server: TestServer;
  let sessionCookie: string;

  const tokens = async () =>
    (
      await server.started.db.query(
        'SELECT count(*)::int AS n FROM api_tokens WHERE user_id = $1::uuid AND deleted_at IS NULL',
        [alice.id],
      )
    )[0].n as number;
  const post = (contentType: string, body: string, headers: Record<string, string> = {}) =>
    server.post('/api/graphql', body, { 'content-type': contentType, ...headers });
  const asJson = (query: string) => JSON.stringify({ query });

  beforeAll(async () => {
    server = await startTestServer({ env: authEnv({ CORS_ORIGINS: `${ALLOWED}, ${ALSO_ALLOWED}` }) });
    const value = sessionCookieValue(server.started.engine.config, {
      userId: alice.id,
      tenantId: acme.id,
      role: 'tenant_admin',
      email: alice.username,
      displayName: alice.displayName,
    });
    sessionCookie = `${SESSION_COOKIE}=${value}`;
  });
  afterAll(() => server.close());

  describe('a request signed in by the session cookie', () => {
    test.each([
      ['text/plain', 'text/plain;charset=UTF-8', asJson(CREATE)],
      ['form-encoded', 'application/x-www-form-urlencoded', `query=${encodeURIComponent(CREATE)}`],
      ['form-encoded with a JSON body', 'application/x-www-form-urlencoded', asJson(CREATE)],
      ['multipart', 'multipart/form-data; boundary=x', asJson(CREATE)],
      ['JSON-looking but not JSON', 'text/plain; application/json', asJson(CREATE)],
    ])('sent as %s is refused with 415 and runs nothing', async (_n, contentType, body) => {
      const before = await tokens();
      const res = await post(contentType, body, { cookie: sessionCookie });
      expect(res.status).toBe(415);
      expect(res.body).toEqual({
        errors: [
          {
            message: expect.stringContaining('must have content-type application/json'),
            extensions: { code: 'unsupported-media-type', path: '$' },
          },
        ],
      });
      expect(await tokens()).toBe(before);
    });

    test('sent as application/json runs', async () => {
      const before = await tokens();
      const res = await post('application/json; charset=utf-8', asJson(CREATE), { cookie: sessionCookie });
      expect(res.status).toBe(200);
      expect(res.body.data.create_api_token.secret).toMatch(/^plat_/);
      expect(await tokens()).toBe(before + 1);
    });

    test('with x-csrf-token equal to the CSRF cookie, any content type runs; a wrong or lone token does not', async () => {
      const csrf = newSecret();
      const cookie = `${sessionCookie}; platform_csrf=${csrf}`;
      const ok = await post('text/plain', asJson(TENANT), { cookie, 'x-csrf-token': csrf });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ data: { tenant: [{ id: acme.id }] } });
      expect((await post('text/plain', asJson(TENANT), { cookie, 'x-csrf-token': `${csrf}x` })).status).toBe(415);
      expect((await post('text/plain', asJson(TENANT), { cookie: sessionCookie, 'x-csrf-token': csrf })).status).toBe(
        415,
      );
    });
  });

  test('Bearer and admin-secret requests are not affected by the content type', async () => {
    const { jwt } = await jwtFor(server, alice.username);
    const viaJwt = await post('text/plain', asJson(TENANT), bearer(jwt));
    expect(viaJwt.status).toBe(200);
    expect(viaJwt.body.data.tenant).toEqual([{ id: acme.id }]);
    const viaSecret = await post('text/plain', asJson('{ tenant(limit: 1) { id } }'), {
      'x-hasura-admin-secret': ADMIN_SECRET,
    });
    expect(viaSecret.status).toBe(200);
  });

  describe('CORS', () => {
    const preflight = (origin: string, path = '/api/graphql') =>
      fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, authorization',
        },
      });
    const corsHeaders = (res: Response) => [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));

    test.each([ALLOWED, ALSO_ALLOWED])(
      'the preflight of an allowed origin (%s) is 204 with the allow headers',
      async (origin) => {
        for (const path of ['/api/graphql', '/v1/graphql', '/api/auth/token']) {
          const res = await preflight(origin, path);
          expect(res.status).toBe(204);
          expect(res.headers.get('access-control-allow-origin')).toBe(origin);
          expect(res.headers.get('access-control-allow-methods')).toContain('POST');
          const allowHeaders = res.headers.get('access-control-allow-headers')!.split(',');
          expect(allowHeaders).toEqual(expect.arrayContaining(['content-type', 'authorization', 'x-csrf-token']));
          expect(res.headers.get('access-control-allow-credentials')).toBeNull();
          expect(res.headers.get('vary')).toContain('Origin');
        }
      },
    );

    test.each(['https://evil.example.com', 'https://app.example.com.evil.example', 'null', `${ALLOWED}/`])(
      'the preflight of another origin (%s) is answered 204 without any CORS header',
      async (origin) => {
        const res = await preflight(origin);
        expect(res.status).toBe(204);
        expect(corsHeaders(res)).toEqual([]);
      },
    );

    test('an allowed origin’s request gets Access-Control-Allow-Origin; another origin’s does not', async () => {
      const { jwt } = await jwtFor(server, alice.username);
      const allowed = await fetch(`${server.url}/api/graphql`, {
        method: 'POST',
        headers: { origin: ALLOWED, 'content-type': 'application/json', ...bearer(jwt) },
        body: asJson(TENANT),
      });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      const other = await fetch(`${server.url}/api/graphql`, {
        method: 'POST',
        headers: { origin: 'https://evil.example.com', 'content-type': 'application/json', ...bearer(jwt) },
        body: asJson(TENANT),
      });
      expect(corsHeaders(other)).toEqual([]);
      expect(other.headers.get('vary')).toContain('Origin');
    });
  });
});

describe(`CORS by default on ${backendName}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: authEnv() });
  });
  afterAll(() => server.close());

  test('no origin is allowed: preflights are answered 204 without CORS headers', async () => {
    for (const origin of [ALLOWED, 'http://localhost:8080', server.url]) {
      const res = await fetch(`${server.url}/api/graphql`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(res.status).toBe(204);
      expect([...res.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
    }
  });
});

describe('CORS_ORIGINS', () => {
  test.each([
    '*',
    'app.example.com',
    'https://app.example.com/',
    'https://app.example.com/path',
    'ftp://files.example.com',
  ])('"%s" is not an exact origin: start-up is refused naming the variable', (value) => {
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(/^CORS_ORIGINS must list exact origins/);
  });

  test('a comma-separated list of origins, spaces and empty entries ignored', () => {
    expect(loadConfig({ CORS_ORIGINS: ' https://a.example.com ,, http://localhost:3000 ' }).corsOrigins).toEqual([
      'https://a.example.com',
      'http://localhost:3000',
    ]);
    expect(loadConfig({}).corsOrigins).toEqual([]);
  });
});
