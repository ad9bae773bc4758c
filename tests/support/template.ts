import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import postgres from 'postgres';
import { migrate } from '../../engine/core/db/migrate';
import { openPglite } from '../../engine/core/db/pglite';
import { connectPostgres } from '../../engine/core/db/postgres';
import type { Database } from '../../engine/core/db/database';
import { seedDemoData } from '../../demo/seed';

/**
 * Each test file's database starts as a copy of one that was migrated and seeded with the demo data
 * once per run (and kept until the migrations or the demo data change): on PostgreSQL a template
 * database (`CREATE DATABASE ... TEMPLATE`), on PGlite an archive of its data folder. Starting from a
 * copy skips PGlite's initdb, the migrations and the seed, which were most of each file's start-up.
 * The copy is made in jest's global set-up (global-setup.ts), before the workers start.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const MIGRATIONS = path.join(ROOT, 'sql');

/** Files whose change makes another template: the migrations, the demo data and PGlite's version. */
function templateKey(): string {
  const hash = createHash('sha256');
  for (const dir of ['sql', 'demo']) {
    for (const name of fs.readdirSync(path.join(ROOT, dir)).sort()) {
      const file = path.join(ROOT, dir, name);
      if (fs.statSync(file).isFile()) hash.update(name).update(fs.readFileSync(file));
    }
  }
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  hash.update(String(lock.packages?.['node_modules/@electric-sql/pglite']?.version));
  return hash.digest('hex').slice(0, 12);
}

let key: string | undefined;
const cachedKey = () => (key ??= templateKey());

export const postgresTemplateName = () => `jest_template_${cachedKey()}`;
const pgliteTemplateFile = () => path.join(os.tmpdir(), `engine-test-template-${cachedKey()}.tar`);

async function prepare(db: Database): Promise<void> {
  await migrate(db, MIGRATIONS);
  await seedDemoData(db);
}

/**
 * The archive of a migrated, seeded PGlite database; undefined when global set-up did not make it.
 * A Blob backed by the file: PGlite reads it once, where a Blob of a Buffer copied 70 MB twice more.
 */
export async function pgliteTemplate(): Promise<Blob | undefined> {
  const file = pgliteTemplateFile();
  return fs.existsSync(file) ? await fs.openAsBlob(file) : undefined;
}

async function makePgliteTemplate(): Promise<void> {
  const file = pgliteTemplateFile();
  if (fs.existsSync(file)) return;
  const db = await openPglite('memory://', { statementTimeoutMs: 0 });
  try {
    await prepare(db);
    const archive = Buffer.from(await (await db.snapshot!()).arrayBuffer());
    // Written aside, then renamed: a run beside this one never reads half a file.
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, archive);
    fs.renameSync(partial, file);
  } finally {
    await db.close();
  }
}

async function postgresTemplateExists(admin: postgres.Sql): Promise<boolean> {
  const rows = await admin`SELECT 1 FROM pg_database WHERE datname = ${postgresTemplateName()}`;
  return rows.length > 0;
}

async function makePostgresTemplate(baseUrl: string): Promise<void> {
  const admin = postgres(baseUrl, { max: 1, onnotice: () => undefined });
  try {
    if (await postgresTemplateExists(admin)) return;
    // Built under a name of its own, then renamed: two runs that build at once do not collide.
    const building = `jest_building_${process.pid}_${randomBytes(4).toString('hex')}`;
    await admin.unsafe(`CREATE DATABASE ${building}`);
    const url = new URL(baseUrl);
    url.pathname = `/${building}`;
    const db = connectPostgres(url.toString(), { poolSize: 2, statementTimeoutMs: 0, connectTimeoutMs: 10_000 });
    try {
      await prepare(db);
    } finally {
      await db.close();
    }
    try {
      await admin.unsafe(`ALTER DATABASE ${building} RENAME TO ${postgresTemplateName()}`);
      // Nobody connects to it by mistake: a connection would stop it from being copied.
      await admin.unsafe(`ALTER DATABASE ${postgresTemplateName()} WITH ALLOW_CONNECTIONS false`);
    } catch {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${building}`);
    }
  } finally {
    await admin.end();
  }
}

/** Makes the template of the database the tests run on (DATABASE_URL set: PostgreSQL; else PGlite). */
export async function makeTemplate(): Promise<void> {
  const url = process.env.DATABASE_URL;
  await (url ? makePostgresTemplate(url) : makePgliteTemplate());
}
