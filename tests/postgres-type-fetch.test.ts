import postgres from 'postgres';
import { connectPostgres } from '../engine/core/db/postgres';
import type { Database } from '../engine/core/db/database';
import { onPostgres } from './support/database';
import { wireProxy, type WireProxy } from './support/wire-proxy';

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

/** Per connection through the proxy: whether its client sent the type read on it. */
const typeReads = (proxy: WireProxy) =>
  proxy.connections.map((sent) => ({ readTypes: Buffer.concat(sent).includes(TYPE_READ) }));

suite("the engine's postgres.js pool and the array types", () => {
  let proxy: WireProxy;
  let db: Database;

  beforeAll(async () => {
    proxy = await wireProxy(new URL(process.env.DATABASE_URL!));
    db = connectPostgres(proxy.url, { poolSize: 3, statementTimeoutMs: 10_000, connectTimeoutMs: 5_000 });
  });

  afterAll(async () => {
    await db?.close();
    await proxy?.close();
  });

  test('are read by the first connection only; arrays parse on every connection', async () => {
    const ARRAYS = `SELECT ARRAY['a', 'b']::text[] AS "texts", ARRAY[1, 2]::int4[] AS "ints", pg_sleep(0.2)::text AS "slept"`;
    const first = await db.query(ARRAYS);
    expect(first[0]).toMatchObject({ texts: ['a', 'b'], ints: [1, 2] });
    expect(typeReads(proxy)).toEqual([{ readTypes: true }]);
    // Three at once, each holding its connection for 200 ms: the pool grows to its three.
    const three = await Promise.all([db.query(ARRAYS), db.query(ARRAYS), db.query(ARRAYS)]);
    for (const rows of three) expect(rows[0]).toMatchObject({ texts: ['a', 'b'], ints: [1, 2] });
    expect(typeReads(proxy)).toEqual([{ readTypes: true }, { readTypes: false }, { readTypes: false }]);
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
    expect(
      typeReads(proxy)
        .slice(1)
        .every((c) => !c.readTypes),
    ).toBe(true);
  });
});
