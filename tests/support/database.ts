import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import postgres from 'postgres';
import { pgliteArchive, postgresTemplateName, unpackPgliteArchive, type Contents } from './template';

/**
 * Every database test runs on both engines: on PostgreSQL when DATABASE_URL is set (each test file
 * gets a database of its own, created here and dropped after), on PGlite otherwise.
 */
export const onPostgres = !!process.env.DATABASE_URL;
export const backendName = onPostgres ? 'PostgreSQL' : 'PGlite';

export interface TestDatabase {
  /** Environment that points an engine at this database. */
  env: Record<string, string>;
  /** PGlite: the archive its `memory://` database starts from (the engine's `dataDirSnapshot`). */
  snapshot?: Blob;
  drop(): Promise<void>;
}

/** What a new test database holds: `seeded` (the migrations and the demo data) wins over `migrated`. */
interface ContentsOptions {
  seeded?: boolean;
  migrated?: boolean;
}
const contentsOf = (opts: ContentsOptions): Contents => (opts.seeded ? 'seeded' : opts.migrated ? 'migrated' : 'blank');

/**
 * A fresh, empty database; `migrated`: one with the platform's migrations applied, `seeded`: and the
 * demo data too (each a copy of the run's template, support/template.ts), when the template is there.
 * `persistent` PGlite databases live in a temporary folder so that a test can restart the engine on
 * them; otherwise PGlite runs in memory. An empty PGlite database is a copy of the one initdb made in
 * global set-up (the same cluster, without running initdb again).
 */
export async function createTestDatabase(opts: { persistent?: boolean } & ContentsOptions = {}): Promise<TestDatabase> {
  const contents = contentsOf(opts);
  if (onPostgres) {
    const base = process.env.DATABASE_URL!;
    const name = `jest_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = postgres(base, { max: 1, onnotice: () => undefined });
    try {
      await admin.unsafe(
        `CREATE DATABASE ${name}${contents === 'blank' ? '' : ` TEMPLATE ${postgresTemplateName(contents)}`}`,
      );
    } catch (err) {
      // No template (global set-up did not run): an empty database, which the engine migrates and seeds.
      if (contents === 'blank' || (err as { code?: string }).code !== '3D000') throw err;
      await admin.unsafe(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    const url = new URL(base);
    url.pathname = `/${name}`;
    return {
      env: { DATABASE_URL: url.toString() },
      async drop() {
        const a = postgres(base, { max: 1, onnotice: () => undefined });
        await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await a.end();
      },
    };
  }
  if (!opts.persistent) {
    const snapshot = await pgliteArchive(contents);
    return { env: { DATA_DIR: 'memory://' }, snapshot, drop: async () => undefined };
  }
  return pgliteFolder(opts);
}

/**
 * A PGlite data folder of its own in a temporary folder, on PGlite whatever DATABASE_URL says (for the
 * tests of the embedded database's folder): the database initdb makes, or with `migrated` or `seeded`
 * the run's template, unpacked; or, where global set-up did not make them, an empty folder in which the
 * engine's first start makes the database. `empty`: an empty folder always, for a test of that first
 * start.
 */
export function pgliteFolder(opts: { empty?: boolean } & ContentsOptions = {}): TestDatabase {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-pglite-'));
  const contents = contentsOf(opts);
  if (!opts.empty && !(contents !== 'blank' && unpackPgliteArchive(contents, dir))) unpackPgliteArchive('blank', dir);
  return { env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}
