import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports';

const run = promisify(execFile);

/**
 * PgBouncer (Debian's `pgbouncer` package, installed by .ci/run) of a test's own: its ini in a
 * temporary folder, a free loopback port, pool_mode=transaction, in front of one PostgreSQL server.
 * Never the system's service. As root it runs as the `postgres` user, which owns the folder.
 */
export interface PgBouncer {
  port: number;
  /** The URL of `database` through the pooler, as user postgres. */
  url(database: string): string;
  /** Its log so far. */
  log(): string;
  stop(): Promise<void>;
}

/** Where pgbouncer is, or undefined when it is not installed. */
export function pgbouncerBinary(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/bin'])) {
    const file = path.join(dir, 'pgbouncer');
    if (dir && fs.existsSync(file)) return file;
  }
  return undefined;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

export async function startPgBouncer(
  server: { host: string; port: number },
  opts: { poolSize?: number } = {},
): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error('pgbouncer is not installed (apt-get install pgbouncer; .ci/run does it)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-pgbouncer-'));
  const port = await freePort();
  const file = (name: string) => path.join(dir, name);
  // auth_type=trust still wants the user in auth_file.
  fs.writeFileSync(file('userlist.txt'), '"postgres" ""\n');
  fs.writeFileSync(
    file('pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.host} port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${file('userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.poolSize ?? 4}`,
      'max_client_conn = 500',
      `logfile = ${file('pgbouncer.log')}`,
      `pidfile = ${file('pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  const args = ['-d', file('pgbouncer.ini')];
  if (asRoot) await run('runuser', ['-u', 'postgres', '--', binary, ...args], { cwd: dir });
  else await run(binary, args, { cwd: dir });
  const pid = await waitForPidFile(file('pgbouncer.pid'));
  const log = () => (fs.existsSync(file('pgbouncer.log')) ? fs.readFileSync(file('pgbouncer.log'), 'utf8') : '');
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    log,
    async stop() {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await waitUntilGone(pid);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPidFile(file: string): Promise<number> {
  for (let i = 0; i < 100; i++) {
    if (fs.existsSync(file)) {
      const pid = Number(fs.readFileSync(file, 'utf8').trim());
      if (pid > 0) return pid;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('pgbouncer did not start (no pid file)');
}

async function waitUntilGone(pid: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
