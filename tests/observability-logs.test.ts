import { request as httpRequest } from 'node:http';
import { DEMO } from '../demo/demo-data';
import { backendName, pgliteFolder, type TestDatabase } from './support/database';
import { startEngineProcess, type EngineProcess } from './support/engine-process';
import { ADMIN_SECRET, as, startTestServer, type TestServer } from './support/server';

/**
 * Issue 17, "Seeing what it does": one access line per request (request id, operation name and type,
 * role, tenant, status, duration, rows, bytes), never a variable's value or a secret; LOG_LEVEL.
 */
const acme = DEMO.tenants.acme;
const session = as('tenant_admin', acme.id, acme.users.admin.id);
const AUTH = { 'x-hasura-admin-secret': ADMIN_SECRET, ...session };
const SECRET_VALUE = 'needle-value-7f3a9c';

type Line = Record<string, unknown>;

describe(`access lines on ${backendName}`, () => {
  let server: TestServer;
  const lines: Line[] = [];
  const access = (id: string) => lines.filter((l) => l.msg === 'request' && l.request_id === id);

  beforeAll(async () => {
    server = await startTestServer({ log: (entry) => void lines.push(entry) });
  });
  afterAll(() => server?.close());

  test('a query: one line with its id, operation, role, tenant, status, time, rows and bytes; the id is echoed', async () => {
    const res = await fetch(`${server.url}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-abc.123', ...AUTH },
      body: JSON.stringify({
        query:
          'query FindAccounts($name: String, $n: Int) { a: cloud_accounts(limit: $n) { id } b: cloud_accounts(where: {account_name: {_eq: $name}}) { id } }',
        variables: { name: SECRET_VALUE, n: 3 },
        operationName: 'FindAccounts',
      }),
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(text).data.a).toHaveLength(3);
    expect(res.headers.get('x-request-id')).toBe('req-abc.123');
    const mine = access('req-abc.123');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      level: 'info',
      method: 'POST',
      route: '/api/graphql',
      status: 200,
      operation_name: 'FindAccounts',
      operation_type: 'query',
      role: 'tenant_admin',
      tenant: acme.id,
      rows: 3,
      bytes: Buffer.byteLength(text),
    });
    expect(typeof mine[0].ms).toBe('number');
    const all = JSON.stringify(lines);
    expect(all).not.toContain(SECRET_VALUE);
    expect(all).not.toContain(ADMIN_SECRET);
  });

  test('without an x-request-id (or with one that is not a plain token) the engine makes one', async () => {
    for (const sent of [undefined, 'two words\tand a tab']) {
      const res = await fetch(`${server.url}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AUTH, ...(sent ? { 'x-request-id': sent } : {}) },
        body: JSON.stringify({
          query: 'mutation { delete_cloud_accounts(where: {id: {_is_null: true}}) { affected_rows } }',
        }),
      });
      await res.text();
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(access(id)).toMatchObject([{ operation_type: 'mutation', status: 200 }]);
    }
  });

  test('a refusal is one line too, with its code and no role; unknown routes are "unmatched"', async () => {
    const denied = await fetch(`${server.url}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer not.a.jwt', 'x-request-id': 'denied-1' },
      body: JSON.stringify({ query: '{ cloud_accounts { id } }' }),
    });
    expect(denied.status).toBe(401);
    expect(access('denied-1')).toMatchObject([{ status: 401, code: 'invalid-jwt' }]);
    expect(access('denied-1')[0].role).toBeUndefined();
    const lost = await fetch(`${server.url}/no/such/page?secret=${SECRET_VALUE}`, {
      headers: { 'x-request-id': 'lost-1' },
    });
    expect(lost.status).toBe(404);
    expect(access('lost-1')).toMatchObject([{ route: 'unmatched', status: 404, method: 'GET' }]);
    expect(JSON.stringify(lines)).not.toContain(SECRET_VALUE);
  });

  test('a GET query: its variables are in the URL, never in the line (the route is the pattern)', async () => {
    const params = new URLSearchParams({
      query: 'query ByName($name: String) { cloud_accounts(where: {account_name: {_eq: $name}}) { id } }',
      variables: JSON.stringify({ name: SECRET_VALUE }),
    });
    const res = await fetch(`${server.url}/api/graphql?${params}`, { headers: { ...AUTH, 'x-request-id': 'get-1' } });
    expect(res.status).toBe(200);
    await res.text();
    expect(access('get-1')).toMatchObject([
      { method: 'GET', route: '/api/graphql', operation_name: 'ByName', operation_type: 'query', rows: 0 },
    ]);
    expect(JSON.stringify(lines)).not.toContain(SECRET_VALUE);
  });

  test('a batch: one line, its operations types and rows together', async () => {
    const res = await server.post(
      '/api/graphql',
      JSON.stringify([
        { query: '{ cloud_accounts(limit: 2) { id } }' },
        { query: 'mutation { delete_cloud_accounts(where: {id: {_is_null: true}}) { affected_rows } }' },
      ]),
      { ...AUTH, 'x-request-id': 'batch-1' },
    );
    expect(res.status).toBe(200);
    expect(access('batch-1')).toMatchObject([{ operation_type: 'query,mutation', rows: 2 }]);
  });
});

describe('LOG_LEVEL (an engine process, pino lines on standard output)', () => {
  const engines: EngineProcess[] = [];
  const folders: TestDatabase[] = [];
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.stop()));
    await Promise.all(folders.map((f) => f.drop()));
  });

  /**
   * An engine on a PGlite folder of its own that holds the demo data already (the run's template
   * unpacked): its first start, which would make the database, is not what these tests are about.
   */
  const start = async (env: Record<string, string>) => {
    const folder = env.DATA_DIR ? undefined : pgliteFolder({ seeded: true });
    if (folder) folders.push(folder);
    const e = await startEngineProcess({
      ...folder?.env,
      ADMIN_SECRET,
      SEED_DEMO_DATA: 'true',
      SEED_DEMO_SCALE: '0',
      ...env,
    });
    engines.push(e);
    return e;
  };
  const query = (e: EngineProcess) =>
    e.post('/api/graphql', JSON.stringify({ query: 'query Few { cloud_accounts(limit: 1) { id } }' }), AUTH);
  const parsed = (e: EngineProcess): Line[] =>
    e
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);

  test('debug: ISO time, level names, the access line, probes and the compiled SQL (no values); DEV_MODE is said to be gone', async () => {
    const e = await start({ LOG_LEVEL: 'debug', DEV_MODE: 'true' });
    expect((await query(e)).status).toBe(200);
    await fetch(`${e.url}/healthz`);
    await new Promise((r) => setTimeout(r, 200));
    const lines = parsed(e);
    const line = lines.find((l) => l.msg === 'request' && l.route === '/api/graphql')!;
    expect(line).toMatchObject({ level: 'info', operation_name: 'Few', status: 200, rows: 1 });
    expect(String(line.time)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(lines.find((l) => l.msg === 'request' && l.route === '/healthz')).toMatchObject({ level: 'debug' });
    const compiled = lines.find((l) => l.msg === 'compiled' && l.operation_name === 'Few')!;
    expect(compiled.level).toBe('debug');
    expect(String((compiled.sql as string[])[0])).toMatch(/cloud_accounts/);
    expect(lines.some((l) => l.level === 'warn' && /DEV_MODE is no longer read/.test(String(l.msg)))).toBe(true);
  }, 120_000);

  test('warn: no access lines, no info lines', async () => {
    const e = await start({ LOG_LEVEL: 'warn' });
    expect((await query(e)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    const lines = parsed(e);
    // The one line that announces the address is always written (scripts wait for it).
    const quiet = lines.filter((l) => !/listening on http/.test(String(l.msg)));
    expect(quiet.filter((l) => l.level === 'info' || l.level === 'debug')).toEqual([]);
    expect(e.output()).not.toContain('"msg":"request"');
    // The process keeps idle connections HTTP_KEEP_ALIVE_SECONDS (65), not Node's 5 s, and says so.
    const keepAlive = await new Promise<string | undefined>((resolve, reject) =>
      httpRequest(`${e.url}/healthz`, (res) => {
        res.resume();
        resolve(res.headers['keep-alive']);
      })
        .on('error', reject)
        .end(),
    );
    expect(keepAlive).toBe('timeout=65');
  }, 120_000);

  test('a LOG_LEVEL that is not a level stops start-up naming it', async () => {
    await expect(start({ LOG_LEVEL: 'loud', DATA_DIR: 'memory://' })).rejects.toThrow(
      /LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent/,
    );
  }, 120_000);
});
