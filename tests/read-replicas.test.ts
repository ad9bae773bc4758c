import postgres from 'postgres';
import { DEMO } from '../demo/demo-data';
import { loadConfig } from '../engine/core/config';
import { connectDatabase } from '../engine/core/db/connect';
import { authEnv, bearer, gqlWith, jwtFor, within } from './support/auth';
import { onPostgres, type TestDatabase } from './support/database';
import { createOwnCluster, createReplica, type OwnCluster } from './support/own-cluster';
import { ADMIN_SECRET, startTestServer, type TestServer } from './support/server';
import { follow, transportClient, until } from './support/ws';

/**
 * Read replicas with real parts: a primary cluster of the test's own and two streaming replicas made
 * from it by `pg_basebackup -R`, each on its own port; the engine reads from the replicas
 * (DATABASE_READ_REPLICA_URLS) and writes on the primary. That a read was served by a replica is
 * shown by a row changed on the primary while the replicas' replay is paused (pg_wal_replay_pause):
 * a replica still answers the old value. PostgreSQL only: PGlite has no replication.
 */
if (!onPostgres)
  console.log('read-replicas: skipped on PGlite, which has no replication (its database lives inside the engine)');
const suite = onPostgres ? describe : describe.skip;

const acme = DEMO.tenants.acme;
const ACCOUNT = acme.cloudAccounts.aws;
const READ = 'query($id: uuid!) { cloud_accounts_by_pk(id: $id) { account_name } }';
const WRITE =
  'mutation($id: uuid!, $name: String!) { update_cloud_accounts_by_pk(pk_columns: {id: $id}, _set: {account_name: $name}) { account_name } }';
const USER_A = '22222222-0000-4000-8000-00000000000a';
const USER_B = '22222222-0000-4000-8000-00000000000b';
const ADMIN = { 'x-hasura-admin-secret': ADMIN_SECRET };
const METRICS_TOKEN = 'metrics-token-of-the-replicas-test-0123456789';

/** The primary's database as the test server's: made and dropped here, not by the server. */
const onCluster = (cluster: OwnCluster): TestDatabase => ({
  env: { DATABASE_URL: cluster.url },
  drop: async () => undefined,
});

suite('read replicas: a primary and two streaming replicas of the test', () => {
  let primary: OwnCluster;
  let replicas: OwnCluster[] = [];
  let server: TestServer;
  let onPrimary: postgres.Sql;
  let onReplicas: postgres.Sql[];
  let counter = 0;

  const nameSeen = async (headers: Record<string, string>): Promise<string> => {
    const res = await gqlWith(server, headers, READ, { id: ACCOUNT });
    if (res.status !== 200 || !res.body.data) throw new Error(`read failed: ${res.status} ${res.text}`);
    return res.body.data.cloud_accounts_by_pk.account_name;
  };
  const writeOnPrimary = async (): Promise<string> => {
    const name = `direct ${++counter}`;
    await onPrimary`UPDATE cloud_accounts SET account_name = ${name} WHERE id = ${ACCOUNT}`;
    return name;
  };
  const replicaName = async (sql: postgres.Sql) =>
    String((await sql`SELECT account_name FROM cloud_accounts WHERE id = ${ACCOUNT}`)[0].account_name);
  const pause = () => Promise.all(onReplicas.map((sql) => sql`SELECT pg_wal_replay_pause()`));
  /** Replay on, and every replica caught up with the primary's value. */
  const resume = async () => {
    await Promise.all(onReplicas.map((sql) => sql`SELECT pg_wal_replay_resume()`));
    const [row] = await onPrimary`SELECT account_name FROM cloud_accounts WHERE id = ${ACCOUNT}`;
    for (const sql of onReplicas)
      expect(await within(20_000, async () => (await replicaName(sql)) === row.account_name)).toBeGreaterThanOrEqual(0);
  };
  const metrics = async () =>
    (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const readyz = async () => {
    const res = await fetch(`${server.url}/readyz`);
    return { status: res.status, body: await res.json() };
  };

  beforeAll(async () => {
    primary = await createOwnCluster();
    // The engine migrates and seeds the primary; the replicas are cloned from it afterwards.
    const seeding = await startTestServer({ database: onCluster(primary) });
    await seeding.stop();
    replicas = [await createReplica(primary), await createReplica(primary)];
    onPrimary = postgres(primary.url, { max: 1, onnotice: () => undefined });
    onReplicas = replicas.map((r) => postgres(r.url, { max: 1, onnotice: () => undefined }));
    server = await startTestServer({
      database: onCluster(primary),
      env: {
        ...authEnv(),
        METRICS_TOKEN,
        DATABASE_READ_REPLICA_URLS: replicas.map((r) => r.url).join(','),
        DATABASE_REPLICA_CHECK_SECONDS: '1',
        DATABASE_REPLICA_RETRY_SECONDS: '1',
        READ_YOUR_WRITES_SECONDS: '30',
      },
    });
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    await Promise.all([onPrimary, ...(onReplicas ?? [])].map((sql) => sql?.end()));
    for (const c of [...replicas, primary]) await c?.destroy();
  }, 120_000);

  test('reads are served by the replicas; x-hasura-use-primary sends an admin-secret read to the primary', async () => {
    const before = await nameSeen(ADMIN);
    await pause();
    try {
      const fresh = await writeOnPrimary();
      // Both replicas in turn (round robin): neither has replayed the change.
      for (let i = 0; i < 4; i++) expect(await nameSeen({ ...ADMIN, 'x-hasura-user-id': USER_B })).toBe(before);
      expect(await nameSeen({ ...ADMIN, 'x-hasura-use-primary': 'true' })).toBe(fresh);
      const text = await metrics();
      for (const r of replicas)
        expect(text).toMatch(new RegExp(`database_reads_total\\{target="127\\.0\\.0\\.1:${r.port}/postgres"\\} [1-9]`));
      // Any other credential's header is ignored: its read stays on a replica.
      const { jwt } = await jwtFor(server, acme.users.admin.username);
      expect(await nameSeen({ ...bearer(jwt), 'x-hasura-use-primary': 'true' })).toBe(before);
    } finally {
      await resume();
    }
  });

  test("writes go to the primary, and the writer's reads follow them there (read-your-writes)", async () => {
    const before = await nameSeen(ADMIN);
    await pause();
    try {
      const asA = { ...ADMIN, 'x-hasura-user-id': USER_A };
      // The replicas are in recovery and refuse every write: the mutation ran on the primary.
      const wrote = await gqlWith(server, asA, WRITE, { id: ACCOUNT, name: 'written by A' });
      expect(wrote.body).toEqual({ data: { update_cloud_accounts_by_pk: { account_name: 'written by A' } } });
      const [row] = await onPrimary`SELECT account_name FROM cloud_accounts WHERE id = ${ACCOUNT}`;
      expect(row.account_name).toBe('written by A');
      // A reads its own write at once although no replica has replayed it; B still reads a replica.
      expect(await nameSeen(asA)).toBe('written by A');
      expect(await nameSeen({ ...ADMIN, 'x-hasura-user-id': USER_B })).toBe(before);
    } finally {
      await resume();
    }
  });

  test("subscriptions' polls read the replicas", async () => {
    await pause();
    const client = transportClient(server.url, { headers: { ...ADMIN, 'x-hasura-user-id': USER_B } });
    try {
      const before = await replicaName(onReplicas[0]);
      const fresh = await writeOnPrimary();
      const sub = follow(client, `subscription { cloud_accounts_by_pk(id: "${ACCOUNT}") { account_name } }`);
      await until(20_000, () => sub.results.length > 0, 'the first result');
      expect(sub.results[0].data.cloud_accounts_by_pk.account_name).toBe(before);
      await resume();
      await until(
        20_000,
        () => sub.results.some((r) => r.data.cloud_accounts_by_pk.account_name === fresh),
        'the replayed row',
      );
      sub.stop();
    } finally {
      await resume();
      await client.dispose();
    }
  });

  test('/readyz and /metrics show each replica: up, and its lag', async () => {
    await pause();
    try {
      await writeOnPrimary();
      // The periodic check (every second here) sees the replay fall behind.
      const behind = async () => (await readyz()).body.replicas.every((r: { lagBytes?: number }) => r.lagBytes! > 0);
      expect(await within(20_000, behind)).toBeGreaterThanOrEqual(0);
      const ready = await readyz();
      expect(ready.status).toBe(200);
      expect(ready.body.replicas).toHaveLength(2);
      for (const r of ready.body.replicas) {
        expect(r).toMatchObject({ up: true });
        expect(typeof r.lagSeconds).toBe('number');
      }
      const text = await metrics();
      for (const r of replicas) {
        const label = `replica="127.0.0.1:${r.port}/postgres"`;
        expect(text).toContain(`database_replica_up{${label}} 1`);
        expect(text).toMatch(new RegExp(`database_replica_lag_bytes\\{${label.replace(/\./g, '\\.')}\\} [1-9]`));
        expect(text).toContain(`database_replica_lag_seconds{${label}}`);
      }
    } finally {
      await resume();
    }
  });

  test('a statement a replica refuses because it writes runs on the primary', async () => {
    await onPrimary`CREATE SEQUENCE IF NOT EXISTS replica_test_seq`;
    await resume();
    const replayed = async () => {
      const found = await Promise.all(onReplicas.map((sql) => sql`SELECT to_regclass('replica_test_seq') AS "seq"`));
      return found.every(([row]) => row.seq !== null);
    };
    expect(await within(20_000, replayed)).toBeGreaterThanOrEqual(0);
    const db = await connectDatabase(
      loadConfig({ DATABASE_URL: primary.url, DATABASE_READ_REPLICA_URLS: replicas.map((r) => r.url).join(',') }),
    );
    try {
      const before = db.replicas!.reads().primary;
      const [row] = await db.replicas!.query(
        `SELECT nextval('replica_test_seq')::text AS "n", pg_is_in_recovery() AS "r"`,
      );
      expect(row).toEqual({ n: '1', r: false });
      expect(db.replicas!.reads().primary).toBe(before + 1);
    } finally {
      await db.close();
    }
  });

  test('a stopped replica sends reads to the other, then to the primary, and no request fails', async () => {
    const expected = await writeOnPrimary();
    await resume();
    const reads = async (n: number) => {
      for (let i = 0; i < n; i++) expect(await nameSeen({ ...ADMIN, 'x-hasura-user-id': USER_B })).toBe(expected);
    };
    // Reads keep coming while the replica stops under them: none fails, each sees the current row.
    let stopped = false;
    const reader = async () => {
      let n = 0;
      for (; !stopped || n < 3; n++) expect(await nameSeen({ ...ADMIN, 'x-hasura-user-id': USER_B })).toBe(expected);
      return n;
    };
    const readers = [reader(), reader(), reader()];
    await replicas[0].stop();
    stopped = true;
    expect((await Promise.all(readers)).every((n) => n >= 3)).toBe(true);
    await reads(6);
    const oneDown = await readyz();
    expect(oneDown.status).toBe(200);
    expect(oneDown.body.replicas.map((r: { up: boolean }) => r.up)).toEqual([false, true]);
    expect(await metrics()).toContain(`database_replica_up{replica="127.0.0.1:${replicas[0].port}/postgres"} 0`);
    await replicas[1].stop();
    await reads(6);
    const bothDown = await readyz();
    expect(bothDown.status).toBe(200);
    expect(bothDown.body.replicas.map((r: { up: boolean }) => r.up)).toEqual([false, false]);
    const text = await metrics();
    expect(text).toMatch(/database_reads_total\{target="primary"\} [1-9]/);
    expect(text).toContain(`database_pool_size{pool="127.0.0.1:${replicas[1].port}/postgres"}`);
    // Started again, they are found by the periodic check and read from once more.
    await Promise.all(replicas.map((r) => r.start()));
    const bothUp = async () => (await readyz()).body.replicas.every((r: { up: boolean }) => r.up);
    expect(await within(20_000, bothUp)).toBeGreaterThanOrEqual(0);
    await reads(4);
  });
});

/** The embedded database has no replicas to read from: the setting is ignored, said once in the log. */
(onPostgres ? describe.skip : describe)('read replicas on PGlite', () => {
  test('DATABASE_READ_REPLICA_URLS is ignored with a warning; reads and writes work', async () => {
    const lines: Record<string, unknown>[] = [];
    const server = await startTestServer({
      env: { DATABASE_READ_REPLICA_URLS: 'postgres://postgres@127.0.0.1:1/none' },
      log: (entry) => void lines.push(entry),
    });
    try {
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          msg: expect.stringContaining('DATABASE_READ_REPLICA_URLS is ignored'),
        }),
      );
      const wrote = await server.gql(WRITE, { id: ACCOUNT, name: 'on PGlite' });
      expect(wrote.body.data.update_cloud_accounts_by_pk.account_name).toBe('on PGlite');
      const read = await server.gql(READ, { id: ACCOUNT });
      expect(read.body).toEqual({ data: { cloud_accounts_by_pk: { account_name: 'on PGlite' } } });
      const ready = await fetch(`${server.url}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ok', database: 'pglite' });
    } finally {
      await server.close();
    }
  });
});
