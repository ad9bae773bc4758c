import { loadConfig as loadEngineConfig } from '../engine/core/config';
import { backendName, onPostgres } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * What the engine sets on its PostgreSQL connections at connect time.
 * - DATABASE_JIT: PostgreSQL's JIT only cost the engine's statements (`npm run bench -- v2`: it came
 *   into the large analytic ones and took longer to compile than it saved), so the engine turns it off
 *   unless told to leave the server's setting.
 * - DATABASE_PARALLEL_WORKERS: parallel workers made the month-long spends groupings cost PostgreSQL
 *   1.2-1.9x the CPU of serial plans under load, so the engine asks for none unless told a number or `server`.
 */
describe(`the engine's connection settings on ${backendName}`, () => {
  test('DATABASE_JIT: off by default; true leaves the server its own setting', () => {
    expect(loadEngineConfig({}).databaseJit).toBe(false);
    expect(loadEngineConfig({ DATABASE_JIT: 'true' }).databaseJit).toBe(true);
  });

  test('DATABASE_PARALLEL_WORKERS: 0 by default, a number of workers, or `server`; anything else is refused by name', () => {
    expect(loadEngineConfig({}).databaseParallelWorkers).toBe(0);
    expect(loadEngineConfig({ DATABASE_PARALLEL_WORKERS: '4' }).databaseParallelWorkers).toBe(4);
    expect(loadEngineConfig({ DATABASE_PARALLEL_WORKERS: ' Server ' }).databaseParallelWorkers).toBeUndefined();
    for (const bad of ['-1', 'two', '1.5', '1e3'])
      expect(() => loadEngineConfig({ DATABASE_PARALLEL_WORKERS: bad })).toThrow(
        /DATABASE_PARALLEL_WORKERS must be a non-negative integer or server/,
      );
  });

  (onPostgres ? describe : describe.skip)('on the connections', () => {
    let server: TestServer;
    afterEach(() => server?.close());

    const setting = async (name: string) =>
      (await server.started.db.query(`SELECT setting, source FROM pg_settings WHERE name = $1`, [name]))[0];

    /**
     * Whether the engine's connection plans a scan with parallel workers where they cost nothing: the
     * costs that keep a small catalogue table's scan serial are set to 0 for the transaction.
     */
    const gathers = async () => {
      const plan = await server.started.db.transaction(async (tx) => {
        await tx.exec(
          `SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0;
           SET LOCAL min_parallel_table_scan_size = 0; SET LOCAL enable_indexscan = off;
           SET LOCAL enable_indexonlyscan = off; SET LOCAL enable_bitmapscan = off`,
        );
        return tx.query(`EXPLAIN (COSTS OFF) SELECT count(*) FROM pg_class`, [], { prepare: false });
      });
      return JSON.stringify(plan).includes('Gather');
    };

    test('by default the engine runs its statements with jit off and no parallel workers, set by the client', async () => {
      server = await startTestServer();
      expect(await setting('jit')).toEqual({ setting: 'off', source: 'client' });
      expect(await setting('max_parallel_workers_per_gather')).toEqual({ setting: '0', source: 'client' });
      expect(await gathers()).toBe(false);
    });

    test("with DATABASE_JIT=true and DATABASE_PARALLEL_WORKERS=server, the server's own settings stay", async () => {
      server = await startTestServer({ env: { DATABASE_JIT: 'true', DATABASE_PARALLEL_WORKERS: 'server' } });
      expect((await setting('jit')).source).not.toBe('client');
      expect((await setting('max_parallel_workers_per_gather')).source).not.toBe('client');
      expect(await gathers()).toBe(true);
    });

    test('DATABASE_PARALLEL_WORKERS=3 sets three', async () => {
      server = await startTestServer({ env: { DATABASE_PARALLEL_WORKERS: '3' } });
      expect(await setting('max_parallel_workers_per_gather')).toEqual({ setting: '3', source: 'client' });
    });
  });
});
