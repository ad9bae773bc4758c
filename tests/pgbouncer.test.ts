import { DEMO } from '../demo/demo-data';
import { loadConfig } from '../engine/core/config';
import { connectDatabase } from '../engine/core/db/connect';
import type { Database } from '../engine/core/db/database';
import { authEnv, bearer, exchange, gqlWith, tokenFor } from './support/auth';
import { createTestDatabase, onPostgres, type TestDatabase } from './support/database';
import { runEngineToExit, startEngineProcess, type EngineProcess } from './support/engine-process';
import { pgbouncerBinary, startPgBouncer, type PgBouncer } from './support/pgbouncer';
import { ADMIN_SECRET, as } from './support/server';
import { follow, transportClient, until } from './support/ws';

/**
 * The engine behind PgBouncer in transaction mode (Debian's pgbouncer, which has no prepared
 * statements in that mode), started here with its own ini and port in front of this file's database
 * on the shared server: with DATABASE_POOLER=transaction every request works (queries of many shapes
 * in parallel, mutations, the token exchange, a subscription), LISTEN goes to DATABASE_LISTEN_URL, and
 * what cannot work is said at start-up. PostgreSQL only: PGlite is embedded in the engine's process,
 * there is no server for a pooler to stand in front of.
 */
const SKIP = !onPostgres
  ? 'pgbouncer: skipped on PGlite, which has no server a pooler could stand in front of; set DATABASE_URL to run it'
  : !pgbouncerBinary()
    ? 'pgbouncer: skipped, pgbouncer is not installed (apt-get install pgbouncer; .ci/run installs it)'
    : '';
if (SKIP) console.log(SKIP);
const suite = SKIP ? describe.skip : describe;

const acme = DEMO.tenants.acme;
const alice = acme.users.admin;
const AUTH = { 'x-hasura-admin-secret': ADMIN_SECRET, ...as('tenant_admin', acme.id, alice.id) };
const STATEMENT_TIMEOUT_MS = 1500;
const ENV = { ADMIN_SECRET, SEED_DEMO_DATA: 'false', ...authEnv({ AUTH_MAX_FAILURES: '1000' }) };

/** Queries of different shapes: each a statement of its own, which a prepared-statement pool would name. */
const SHAPES = [
  '{ cloud_accounts(order_by: {id: asc}) { id account_name } }',
  '{ cloud_accounts(limit: 1) { id } }',
  '{ tenant { id name } }',
  '{ cloud_accounts_aggregate { aggregate { count } } }',
  `{ cloud_accounts(where: {id: {_eq: "${acme.cloudAccounts.gcp}"}}) { account_name } }`,
];

/** Host and port of a postgres:// URL. */
function serverOf(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname || '127.0.0.1', port: Number(u.port || 5432) };
}

suite(SKIP || 'the engine behind PgBouncer in transaction mode', () => {
  let database: TestDatabase;
  let bouncer: PgBouncer;
  let direct: Database;
  let engine: EngineProcess;
  let directUrl: string;
  let pooledUrl: string;

  beforeAll(async () => {
    database = await createTestDatabase({ seeded: true });
    directUrl = database.env.DATABASE_URL;
    bouncer = await startPgBouncer(serverOf(directUrl), { poolSize: 3 });
    pooledUrl = bouncer.url(new URL(directUrl).pathname.slice(1));
    direct = await connectDatabase(loadConfig({ DATABASE_URL: directUrl, DATABASE_POOL_SIZE: '1' }));
    engine = await startEngineProcess({
      ...ENV,
      DATABASE_URL: pooledUrl,
      DATABASE_POOLER: 'transaction',
      DATABASE_LISTEN_URL: directUrl,
      STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    });
  }, 180_000);

  afterAll(async () => {
    await engine?.stop();
    await direct?.close();
    await bouncer?.stop();
    await database?.drop();
  });

  test('without DATABASE_POOLER the engine stops at start-up and says to set it', async () => {
    const run = await runEngineToExit({ ...ENV, DATABASE_URL: pooledUrl, DATABASE_CONNECT_RETRY_SECONDS: '0' });
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('unsupported startup parameter');
    expect(run.output).toContain('DATABASE_POOLER=transaction');
  }, 120_000);

  test('queries of many shapes in parallel all answer', async () => {
    const all = await Promise.all(
      Array.from({ length: 60 }, (_, i) => gqlWith(engine, AUTH, SHAPES[i % SHAPES.length])),
    );
    expect(all.map((r) => r.status)).toEqual(all.map(() => 200));
    expect(all.filter((r) => r.body.errors)).toEqual([]);
  });

  test('a mutation writes, and the write is read back through the pooler', async () => {
    const name = `renamed behind the pooler ${Date.now()}`;
    const id = acme.cloudAccounts.azure;
    const res = await gqlWith(
      engine,
      AUTH,
      'mutation($id: uuid!, $n: String!) { update_cloud_accounts(where: {id: {_eq: $id}}, _set: {account_name: $n}) { affected_rows } }',
      { id, n: name },
    );
    expect(res.body).toEqual({ data: { update_cloud_accounts: { affected_rows: 1 } } });
    const back = await gqlWith(engine, AUTH, `{ cloud_accounts(where: {id: {_eq: "${id}"}}) { account_name } }`);
    expect(back.body).toEqual({ data: { cloud_accounts: [{ account_name: name }] } });
  });

  test('the token exchange, then GraphQL with its JWT', async () => {
    const t = await tokenFor(direct, alice.username, 'through the pooler');
    const res = await exchange(engine, alice.username, t.secret);
    expect(res.status).toBe(200);
    const q = await gqlWith(engine, bearer(res.body.token), '{ tenant { id } }');
    expect(q.body).toEqual({ data: { tenant: [{ id: acme.id }] } });
    expect((await exchange(engine, alice.username, 'not the secret')).status).toBe(401);
  });

  test('a subscription gets its first result and the next after a mutation', async () => {
    const id = acme.cloudAccounts.gcp;
    const client = transportClient(engine.url, { headers: AUTH });
    const sub = follow(client, `subscription { cloud_accounts(where: {id: {_eq: "${id}"}}) { account_name } }`);
    try {
      await until(10_000, () => sub.results.length >= 1, 'first result');
      const name = `seen by a subscription ${Date.now()}`;
      const res = await gqlWith(
        engine,
        AUTH,
        `mutation { update_cloud_accounts(where: {id: {_eq: "${id}"}}, _set: {account_name: "${name}"}) { affected_rows } }`,
      );
      expect(res.body.errors).toBeUndefined();
      await until(10_000, () => sub.results.some((r) => r.data?.cloud_accounts?.[0]?.account_name === name), 'update');
      expect(sub.errors).toEqual([]);
    } finally {
      sub.stop();
      await client.dispose();
    }
  });

  test('a mutation waiting on a lock runs into STATEMENT_TIMEOUT_MS (SET LOCAL in its transaction; the server has none)', async () => {
    const id = acme.cloudAccounts.aws;
    const res = await direct.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM cloud_accounts WHERE id = $1::uuid FOR UPDATE', [id]);
      return gqlWith(
        engine,
        AUTH,
        `mutation { update_cloud_accounts(where: {id: {_eq: "${id}"}}, _set: {account_name: "blocked"}) { affected_rows } }`,
      );
    });
    expect(res.body.data ?? null).toBeNull();
    expect(JSON.stringify(res.body.errors)).toContain('statement timeout');
  }, 30_000);

  test('LISTEN uses DATABASE_LISTEN_URL: no warning about it; the server having no statement_timeout is said', () => {
    expect(engine.output()).not.toContain('cannot LISTEN');
    expect(engine.output()).toContain('statement_timeout cannot be set per connection');
  });

  test('without DATABASE_LISTEN_URL it warns that deletions elsewhere take AUTH_RECHECK_SECONDS; with the role’s statement_timeout set, no timeout warning', async () => {
    // Only for this file's database; a pooler of its own, whose server connections all start after it.
    const name = new URL(directUrl).pathname.slice(1);
    await direct.exec(`ALTER ROLE postgres IN DATABASE ${name} SET statement_timeout = '30s'`);
    const second = await startPgBouncer(serverOf(directUrl), { poolSize: 3 });
    const other = await startEngineProcess({ ...ENV, DATABASE_URL: second.url(name), DATABASE_POOLER: 'transaction' });
    try {
      expect(other.output()).toContain('set DATABASE_LISTEN_URL');
      expect(other.output()).toContain('AUTH_RECHECK_SECONDS');
      expect(other.output()).not.toContain('statement_timeout cannot be set per connection');
      expect((await gqlWith(other, AUTH, SHAPES[0])).status).toBe(200);
    } finally {
      await other.stop();
      await second.stop();
    }
  }, 120_000);
});
