import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of a test's own: `initdb` into a temporary folder, a free loopback port, started
 * and stopped with `pg_ctl` by the test. Tests that stop the database use one, so that the shared
 * server and the other tests on it are never disturbed. The binaries are found with `pg_config
 * --bindir` (or PG_BIN). initdb refuses to run as root: then the cluster runs as the `postgres` user,
 * in a folder it owns.
 */
export interface OwnCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  start(): Promise<void>;
  /** pg_ctl stop -m fast: running statements are cancelled, sessions ended (57P01). */
  stop(): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL program as the user that owns the cluster. */
async function pg(program: string, args: string[]): Promise<void> {
  const file = path.join(binDir(), program);
  if (asRoot) await run('runuser', ['-u', 'postgres', '--', file, ...args], { cwd: os.tmpdir() });
  else await run(file, args);
}

/** A temporary folder the cluster's user owns. */
function clusterFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-own-cluster-'));
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  return dir;
}

/** The cluster in `dir`/data, on a free port, started. */
async function startCluster(dir: string): Promise<OwnCluster> {
  const data = path.join(dir, 'data');
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const logFile = path.join(dir, 'server.log');
  const cluster: OwnCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: () => pg('pg_ctl', ['-D', data, '-o', options, '-l', logFile, '-w', '-t', '60', 'start']),
    stop: () => pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']),
    async destroy() {
      await cluster.stop().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}

export async function createOwnCluster(): Promise<OwnCluster> {
  const dir = clusterFolder();
  const data = path.join(dir, 'data');
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  return startCluster(dir);
}

/**
 * A streaming replica of `primary` (a cluster of createOwnCluster: PostgreSQL 15's defaults already
 * allow it, wal_level replica and initdb's trusted replication connections from the loopback), made by
 * `pg_basebackup -R` into a folder of its own and started on its own port. It is a hot standby:
 * it answers reads and replays what the primary writes.
 */
export async function createReplica(primary: OwnCluster): Promise<OwnCluster> {
  const dir = clusterFolder();
  const data = path.join(dir, 'data');
  const from = ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'];
  await pg('pg_basebackup', ['-D', data, ...from, '-R', '-X', 'stream', '--no-sync', '-c', 'fast']);
  return startCluster(dir);
}
