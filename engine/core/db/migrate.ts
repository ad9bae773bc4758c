import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from './database';

const MIGRATION_FILE = /^\d+_[\w.-]+\.sql$/;
/** Any fixed number: it names the advisory lock that keeps two instances from migrating at once. */
const MIGRATION_LOCK = 74_112_033;

export function listMigrations(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => MIGRATION_FILE.test(f))
    .sort();
}

/**
 * Runs each numbered `.sql` file of `dir` once, in name order, each in its own transaction, and records
 * it in `engine_migrations`. Safe when several instances start together: each migration takes a
 * transaction-scoped advisory lock and checks again whether another instance applied it meanwhile.
 */
export async function migrate(
  db: Database,
  dir: string,
  log: (msg: string) => void = () => undefined,
): Promise<string[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS engine_migrations (
    name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  // Those recorded already are skipped without a transaction each: on an unchanged database, start-up
  // reads one list instead of taking the lock once per file. Any other is checked again under the lock.
  const recorded = new Set((await db.query('SELECT name FROM engine_migrations')).map((r) => r.name as string));
  const applied: string[] = [];
  for (const file of listMigrations(dir).filter((f) => !recorded.has(f))) {
    const script = fs.readFileSync(path.join(dir, file), 'utf8');
    const ran = await db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      const done = await tx.query('SELECT 1 FROM engine_migrations WHERE name = $1::text', [file]);
      if (done.length > 0) return false;
      try {
        await tx.exec(script);
      } catch (err) {
        throw new Error(`migration ${file} failed: ${(err as Error).message}`);
      }
      await tx.query('INSERT INTO engine_migrations (name) VALUES ($1::text)', [file]);
      return true;
    });
    if (ran) {
      applied.push(file);
      log(`applied migration ${file}`);
    }
  }
  return applied;
}
