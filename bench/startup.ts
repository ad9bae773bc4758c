/**
 * `npm run bench -- startup`: how long a user waits, measured as a user meets it, on the embedded
 * default (no DATABASE_URL):
 * - the first start of a fresh clone: `git clone` of this repository's committed tree into a temporary
 *   folder (node_modules linked from here, so that `npm ci`'s download is not what is measured), the
 *   build `npm ci` runs (its `prepare`), then `npm start` until /readyz answers 200 (migrations and the
 *   demo data included);
 * - `npm start` on the unchanged tree, until /readyz answers 200, STARTUP_RUNS times (3);
 * - one `npm run admin -- list-users`, directly on the data folder and through the running engine.
 * Each start's own figure ("engine started in N ms", with its steps) is read from the engine's log.
 * The clone is deleted at the end. Needs git and npm on the PATH.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const RUNS = Number(process.env.STARTUP_RUNS || 3);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

interface Started {
  child: ChildProcess;
  port: number;
  /** Until /readyz answered 200, from the spawn of `npm start`. */
  servingMs: number;
  engineLine: { ms: number; steps: Record<string, number>; processMs: number; cpuMs: number };
}

/** `npm start` in `dir` until /readyz answers 200. */
async function npmStart(dir: string, env: NodeJS.ProcessEnv): Promise<Started> {
  const began = performance.now();
  // A process group of its own: stopping it stops npm and the engine under it together.
  const child = spawn(NPM, ['start', '--silent'], {
    cwd: dir,
    env: { ...process.env, PORT: '0', ...env },
    detached: true,
  });
  let log = '';
  child.stdout!.on('data', (c) => (log += c));
  child.stderr!.on('data', (c) => (log += c));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on http:\/\/localhost:(\d+)/.exec(log);
      if (m) {
        clearInterval(timer);
        resolve(Number(m[1]));
      }
    }, 10);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`npm start exited with ${code}:\n${log}`));
    });
  });
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const servingMs = performance.now() - began;
  const line = log.split('\n').find((l) => l.includes('"engine started in'));
  return {
    child,
    port,
    servingMs,
    engineLine: line ? JSON.parse(line) : { ms: NaN, steps: {}, processMs: NaN, cpuMs: NaN },
  };
}

/** Whether any process of the group is left. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops `npm start` and the engine under it: SIGTERM to the process group, then waits until every
 * process of it has ended (the engine lets go of the data folder last).
 */
async function stop(s: Started): Promise<void> {
  const pgid = s.child.pid!;
  process.kill(-pgid, 'SIGTERM');
  const deadline = Date.now() + 60_000;
  while (groupAlive(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
}

function timed(dir: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): number {
  const began = performance.now();
  const r = spawnSync(cmd, args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}${r.stderr}`);
  return performance.now() - began;
}

/** A start in words: to serving, the engine's own start-up and its steps, its process time and CPU time. */
function describeStart(s: Started): string {
  const e = s.engineLine;
  const steps = Object.entries(e.steps)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `${seconds(s.servingMs)} to serving; engine's own start-up ${e.ms} ms (${steps}); process ${e.processMs} ms from its start, ${e.cpuMs} ms of CPU`;
}

/** A fresh clone of the committed tree, its node_modules those of this tree. */
function freshClone(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-startup-'));
  timed(ROOT, 'git', ['clone', '--quiet', '--no-hardlinks', ROOT, dir]);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

export async function runStartup(): Promise<number> {
  const dir = freshClone();
  const env = { DATABASE_URL: '', DATA_DIR: '', ADMIN_SECRET: 'bench-startup-admin-secret' };
  try {
    console.log(`startup bench: ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)}`);
    const build = timed(dir, process.execPath, ['scripts/build-if-stale.cjs']);
    const first = await npmStart(dir, env);
    await stop(first);
    console.log(
      `first start of a fresh clone: build (npm ci's prepare) ${seconds(build)}, then npm start ${describeStart(first)}`,
    );
    console.log(`  together: ${seconds(build + first.servingMs)}`);
    const warm: Started[] = [];
    for (let i = 0; i < RUNS; i++) {
      const s = await npmStart(dir, env);
      warm.push(s);
      if (i < RUNS - 1) await stop(s);
    }
    warm.forEach((s, i) => console.log(`npm start, unchanged tree, run ${i + 1}: ${describeStart(s)}`));
    const through = timed(dir, NPM, ['run', '--silent', 'admin', '--', 'list-users'], env);
    await stop(warm[warm.length - 1]);
    const direct = timed(dir, NPM, ['run', '--silent', 'admin', '--', 'list-users'], env);
    console.log(
      `npm run admin -- list-users: ${seconds(direct)} on the data folder, ${seconds(through)} through the running engine`,
    );
    return 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
