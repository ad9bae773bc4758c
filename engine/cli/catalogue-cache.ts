/*
 * engine/cli: what `npm run schema` read from a database built by the migrations alone, kept for the
 * next run. Imports engine/core only.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectRoot } from '../core/config';
import type { Queryable, Row } from '../core/db/database';
import { listMigrations } from '../core/db/migrate';

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
