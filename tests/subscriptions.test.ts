import { randomUUID } from 'node:crypto';
import { DEMO } from '../demo/demo-data';
import { activateUser, suspendUser } from '../engine/cli/admin';
import {
  authEnv,
  bearer,
  gqlWith,
  jwtFor,
  newSecret,
  signInForm,
  startSibling,
  tokenFor,
  withPassword,
  exchangeAtSecond,
} from './support/auth';
import { backendName } from './support/database';
import { ADMIN_SECRET, as, startTestServer, type TestServer } from './support/server';
import { follow, legacyClient, transportClient, until, type Legacy } from './support/ws';

/**
 * Subscriptions over WebSocket, both protocols, through the real server: live queries multiplexed
 * into one statement per batch of cohorts, permissions and tenants, bad input, revocation.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const INTERVAL = 200;
/**
 * The wait for a subscription's first results: an upper bound, not a claim. The first operation of a
 * role on a fresh server builds its schema and compiles, which on a slow machine under CI's three
 * workers took longer than 3 s. The waits that tell how quickly a change shows up stay short.
 */
const FIRST_RESULTS_MS = 15_000;
/**
 * The wait for what follows a change, a message or a revocation: an upper bound, not a claim (where a
 * test claims a time, it asserts that apart). Unloaded it takes an interval or two; at the start of
 * CI's PostgreSQL pass a stream's next rows once took longer than 3 s.
 */
const NEXT_MS = 10_000;

let server: TestServer;
/** The server's secrets: a second engine that shares them mints JWTs the server accepts. */
const AUTH_ENV = authEnv();

beforeAll(async () => {
  server = await startTestServer({
    env: {
      ...AUTH_ENV,
      LIVE_QUERIES_REFETCH_INTERVAL_MS: String(INTERVAL),
      // Long enough for a loaded machine to read connection_init, short for the tests that wait it out.
      WS_CONNECTION_INIT_TIMEOUT_MS: '2000',
      WS_MAX_MESSAGE_BYTES: '8192',
      WS_MAX_SUBSCRIPTIONS_PER_CONNECTION: '5',
      // One statement per connection: "polling does not starve requests" reads the gate's order of
      // turns from the order of answers, which pipelining (faults-pool.test.ts) does not keep across
      // connections: a request sent behind an earlier poll may be answered after a later one.
      DATABASE_PIPELINE_DEPTH: '1',
    },
  });
});
afterAll(() => server?.close());

const adminAs = (tenant: string, role = 'tenant_admin') => ({
  headers: { 'x-hasura-admin-secret': ADMIN_SECRET, ...as(role, tenant) },
});

const COUNT = 'subscription { cloud_accounts_aggregate { aggregate { count } } }';
const NAMES = 'subscription { cloud_accounts(order_by: {account_name: asc}) { account_name tenant } }';

/** A new cloud account of the tenant, inserted through HTTP as its tenant_admin. */
async function addAccount(tenant: { id: string; users: { admin: { id: string } } }, name: string) {
  const res = await server.gql(
    `mutation($n: String!, $by: uuid!) { insert_cloud_accounts_one(object: {account_name: $n, account_type: "member",
       account_env: prod, status: active, created_by: $by, updated_by: $by}) { id } }`,
    { n: name, by: tenant.users.admin.id },
    as('tenant_admin', tenant.id),
  );
  expect(res.body.errors).toBeUndefined();
  return res.body.data.insert_cloud_accounts_one.id as string;
}

const count = (r: { data: { cloud_accounts_aggregate: { aggregate: { count: number } } } }) =>
  r.data.cloud_accounts_aggregate.aggregate.count;

describe(`subscriptions over graphql-transport-ws (${backendName})`, () => {
  test('a change shows up within one interval, for its tenant only', async () => {
    const a = transportClient(server.url, adminAs(acme.id));
    const g = transportClient(server.url, adminAs(globex.id));
    try {
      const acmeCount = follow(a, COUNT);
      const globexNames = follow(g, NAMES);
      await until(
        FIRST_RESULTS_MS,
        () => acmeCount.results.length > 0 && globexNames.results.length > 0,
        'first results',
      );
      const before = count(acmeCount.results[0]);
      const globexSeen = globexNames.results.length;
      const inserted = Date.now();
      await addAccount(acme, `ws-acme-${randomUUID()}`);
      const took = await until(NEXT_MS, () => acmeCount.results.length > 1, 'the new count');
      expect(count(acmeCount.results[1])).toBe(before + 1);
      // Within one interval of the commit, and some slack for a loaded machine.
      expect(Date.now() - inserted).toBeLessThan(INTERVAL * 1 + 600);
      expect(took).toBeGreaterThanOrEqual(0);
      // Globex's subscriber sees nothing new, and never a row of another tenant.
      await new Promise((r) => setTimeout(r, INTERVAL * 3));
      expect(globexNames.results.length).toBe(globexSeen);
      for (const r of globexNames.results) for (const row of r.data.cloud_accounts) expect(row.tenant).toBe(globex.id);
      expect(acmeCount.errors).toEqual([]);
    } finally {
      await a.dispose();
      await g.dispose();
    }
  });

  test('queries and mutations run once over the socket; bad operations get an error, the others go on', async () => {
    const a = transportClient(server.url, adminAs(acme.id));
    try {
      const live = follow(a, COUNT);
      await until(FIRST_RESULTS_MS, () => live.results.length > 0, 'first result');
      const once = follow(a, '{ cloud_accounts(limit: 1) { tenant } }');
      await until(NEXT_MS, () => once.completed, 'the query');
      expect(once.results[0].data.cloud_accounts[0].tenant).toBe(acme.id);
      const bad = follow(a, 'subscription { cloud_accounts { nope } }');
      const two = follow(a, 'subscription { a: cloud_accounts { id } b: cloud_accounts { id } }');
      const unknownVar = follow(a, 'subscription($n: Int) { cloud_accounts(limit: $n) { id } }', { n: 'x' });
      await until(NEXT_MS, () => bad.errors.length + two.errors.length + unknownVar.errors.length === 3, 'errors');
      const codeOf = (f: { errors: unknown[] }) =>
        (f.errors[0] as { extensions: { code: string } }[])[0].extensions.code;
      expect(codeOf(bad)).toBe('validation-failed');
      expect(codeOf(two)).toBe('validation-failed');
      expect((two.errors[0] as { message: string }[])[0].message).toMatch(/only one top level field/);
      expect(codeOf(unknownVar)).toBe('validation-failed');
      // The connection and its live query go on.
      await addAccount(acme, `ws-acme-${randomUUID()}`);
      await until(NEXT_MS, () => live.results.length > 1, 'the live query after the bad ones');
    } finally {
      await a.dispose();
    }
  });

  test('a role sees only what it may read; the tenant comes from the session, not the variables', async () => {
    const v = transportClient(server.url, adminAs(acme.id, 'tenant_admin_readonly'));
    try {
      const names = follow(v, 'subscription($t: uuid!) { cloud_accounts(where: {tenant: {_eq: $t}}) { tenant } }', {
        t: globex.id,
      });
      await until(FIRST_RESULTS_MS, () => names.results.length > 0 || names.errors.length > 0, 'a result');
      expect(names.errors).toEqual([]);
      expect(names.results[0].data.cloud_accounts).toEqual([]);
      const actions = follow(v, 'subscription { __typename }');
      await until(NEXT_MS, () => actions.errors.length > 0, 'refusal');
    } finally {
      await v.dispose();
    }
  });

  test('subscriptions per connection are limited', async () => {
    const a = transportClient(server.url, adminAs(acme.id));
    try {
      const subs = Array.from({ length: 6 }, (_, i) =>
        follow(a, `subscription { cloud_accounts(limit: ${i + 1}) { id } }`),
      );
      await until(
        FIRST_RESULTS_MS,
        () => subs.every((s) => s.results.length > 0 || s.errors.length > 0),
        'all answered',
      );
      expect(subs.filter((s) => s.errors.length > 0)).toHaveLength(1);
      expect((subs[5].errors[0] as { extensions: { code: string } }[])[0].extensions.code).toBe('bad-request');
    } finally {
      await a.dispose();
    }
  });
});

describe(`many subscribers share one statement per interval (${backendName})`, () => {
  test('30 subscribers in 10 cohorts: one poller, one statement per refetch', async () => {
    // Five a connection (WS_MAX_SUBSCRIPTIONS_PER_CONNECTION here): six connections.
    const clients = Array.from({ length: 6 }, () => transportClient(server.url, adminAs(acme.id)));
    const query = 'subscription($n: String!) { cloud_accounts(where: {account_name: {_neq: $n}}) { id } }';
    try {
      const subs = clients.flatMap((c, k) =>
        Array.from({ length: 5 }, (_, i) => follow(c, query, { n: `name-${(k * 5 + i) % 10}` })),
      );
      await until(NEXT_MS, () => subs.every((s) => s.results.length > 0), 'every first result');
      const counts = server.started.live.counts();
      expect(counts.subscribers).toBeGreaterThanOrEqual(30);
      const before = server.started.live.statements;
      const started = Date.now();
      await new Promise((r) => setTimeout(r, INTERVAL * 10));
      const refetches = Math.ceil((Date.now() - started) / INTERVAL) + 1;
      const statements = server.started.live.statements - before;
      // Each poller runs one statement per refetch: 30 subscribers, one poller here (others may run from other tests: none now).
      expect(counts.pollers).toBe(1);
      expect(counts.cohorts).toBe(10);
      expect(statements).toBeGreaterThan(0);
      // One a refetch, and at most one more: the first run of cohorts that joined last, which may
      // still be queued behind an interval's run when every subscriber has its first result (one CI
      // run counted 12 for 11 refetches). Per subscriber it would be 30 a refetch.
      expect(statements).toBeLessThanOrEqual(refetches + 1);
    } finally {
      for (const c of clients) await c.dispose();
    }
  });
});

describe(`polling does not starve requests (${backendName})`, () => {
  test('while 60 cohorts poll every interval, HTTP requests are answered in their turn', async () => {
    // On PGlite polling and requests share one connection: the gate takes them in turn.
    const clients = Array.from({ length: 12 }, () => transportClient(server.url, adminAs(acme.id)));
    // Every connection acknowledged before polling starts: on PGlite a statement runs on this thread,
    // and on a busy machine a connection_init read after a long poll may miss its timeout.
    await Promise.all(clients.map((c) => new Promise<void>((resolve) => c.on('connected', () => resolve()))));
    const query =
      'subscription($d: timestamp!) { spends_aggregate(where: {date: {_gte: $d}}) { aggregate { count sum { amount } } } }';
    try {
      const subs = clients.flatMap((c, k) =>
        Array.from({ length: 5 }, (_, i) =>
          follow(c, query, { d: `2025-${String(1 + ((k * 5 + i) % 12)).padStart(2, '0')}-0${1 + (i % 5)}T00:00:00` }),
        ),
      );
      await until(30_000, () => subs.every((s) => s.results.length > 0), 'every first result');
      // Every statement as the database layer is asked for it, and when it is answered: a request's
      // statement waits its turn, and no poll asked for after it may be answered before it.
      const db = server.started.db;
      const events: { what: 'poll' | 'request'; asked: number; answered?: number }[] = [];
      let clock = 0;
      const ask = db.query;
      db.query = async (text, params, options) => {
        const e = { what: text.includes('unnest') ? ('poll' as const) : ('request' as const), asked: clock++ };
        events.push(e);
        try {
          return await ask.call(db, text, params, options);
        } finally {
          (e as { answered?: number }).answered = clock++;
        }
      };
      try {
        // At least 20 requests, over at least three intervals: polling runs meanwhile.
        const began = Date.now();
        for (let i = 0; i < 20 || Date.now() - began < INTERVAL * 3; i++) {
          const res = await server.gql('{ cloud_accounts(limit: 1) { id } }', undefined, as('tenant_admin', acme.id));
          expect(res.body.data.cloud_accounts).toHaveLength(1);
        }
      } finally {
        db.query = ask;
      }
      const polls = events.filter((e) => e.what === 'poll');
      const requests = events.filter((e) => e.what === 'request');
      expect(polls.length).toBeGreaterThan(0);
      expect(requests.length).toBeGreaterThanOrEqual(20);
      // No poll overtook a waiting request: asked after it, answered before it.
      const overtaking = requests.flatMap((r) =>
        polls.filter((p) => p.asked > r.asked && p.answered !== undefined && p.answered < r.answered!),
      );
      expect(overtaking).toEqual([]);
    } finally {
      for (const c of clients) await c.dispose();
    }
  });
});

describe(`a cohort whose values fail ends alone (${backendName})`, () => {
  test('an invalid regular expression of one cohort: its error; the cohort beside it goes on', async () => {
    const a = transportClient(server.url, adminAs(acme.id));
    const query = 'subscription($r: String!) { cloud_accounts(where: {account_name: {_regex: $r}}) { account_name } }';
    try {
      const good = follow(a, query, { r: '^acme' });
      const bad = follow(a, query, { r: '(' });
      await until(FIRST_RESULTS_MS, () => good.results.length > 0 && bad.errors.length > 0, 'the result and the error');
      expect((bad.errors[0] as { extensions: { code: string } }[])[0].extensions.code).toBe('data-exception');
      const name = `acme-cohort-${randomUUID()}`;
      await addAccount(acme, name);
      await until(NEXT_MS, () => good.results.length > 1, 'the next result');
      expect(good.results[1].data.cloud_accounts.map((r: { account_name: string }) => r.account_name)).toContain(name);
    } finally {
      await a.dispose();
    }
  });
});

describe(`streaming: T_stream (${backendName})`, () => {
  const STREAM = `subscription($size: Int!) { cloud_accounts_stream(batch_size: $size,
    cursor: {initial_value: {account_name: "stream-"}, ordering: ASC}, where: {account_name: {_like: "stream-%"}}) {
    account_name tenant } }`;

  test("each row once, in cursor order, in batches of batch_size; only the tenant's rows", async () => {
    for (const n of ['03', '01', '05']) await addAccount(acme, `stream-${n}`);
    await addAccount(globex, 'stream-02');
    const a = transportClient(server.url, adminAs(acme.id));
    const c = await legacyClient(server.url);
    try {
      const s = follow(a, STREAM, { size: 2 });
      c.send({ type: 'connection_init', payload: adminAs(acme.id) });
      c.send({ type: 'start', id: 's', payload: { query: STREAM, variables: { size: 1 } } });
      const names = () =>
        s.results.flatMap((r) => r.data.cloud_accounts_stream.map((x: { account_name: string }) => x.account_name));
      const legacyNames = () =>
        c.messages
          .filter((m) => m.id === 's' && m.type === 'data')
          .flatMap((m) => m.payload.data.cloud_accounts_stream.map((x: { account_name: string }) => x.account_name));
      await until(FIRST_RESULTS_MS, () => names().length === 3 && legacyNames().length === 3, 'the first rows');
      for (const n of ['04', '07', '06']) await addAccount(acme, `stream-${n}`);
      await until(NEXT_MS, () => names().length === 5 && legacyNames().length === 5, 'the rows after the cursor');
      await new Promise((r) => setTimeout(r, INTERVAL * 3));
      // Rows before the cursor (stream-04 came after stream-05 was sent) are not sent again.
      expect(names()).toEqual(['stream-01', 'stream-03', 'stream-05', 'stream-06', 'stream-07']);
      expect(legacyNames()).toEqual(names());
      for (const r of s.results) expect(r.data.cloud_accounts_stream.length).toBeLessThanOrEqual(2);
      for (const r of s.results)
        for (const row of r.data.cloud_accounts_stream)
          expect(row).toEqual({ account_name: expect.any(String), tenant: acme.id });
      expect(s.errors).toEqual([]);
    } finally {
      await a.dispose();
      c.socket.close();
    }
  });
  test('a bigint cursor past 2^53 moves exactly: each row once', async () => {
    // As JSON numbers 2^53 + 1 and 2^53 + 3 read back as 2^53 and 2^53 + 4: a cursor taken from them
    // would send the first row again or skip the second. The cursor is read as text.
    const [account] = await server.started.db.query<{ id: string }>(
      'SELECT id::text AS id FROM cloud_accounts WHERE tenant = $1::uuid LIMIT 1',
      [acme.id],
    );
    const base = 2n ** 53n;
    for (const [name, bytes] of [
      ['big-a', base + 1n],
      ['big-b', base + 3n],
      ['big-c', base + 5n],
    ] as const)
      await server.started.db.query(
        `INSERT INTO k8s_workloads (tenant_id, cloud_account_id, cloud_resource_id, external_id, name, namespace, kind,
           memory_request) VALUES ($1::uuid, $2::uuid, gen_random_uuid(), $3, $3, 'stream', 'Deployment', $4::bigint)`,
        [acme.id, account.id, name, String(bytes)],
      );
    const a = transportClient(server.url, adminAs(acme.id));
    try {
      const s = follow(
        a,
        `subscription { k8s_workloads_stream(batch_size: 1, cursor: {initial_value: {memory_request: "${base}"}},
          where: {namespace: {_eq: "stream"}}) { name } }`,
      );
      const names = () => s.results.flatMap((r) => r.data.k8s_workloads_stream.map((x: { name: string }) => x.name));
      await until(NEXT_MS, () => names().length >= 3, 'the three rows');
      await new Promise((r) => setTimeout(r, INTERVAL * 3));
      expect(names()).toEqual(['big-a', 'big-b', 'big-c']);
      expect(s.errors).toEqual([]);
    } finally {
      await a.dispose();
    }
  });
});

describe(`the older graphql-ws subprotocol (${backendName})`, () => {
  let c: Legacy;
  afterEach(() => c?.socket.close());

  const init = async (payload: unknown) => {
    c.send({ type: 'connection_init', payload });
    await until(
      3000,
      () => c.messages.some((m) => m.type === 'connection_ack' || m.type === 'connection_error'),
      'ack',
    );
  };
  const of = (id: string, type?: string) => c.messages.filter((m) => m.id === id && (!type || m.type === type));

  test('start, data on change, stop; bad messages answered while the subscription goes on', async () => {
    c = await legacyClient(server.url);
    await init({ headers: { 'x-hasura-admin-secret': ADMIN_SECRET, ...as('tenant_admin', acme.id) } });
    expect(c.messages[0]).toEqual({ type: 'connection_ack' });
    c.send({ type: 'start', id: '1', payload: { query: COUNT } });
    await until(FIRST_RESULTS_MS, () => of('1', 'data').length > 0, 'first data');
    const before = count(of('1', 'data')[0].payload);
    c.send({
      type: 'start',
      id: '2',
      payload: { query: 'subscription { a: cloud_accounts { id } b: cloud_accounts { id } }' },
    });
    c.send({ type: 'start', id: '3', payload: { query: 'subscription { cloud_accounts {' } });
    c.send({ type: 'start', id: '1', payload: { query: COUNT } });
    c.send({ type: 'nonsense', id: '4' });
    c.send('not json');
    c.send({ type: 'connection_init', payload: {} });
    const m = `mutation { update_cloud_accounts(where: {account_name: {_eq: "none"}}, _set: {account_name: "none"}) { affected_rows } }`;
    c.send({ type: 'start', id: '5', payload: { query: m } });
    await until(NEXT_MS, () => of('5', 'complete').length > 0, 'the mutation');
    expect(of('5', 'data')[0].payload).toEqual({ data: { update_cloud_accounts: { affected_rows: 0 } } });
    expect(of('2', 'error')[0].payload[0].extensions.code).toBe('validation-failed');
    expect(of('3', 'error')[0].payload[0].extensions.code).toBe('validation-failed');
    expect(of('1', 'error')[0].payload[0].message).toMatch(/already runs/);
    expect(of('4', 'error')[0].payload[0].extensions.code).toBe('bad-request');
    expect(c.messages.filter((x) => x.type === 'connection_error')).toHaveLength(2);
    await addAccount(acme, `ws-legacy-${randomUUID()}`);
    await until(NEXT_MS, () => of('1', 'data').length > 1, 'data after the change');
    expect(count(of('1', 'data')[1].payload)).toBe(before + 1);
    c.send({ type: 'stop', id: '1' });
    await until(NEXT_MS, () => of('1', 'complete').length > 0, 'complete');
    const seen = of('1', 'data').length;
    await addAccount(acme, `ws-legacy-${randomUUID()}`);
    await new Promise((r) => setTimeout(r, INTERVAL * 3));
    expect(of('1', 'data')).toHaveLength(seen);
  });

  test('bad credentials: connection_error, then the connection closes', async () => {
    c = await legacyClient(server.url);
    await init({ headers: { 'x-hasura-admin-secret': 'wrong' } });
    expect(c.messages[0].type).toBe('connection_error');
    expect(c.messages[0].payload.extensions.code).toBe('access-denied');
    expect((await c.closed).code).toBe(4403);
  });

  test('no connection_init: closed after the timeout; a too large message: closed with 1009', async () => {
    c = await legacyClient(server.url);
    expect((await c.closed).code).toBe(4408);
    c = await legacyClient(server.url);
    c.send({ type: 'connection_init', payload: { pad: 'x'.repeat(10_000) } });
    expect((await c.closed).code).toBe(1009);
  });
});

describe(`protocol and connection errors of graphql-transport-ws (${backendName})`, () => {
  test('an unknown subprotocol is refused; none: closed with 4406; init twice with 4429; no init with 4408', async () => {
    await expect(legacyClient(server.url, 'nonsense')).rejects.toThrow(/no subprotocol/);
    let c = await legacyClient(server.url, null);
    expect((await c.closed).code).toBe(4406);
    c = await legacyClient(server.url, 'graphql-transport-ws');
    c.send({ type: 'connection_init' });
    c.send({ type: 'connection_init' });
    expect((await c.closed).code).toBe(4429);
    c = await legacyClient(server.url, 'graphql-transport-ws');
    expect((await c.closed).code).toBe(4408);
  });

  test('a message over WS_MAX_MESSAGE_BYTES after the handshake: closed with 1009', async () => {
    const c = await legacyClient(server.url, 'graphql-transport-ws');
    c.send({ type: 'connection_init', payload: adminAs(acme.id) });
    await until(NEXT_MS, () => c.messages.some((m) => m.type === 'connection_ack'), 'connection_ack');
    c.send({
      id: '1',
      type: 'subscribe',
      payload: { query: `subscription { tenant { id } } # ${'x'.repeat(10_000)}` },
    });
    expect((await c.closed).code).toBe(1009);
  });

  test('wrong credentials: closed with 4403 Forbidden', async () => {
    const c = await legacyClient(server.url, 'graphql-transport-ws');
    c.send({ type: 'connection_init', payload: { headers: { Authorization: 'Bearer nonsense' } } });
    const closed = await c.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/Forbidden/);
  });
});

describe(`revocation ends subscriptions (${backendName})`, () => {
  test('a deleted API token ends its JWT subscriptions within about a second', async () => {
    const { jwt, tokenId } = await jwtFor(server, acme.users.admin.username);
    const c = transportClient(server.url, { headers: { Authorization: `Bearer ${jwt}` } });
    try {
      const live = follow(c, COUNT);
      await until(FIRST_RESULTS_MS, () => live.results.length > 0, 'first result');
      const del = await gqlWith(server, bearer(jwt), 'mutation($id: uuid!) { delete_api_token(id: $id) { deleted } }', {
        id: tokenId,
      });
      expect(del.body.data.delete_api_token.deleted).toBe(true);
      const ms = await until(NEXT_MS, () => live.errors.length > 0, 'the error');
      expect(ms).toBeLessThan(2000);
      const [e] = live.errors[0] as { extensions: { code: string } }[];
      expect(e.extensions.code).toBe('invalid-jwt');
    } finally {
      await c.dispose();
    }
  });

  test('an expired JWT ends its subscriptions within about a second of its expiry', async () => {
    // A second engine with the same secret and a 2-second JWT lifetime mints the JWT.
    const sibling = await startSibling(server, { ...AUTH_ENV, JWT_EXPIRY_SECONDS: '2' });
    try {
      const email = acme.users.admin.username;
      const t = await tokenFor(server.started.db, email, `expiring ${newSecret().slice(0, 6)}`);
      const { res, expiresAt } = await exchangeAtSecond(sibling, email, t.secret);
      expect(res.body.expiry).toBe(2);
      const c = transportClient(server.url, { headers: { Authorization: `Bearer ${res.body.token}` } });
      try {
        const live = follow(c, COUNT);
        await until(1500, () => live.results.length > 0, 'first result');
        expect(live.errors).toHaveLength(0);
        await until(NEXT_MS, () => live.errors.length > 0, 'the error');
        expect(Date.now() - expiresAt).toBeLessThan(2000);
        const [e] = live.errors[0] as { extensions: { code: string } }[];
        expect(e.extensions.code).toBe('invalid-jwt');
      } finally {
        await c.dispose();
      }
    } finally {
      await sibling.stop();
    }
  });

  test("a suspended user: the subscriptions of its cookie session end; another site's page may not use the cookie", async () => {
    const grace = globex.users.admin.username;
    const password = `pw-${newSecret()}`;
    await withPassword(server.started.db, grace, password);
    const res = await signInForm(server, grace, password);
    const cookie = /platform_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
    const host = new URL(server.url).host;
    const other = await legacyClient(server.url, 'graphql-ws', { cookie, origin: 'https://evil.example' });
    other.send({ type: 'connection_init', payload: {} });
    await until(NEXT_MS, () => other.messages.length > 0, 'the refusal');
    expect(other.messages[0]).toMatchObject({
      type: 'connection_error',
      payload: { extensions: { code: 'access-denied' } },
    });
    const c = await legacyClient(server.url, 'graphql-ws', { cookie, origin: `http://${host}` });
    try {
      c.send({ type: 'connection_init', payload: {} });
      c.send({ type: 'start', id: '1', payload: { query: COUNT } });
      await until(FIRST_RESULTS_MS, () => c.messages.some((m) => m.type === 'data'), 'first data');
      await suspendUser(server.started.db, grace);
      const ms = await until(NEXT_MS, () => c.messages.some((m) => m.type === 'error'), 'the error');
      expect(ms).toBeLessThan(2000);
      expect(c.messages.find((m) => m.type === 'error').payload[0].extensions.code).toBe('access-denied');
      expect((await c.closed).code).toBe(4403);
    } finally {
      await activateUser(server.started.db, grace);
      c.socket.close();
    }
  });
});

describe(`the instance's limit of subscriptions (${backendName})`, () => {
  test('past WS_MAX_SUBSCRIPTIONS a subscription gets busy; once one ends, another may start', async () => {
    const small = await startTestServer({
      env: { WS_MAX_SUBSCRIPTIONS: '3', LIVE_QUERIES_REFETCH_INTERVAL_MS: '100' },
    });
    const a = transportClient(small.url, adminAs(acme.id));
    const b = transportClient(small.url, adminAs(globex.id));
    try {
      const first = [follow(a, COUNT), follow(a, NAMES), follow(b, COUNT)];
      await until(NEXT_MS, () => first.every((s) => s.results.length > 0), 'three first results');
      const fourth = follow(b, NAMES);
      await until(NEXT_MS, () => fourth.errors.length > 0, 'the refusal');
      expect((fourth.errors[0] as { extensions: { code: string } }[])[0].extensions.code).toBe('busy');
      first[0].stop();
      await until(NEXT_MS, () => small.started.live.counts().subscribers === 2, 'the place given back');
      const fifth = follow(b, NAMES);
      await until(NEXT_MS, () => fifth.results.length > 0, 'a result');
      for (const r of fifth.results) for (const row of r.data.cloud_accounts) expect(row.tenant).toBe(globex.id);
    } finally {
      await a.dispose();
      await b.dispose();
      await small.close();
    }
  });
});
