import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type postgres from 'postgres';
import { projectRoot } from '../engine/core/config';

/**
 * BENCH_KEEP_DATA=1: a seeded scratch database is kept, and a later run that would seed the same
 * data copies it instead (CREATE DATABASE ... TEMPLATE). Seeding scale 100 and three million log lines
 * takes minutes of every `-- v2` run; a copy of the files takes seconds, so that a run can afford more
 * rounds. The kept database is named by what made its data: the settings that choose it and the
 * contents of the migrations, the demo data and the bench's generators. Changing any of them names
 * another database, and the stale one stays until dropped (`DROP DATABASE bench_kept_...`).
 *
 * Only a run whose workloads wrote nothing keeps its database (a copy must hold what seeding made).
 */

/** What chooses a scratch database's data besides the sources. */
export interface DataSettings {
  scale: number;
  logLines: number;
  extraSpendDays: number;
  spendRows?: number;
}

/** The sources whose contents make the data: the migrations, the demo data, the bench's generators. */
const SOURCES = ['sql', 'demo', path.join('bench', 'data.ts')];

function filesUnder(full: string): string[] {
  if (!fs.existsSync(full)) return [];
  if (!fs.statSync(full).isDirectory()) return [full];
  return fs
    .readdirSync(full)
    .sort()
    .flatMap((name) => filesUnder(path.join(full, name)));
}

/** The kept database's name for these settings and the sources as they are now. */
export function keptDataName(s: DataSettings): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([s.scale, s.logLines, s.extraSpendDays, s.spendRows ?? 0]));
  const root = projectRoot();
  for (const file of SOURCES.flatMap((p) => filesUnder(path.join(root, p)))) {
    hash.update(path.relative(root, file));
    hash.update(fs.readFileSync(file));
  }
  return `bench_kept_${hash.digest('hex').slice(0, 16)}`;
}

async function exists(admin: postgres.Sql, name: string): Promise<boolean> {
  const rows = await admin.unsafe('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return rows.length > 0;
}

/**
 * Creates `into` as a copy of the kept database `kept` when there is one: true then. FILE_COPY copies
 * the files after a checkpoint instead of writing every page to the WAL (PostgreSQL 15's default).
 */
export async function copyKept(admin: postgres.Sql, kept: string, into: string): Promise<boolean> {
  if (!(await exists(admin, kept))) return false;
  await admin.unsafe(`CREATE DATABASE ${into} TEMPLATE ${kept} STRATEGY = FILE_COPY`);
  return true;
}

/** Keeps the scratch database `db` as `kept` (renamed): false when one is kept already. */
export async function keep(admin: postgres.Sql, db: string, kept: string): Promise<boolean> {
  if (await exists(admin, kept)) return false;
  await admin.unsafe(`ALTER DATABASE ${db} RENAME TO ${kept}`);
  return true;
}
