import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import postgres from 'postgres';

/**
 * Every database test runs on both engines: on PostgreSQL when DATABASE_URL is set (each test file
 * gets a database of its own, created here and dropped after), on PGlite otherwise.
 */
export const onPostgres = !!process.env.DATABASE_URL;
export const backendName = onPostgres ? 'PostgreSQL' : 'PGlite';

export interface TestDatabase {
  /** Environment that points an engine at this database. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database. `persistent` PGlite databases live in a temporary folder so that a test
 * can restart the engine on them; otherwise PGlite runs in memory.
 */
export async function createTestDatabase(opts: { persistent?: boolean } = {}): Promise<TestDatabase> {
  if (onPostgres) {
    const base = process.env.DATABASE_URL!;
    const name = `jest_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = postgres(base, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`CREATE DATABASE ${name}`);
    await admin.end();
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
  if (!opts.persistent) return { env: { DATA_DIR: 'memory://' }, drop: async () => undefined };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-pglite-'));
  return { env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}
