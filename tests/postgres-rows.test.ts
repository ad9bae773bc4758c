import type { Database, Row } from '../engine/core/db/database';
import { connectPostgres, postgresJs } from '../engine/core/db/postgres';
import { collected } from './support/collected';
import { onPostgres } from './support/database';

/**
 * A statement's rows once it has ended (engine/core/db/postgres.ts statementRunner): postgres.js's
 * Query keeps what it resolved with and the row callback it was given, and something may keep a Query
 * past its statement's end. The engine takes the rows one by one into an array of its own, which the
 * Query no longer reaches once the statement has ended: the Query holds no row, and a caller that has
 * let its rows go has them collected, however long the Queries live.
 */
const suite = onPostgres ? describe : describe.skip;

suite('the rows of an ended statement on PostgreSQL', () => {
  let db: Database;
  /** postgres.js's Query prototype, whose `then` and `forEach` keep here each Query they are called on. */
  let proto: { then: (...a: unknown[]) => unknown; forEach: (...a: unknown[]) => unknown };
  let restore: () => void;
  const queries = new Set<object>();

  beforeAll(() => {
    const probe = postgresJs()(process.env.DATABASE_URL!, { max: 1 });
    // Made, not sent: a Query is sent when it is first awaited.
    proto = Object.getPrototypeOf(probe.unsafe('SELECT 1')) as typeof proto;
    void probe.end({ timeout: 0 });
    const { then, forEach } = proto;
    proto.then = function (this: object, ...a: unknown[]) {
      queries.add(this);
      return then.apply(this, a);
    };
    proto.forEach = function (this: object, ...a: unknown[]) {
      queries.add(this);
      return forEach.apply(this, a);
    };
    restore = () => Object.assign(proto, { then, forEach });
    db = connectPostgres(process.env.DATABASE_URL!, { poolSize: 2, statementTimeoutMs: 5000, connectTimeoutMs: 2000 });
  });
  afterAll(async () => {
    restore?.();
    await db?.close();
  });

  test('the Queries kept, the rows a caller let go are collected', async () => {
    let rows: Row[] | undefined = await db.query('SELECT g AS n FROM generate_series(1, 50) AS g');
    expect(rows.map((r) => r.n)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(queries.size).toBeGreaterThan(0);
    const first = new WeakRef(rows[0]);
    rows = undefined;
    expect(await collected(first)).toBe(true);
  });

  test('so are those of a statement with a cancel signal, which keeps no listener', async () => {
    const listening = new Set<() => void>();
    const signal = {
      aborted: false,
      addEventListener: (_type: 'abort', l: () => void) => void listening.add(l),
      removeEventListener: (_type: 'abort', l: () => void) => void listening.delete(l),
    };
    let rows: Row[] | undefined = await db.query('SELECT g AS n FROM generate_series(1, 5) AS g', [], { signal });
    expect(rows).toHaveLength(5);
    expect(listening.size).toBe(0);
    const first = new WeakRef(rows[0]);
    rows = undefined;
    expect(await collected(first)).toBe(true);
  });
});
