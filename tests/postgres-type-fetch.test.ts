import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import postgres from 'postgres';
import { connectPostgres } from '../engine/core/db/postgres';
import type { Database } from '../engine/core/db/database';
import { onPostgres } from './support/database';

/**
 * postgres.js reads the server's array types on a new connection before its first statement, in a
 * promise it drops: a server that goes away during that read rejected it unhandled (seen in the
 * read-replicas test as a stray `connect ECONNREFUSED`). The engine's pool reads them on its first
 * connection only; the connections made after parse arrays with what that one read. Watched on the
 * wire, through a proxy of the test's own in front of the shared PostgreSQL. PostgreSQL only: PGlite
 * does not use postgres.js.
 */
if (!onPostgres) console.log('postgres-type-fetch: skipped on PGlite, which does not use postgres.js');
const suite = onPostgres ? describe : describe.skip;

/** The statement postgres.js reads the array types with names this column; no other statement here does. */
const TYPE_READ = Buffer.from('typarray');

interface Proxy {
  port: number;
  /** Per connection through the proxy: whether the client sent the type read on it. */
  connections: { readTypes: boolean }[];
  /** The proxy's own ports towards PostgreSQL (pg_stat_activity's client_port) of its open connections. */
  upstreamPorts(): number[];
  close(): Promise<void>;
}

async function proxyTo(target: URL): Promise<Proxy> {
  const connections: { readTypes: boolean }[] = [];
  const sockets = new Set<Socket>();
  const upstreams = new Set<Socket>();
  const server: Server = createServer((client) => {
    const seen = { readTypes: false };
    connections.push(seen);
    const upstream = connect(Number(target.port || 5432), target.hostname);
    upstreams.add(upstream);
    upstream.on('close', () => upstreams.delete(upstream));
    // Either side closing, by an end or an error (a reset: pipe leaves the other open then), closes both.
    for (const [s, other] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        other.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (chunk.includes(TYPE_READ)) seen.readTypes = true;
    });
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections,
    upstreamPorts: () => [...upstreams].map((s) => s.localPort).filter((p): p is number => p !== undefined),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

suite("the engine's postgres.js pool and the array types", () => {
  let proxy: Proxy;
  let db: Database;

  beforeAll(async () => {
    const target = new URL(process.env.DATABASE_URL!);
    proxy = await proxyTo(target);
    const url = new URL(target.href);
    url.host = `127.0.0.1:${proxy.port}`;
    db = connectPostgres(url.href, { poolSize: 3, statementTimeoutMs: 10_000, connectTimeoutMs: 5_000 });
  });

  afterAll(async () => {
    await db?.close();
    await proxy?.close();
  });

  test('are read by the first connection only; arrays parse on every connection', async () => {
    const ARRAYS = `SELECT ARRAY['a', 'b']::text[] AS "texts", ARRAY[1, 2]::int4[] AS "ints", pg_sleep(0.2)::text AS "slept"`;
    const first = await db.query(ARRAYS);
    expect(first[0]).toMatchObject({ texts: ['a', 'b'], ints: [1, 2] });
    expect(proxy.connections).toEqual([{ readTypes: true }]);
    // Three at once, each holding its connection for 200 ms: the pool grows to its three.
    const three = await Promise.all([db.query(ARRAYS), db.query(ARRAYS), db.query(ARRAYS)]);
    for (const rows of three) expect(rows[0]).toMatchObject({ texts: ['a', 'b'], ints: [1, 2] });
    expect(proxy.connections).toEqual([{ readTypes: true }, { readTypes: false }, { readTypes: false }]);
  });

  test('connections made again after the server ended them do not read them', async () => {
    const before = proxy.connections.length;
    // Ended by the server, as a restart or an administrator would: from a connection of its own.
    const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => undefined });
    try {
      const ended = await admin`SELECT pg_terminate_backend(pid) AS "ended" FROM pg_stat_activity
        WHERE client_addr = '127.0.0.1' AND client_port = ANY(${proxy.upstreamPorts()}::int[])`;
      expect(ended.length).toBe(3);
    } finally {
      await admin.end();
    }
    // The first statements may meet an ended connection (answered as the database being unavailable).
    const flags = async () =>
      (await db.query(`SELECT ARRAY[true, false] AS "flags", pg_sleep(0.1)::text AS "s"`))[0].flags;
    let answered: unknown[] = [];
    for (let tries = 0; tries < 20 && answered.length < 3; tries++)
      answered = (await Promise.allSettled([flags(), flags(), flags()]))
        .filter((r) => r.status === 'fulfilled')
        .map((r) => (r as PromiseFulfilledResult<unknown>).value);
    expect(answered).toEqual([
      [true, false],
      [true, false],
      [true, false],
    ]);
    expect(proxy.connections.length).toBeGreaterThanOrEqual(before + 3);
    expect(proxy.connections.slice(1).every((c) => !c.readTypes)).toBe(true);
  });
});
