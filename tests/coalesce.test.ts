import { DEMO } from '../demo/demo-data';
import type { CancelSignal, Queryable, Row } from '../engine/core/db/database';
import { Coalescer } from '../engine/compile/execute/coalesce';
import { arrayLiteral } from '../engine/core/db/sql';
import { placeholderTypes } from '../engine/core/db/placeholder-types';
import { multiplexedStatement } from '../engine/compile/sql/multiplex';
import type { ParamSlot } from '../engine/compile/sql/writer';
import { backendName, onPostgres } from './support/database';
import { collected } from './support/collected';
import { adminSession } from '../engine/serve/auth/admin-secret';
import { ADMIN_SECRET, as, startTestServer, type TestServer } from './support/server';

/**
 * Requests sent at once whose query statements have the same text run as one statement, each
 * request's values a cohort of it (engine/compile/execute/coalesce.ts). Each must get the answer it
 * gets alone: its own tenant's rows, its own variables, its own error.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const acmeAdmin = as('tenant_admin', acme.id, acme.users.admin.id);
const globexAdmin = as('tenant_admin', globex.id, globex.users.admin.id);

const BY_PK = 'query ($id: uuid!) { cloud_accounts_by_pk(id: $id) { id account_name tenant } }';
const LIST = `query ($p: String!, $n: Int) {
  cloud_accounts(where: {account_name: {_like: $p}}, order_by: [{account_name: asc}], limit: $n) { account_name tenant }
  cloud_accounts_aggregate(where: {account_name: {_like: $p}}) { aggregate { count } }
}`;

interface Sent {
  query: string;
  variables: Record<string, unknown>;
  headers: Record<string, string>;
}

describe(`statements of concurrent requests, coalesced, on ${backendName}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    // One connection, as PGlite has: requests at once are batched, however few (with more connections,
    // only those past one each: the coalescer's choice, below).
    server = await startTestServer({ env: { DATABASE_POOL_SIZE: '1' } });
  });
  afterAll(() => server.close());

  const coalescer = () => server.started.engine.coalescer;
  const send = (r: Sent) => server.gql(r.query, r.variables, r.headers);

  /**
   * Each request's answer alone (which also makes the plans), and then sent at once with the others,
   * twice: the first time opens the client's connections, one per request, which connect one by one.
   */
  async function atOnceAndAlone(requests: Sent[]) {
    const alone = [];
    for (const r of requests) alone.push(await send(r));
    await Promise.all(requests.map(send));
    const batches = coalescer().batches;
    const coalesced = coalescer().coalesced;
    const together = await Promise.all(requests.map(send));
    const ran = { batches: coalescer().batches - batches, requests: coalescer().coalesced - coalesced };
    return { together, alone, ran };
  }

  test('by primary key: each request its own row, the other tenant’s none; fewer statements than requests', async () => {
    const accounts = [...Object.values(acme.cloudAccounts), ...Object.values(globex.cloudAccounts)];
    const requests = accounts.flatMap((id) =>
      [acmeAdmin, globexAdmin].map((headers) => ({ query: BY_PK, variables: { id }, headers })),
    );
    const { together, alone, ran } = await atOnceAndAlone(requests);
    expect(together.map((r) => r.body)).toEqual(alone.map((r) => r.body));
    // The rows a request gets are its tenant's: null for an account of the other.
    const found = together.filter((r) => r.body.data.cloud_accounts_by_pk !== null);
    expect(found).toHaveLength(accounts.length);
    requests.forEach((r, i) => {
      const row = together[i].body.data.cloud_accounts_by_pk;
      if (row) expect(row).toMatchObject({ id: r.variables.id, tenant: r.headers['x-hasura-tenant-id'] });
    });
    expect(ran.batches).toBeGreaterThan(0);
    expect(ran.requests).toBeGreaterThan(ran.batches);
  });

  test('several root fields in one statement, with their row counts and limits, per request', async () => {
    const requests: Sent[] = [
      { query: LIST, variables: { p: '%', n: 2 }, headers: acmeAdmin },
      { query: LIST, variables: { p: '%' }, headers: globexAdmin },
      { query: LIST, variables: { p: '%a%', n: 1 }, headers: acmeAdmin },
      { query: LIST, variables: { p: 'no such%' }, headers: globexAdmin },
    ];
    const { together, alone, ran } = await atOnceAndAlone(requests);
    expect(together.map((r) => r.body)).toEqual(alone.map((r) => r.body));
    expect(together[0].body.data.cloud_accounts).toHaveLength(2);
    expect(together[2].body.data.cloud_accounts).toHaveLength(1);
    expect(together[3].body.data).toEqual({
      cloud_accounts: [],
      cloud_accounts_aggregate: { aggregate: { count: 0 } },
    });
    for (const [i, r] of requests.entries())
      for (const row of together[i].body.data.cloud_accounts) expect(row.tenant).toBe(r.headers['x-hasura-tenant-id']);
    expect(ran.requests).toBeGreaterThanOrEqual(2);
  });

  test('a value PostgreSQL refuses fails its own request only', async () => {
    // A LIKE pattern ending in a backslash is an invalid escape sequence (22025): bad-request.
    const query = 'query ($p: String!) { cloud_accounts(where: {account_name: {_like: $p}}) { id } }';
    const requests: Sent[] = [
      { query, variables: { p: '%' }, headers: acmeAdmin },
      { query, variables: { p: '%\\' }, headers: acmeAdmin },
      { query, variables: { p: '%' }, headers: globexAdmin },
    ];
    const { together, alone, ran } = await atOnceAndAlone(requests);
    expect(ran.batches).toBeGreaterThan(0);
    expect(together.map((r) => r.body)).toEqual(alone.map((r) => r.body));
    expect(together[1].body.errors[0].extensions.code).toBe('bad-request');
    expect(together[0].body.data.cloud_accounts.length).toBeGreaterThan(0);
    expect(together[2].body.data.cloud_accounts.length).toBeGreaterThan(0);
  });

  test('a subscription’s live query unnests its cohorts as its placeholders’ types too', () => {
    const session = adminSession({ 'x-hasura-admin-secret': ADMIN_SECRET, ...acmeAdmin }, ADMIN_SECRET);
    const live = server.started.engine.liveQuery(
      { query: BY_PK.replace(/^query/, 'subscription'), variables: { id: acme.cloudAccounts.aws } },
      session,
    );
    expect(live?.cohortTypes).toContain('uuid');
  });

  test('analytic operations: each request its own tenant’s rows, in its order; the one-row ones coalesced', async () => {
    const count = '{ anomaly_grouping_v2(where: {is_anomaly: {_eq: true}}) { rows { count } } }';
    const byType = (order: string) =>
      `{ spend_groupings_v2(group_by: ["resource_type"], order_by: [{column: "resource_type", order: ${order}}]) { rows { resource_type spend_count } } }`;
    const spends = (min: number) =>
      `{ spends_v2(where: {amount: {_gt: ${min}}}, order_by: [{column: "amount", order: desc}, {column: "id"}], limit: 3) { rows { id tenant amount } } }`;
    const requests: Sent[] = [acmeAdmin, globexAdmin].flatMap((headers) => [
      { query: count, variables: {}, headers },
      { query: count, variables: {}, headers },
      { query: byType('asc'), variables: {}, headers },
      { query: byType('desc'), variables: {}, headers },
      { query: spends(10), variables: {}, headers },
      { query: spends(100), variables: {}, headers },
    ]);
    // Measured first: a few rounds, so that the one-row groupings' lanes are sized.
    for (let i = 0; i < 3; i++) await Promise.all(requests.map(send));
    let { together, alone, ran } = await atOnceAndAlone(requests);
    // On a busy machine a cohort may cost more than its lane's budget (ROWS_BATCH_MS), and the lane
    // then runs alone until it is tried in a batch again (RETRY_MS, doubled at each costly try): sent
    // again after each such wait, until one batch is made (a CI run on PGlite made none at once).
    for (const waitMs of [1100, 2100, 4100]) {
      if (ran.batches > 0) break;
      await new Promise((r) => setTimeout(r, waitMs));
      ({ together, alone, ran } = await atOnceAndAlone(requests));
    }
    expect(together.map((r) => r.body)).toEqual(alone.map((r) => r.body));
    expect(together.every((r) => !r.body.errors)).toBe(true);
    // The tenants’ lists differ: a cohort’s rows are its own.
    expect(together[4].body).not.toEqual(together[10].body);
    expect(together[2].body.data.spend_groupings_v2.rows.length).toBeGreaterThan(1);
    expect(together[2].body.data.spend_groupings_v2.rows).toEqual(
      [...together[3].body.data.spend_groupings_v2.rows].reverse(),
    );
    requests.forEach((r, i) => {
      for (const row of together[i].body.data.spends_v2?.rows ?? [])
        expect(row.tenant).toBe(r.headers['x-hasura-tenant-id']);
    });
    expect(ran.batches).toBeGreaterThan(0);
  });

  test('a request alone runs its own statement, not a batch', async () => {
    const batches = coalescer().batches;
    const r = await send({ query: BY_PK, variables: { id: acme.cloudAccounts.aws }, headers: acmeAdmin });
    expect(r.body.data.cloud_accounts_by_pk.id).toBe(acme.cloudAccounts.aws);
    expect(coalescer().batches).toBe(batches);
  });
});

/**
 * With the default pool (DATABASE_POOL_SIZE, ten connections) a few requests at once each run their own
 * statement, beside the others, on PostgreSQL; PGlite's one connection has their reads batched.
 */
describe(`few requests at once on a pool of ten, on ${backendName}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('four requests at once: batched on one connection only', async () => {
    const asked = [
      ...Object.values(acme.cloudAccounts).map((id) => ({ id, headers: acmeAdmin })),
      ...Object.values(globex.cloudAccounts).map((id) => ({ id, headers: globexAdmin })),
    ].slice(0, 4);
    expect(asked).toHaveLength(4);
    const send = () => Promise.all(asked.map((a) => server.gql(BY_PK, { id: a.id }, a.headers)));
    const alone = await send();
    await send();
    const batches = server.started.engine.coalescer.batches;
    // Sent at once, their reads are asked in one turn of the event loop unless the machine is so busy
    // that the requests' bytes arrive turns apart: up to five sends, until one is batched.
    for (let i = 0; i < 5 && server.started.engine.coalescer.batches === batches; i++) {
      const together = await send();
      expect(together.map((r) => r.body)).toEqual(alone.map((r) => r.body));
      expect(together.every((r) => r.body.data.cloud_accounts_by_pk?.id)).toBe(true);
    }
    const ran = server.started.engine.coalescer.batches - batches;
    if (onPostgres) expect(ran).toBe(0);
    else expect(ran).toBeGreaterThan(0);
  });
});

/**
 * Which statements the coalescer batches, shown on the database with statements of the test's own:
 * one quick, one that sleeps 5 ms for each request (each cohort of its batch costs the database 5 ms,
 * more than a batch may take).
 */
describe(`the coalescer's choice on ${backendName}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  // The sleep takes a cohort's value, so that each cohort runs it (a function of constants runs once).
  const statement = (sleep: number) =>
    `SELECT ($1::int * 2)::text AS "f0", 4 AS "__bytes" FROM pg_sleep(${sleep} + 0 * $1::int) WHERE $2::bigint > 0`;
  /**
   * The engine's database, not saying how many connections it has: its reads are batched however few
   * are in flight, as on a full pool. The last tests show the rule on the pool itself.
   */
  const full: Queryable = {
    query: (text, params, options) => server.started.db.query(text, params, options),
    exec: (script) => server.started.db.exec(script),
  };
  /** `n` requests at once, in one turn, asking for 2, 4, 6 ... */
  const asked = (c: Coalescer, text: string, n: number, signal?: CancelSignal, reader: Queryable = full) =>
    Array.from({ length: n }, (_, i) => c.row(reader, { text, bytesParam: 2 }, [String(i + 1), '1000'], signal));
  const round = (c: Coalescer, text: string, n: number, reader?: Queryable) =>
    Promise.all(asked(c, text, n, undefined, reader));
  const doubles = (n: number) => Array.from({ length: n }, (_, i) => String(2 * (i + 1)));
  const newCoalescer = (batchMs?: number) =>
    new Coalescer((reader, text, params, signal, onRow) => reader.query(text, params, { signal, onRow }), { batchMs });
  /**
   * A coalescer of reads of many rows (`rows`), whose placeholders' types PostgreSQL is asked:
   * `described()` is that question's answer, after which the reads are batched.
   */
  const describingCoalescer = (rowCallback?: (onRow: (row: Row) => void) => void) => {
    let asked: Promise<string[]> | undefined;
    const c = new Coalescer(
      (reader, text, params, signal, onRow) => {
        if (onRow) rowCallback?.(onRow);
        return reader.query(text, params, { signal, onRow });
      },
      { batchMs: 1000, describe: (text) => (asked = placeholderTypes(server.started.db, text)) },
    );
    return { c, described: () => asked };
  };

  test('a light statement: batches of two until measured, then every round one batch', async () => {
    // A batch may take a second of the database's time, so that a busy machine's slow cohorts do not
    // split the rounds: this shows how batches form, the next test how their size follows the cost.
    const c = newCoalescer(1000);
    // Unmeasured, a statement runs in batches of two: a heavy one would hold a connection long.
    expect((await round(c, statement(0), 16)).map((r) => r.f0)).toEqual(doubles(16));
    expect([c.batches, c.coalesced]).toEqual([8, 16]);
    // Measured: sixteen a round is one batch.
    for (let i = 1; i <= 2; i++) {
      expect((await round(c, statement(0), 16)).map((r) => r.f0)).toEqual(doubles(16));
      expect(c.batches).toBe(8 + i);
    }
    expect(c.coalesced).toBe(48);
    // More than a batch holds (64), in one turn: two batches, every request answered.
    expect((await round(c, statement(0), 70)).map((r) => r.f0)).toEqual(doubles(70));
    expect(c.batches).toBe(12);
  });

  test("a turn's long batch is split over the reader's connections; a short one is not", async () => {
    // A batch runs its cohorts one after the other on one backend: eight cohorts of 5 ms kept the
    // database's other cores idle for 40 ms. On a reader of four connections they run as four
    // statements of two (coalesce.ts SPLIT_MS, 12 ms a part); eight quick cohorts stay one statement.
    const pool: Queryable = { ...full, poolStats: () => ({ inUse: 0, waiting: 0, size: 4 }) } as Queryable;
    const c = newCoalescer(1000);
    await round(c, statement(0.005), 2, pool); // measured: a cohort costs 5 ms
    const [batches, coalesced] = [c.batches, c.coalesced];
    expect((await round(c, statement(0.005), 8, pool)).map((r) => r.f0)).toEqual(doubles(8));
    expect([c.batches - batches, c.coalesced - coalesced]).toEqual([4, 8]);
    await round(c, statement(0), 2, pool);
    const quick = c.batches;
    expect((await round(c, statement(0), 8, pool)).map((r) => r.f0)).toEqual(doubles(8));
    expect(c.batches - quick).toBe(1);
  });

  test('a read of many rows a request splits its batch at 2 ms a part (ROWS_SPLIT_MS), not 12', async () => {
    // Eight cohorts of 1 ms: 8 ms, short of SPLIT_MS, so a one-row read's batch would stay one
    // statement; the batch of a read of many rows (an analytic operation's) runs as four statements of
    // two on a reader of four connections, so that the database's cores share it.
    const pool: Queryable = { ...full, poolStats: () => ({ inUse: 0, waiting: 0, size: 4 }) } as Queryable;
    const { c, described } = describingCoalescer();
    const text = `SELECT ($1::int * 2)::text AS "d" FROM pg_sleep(0.001 + 0 * $1::int)`;
    const ask = (n: number) => Promise.all(Array.from({ length: n }, (_, i) => c.rows(pool, text, [String(i + 1)])));
    await ask(2); // alone, while PostgreSQL is asked the placeholders' types
    await described();
    await ask(2); // one batch of two: a cohort measured at 1 ms or more
    const batches = c.batches;
    const got = await ask(8);
    expect(got.map((rows) => rows.map((r) => r.d))).toEqual(doubles(8).map((d) => [d]));
    expect(c.batches - batches).toBe(4);
  });

  test("an answered request's cancel signal keeps no listener of its batch", async () => {
    // The batch listens to each request's signal (to stop when all are cancelled). Left there, a
    // request's signal tied it to the batch's other requests and answers, which then outlived their
    // requests in V8's young generation (coalesce.ts CohortRows.answer).
    const listening = new Set<() => void>();
    const signalOf = (): CancelSignal => ({
      aborted: false,
      addEventListener: (_type, listener) => void listening.add(listener),
      removeEventListener: (_type, listener) => void listening.delete(listener),
    });
    const c = newCoalescer(1000);
    await round(c, statement(0), 2); // measured: the next turn's requests are one batch
    const batches = c.batches;
    const rows = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        c.row(full, { text: statement(0), bytesParam: 2 }, [String(i + 1), '1000'], signalOf()),
      ),
    );
    expect(rows.map((r) => r.f0)).toEqual(doubles(8));
    expect(c.batches).toBe(batches + 1);
    expect(listening.size).toBe(0);
  });

  test('a finished batch of reads of many rows lets its rows go, though the driver keeps its row callback', async () => {
    // postgres.js's Query keeps the `onRow` it was given, and something may keep a Query past its
    // statement's end (core/db/postgres.ts statementRunner). Rows the batch still held through that
    // callback then lived into V8's old generation, every request's (coalesce.ts CohortRows.finish).
    const kept: ((row: Row) => void)[] = [];
    const { c, described } = describingCoalescer((onRow) => kept.push(onRow));
    const text = `SELECT g::text AS "g", $1::int::text AS "n" FROM generate_series(1, 3) AS g`;
    const ask = () => Promise.all([1, 2].map((i) => c.rows(full, text, [String(i)])));
    await ask(); // alone, while PostgreSQL is asked the placeholders' types
    await described();
    let got: Row[][] | undefined = await ask();
    expect(c.batches).toBe(1);
    expect(kept).toHaveLength(1);
    expect(got.map((rows) => rows.map((r) => r.n))).toEqual([
      ['1', '1', '1'],
      ['2', '2', '2'],
    ]);
    const row = new WeakRef(got[0][0]);
    got = undefined;
    expect(await collected(row)).toBe(true);
  });

  test('a batch holds as many requests as its time allows, by the database’s clock', async () => {
    // Each cohort sleeps 1 ms in the database: a batch of 4 ms holds four at most, however quick the
    // round trip (on a machine so busy that a cohort took 4 ms, each request runs alone).
    const c = newCoalescer(4);
    expect((await round(c, statement(0.001), 2)).map((r) => r.f0)).toEqual(doubles(2));
    const [batches, coalesced] = [c.batches, c.coalesced];
    expect((await round(c, statement(0.001), 16)).map((r) => r.f0)).toEqual(doubles(16));
    expect(c.coalesced - coalesced).toBeLessThanOrEqual(4 * (c.batches - batches));
  });

  test("a one-row read's request is answered at its row, while the batch's later cohorts still run", async () => {
    // Three requests, one batch: the first two answer 20 KB at once, the third after 0.5 s of sleep.
    // PostgreSQL sends what it has buffered as more comes (8 KB at a time), so the first row arrives
    // while the third cohort sleeps; PGlite gives every row when the statement has ended.
    const events: string[] = [];
    let ended = Promise.resolve();
    const c = new Coalescer(
      (reader, text, params, signal, onRow) => {
        const rows = reader.query(text, params, { signal, onRow });
        ended = rows.then(() => void events.push('statement ended'));
        return rows;
      },
      // A second of the database's time a batch, so that a busy machine's slow cohorts do not split it.
      { batchMs: 1000 },
    );
    const text =
      `SELECT repeat('x', CASE WHEN $1::int < 3 THEN 20000 ELSE 1 END) AS "f0", 4 AS "__bytes" ` +
      `FROM pg_sleep(CASE WHEN $1::int = 3 THEN 0.5 ELSE 0 END) WHERE $2::bigint > 0`;
    // Measured first (a batch of two), so that the three of the next turn are one batch.
    await round(c, text, 2);
    await ended;
    events.length = 0;
    const batches = c.batches;
    const answers = Array.from({ length: 3 }, (_, i) =>
      c.row(full, { text, bytesParam: 2 }, [String(i + 1), '100000']).then((row) => {
        events.push(`request ${i + 1}`);
        return (row.f0 as string).length;
      }),
    );
    expect(await Promise.all(answers)).toEqual([20000, 20000, 1]);
    await ended;
    expect(c.batches).toBe(batches + 1);
    // PGlite runs a statement to its end before giving any row.
    if (onPostgres) expect(events.indexOf('request 1')).toBeLessThan(events.indexOf('statement ended'));
    expect(events).toHaveLength(4);
  });

  test('a heavy statement: after its first batch, each request runs alone', async () => {
    const c = newCoalescer(4);
    // The database's clock shows each cohort took 5 ms, more than a batch's 4 ms, however quick or
    // slow the round trip: after the first batches (of two) each request runs alone.
    expect((await round(c, statement(0.005), 6)).map((r) => r.f0)).toEqual(doubles(6));
    expect(c.batches).toBe(3);
    const rows = await round(c, statement(0.005), 6);
    expect(rows.map((r) => r.f0)).toEqual(doubles(6));
    expect(c.batches).toBe(3);
  });

  test('a heavy statement is tried in one batch again once its wait is over, and then waits twice as long', async () => {
    const c = new Coalescer((reader, text, params, signal, onRow) => reader.query(text, params, { signal, onRow }), {
      batchMs: 4,
      retryMs: 300,
    });
    const heavy = statement(0.005);
    const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const roundAfter = async (ms: number) => {
      await later(ms);
      expect((await round(c, heavy, 6)).map((r) => r.f0)).toEqual(doubles(6));
      return c.batches;
    };
    // Unmeasured: batches of two; measured too costly, then each request alone.
    expect(await roundAfter(0)).toBe(3);
    expect(await roundAfter(0)).toBe(3);
    // Its wait over: one trial batch of the six requests at once, the others alone.
    expect(await roundAfter(320)).toBe(4);
    // Too costly again: the next wait is twice as long (600 ms after the trial's measure).
    expect(await roundAfter(320)).toBe(4);
    expect(await roundAfter(320)).toBe(5);
  });

  test('reads run alone while the requests in flight are no more than the pool’s connections; past that, batched', async () => {
    let requests = 0;
    const c = new Coalescer((reader, text, params, signal, onRow) => reader.query(text, params, { signal, onRow }), {
      batchMs: 1000,
      requestsInFlight: () => requests,
    });
    const text = statement(0);
    // Measured (batches of two, then one a round), so that a batch may hold a whole round.
    await round(c, text, 16);
    await round(c, text, 16);
    const db = server.started.db;
    const size = db.poolStats!().size;
    const ran = async (n: number) => {
      const before = [c.batches, c.coalesced];
      expect((await round(c, text, n, db)).map((r) => r.f0)).toEqual(doubles(n));
      return [c.batches - before[0], c.coalesced - before[1]];
    };
    // As many requests as connections: each read runs alone, beside the others. PGlite has one
    // connection, beside which nothing runs: its reads at once are batched.
    requests = size;
    expect(await ran(8)).toEqual(size > 1 ? [0, 0] : [1, 8]);
    // One more: every read of the turn is batched.
    requests = size + 1;
    expect(await ran(8)).toEqual([1, 8]);
    if (onPostgres) expect(size).toBeGreaterThan(1);
  });

  test('a batch whose connection fails under it (one that died while idle) is run again', async () => {
    let failures = 0;
    const c = new Coalescer((reader, text, params, signal) => {
      if (text.includes('__cohort') && failures-- > 0)
        return Promise.reject(
          Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
        );
      return reader.query(text, params, { signal });
    });
    // Measured first (a batch of two), so that the six of the next turn are one batch.
    await round(c, statement(0), 2);
    failures = 2;
    expect((await round(c, statement(0), 6)).map((r) => r.f0)).toEqual(doubles(6));
    expect([c.batches, failures]).toEqual([2, -1]);
    // Past three runs, the failure is every request's.
    failures = 3;
    const outcomes = await Promise.allSettled(asked(c, statement(0), 6));
    expect(outcomes.map((o) => o.status)).toEqual(Array(6).fill('rejected'));
  });

  test('a read alone whose connection fails under it is run again; not past three runs, nor a cancelled one', async () => {
    let failures = 0;
    let runs = 0;
    const c = new Coalescer((reader, text, params, signal) => {
      runs++;
      if (failures-- > 0)
        return Promise.reject(Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' }));
      return reader.query(text, params, { signal });
    });
    const text = statement(0);
    const ask = (signal?: CancelSignal) => c.row(full, { text, bytesParam: 2 }, ['7', '1000'], signal);
    failures = 2;
    expect((await ask()).f0).toBe('14');
    expect([runs, c.batches]).toEqual([3, 0]);
    failures = 3;
    runs = 0;
    await expect(ask()).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(runs).toBe(3);
    // A request already cancelled (its deadline passed) is not run again.
    const cancelled = new AbortController();
    cancelled.abort();
    failures = 1;
    runs = 0;
    await expect(ask(cancelled.signal)).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(runs).toBe(1);
  });

  test('values unnested as their placeholders’ types: each parsed once, a bad one fails its own request', async () => {
    const c = newCoalescer(1000);
    const typed = {
      text: `SELECT ($1::uuid)::text || ' ' || ($2::timestamp without time zone)::text AS "f0", 4 AS "__bytes" WHERE $3::bigint > 0`,
      bytesParam: 3,
      params: [
        { sqlType: 'uuid', array: false },
        { sqlType: 'timestamp without time zone', array: false },
      ] as ParamSlot[],
    };
    expect(
      multiplexedStatement(typed.text, 3, { bytesPerCohort: true, cohortTypes: ['uuid', 'timestamp', 'bigint'] }).text,
    ).toContain('unnest((SELECT $1::uuid[]), (SELECT $2::timestamp[]), (SELECT $3::bigint[]))');
    const id = (i: number) => `00000000-0000-4000-8000-00000000000${i}`;
    const ask = (values: string[]) => c.row(full, typed, [...values, '1000']);
    // Measured first, in a batch of two; then five in one batch, one of them with a malformed uuid.
    await Promise.all([ask([id(1), '2026-01-01']), ask([id(2), '2026-01-02'])]);
    const batches = c.batches;
    const outcomes = await Promise.allSettled(
      [1, 2, 3, 4, 5].map((i) => ask([i === 3 ? 'not-a-uuid' : id(i), `2026-01-0${i}`])),
    );
    expect(c.batches).toBe(batches + 1);
    outcomes.forEach((o, k) => {
      const i = k + 1;
      if (i === 3) expect((o as PromiseRejectedResult).reason).toMatchObject({ code: '22P02' });
      else expect((o as PromiseFulfilledResult<Row>).value.f0).toBe(`${id(i)} 2026-01-0${i} 00:00:00`);
    });
  });

  test('a batch statement keeps its generic plan, however many cohorts its calls hold', async () => {
    // Planned anew for each call, a batch costs PostgreSQL more than the lone statement it stands for
    // (multiplex.ts): after the five custom plans every prepared statement starts with, the generic one.
    const { text } = multiplexedStatement(
      `SELECT count(*)::text AS "f0", 4 AS "__bytes" FROM spends s WHERE s.cloud_account = $1::uuid AND s.tenant = $2::uuid AND $3::bigint > 0`,
      3,
      { bytesPerCohort: true, cohortTypes: ['uuid', 'uuid', 'bigint'] },
    );
    const ids = Object.values(acme.cloudAccounts);
    const call = (n: number) => {
      const cohorts = Array.from({ length: n }, (_, i) => i);
      const column = (f: (i: number) => string) => `'${arrayLiteral(cohorts.map(f))}'`;
      const args = [column((i) => ids[i % ids.length]), column(() => acme.id), column(() => '1000')];
      return `EXECUTE coalesce_plan_test(${args.join(', ')})`;
    };
    const plans = await server.started.db.transaction(async (tx) => {
      await tx.exec(`PREPARE coalesce_plan_test AS ${text}`);
      for (let n = 1; n <= 8; n++) expect(await tx.query(call(n))).toHaveLength(n);
      const [row] = await tx.query(
        `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = 'coalesce_plan_test'`,
      );
      await tx.exec('DEALLOCATE coalesce_plan_test');
      return row;
    });
    expect(plans).toEqual({ generic: 3, custom: 5 });
  });

  test('reads of any rows: PostgreSQL tells their placeholders’ types; each request gets its rows in order', async () => {
    const db = server.started.db;
    const { c, described } = describingCoalescer();
    // No casts: PostgreSQL infers an integer, a text and an array of integers.
    const text = `SELECT g AS "n", $2 || g AS "label" FROM generate_series(1, $1) AS g WHERE NOT g = ANY($3) ORDER BY g DESC`;
    expect(await placeholderTypes(db, text)).toEqual(['integer', 'text', 'integer[]']);
    const asked = (n: number) => c.rows(full, text, [String(n), `t${n}-`, '{2}']);
    const expected = (n: number) =>
      Array.from({ length: n }, (_, i) => n - i)
        .filter((g) => g !== 2)
        .map((g) => ({ n: g, label: `t${n}-${g}` }));
    const plain = (rows: Row[]) => rows.map((r) => ({ n: r.n, label: r.label }));
    // The first asks run alone while the types are asked (five round trips, which a busy machine can
    // make slower than several rounds of reads); once told, batches of two, then one a round.
    for (let round = 0; round < 4; round++) {
      const got = await Promise.all([0, 1, 3, 5].map(asked));
      expect(got.map(plain)).toEqual([0, 1, 3, 5].map(expected));
      if (round === 0) {
        expect(c.batches).toBe(0);
        await described();
      }
    }
    expect(c.batches).toBeGreaterThan(0);
    expect(c.coalesced).toBeGreaterThan(c.batches);
  });

  test('a read whose batch PostgreSQL refuses (a type it does not know) runs alone from then on', async () => {
    const c = new Coalescer((reader, text, params, signal) => reader.query(text, params, { signal }), {
      batchMs: 1000,
      describe: async () => ['no_such_type'],
    });
    const text = `SELECT $1::int * 3 AS "x"`;
    const round = () => Promise.all([1, 2, 3].map((i) => c.rows(full, text, [String(i)])));
    await round(); // the types are asked
    expect((await round()).map((r) => r[0].x)).toEqual([3, 6, 9]);
    expect(c.batches).toBe(1);
    expect((await round()).map((r) => r[0].x)).toEqual([3, 6, 9]);
    expect(c.batches).toBe(1);
  });

  test('a batch whose every request is cancelled is cancelled on the server', async () => {
    if (!onPostgres) return; // PGlite runs a statement to its end in this thread: nothing to cancel.
    const c = newCoalescer();
    const deadline = new AbortController();
    const text = statement(5);
    const started = Date.now();
    setTimeout(() => deadline.abort(), 200);
    const outcomes = await Promise.allSettled(asked(c, text, 6, deadline.signal));
    expect(outcomes.map((o) => o.status)).toEqual(Array(6).fill('rejected'));
    expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(4000);
    // The server's statement is gone too, not left sleeping.
    const sleeping = async () =>
      (
        await server.started.db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep(5 +%' AND pid <> pg_backend_pid()`,
        )
      )[0].n;
    for (let i = 0; i < 40 && (await sleeping()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await sleeping()).toBe(0);
  });
});
