import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { ADMIN_SECRET, as, startTestServer, type TestServer } from './support/server';
import { legacyClient, until, type Legacy } from './support/ws';

/**
 * A client that stops reading its socket, on both protocols: the server's memory for it stays bounded
 * by WS_MAX_QUEUED_BYTES. A live query's newest result replaces the older ones it could not send, so
 * the client, once it reads again, gets fewer results than there were changes and the newest last; a
 * stream, whose batches must each arrive, ends with `busy` once its queue is full, having sent each
 * batch before that once and in order.
 */
const acme = DEMO.tenants.acme;
const INTERVAL = 100;
/** Rows of half a megabyte: about a dozen fill the kernel's socket buffers of the loopback. */
const BIG = 'x'.repeat(512 * 1024);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    env: { LIVE_QUERIES_REFETCH_INTERVAL_MS: String(INTERVAL), WS_MAX_QUEUED_BYTES: String(64 * 1024) },
  });
});
afterAll(() => server?.close());

const init = { headers: { 'x-hasura-admin-secret': ADMIN_SECRET, ...as('tenant_admin', acme.id) } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The two protocols' words for the same steps. */
const PROTOCOLS = {
  'graphql-transport-ws': { start: 'subscribe', data: 'next' },
  'graphql-ws': { start: 'start', data: 'data' },
} as const;
type Protocol = keyof typeof PROTOCOLS;

async function connect(protocol: Protocol): Promise<Legacy> {
  const c = await legacyClient(server.url, protocol);
  c.send({ type: 'connection_init', payload: init });
  await until(5000, () => c.messages.some((m) => m.type === 'connection_ack'), 'connection_ack');
  return c;
}

const subscribe = (c: Legacy, protocol: Protocol, id: string, query: string) =>
  c.send({ id, type: PROTOCOLS[protocol].start, payload: { query } });

const dataOf = (c: Legacy, protocol: Protocol, id: string) =>
  c.messages.filter((m) => m.id === id && m.type === PROTOCOLS[protocol].data).map((m) => m.payload.data);

async function insertAccount(name: string, purpose: string): Promise<string> {
  const [row] = await server.started.db.query<{ id: string }>(
    `INSERT INTO cloud_accounts (tenant, account_name, account_type, account_env, status, account_purpose,
       created_by, updated_by) VALUES ($1::uuid, $2, 'member', 'prod', 'active', $3, $4::uuid, $4::uuid)
     RETURNING id::text AS id`,
    [acme.id, name, purpose, acme.users.admin.id],
  );
  return row.id;
}

describe.each(Object.keys(PROTOCOLS) as Protocol[])(`a client that stops reading (%s, ${backendName})`, (protocol) => {
  test("a live query's newest result replaces the unsent older ones", async () => {
    const name = `slow-live-${protocol}`;
    const id = await insertAccount(name, BIG + BIG);
    const c = await connect(protocol);
    try {
      subscribe(
        c,
        protocol,
        'live',
        `subscription { cloud_accounts(where: {account_name: {_eq: "${name}"}}) { etl_attempt account_purpose } }`,
      );
      await until(5000, () => dataOf(c, protocol, 'live').length === 1, 'the first result');
      c.socket.pause();
      const CHANGES = 24;
      for (let i = 1; i <= CHANGES; i++) {
        await server.started.db.query('UPDATE cloud_accounts SET etl_attempt = $1 WHERE id = $2::uuid', [i, id]);
        await sleep(INTERVAL * 2);
      }
      c.socket.resume();
      const attempts = () => dataOf(c, protocol, 'live').map((d) => d.cloud_accounts[0].etl_attempt as number);
      await until(10_000, () => attempts().at(-1) === CHANGES, 'the newest result');
      await sleep(INTERVAL * 3);
      const seen = attempts();
      // Every change was polled (two intervals apart), but the results the socket could not take were
      // replaced by newer ones: far fewer arrive than there were changes, in order, the newest last.
      expect(seen.length).toBeLessThan(CHANGES / 2);
      expect([...seen].sort((a, b) => a - b)).toEqual(seen);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.at(-1)).toBe(CHANGES);
      expect(c.messages.filter((m) => m.type === 'error')).toEqual([]);
    } finally {
      c.socket.close();
    }
  });

  test('a stream that cannot keep up ends with busy; what it sent came once and in order', async () => {
    const prefix = `slow-stream-${protocol}-`;
    const ROWS = 40;
    for (let i = 0; i < ROWS; i++) await insertAccount(`${prefix}${String(i).padStart(3, '0')}`, BIG);
    const c = await connect(protocol);
    try {
      subscribe(
        c,
        protocol,
        'stream',
        `subscription { cloud_accounts_stream(batch_size: 1, cursor: {initial_value: {account_name: "${prefix}"}},
          where: {account_name: {_like: "${prefix}%"}}) { account_name account_purpose } }`,
      );
      c.socket.pause();
      await sleep(INTERVAL * ROWS * 1.2);
      c.socket.resume();
      const errors = () => c.messages.filter((m) => m.id === 'stream' && m.type === 'error');
      await until(10_000, () => errors().length > 0, 'the stream to end');
      const [error] = errors();
      expect(error.payload[0].extensions.code).toBe('busy');
      expect(error.payload[0].message).toMatch(/did not read its batches/);
      const names = dataOf(c, protocol, 'stream').flatMap((d) =>
        d.cloud_accounts_stream.map((r: { account_name: string }) => r.account_name),
      );
      expect(names.length).toBeGreaterThan(0);
      expect(names.length).toBeLessThan(ROWS);
      expect(names).toEqual(Array.from({ length: names.length }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`));
      // The connection lives on: a new subscription on it answers.
      subscribe(c, protocol, 'after', 'subscription { cloud_accounts_aggregate { aggregate { count } } }');
      await until(5000, () => dataOf(c, protocol, 'after').length > 0, 'a subscription after the stream ended');
    } finally {
      c.socket.close();
    }
  });
});
