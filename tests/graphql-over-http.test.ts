import { request as httpRequest } from 'node:http';
import { auditServer, type AuditResult } from 'graphql-http';
import { ACTION_MODULES } from '../actions/registry';
import { DEMO } from '../demo/demo-data';
import type { ActionContext } from '../engine/compile/execute/actions';
import { Engine } from '../engine/compile/execute/engine';
import { SESSION_COOKIE, sessionCookieValue } from '../engine/serve/auth/session-cookie';
import { authEnv, bearer, jwtFor } from './support/auth';
import { backendName } from './support/database';
import { ADMIN_SECRET, as, startTestServer, type TestServer } from './support/server';

/**
 * The GraphQL-over-HTTP specification on the real server: graphql-http's audit (every MUST, SHOULD
 * and MAY), the two response media types and their status codes, GET for queries only, and the
 * parameters' types. application/json keeps Hasura's answers (200 with `errors`).
 */
const acme = DEMO.tenants.acme;
const alice = acme.users.admin;
const GRAPHQL_RESPONSE = 'application/graphql-response+json';
const ADMIN = { 'x-hasura-admin-secret': ADMIN_SECRET };
const TENANT_ADMIN = { ...ADMIN, ...as('tenant_admin', acme.id, alice.id) };
const READONLY = { ...ADMIN, ...as('tenant_admin_readonly', acme.id, acme.users.readonly.id) };

interface Answer {
  status: number;
  type: string | null;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function read(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, type: res.headers.get('content-type'), headers: res.headers, body };
}

describe(`GraphQL over HTTP on ${backendName}`, () => {
  let server: TestServer;
  const post = async (body: unknown, headers: Record<string, string> = {}, path = '/api/graphql') =>
    read(
      await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
  const get = async (params: Record<string, string>, headers: Record<string, string> = {}, path = '/api/graphql') =>
    read(await fetch(`${server.url}${path}?${new URLSearchParams(params)}`, { headers }));
  const asked = (accept: string, headers: Record<string, string> = ADMIN) => ({ ...headers, accept });
  const sql = (text: string, params: string[] = []) => server.started.db.query(text, params);

  beforeAll(async () => {
    server = await startTestServer({ env: authEnv() });
  });
  afterAll(() => server.close());

  describe("graphql-http's audit", () => {
    /**
     * The audit's requests with our credentials added. Where the audit sends no content-type (its
     * "content-type is not supplied" case), the body goes as bytes: Node's fetch would otherwise add
     * text/plain to a string body, which is a content type supplied, and read as JSON (Hasura's way).
     */
    const withCredentials =
      (credentials: Record<string, string>) =>
      (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
        const headers = { ...(init.headers as Record<string, string> | undefined), ...credentials };
        const lacksType = !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
        const body = typeof init.body === 'string' && lacksType ? Buffer.from(init.body) : init.body;
        return fetch(input, { ...init, headers, body });
      };
    const failures = (results: AuditResult[]) =>
      results.filter((r) => r.status !== 'ok').map((r) => `${r.id} ${r.name}: ${r.status === 'ok' ? '' : r.reason}`);

    test('every MUST, SHOULD and MAY passes on /api/graphql with the admin secret', async () => {
      const results = await auditServer({ url: `${server.url}/api/graphql`, fetchFn: withCredentials(ADMIN) });
      expect(results.length).toBeGreaterThanOrEqual(60);
      expect(results.filter((r) => r.name.startsWith('MUST')).length).toBeGreaterThanOrEqual(13);
      expect(results.filter((r) => r.name.startsWith('SHOULD')).length).toBeGreaterThanOrEqual(23);
      expect(failures(results)).toEqual([]);
    });

    test("every MUST, SHOULD and MAY passes on /v1/graphql with a tenant user's JWT", async () => {
      const { jwt } = await jwtFor(server, alice.username, 'audit');
      const results = await auditServer({ url: `${server.url}/v1/graphql`, fetchFn: withCredentials(bearer(jwt)) });
      expect(failures(results)).toEqual([]);
    });
  });

  describe('the media type of the answer follows Accept', () => {
    test.each([
      [undefined, 'application/json'],
      ['*/*', 'application/json'],
      ['application/*', 'application/json'],
      ['application/json', 'application/json'],
      [GRAPHQL_RESPONSE, GRAPHQL_RESPONSE],
      [`${GRAPHQL_RESPONSE}; charset=utf-8, application/json; charset=utf-8`, GRAPHQL_RESPONSE],
      [`application/json, ${GRAPHQL_RESPONSE}`, 'application/json'],
      [`application/json;q=0.5, ${GRAPHQL_RESPONSE}`, GRAPHQL_RESPONSE],
      [`text/html, ${GRAPHQL_RESPONSE};q=0.9, */*;q=0.8`, GRAPHQL_RESPONSE],
    ])('Accept %s: %s, utf-8', async (accept, type) => {
      const res = await post({ query: '{ __typename }' }, accept === undefined ? ADMIN : asked(accept));
      expect(res.status).toBe(200);
      expect(res.type).toBe(`${type}; charset=utf-8`);
      expect(res.body).toEqual({ data: { __typename: 'query_root' } });
    });

    test.each(['text/html', 'application/xml, text/plain', `${GRAPHQL_RESPONSE};q=0, application/json;q=0`])(
      'Accept %s names no type answered: 406 not-acceptable, and nothing runs',
      async (accept) => {
        const res = await post(
          { query: 'mutation { insert_tenant_type_one(object: {value: "Nope"}) { value } }' },
          {
            ...ADMIN,
            accept,
          },
        );
        expect(res.status).toBe(406);
        expect(res.body.errors[0].extensions.code).toBe('not-acceptable');
        expect(await sql(`SELECT 1 FROM tenant_type WHERE value = 'Nope'`)).toEqual([]);
      },
    );
  });

  test('Accept headers sent again and again, in turn, each keep their own answer (the engine keeps what it read of them)', async () => {
    const turns: [string, number, string | undefined][] = [
      [GRAPHQL_RESPONSE, 200, GRAPHQL_RESPONSE],
      ['application/json', 200, 'application/json'],
      ['text/html', 406, undefined],
      [`${'x'.repeat(300)}/y, ${GRAPHQL_RESPONSE}`, 200, GRAPHQL_RESPONSE],
    ];
    for (let round = 0; round < 3; round++)
      for (const [accept, status, type] of turns) {
        const res = await post({ query: '{ __typename }' }, asked(accept));
        expect(res.status).toBe(status);
        if (type) expect(res.type).toBe(`${type}; charset=utf-8`);
      }
  });

  describe('status codes: application/graphql-response+json says what happened, application/json keeps 200', () => {
    const cases: [string, unknown, Record<string, string>, number, string][] = [
      ['a document that does not parse', { query: '{' }, ADMIN, 400, 'validation-failed'],
      ['a document that does not validate', { query: '{ no_such_field }' }, ADMIN, 400, 'validation-failed'],
      [
        'a variable that does not coerce',
        { query: 'query ($n: Int!) { tenant(limit: $n) { id } }', variables: { n: 'many' } },
        ADMIN,
        400,
        'validation-failed',
      ],
      [
        'an unknown operationName',
        { query: 'query A { __typename }', operationName: 'B' },
        ADMIN,
        400,
        'validation-failed',
      ],
      [
        'a constraint violation',
        {
          query: `mutation { insert_tenant_type_one(object: {value: "Customer", comment: "again"}) { value } }`,
        },
        ADMIN,
        409,
        'constraint-violation',
      ],
    ];
    test.each(cases)('%s', async (_name, body, headers, status, code) => {
      const modern = await post(body, asked(GRAPHQL_RESPONSE, headers));
      expect(modern.status).toBe(status);
      expect(modern.type).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8`);
      expect(modern.body.data).toBeUndefined();
      expect(modern.body.errors[0].extensions.code).toBe(code);
      const legacy = await post(body, asked('application/json', headers));
      expect(legacy.status).toBe(200);
      expect(legacy.body).toEqual(modern.body);
    });

    test('a read-only role asking for an analysis (which writes and spends): 403 permission-error', async () => {
      const [event] = await sql(
        'SELECT id::text AS id, cloud_account_id::text AS account FROM events WHERE tenant = $1::uuid AND cloud_account_id IS NOT NULL LIMIT 1',
        [acme.id],
      );
      const query = `{ ai_get_rca(account_id: "${event.account}", event_id: "${event.id}", generate: true) { data } }`;
      const modern = await post({ query }, asked(GRAPHQL_RESPONSE, READONLY));
      expect(modern.status).toBe(403);
      expect(modern.body.errors[0].extensions.code).toBe('permission-error');
      expect((await post({ query }, READONLY)).status).toBe(200);
    });

    test('no credentials: 401 whatever the media type', async () => {
      for (const accept of [GRAPHQL_RESPONSE, 'application/json']) {
        const res = await post({ query: '{ __typename }' }, { accept });
        expect(res.status).toBe(401);
        expect(res.body.errors[0].extensions.code).toBe('access-denied');
      }
    });

    test('a batch answers 200 with an answer per operation', async () => {
      const res = await post([{ query: '{ __typename }' }, { query: '{ nope }' }], asked(GRAPHQL_RESPONSE));
      expect(res.status).toBe(200);
      expect(res.body[0]).toEqual({ data: { __typename: 'query_root' } });
      expect(res.body[1].errors[0].extensions.code).toBe('validation-failed');
    });
  });

  describe('the parameters are typed: another type is a malformed request, 400 bad-request', () => {
    test.each([
      ['operationName', 5],
      ['operationName', { name: 'A' }],
      ['operationName', ['A']],
      ['operationName', true],
      ['variables', 'x=1'],
      ['variables', [1]],
      ['extensions', 'persisted'],
      ['extensions', 0],
      ['extensions', [{}]],
    ])('%s = %j', async (name, value) => {
      for (const accept of [GRAPHQL_RESPONSE, 'application/json']) {
        const res = await post({ query: 'query A { __typename }', [name]: value }, asked(accept));
        expect(res.status).toBe(400);
        expect(res.body.errors[0].extensions).toEqual({ code: 'bad-request', path: `$.${name}` });
      }
    });

    test('null for each is the same as leaving it out; extensions is a map the engine ignores', async () => {
      for (const name of ['operationName', 'variables', 'extensions']) {
        const res = await post({ query: '{ __typename }', [name]: null }, asked(GRAPHQL_RESPONSE));
        expect(res.body).toEqual({ data: { __typename: 'query_root' } });
      }
      const res = await post({ query: '{ __typename }', extensions: { persistedQuery: { version: 1 } } }, ADMIN);
      expect(res.body).toEqual({ data: { __typename: 'query_root' } });
    });
  });

  describe('POST needs a content type', () => {
    /** A POST with no content-type header at all (fetch would add text/plain to a string body). */
    const bare = (body: string) =>
      new Promise<Omit<Answer, 'type' | 'headers'>>((resolve, reject) => {
        const req = httpRequest(`${server.url}/api/graphql`, { method: 'POST', headers: ADMIN }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end(body);
      });

    test('none: 415 unsupported-media-type, and nothing runs', async () => {
      const res = await bare(
        JSON.stringify({ query: 'mutation { insert_tenant_type_one(object: {value: "Bare"}) { value } }' }),
      );
      expect(res.status).toBe(415);
      expect(res.body.errors[0]).toEqual({
        message: 'a POST request needs a content-type header: send the body as application/json',
        extensions: { code: 'unsupported-media-type', path: '$' },
      });
      expect(await sql(`SELECT 1 FROM tenant_type WHERE value = 'Bare'`)).toEqual([]);
    });

    test('JSON that does not parse: 400 invalid-json under both media types', async () => {
      for (const accept of [GRAPHQL_RESPONSE, 'application/json']) {
        const res = await post('{"query": ', asked(accept));
        expect(res.status).toBe(400);
        expect(res.body.errors[0].extensions.code).toBe('invalid-json');
      }
    });
  });

  describe('GET runs queries', () => {
    test('query, operationName and variables in the URL, on both paths', async () => {
      for (const path of ['/api/graphql', '/v1/graphql']) {
        const res = await get(
          {
            query:
              'query Mine($n: Int!) { tenant(where: {id: {_eq: "' +
              acme.id +
              '"}}, limit: $n) { name } } query Other { __typename }',
            operationName: 'Mine',
            variables: JSON.stringify({ n: 1 }),
            extensions: JSON.stringify({}),
          },
          asked(GRAPHQL_RESPONSE),
          path,
        );
        expect(res.status).toBe(200);
        expect(res.type).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8`);
        expect(res.body).toEqual({ data: { tenant: [{ name: acme.name }] } });
      }
    });

    test('an empty operationName is none; a query action that reads runs', async () => {
      const res = await get(
        { query: '{ api_tokens { id } }', operationName: '' },
        bearer((await jwtFor(server, alice.username)).jwt),
      );
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body.data.api_tokens)).toBe(true);
    });

    test('a mutation: 405 with Allow: POST under both media types, and nothing is written', async () => {
      const query = 'mutation { insert_tenant_type_one(object: {value: "ByGet"}) { value } }';
      for (const accept of [GRAPHQL_RESPONSE, 'application/json']) {
        const res = await get({ query }, asked(accept));
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
        expect(res.body.errors[0]).toEqual({
          message: 'a mutation cannot be sent with GET: use POST',
          extensions: { code: 'method-not-allowed', path: '$.query' },
        });
      }
      // The operation is chosen by operationName: a document's mutation is refused, its query runs.
      const doc = `query Q { __typename } ${query.replace('mutation', 'mutation M')}`;
      expect((await get({ query: doc, operationName: 'M' }, ADMIN)).status).toBe(405);
      expect((await get({ query: doc, operationName: 'Q' }, ADMIN)).body).toEqual({
        data: { __typename: 'query_root' },
      });
      expect(await sql(`SELECT 1 FROM tenant_type WHERE value = 'ByGet'`)).toEqual([]);
      // The same by POST writes: the refusal above is GET's.
      expect((await post({ query }, ADMIN)).body).toEqual({ data: { insert_tenant_type_one: { value: 'ByGet' } } });
    });

    test('a query action that writes and spends (an AI analysis) refuses by GET, stores nothing; POST makes it', async () => {
      const [event] = await sql(
        'SELECT id::text AS id, cloud_account_id::text AS account FROM events WHERE tenant = $1::uuid AND cloud_account_id IS NOT NULL LIMIT 1',
        [acme.id],
      );
      const query = `{ ai_get_rca(account_id: "${event.account}", event_id: "${event.id}", generate: true) { data } }`;
      const stored = async () =>
        (
          await sql(`SELECT count(*)::int AS n FROM ai_event_analysis WHERE event_id = $1::uuid AND kind = 'rca'`, [
            event.id,
          ])
        )[0].n;
      const res = await get({ query }, asked(GRAPHQL_RESPONSE, TENANT_ADMIN));
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.body.errors[0].extensions.code).toBe('method-not-allowed');
      expect(res.body.errors[0].message).toMatch(/is not done for a GET request: use POST$/);
      expect(await stored()).toBe(0);
      const made = await post({ query }, TENANT_ADMIN);
      expect(made.body.data.ai_get_rca.data.event_id).toBe(event.id);
      expect(await stored()).toBe(1);
      // Reading what is stored is a read: GET serves it.
      const again = await get({ query: query.replace('generate: true', 'generate: false') }, TENANT_ADMIN);
      expect(again.body.data.ai_get_rca.data.source).toBe('stored');
    });

    test('a query action that writes without asking is stopped by the database: its transactions are READ ONLY', async () => {
      const { engine, db, actionsConfig } = server.started;
      const written = async (value: string) =>
        (await sql('SELECT 1 FROM tenant_type WHERE value = $1', [value])).length;
      const writer = (how: 'statement' | 'transaction') => async (_args: unknown, ctx: ActionContext) => {
        const value = `Sneaky_${how}`;
        const insert = `INSERT INTO tenant_type (value, comment) VALUES ('${value}', 'written by a query')`;
        if (how === 'statement') await ctx.db.query(insert);
        else await ctx.transaction((tx) => tx.query(insert));
        return { data: null };
      };
      const session = { role: 'admin', vars: {}, isAdmin: true, via: 'admin-secret' as const };
      for (const how of ['statement', 'transaction'] as const) {
        const modules = { ...ACTION_MODULES, cost: { ...ACTION_MODULES.cost, spends_v2: writer(how) } };
        const sneaky = new Engine(engine.model, db, engine.config, undefined, { modules, config: actionsConfig });
        const byGet = await sneaky.run({ query: '{ spends_v2 { __typename } }' }, session, { safeMethod: true });
        expect(byGet.status).toBe(405);
        expect(JSON.parse(byGet.body).errors[0].message).toBe(
          'this operation writes, which a GET request never does: use POST',
        );
        expect(await written(`Sneaky_${how}`)).toBe(0);
        // The same handler by POST writes: what stopped it above is the read-only transaction.
        const byPost = await sneaky.run({ query: '{ spends_v2 { __typename } }' }, session);
        expect(byPost.status).toBe(200);
        expect(await written(`Sneaky_${how}`)).toBe(1);
      }
    });

    test('with the session cookie, and no CSRF header: a read, which another site cannot see', async () => {
      const cookie = `${SESSION_COOKIE}=${sessionCookieValue(server.started.engine.config, {
        userId: alice.id,
        tenantId: acme.id,
        role: 'tenant_admin',
        email: alice.username,
        displayName: alice.displayName,
      })}`;
      const res = await get({ query: '{ tenant { id } }' }, { cookie });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { tenant: [{ id: acme.id }] } });
      const mutation = await get({ query: 'mutation { create_api_token(name: "by GET") { secret } }' }, { cookie });
      expect(mutation.status).toBe(405);
      expect(await sql(`SELECT 1 FROM api_tokens WHERE name = 'by GET'`)).toEqual([]);
    });

    test('caches are told what the answer depends on; admin-secret answers are private', async () => {
      const { jwt } = await jwtFor(server, alice.username);
      const viaJwt = await get({ query: '{ __typename }' }, bearer(jwt));
      expect(viaJwt.headers.get('vary')).toBe('Accept, Authorization, Cookie');
      expect(viaJwt.headers.get('cache-control')).toBeNull();
      const viaSecret = await get({ query: '{ __typename }' }, ADMIN);
      expect(viaSecret.headers.get('cache-control')).toBe('private');
    });

    test('malformed parameters: 400 bad-request naming them; no query: 400', async () => {
      const badJson = await get({ query: '{ __typename }', variables: '{n: 1}' }, asked(GRAPHQL_RESPONSE));
      expect(badJson.status).toBe(400);
      expect(badJson.body.errors[0].extensions).toEqual({ code: 'bad-request', path: '$.variables' });
      const badExtensions = await get({ query: '{ __typename }', extensions: '"x"' }, ADMIN);
      expect(badExtensions.status).toBe(400);
      expect(badExtensions.body.errors[0].extensions).toEqual({ code: 'bad-request', path: '$.extensions' });
      const none = await get({}, ADMIN);
      expect(none.status).toBe(400);
      expect(none.body.errors[0].extensions).toEqual({ code: 'bad-request', path: '$.query' });
    });
  });
});
