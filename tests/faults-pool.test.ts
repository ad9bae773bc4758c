import { loadConfig } from '../engine/core/config';
import { connectDatabase } from '../engine/core/db/connect';
import type { Database } from '../engine/core/db/database';
import { RequestError } from '../engine/core/errors';
import { backendName, createTestDatabase, onPostgres, type TestDatabase } from './support/database';

/**
 * The wait for a connection is bounded on both adapters: with every connection held, a statement
 * waits DATABASE_POOL_TIMEOUT_MS and is refused as `busy` (503, Retry-After) instead of queueing
 * without end; PGlite (one connection, queued in process) is bound alike. On PostgreSQL the reserve
 * pool still answers meanwhile.
 */
const POOL_TIMEOUT_MS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`the wait for a connection on ${backendName}`, () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await connectDatabase(
      loadConfig({ ...database.env, DATABASE_POOL_SIZE: '1', DATABASE_POOL_TIMEOUT_MS: String(POOL_TIMEOUT_MS) }),
    );
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  test('a statement waits at most DATABASE_POOL_TIMEOUT_MS for the one connection, then is refused as busy', async () => {
    let release: () => void = () => undefined;
    const held = db.transaction(() => new Promise<void>((r) => (release = r)));
    await sleep(50);
    const start = Date.now();
    const err = await db.query('SELECT 1').then(
      () => undefined,
      (e: unknown) => e,
    );
    const waited = Date.now() - start;
    expect(err).toBeInstanceOf(RequestError);
    expect(err).toMatchObject({ code: 'busy', status: 503, retryAfterSeconds: 1 });
    expect(waited).toBeGreaterThanOrEqual(POOL_TIMEOUT_MS - 20);
    expect(waited).toBeLessThan(POOL_TIMEOUT_MS + 500);
    if (onPostgres) expect(await db.reserve!.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    release();
    await held;
    expect(await db.query('SELECT 2 AS two')).toEqual([{ two: 2 }]);
  });

  test('statements queued behind a short one run in order, none refused', async () => {
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => db.query(`SELECT ${i} AS i`).then(([r]) => order.push(Number(r.i)))),
    );
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
});
