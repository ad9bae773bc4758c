import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The embedded database's folder belongs to one process at a time: PGlite keeps its pages in memory
 * and writes them back, so a second process on the same folder (an engine, or `npm run admin`) would
 * write over the first's changes or lose its own. Whoever opens the folder takes `engine.lock` in it,
 * created atomically (a hard link of a file already written, which fails when the name exists), with
 * its pid and, once an engine listens, its port, where the admin CLI sends its commands instead.
 */
export const LOCK_FILE = 'engine.lock';

export interface LockHolder {
  pid: number;
  /** `engine` or `admin` (the CLI), or another tool's name. */
  holder: string;
  /** An engine's HTTP address, once it listens. */
  host?: string;
  port?: number;
  since: string;
}

export class DataDirLocked extends Error {
  constructor(
    readonly dataDir: string,
    readonly by: LockHolder,
  ) {
    const where = by.port ? `, listening on port ${by.port}` : '';
    super(`the data folder ${dataDir} is in use by ${describe(by)} (pid ${by.pid}${where})`);
  }
}

const describe = (h: LockHolder) => (h.holder === 'engine' ? 'a running engine' : `another ${h.holder} process`);

/** Folders this process holds: its own pid in a lock file means held when listed here, stale otherwise. */
const heldHere = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A holder that still runs: this process only while it holds the folder (a pid may come back after a restart). */
const live = (by: LockHolder, dir: string) => (by.pid === process.pid ? heldHere.has(dir) : alive(by.pid));

function readHolder(file: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as LockHolder;
    return Number.isInteger(parsed.pid) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Writes `info` to a new file beside the lock and links it to the lock's name: fails if the name exists. */
function createLock(file: string, info: LockHolder): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, JSON.stringify(info));
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * A lock left by a process that is gone (or unreadable, a crash mid-write) is moved aside by rename,
 * which only one of several racing processes can do to the same file; should the file moved turn out
 * to be a live holder's (it replaced the stale one in between), it is put back.
 */
function removeStale(file: string, dir: string): void {
  const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return;
  }
  const moved = readHolder(aside);
  if (moved && live(moved, dir)) {
    if (!createLock(file, moved)) throw new Error(`the lock of ${dir} changed hands while it was checked; try again`);
  }
  fs.rmSync(aside, { force: true });
}

export interface DataDirLock {
  /** Records the engine's HTTP address in the lock, for the admin CLI. */
  setAddress(host: string, port: number): void;
  release(): void;
}

/** Takes the folder's lock, or throws DataDirLocked naming the live process that holds it. */
export function lockDataDir(dataDir: string, holder: string): DataDirLock {
  const dir = path.resolve(dataDir);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  let info: LockHolder = { pid: process.pid, holder, since: new Date().toISOString() };
  for (let attempt = 0; !createLock(file, info); attempt++) {
    const by = readHolder(file);
    if (by && live(by, dir)) throw new DataDirLocked(dataDir, by);
    if (attempt >= 3) throw new Error(`cannot take the lock of the data folder ${dataDir}; try again`);
    removeStale(file, dir);
  }
  heldHere.add(dir);
  const ours = () => readHolder(file)?.pid === process.pid && heldHere.has(dir);
  return {
    setAddress(host, port) {
      if (!ours()) return;
      info = { ...info, host, port };
      const tmp = `${file}.${process.pid}.address`;
      fs.writeFileSync(tmp, JSON.stringify(info));
      fs.renameSync(tmp, file);
    },
    release() {
      if (ours()) fs.rmSync(file, { force: true });
      heldHere.delete(dir);
    },
  };
}

/** Who holds the folder now, if a live process does. */
export function dataDirHolder(dataDir: string): LockHolder | undefined {
  const dir = path.resolve(dataDir);
  const by = readHolder(path.join(dir, LOCK_FILE));
  return by && live(by, dir) ? by : undefined;
}
