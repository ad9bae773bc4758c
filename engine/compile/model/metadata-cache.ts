/**
 * The metadata directory as it was read at the last start, kept between starts. Parsing the YAML and
 * compiling the JSON schemas that validate it took 0.6 s of a fresh process's start-up for the
 * platform's 540 KB of metadata, and the directory rarely changes from one start to the next.
 *
 * The kept copy is named after the directory's path and holds a key: the hash of every file of the
 * directory (names and contents) and of the loader's own code. Any change to either reads the
 * directory anew. Only a directory that loaded without error is kept; its warnings are kept with it.
 * The copies live in the build's folder (`dist/.cache`, emptied by each build); where that cannot be
 * written (a read-only image), every start reads the directory.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectRoot } from '../../core/config';
import { loadMetadata, type LoadedMetadata } from './load';

/** Copies not used for this long are removed when another is written (tests make many directories). */
const STALE_MS = 24 * 60 * 60 * 1000;

/** The files of `dir`, depth first in name order, as paths relative to it. */
function filesOf(dir: string, rel = ''): string[] {
  const entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
  return entries
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? filesOf(dir, path.join(rel, e.name)) : [path.join(rel, e.name)]));
}

/** What the kept copy must match: the directory's files and the code that reads them. */
function keyOf(dir: string): string {
  const hash = createHash('sha256');
  for (const code of [__filename, require.resolve('./load'), require.resolve('./metadata-schema')])
    hash.update(fs.readFileSync(code));
  for (const rel of filesOf(dir)) hash.update(`\0${rel}\0`).update(fs.readFileSync(path.join(dir, rel)));
  return hash.digest('hex');
}

interface Kept {
  key: string;
  metadata: Omit<LoadedMetadata, 'tableFiles'> & { tableFiles: [string, string][] };
}

function read(file: string, key: string): LoadedMetadata | undefined {
  try {
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as Kept;
    if (kept.key !== key) return undefined;
    fs.utimesSync(file, new Date(), new Date());
    return { ...kept.metadata, tableFiles: new Map(kept.metadata.tableFiles) };
  } catch {
    return undefined;
  }
}

function write(file: string, key: string, metadata: LoadedMetadata): void {
  try {
    const folder = path.dirname(file);
    fs.mkdirSync(folder, { recursive: true });
    const kept: Kept = { key, metadata: { ...metadata, tableFiles: [...metadata.tableFiles] } };
    // Written aside, then renamed: a process starting beside this one never reads half a copy.
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, JSON.stringify(kept));
    fs.renameSync(partial, file);
    for (const name of fs.readdirSync(folder)) {
      const other = path.join(folder, name);
      if (other !== file && Date.now() - fs.statSync(other).mtimeMs > STALE_MS) fs.rmSync(other, { force: true });
    }
  } catch {
    // Not writable (a read-only image): the next start reads the directory again.
  }
}

/** Where the copy of `dir` is kept. */
export function keptFileOf(dir: string): string {
  const name = createHash('sha256').update(path.resolve(dir)).digest('hex').slice(0, 16);
  return path.join(projectRoot(), 'dist', '.cache', `metadata-${name}.json`);
}

/** `loadMetadata(dir)`, from the copy kept at the last start when nothing changed since. */
export function loadMetadataKept(dir: string): LoadedMetadata {
  let key: string;
  try {
    key = keyOf(dir);
  } catch {
    return loadMetadata(dir); // a missing or unreadable directory: its own error, from the loader
  }
  const file = keptFileOf(dir);
  const kept = read(file, key);
  if (kept) return kept;
  const metadata = loadMetadata(dir);
  write(file, key, metadata);
  return metadata;
}
