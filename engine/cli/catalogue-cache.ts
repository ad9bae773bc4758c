/*
 * engine/cli: what `npm run schema` and `npm run metadata -- check` read from a database built by the
 * migrations alone, kept for the next run. Imports engine/compile's model and engine/core.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectRoot, type EngineConfig } from '../core/config';
import { connectDatabase } from '../core/db/connect';
import type { Queryable, Row } from '../core/db/database';
import { listMigrations, migrate } from '../core/db/migrate';
import type { LoadedMetadata } from '../compile/model/load';
import type { Model } from '../compile/model/model-types';
import { buildModel } from '../compile/model/model';

/** The answers of the statements the model was built with, by statement text and parameters. */
export type Recording = Record<string, Row[]>;

const keyOf = (text: string, params: readonly unknown[] = []) => JSON.stringify([text, params]);

/** A statement the recording does not hold: the catalogue has to be read from a database after all. */
export class NotRecorded extends Error {}

/**
 * The cache file of a migrations folder: named by a hash of its migrations (names and contents) and
 * of PGlite's version, which are all that decide the catalogue of a database built from them. In
 * node_modules/.cache, where tools keep what can be thrown away.
 */
export function cacheFileOf(migrationsDir: string): string {
  const root = projectRoot();
  const hash = createHash('sha256');
  for (const file of listMigrations(migrationsDir))
    hash.update(`${file}\0`).update(fs.readFileSync(path.join(migrationsDir, file)));
  hash.update(fs.readFileSync(path.join(root, 'node_modules', '@electric-sql', 'pglite', 'package.json')));
  return path.join(
    root,
    'node_modules',
    '.cache',
    'platform-engine',
    `catalogue-${hash.digest('hex').slice(0, 24)}.json`,
  );
}

/** The recording kept in `file`, or undefined (none yet, or unreadable: it is made again). */
export function readRecording(file: string): Recording | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Recording;
  } catch {
    return undefined;
  }
}

/** Keeps the recording; a folder that cannot be written only costs the next run its speed. */
export function writeRecording(file: string, recording: Recording): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Written aside and renamed: a run that reads it meanwhile sees the old file or the new one, never half.
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(recording));
    fs.renameSync(tmp, file);
  } catch {
    // Nothing to do: the next run reads the database again.
  }
}

/** A database that answers from the recording only; a statement it does not hold throws NotRecorded. */
export function replaying(recording: Recording): Queryable {
  return {
    query: async (text, params) => {
      const rows = recording[keyOf(text, params)];
      if (!rows) throw new NotRecorded(text);
      return rows;
    },
    exec: async () => {
      throw new NotRecorded('exec');
    },
  };
}

/** `db`, with each statement's answer added to `recording`. */
export function recording(db: Queryable, into: Recording): Queryable {
  return {
    query: async (text, params, options) => {
      const rows = await db.query(text, params, options);
      into[keyOf(text, params)] = rows;
      return rows;
    },
    exec: (script) => db.exec(script),
  };
}

/**
 * The model of `metadata` over the catalogue of MIGRATIONS_DIR's migrations, which is what the
 * embedded engine has: read from a throw-away PGlite in memory (no files, and usable while an engine
 * holds DATA_DIR, which is one process's at a time), and kept, since PGlite's own start and the
 * migrations are most of the time; the next run with the same migrations reads no database at all.
 * `kept` says which it was.
 */
export async function migrationsModel(
  config: EngineConfig,
  metadata: LoadedMetadata,
  holder: string,
): Promise<{ model: Model; kept: boolean }> {
  const file = cacheFileOf(config.migrationsDir);
  const kept = readRecording(file);
  if (kept) {
    try {
      return { model: await buildModel(replaying(kept), metadata, config.tenancy), kept: true };
    } catch (err) {
      // The metadata asks what the recording lacks (a new enum table ...): read the database.
      if (!(err instanceof NotRecorded)) throw err;
    }
  }
  const made: Recording = {};
  const db = await connectDatabase({ ...config, dataDir: 'memory://' }, { holder });
  try {
    await migrate(db, config.migrationsDir, () => undefined);
    const model = await buildModel(recording(db, made), metadata, config.tenancy);
    writeRecording(file, made);
    return { model, kept: false };
  } finally {
    await db.close();
  }
}
