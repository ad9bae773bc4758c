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
 *
 * PGlite also gets an archive of a database just made by initdb (`blank`): a test that wants an empty
 * database (its own migrations, no demo data) starts from it instead of running initdb again, which
 * took 2 to 3 s of CPU each time and gives the same empty cluster. Between the two, `migrated`: the
 * platform's migrations without the demo data, for the servers started with `seed: false`, which ran
 * every migration again (most of their start-up on PGlite).
 */
const ROOT = path.resolve(__dirname, '..', '..');
const MIGRATIONS = path.join(ROOT, 'sql');

/** How the archives are made (writeArchive): a change makes new ones. */
const ARCHIVE_FORMAT = 3;

/** Files whose change makes another template: the migrations, the demo data and PGlite's version. */
function templateKey(): string {
  const hash = createHash('sha256').update(`archive ${ARCHIVE_FORMAT}\n`);
  for (const dir of ['sql', 'demo']) {
    for (const name of fs.readdirSync(path.join(ROOT, dir)).sort()) {
      const file = path.join(ROOT, dir, name);
      if (fs.statSync(file).isFile()) hash.update(name).update(fs.readFileSync(file));
    }
  }
  hash.update(pgliteVersion());
  return hash.digest('hex').slice(0, 12);
}

function pgliteVersion(): string {
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  return String(lock.packages?.['node_modules/@electric-sql/pglite']?.version);
}

let key: string | undefined;
const cachedKey = () => (key ??= templateKey());

/**
 * What a test database starts as: the empty database initdb makes, the platform's migrations applied,
 * or those and the demo data.
 */
export type Contents = 'blank' | 'migrated' | 'seeded';
/** The templates that are built from another, and what each adds to it. */
type Built = Exclude<Contents, 'blank'>;
const BUILT_FROM: Record<Built, Contents> = { migrated: 'blank', seeded: 'migrated' };
const fill = (which: Built, db: Database): Promise<unknown> =>
  which === 'migrated' ? migrate(db, MIGRATIONS) : seedDemoData(db);

export const postgresTemplateName = (which: Built) =>
  `jest_template_${which === 'seeded' ? '' : `${which}_`}${cachedKey()}`;
/** initdb's output depends on PGlite alone. */
const archiveFile = (which: Contents) =>
  which === 'blank'
    ? path.join(os.tmpdir(), `engine-test-blank-${pgliteVersion()}-${ARCHIVE_FORMAT}.tar`)
    : path.join(os.tmpdir(), `engine-test-${which}-${cachedKey()}.tar`);

/**
 * A PGlite archive as the engine's `dataDirSnapshot`; undefined when global set-up did not make it.
 * A Blob backed by the file: PGlite reads it once, where a Blob of a Buffer copied 70 MB twice more.
 */
export async function pgliteArchive(which: Contents): Promise<Blob | undefined> {
  const file = archiveFile(which);
  return fs.existsSync(file) ? await fs.openAsBlob(file) : undefined;
}

/**
 * Writes the database's data folder to `file`: aside, then renamed, so a run beside this one never
 * reads half a file. A checkpoint first: a database copied without one replays its write-ahead log at
 * every start, which took a quarter of the CPU of each start from the template. Of the write-ahead
 * log only the segment the checkpoint's redo starts in is kept: the others are older or recycled for
 * later use (16 MB each, a quarter of the archive), and PostgreSQL makes a missing later one anew.
 * Each test's PGlite loads the whole archive into its memory file system, so every file and megabyte
 * left out is CPU saved at every start.
 */
async function writeArchive(db: Database, file: string): Promise<void> {
  await db.exec('CHECKPOINT');
  const [redo] = await db.query('SELECT pg_walfile_name(redo_lsn) AS segment FROM pg_control_checkpoint()');
  const keptSegment = `pg_wal/${String(redo!.segment)}`;
  const archive = Buffer.from(await (await db.snapshot!()).arrayBuffer());
  const parts: Buffer[] = [];
  for (const entry of tarEntries(archive, file)) {
    const walSegment = /(^|\/)pg_wal\/[0-9A-F]{24}$/.test(entry.name);
    if (!walSegment || entry.name.endsWith(keptSegment)) parts.push(archive.subarray(entry.at, entry.end));
  }
  parts.push(Buffer.alloc(1024)); // the two empty blocks that end an archive
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, Buffer.concat(parts));
  fs.renameSync(partial, file);
}

/** An entry of a plain tar: its name, type and mode, and where its header and contents lie. */
interface TarEntry {
  name: string;
  /** '0' (or NUL) a file, '5' a folder. */
  type: string;
  mode: number;
  /** The header's offset; the contents follow it. */
  at: number;
  size: number;
  /** The offset after the contents' last block. */
  end: number;
}

/** The entries of a plain tar (PGlite's `dumpDataDir('none')`), up to the empty blocks that end it. */
function* tarEntries(tar: Buffer, file: string): Generator<TarEntry> {
  const text = (header: Buffer, from: number, length: number) =>
    header.toString('utf8', from, from + length).replace(/\0[\s\S]*$/, '');
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    // A long name is split: its head in the ustar prefix (PGlite's tar keeps 131 bytes for it).
    const prefix = text(header, 345, 131);
    const name = prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100);
    if (!name) return;
    if (name.split('/').includes('..')) throw new Error(`${file}: entry ${name} leaves the folder`);
    const size = parseInt(text(header, 124, 12).trim() || '0', 8);
    const end = at + 512 + Math.ceil(size / 512) * 512;
    yield {
      name,
      type: String.fromCharCode(header[156]),
      mode: parseInt(text(header, 100, 8).trim() || '600', 8),
      at,
      size,
      end,
    };
    at = end;
  }
}

/**
 * The tests' databases are `postgres`, and nothing copies one on PGlite, so initdb's template0 and
 * template1 are left out: a third of the archive's files, which each start loads one by one.
 */
async function dropTemplateDatabases(db: Database): Promise<void> {
  await db.exec(`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`);
  await db.exec('DROP DATABASE template0');
  await db.exec('DROP DATABASE template1');
}

async function makePgliteArchive(which: Contents): Promise<void> {
  const file = archiveFile(which);
  if (fs.existsSync(file)) return;
  // Each starts from the one it is built from (made first): initdb and the migrations run once.
  const snapshot = which === 'blank' ? undefined : await pgliteArchive(BUILT_FROM[which]);
  const db = await openPglite('memory://', { statementTimeoutMs: 0, snapshot });
  try {
    if (which === 'blank') await dropTemplateDatabases(db);
    else await fill(which, db);
    await writeArchive(db, file);
  } finally {
    await db.close();
  }
}

/**
 * Unpacks a PGlite archive into the empty folder `dir`, which becomes a data folder the engine opens
 * as it opens one it made itself (no initdb). Returns false when the archive is not there (global
 * set-up did not make it): the folder stays empty and the engine's first start makes the database.
 * The archive is a plain tar (PGlite's `dumpDataDir('none')`): directories and regular files.
 */
export function unpackPgliteArchive(which: Contents, dir: string): boolean {
  const file = archiveFile(which);
  if (!fs.existsSync(file)) return false;
  const tar = fs.readFileSync(file);
  for (const { name, type, mode, at, size } of tarEntries(tar, file)) {
    const target = path.join(dir, name.replace(/^\/+/, ''));
    if (type === '5') fs.mkdirSync(target, { recursive: true, mode });
    else if (type === '0' || type === '\0') {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, tar.subarray(at + 512, at + 512 + size), { mode });
    } else throw new Error(`${file}: entry ${name} of type ${type} is not a file or a folder`);
  }
  return true;
}

async function postgresTemplateExists(admin: postgres.Sql, name: string): Promise<boolean> {
  const rows = await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`;
  return rows.length > 0;
}

async function makePostgresTemplate(baseUrl: string, which: Built): Promise<void> {
  const admin = postgres(baseUrl, { max: 1, onnotice: () => undefined });
  const name = postgresTemplateName(which);
  try {
    if (await postgresTemplateExists(admin, name)) return;
    // Built under a name of its own, then renamed: two runs that build at once do not collide.
    const building = `jest_building_${process.pid}_${randomBytes(4).toString('hex')}`;
    const from = BUILT_FROM[which];
    await admin.unsafe(
      `CREATE DATABASE ${building}${from === 'blank' ? '' : ` TEMPLATE ${postgresTemplateName(from)}`}`,
    );
    const url = new URL(baseUrl);
    url.pathname = `/${building}`;
    const db = connectPostgres(url.toString(), { poolSize: 2, statementTimeoutMs: 0, connectTimeoutMs: 10_000 });
    try {
      await fill(which, db);
    } finally {
      await db.close();
    }
    try {
      await admin.unsafe(`ALTER DATABASE ${building} RENAME TO ${name}`);
      // Nobody connects to it by mistake: a connection would stop it from being copied.
      await admin.unsafe(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
    } catch {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${building}`);
    }
  } finally {
    await admin.end();
  }
}

/**
 * Makes the templates of the database the tests run on (DATABASE_URL set: PostgreSQL; else PGlite),
 * migrated and seeded, and PGlite's blank database either way: the tests of the embedded database's
 * folder run on PGlite whatever DATABASE_URL says. Each is kept (in the system's temporary folder, or
 * as a database) until what it is made from changes, so most runs make none.
 */
export async function makeTemplate(): Promise<void> {
  const url = process.env.DATABASE_URL;
  await makePgliteArchive('blank');
  for (const which of ['migrated', 'seeded'] as const)
    await (url ? makePostgresTemplate(url, which) : makePgliteArchive(which));
}
