import postgres from 'postgres';
import { DEMO } from '../demo/demo-data';
import { loadConfig } from '../engine/core/config';
import { connectDatabase } from '../engine/core/db/connect';
import { authEnv, bearer, exchange, tokenFor } from './support/auth';
import { onPostgres } from './support/database';
import { startEngineProcess, runEngineToExit, type EngineProcess } from './support/engine-process';
import { createOwnCluster, type OwnCluster } from './support/own-cluster';
import { freePort } from './support/ports';
import { ADMIN_SECRET } from './support/server';

/**
 * The database failing under the engine, on a PostgreSQL cluster of this test's own (stopped and
 * started here, nothing else disturbed): an outage is answered at once with 503 database-unavailable,
 * liveness stays up and readiness goes down, the engine recovers by itself; slow statements that
 * fill the pool leave health and sign-in alone and make other requests wait a bounded time (503
 * busy); a database that is down at start-up is waited for, then given up on with a clear message.
 * The engine runs as its own process (engine/main.ts), as in production. PostgreSQL only: PGlite runs
 * inside the engine's process and cannot be stopped under it.
 */
if (!onPostgres) console.log('faults-database: skipped on PGlite, whose database lives inside the engine process');
const suite = onPostgres ? describe : describe.skip;

const alice = DEMO.tenants.acme.users.admin;
const SIMPLE = '{ cloud_accounts(limit: 1) { id } }';
const STATEMENT_TIMEOUT_MS = 3000;
const POOL_TIMEOUT_MS = 1000;

interface Timed {
  started: number;
  ms: number;
  status: number;
  text: string;
  retryAfter: string | null;
}

async function timed(url: string, init: RequestInit): Promise<Timed> {
  const started = Date.now();
  const res = await fetch(url, init);
  const text = await res.text();
  return { started, ms: Date.now() - started, status: res.status, text, retryAfter: res.headers.get('retry-after') };
}

const codeOf = (t: Timed) => JSON.parse(t.text).errors?.[0]?.extensions?.code;

const ENGINE_ENV = {
  ADMIN_SECRET,
  SEED_DEMO_DATA: 'true',
  STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
  DATABASE_POOL_TIMEOUT_MS: String(POOL_TIMEOUT_MS),
  DATABASE_POOL_SIZE: '10',
  // A JWT's token is looked up again every AUTH_RECHECK_SECONDS (10 by default), a statement of its own
  // whose last run may have been slow (a connection made anew after the outage test). Looked up again
  // while the pool is full of slow statements, the known-quick query waited with them and was
  // answered 503 busy (one CI run). These tests are of the statements' own lanes: the lookup is kept.
  ...authEnv({ AUTH_MAX_FAILURES: '1000', AUTH_RECHECK_SECONDS: '3600' }),
};

/** A new API token of a demo user, written straight into the cluster. */
async function newToken(url: string, email: string): Promise<string> {
  const db = await connectDatabase(loadConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: '1' }));
  try {
    return (await tokenFor(db, email)).secret;
  } finally {
    await db.close();
  }
}

suite('database faults on a PostgreSQL cluster of the test', () => {
  let cluster: OwnCluster;
  let server: EngineProcess;
  let jwt: string;
  const gqlPost = (query: string, headers: Record<string, string>) =>
    timed(`${server.url}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
  const admin = { 'x-hasura-admin-secret': ADMIN_SECRET };

  beforeAll(async () => {
    cluster = await createOwnCluster();
    server = await startEngineProcess({ ...ENGINE_ENV, DATABASE_URL: cluster.url });
    const exchanged = await exchange(server, alice.username, await newToken(cluster.url, alice.username));
    jwt = exchanged.body.token;
    // A role's schema is built on its first request (a second of CPU): not during the measurements.
    expect((await gqlPost(SIMPLE, bearer(jwt))).status).toBe(200);
    expect((await gqlPost(SIMPLE, admin)).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await cluster?.destroy();
  });

  test('up: /healthz and /readyz answer 200', async () => {
    const live = await timed(`${server.url}/healthz`, {});
    const ready = await timed(`${server.url}/readyz`, {});
    expect([live.status, ready.status]).toEqual([200, 200]);
    expect(JSON.parse(ready.text)).toEqual({ status: 'ok', database: 'postgres' });
  });

  test('stopped under load: every request is answered within 2 s with 503 database-unavailable and Retry-After; liveness 200, readiness 503; recovery without a restart', async () => {
    const results: Timed[] = [];
    let loading = true;
    const loop = async () => {
      while (loading) results.push(await gqlPost(SIMPLE, bearer(jwt)));
    };
    const loops = Array.from({ length: 8 }, loop);
    await new Promise((r) => setTimeout(r, 300));
    await cluster.stop();
    const stoppedAt = Date.now();
    try {
      await new Promise((r) => setTimeout(r, 1000));
      await checkOutage();
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      loading = false;
      await Promise.all(loops);
      await cluster.start();
    }
    const during = results.filter((r) => r.started >= stoppedAt);
    expect(during.length).toBeGreaterThan(20);
    for (const r of results) {
      expect(r.ms).toBeLessThan(2000);
      expect([200, 503]).toContain(r.status);
      expect(r.text).not.toMatch(new RegExp(`127\\.0\\.0\\.1|${cluster.port}|ECONN|postgres`, 'i'));
    }
    for (const r of during) {
      expect(r.status).toBe(503);
      expect(codeOf(r)).toBe('database-unavailable');
      expect(r.retryAfter).toBe('5');
    }
    // Back: the same engine answers again, with no restart.
    const back = Date.now();
    let ok = false;
    while (!ok && Date.now() - back < 15_000) {
      const r = await gqlPost(SIMPLE, bearer(jwt));
      ok = r.status === 200 && !JSON.parse(r.text).errors;
      if (!ok) await new Promise((res) => setTimeout(res, 100));
    }
    expect(ok).toBe(true);
    expect((await timed(`${server.url}/readyz`, {})).status).toBe(200);
    // Connections that sat idle through the outage fail once when next used, and while one is found
    // dead the others are told 503 at once: cycle through the pool, with twelve texts (one text sent at
    // once runs as one statement, on one connection), until a round is answered whole.
    const twelve = Array.from({ length: 12 }, (_, i) => `{ cloud_accounts(limit: 1) { id${i}: id } }`);
    for (let round = 0, whole = false; !whole && round < 20; round++)
      whole = (await Promise.all(twelve.map((q) => gqlPost(q, admin)))).every((r) => r.status === 200);
    const settled = await Promise.all(Array.from({ length: 12 }, () => gqlPost(SIMPLE, admin)));
    expect(settled.map((r) => r.status)).toEqual(Array(12).fill(200));
  }, 60_000);

  /** While the database is down: liveness, readiness, the exchange, and what the admin is told. */
  async function checkOutage(): Promise<void> {
    const live = await timed(`${server.url}/healthz`, {});
    expect(live.status).toBe(200);
    expect(live.ms).toBeLessThan(300);
    const ready = await timed(`${server.url}/readyz`, {});
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(1000);
    const signIn = await exchange(server, alice.username, 'any secret: the database cannot check it');
    expect(signIn.status).toBe(503);
    expect(signIn.body.errors[0].extensions.code).toBe('database-unavailable');
    // An action's own statements fail alike, not as an action-error carrying the driver's text.
    const action = await gqlPost('{ kg_get_filter_options { data { node_types } } }', bearer(jwt));
    expect([action.status, codeOf(action)]).toEqual([503, 'database-unavailable']);
    expect(action.text).not.toMatch(/127\.0\.0\.1|ECONN|CONNECTION/);
    const asAdmin = await gqlPost(SIMPLE, admin);
    expect(asAdmin.status).toBe(503);
    // The driver's text, which names the server's address, is for the admin (and the log) only.
    expect(JSON.parse(asAdmin.text).errors[0].extensions.internal.error).toMatch(/ECONNREFUSED|CONNECTION|terminat/);
    // The log is written at most every 10 ms (core/logger.ts): the line may come after the answer.
    const logged = /"code":"database-unavailable","error":"[^"]*ECONNREFUSED 127\.0\.0\.1/;
    for (let i = 0; i < 20 && !logged.test(server.output()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(server.output()).toMatch(logged);
  }

  test('32 statements held to the statement timeout: health, readiness, the token exchange and a known-quick query answer at once; a new statement waits at most DATABASE_POOL_TIMEOUT_MS, then 503 busy', async () => {
    const secret = await newToken(cluster.url, alice.username);
    // Its last run was quick: it may use the connections kept for quick statements (DATABASE_POOL_QUICK_RESERVE).
    // On a machine loaded by the other suites one run can take longer than DATABASE_POOL_QUICK_MS, and
    // then it waits with the slow ones: it is asked until an answer comes within 100 ms (20 times at most).
    let warm = await gqlPost(SIMPLE, bearer(jwt));
    for (let i = 0; i < 20 && warm.ms >= 100; i++) warm = await gqlPost(SIMPLE, bearer(jwt));
    expect(warm.status).toBe(200);
    // A lock the slow statements wait on until their statement timeout.
    const locker = postgres(cluster.url, { max: 1, onnotice: () => undefined });
    const holding = locker.begin(async (tx) => {
      await tx`LOCK TABLE spends IN ACCESS EXCLUSIVE MODE`;
      await new Promise((r) => setTimeout(r, STATEMENT_TIMEOUT_MS + 2500));
    });
    try {
      await new Promise((r) => setTimeout(r, 200));
      const start = Date.now();
      // 32 statements of their own (each names its field alike: another text): the same text, sent at
      // once, would run as one statement for all (engine/compile/execute/coalesce.ts), one turn of the gate.
      const slow = Array.from({ length: 32 }, (_, i) => gqlPost(`{ spends(limit: 1) { id${i}: id } }`, admin));
      await new Promise((r) => setTimeout(r, 300));

      const live = await timed(`${server.url}/healthz`, {});
      const ready = await timed(`${server.url}/readyz`, {});
      const t0 = Date.now();
      const exchanged = await exchange(server, alice.username, secret);
      const exchangeMs = Date.now() - t0;
      expect([live.status, ready.status, exchanged.status]).toEqual([200, 200, 200]);
      expect(Math.max(live.ms, ready.ms, exchangeMs)).toBeLessThan(500);

      const quick = await gqlPost(SIMPLE, bearer(jwt));
      expect([quick.status, codeOf(quick)]).toEqual([200, undefined]);
      expect(quick.ms).toBeLessThan(500);
      // A statement never run before is not known to be quick: it waits with the slow ones, then is told.
      const fresh = await gqlPost('{ cloud_accounts(limit: 2) { id account_name } }', bearer(jwt));
      expect(fresh.status).toBe(503);
      expect(codeOf(fresh)).toBe('busy');
      expect(fresh.retryAfter).toBe('1');
      expect(fresh.ms).toBeGreaterThanOrEqual(POOL_TIMEOUT_MS - 50);
      expect(fresh.ms).toBeLessThan(POOL_TIMEOUT_MS + 700);

      const answers = await Promise.all(slow);
      const cleared = Date.now() - start;
      const codes = answers.map(codeOf);
      // Eight (ten connections, two kept for quick statements) ran into the statement timeout; the rest
      // were told the server is busy after waiting their turn.
      expect(codes.filter((c) => c === 'postgres-error')).toHaveLength(8);
      expect(codes.filter((c) => c === 'busy')).toHaveLength(24);
      expect(cleared).toBeLessThan(STATEMENT_TIMEOUT_MS + 1500);
    } finally {
      // Ended even when a check failed: a client left open fails the next test, which stops the cluster.
      await holding.catch(() => undefined);
      await locker.end();
    }
    const after = await gqlPost(SIMPLE, bearer(jwt));
    expect(after.status).toBe(200);
    expect(JSON.parse(after.text).data.cloud_accounts).toHaveLength(1);
  }, 60_000);

  test('down at start-up: the engine says which host and port it tries, waits for it, and serves once it is up', async () => {
    await cluster.stop();
    let tried: () => void = () => undefined;
    const triedOnce = new Promise<void>((resolve) => (tried = resolve));
    const starting = startEngineProcess(
      { ...ENGINE_ENV, DATABASE_URL: cluster.url, DATABASE_CONNECT_RETRY_SECONDS: '60' },
      { onOutput: (all) => /is not reachable/.test(all) && tried() },
    );
    starting.catch(() => undefined);
    let late: EngineProcess | undefined;
    try {
      await triedOnce;
      await new Promise((r) => setTimeout(r, 1000));
      await cluster.start();
      late = await starting;
      expect(late.output()).toContain(`PostgreSQL at 127.0.0.1:${cluster.port}/postgres is not reachable`);
      expect(late.output()).toContain(`PostgreSQL at 127.0.0.1:${cluster.port}/postgres is reachable`);
      expect((await late.post('/api/graphql', JSON.stringify({ query: SIMPLE }), admin)).status).toBe(200);
    } finally {
      await late?.stop();
      if (cluster) await cluster.start().catch(() => undefined);
    }
  }, 120_000);
});

describe('a database that never comes up at start-up', () => {
  test('is retried for DATABASE_CONNECT_RETRY_SECONDS, then given up with its host and port (never the password) and a non-zero exit', async () => {
    const port = await freePort();
    const password = 'never-in-any-log-5f1c';
    const run = await runEngineToExit({
      ADMIN_SECRET,
      DATABASE_URL: `postgres://platform:${password}@127.0.0.1:${port}/platform`,
      DATABASE_CONNECT_RETRY_SECONDS: '2',
    });
    expect(run.code).not.toBe(0);
    expect(run.output).toContain(`PostgreSQL at 127.0.0.1:${port}/platform is not reachable`);
    expect(run.output).toMatch(/retrying in \d+ ms/);
    expect(run.output).toContain(
      `cannot reach PostgreSQL at 127.0.0.1:${port}/platform (connect ECONNREFUSED 127.0.0.1:${port}); gave up after 2 s (DATABASE_CONNECT_RETRY_SECONDS)`,
    );
    expect(run.output).toContain('"level":"fatal"');
    expect(run.output).not.toContain(password);
  }, 120_000);
});
