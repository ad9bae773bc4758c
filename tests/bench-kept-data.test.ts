import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { copyKept, keep, keptDataName } from '../bench/kept-data';
import { onPostgres } from './support/database';

/**
 * The bench's kept data (bench/kept-data.ts, BENCH_KEEP_DATA): named by what made it, kept by a
 * rename, and copied into a later run's scratch database.
 */
describe('bench kept data', () => {
  const settings = { scale: 100, logLines: 3_000_000, extraSpendDays: 0 };

  test('the name depends on each data setting, and on nothing else of a run', () => {
    const name = keptDataName(settings);
    expect(name).toMatch(/^bench_kept_[0-9a-f]{16}$/);
    expect(keptDataName({ ...settings })).toBe(name);
    for (const other of [{ scale: 1 }, { logLines: 0 }, { extraSpendDays: 365 }, { spendRows: 10_000 }])
      expect(keptDataName({ ...settings, ...other })).not.toBe(name);
  });

  (onPostgres ? test : test.skip)('a scratch database kept is copied, rows and all, and kept once', async () => {
    const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => undefined });
    const suffix = randomBytes(4).toString('hex');
    const [scratch, kept, copy, second] = ['scratch', 'kept', 'copy', 'second'].map((n) => `bench_test_${n}_${suffix}`);
    try {
      expect(await copyKept(admin, kept, copy)).toBe(false);
      await admin.unsafe(`CREATE DATABASE ${scratch}`);
      const seeding = postgres({ ...admin.options, database: scratch, max: 1 } as never);
      await seeding.unsafe('CREATE TABLE seeded AS SELECT generate_series(1, 1000) AS n');
      await seeding.end();

      expect(await keep(admin, scratch, kept)).toBe(true);
      expect(await copyKept(admin, kept, copy)).toBe(true);
      const reading = postgres({ ...admin.options, database: copy, max: 1 } as never);
      expect((await reading.unsafe('SELECT count(*)::int AS n FROM seeded'))[0].n).toBe(1000);
      await reading.end();

      // A second database of the same data is not kept over the first.
      await admin.unsafe(`CREATE DATABASE ${second}`);
      expect(await keep(admin, second, kept)).toBe(false);
    } finally {
      for (const db of [scratch, kept, copy, second]) await admin.unsafe(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await admin.end();
    }
  });
});
