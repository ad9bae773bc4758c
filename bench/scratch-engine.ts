import { randomBytes } from 'node:crypto';
import { postgresJs } from '../engine/core/db/postgres';
import type { EngineStart, EngineStarted } from './engine-server';
import { forkChild, type Child } from './ipc';
import { engineNodeFlags } from './engine-flags';

/** An engine in a child process on a scratch database of its own, as the benches that load one use it. */
export interface ScratchEngine {
  engine: Child;
  started: EngineStarted;
  /** The scratch database's URL. */
  databaseUrl: string;
  adminSecret: string;
}

/**
 * Creates a scratch database on `baseUrl`, starts the engine on it (demo data and `extraSpendDays` of
 * spend lines; `workloads` compiled, for a floor that runs the engine's own statements), runs `fn`, stops the engine and drops the database, whatever `fn` did.
 */
export async function withScratchEngine(
  baseUrl: string,
  opts: {
    extraSpendDays: number;
    env?: Record<string, string>;
    execArgv?: string[];
    workloads?: string[];
    /** A folder for the engine's allocation profile (BENCH_ALLOC_PROF, alloc-profile.ts), written when it stops. */
    allocProfDir?: string;
  },
  fn: (s: ScratchEngine) => Promise<number>,
): Promise<number> {
  const admin = postgresJs()(baseUrl, { max: 1, onnotice: () => undefined });
  const dbName = `bench_${randomBytes(6).toString('hex')}`;
  await admin.unsafe(`CREATE DATABASE ${dbName}`);
  const engine = forkChild('engine-server.js', [...engineNodeFlags(), ...(opts.execArgv ?? [])]);
  try {
    const u = new URL(baseUrl);
    u.pathname = `/${dbName}`;
    const adminSecret = randomBytes(16).toString('hex');
    const started = await engine.call<EngineStarted>('start', {
      databaseUrl: u.toString(),
      adminSecret,
      extraSpendDays: opts.extraSpendDays,
      scale: 0,
      logLines: 0,
      workloads: opts.workloads ?? [],
      direct: false,
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.allocProfDir ? { allocProfDir: opts.allocProfDir } : {}),
    } satisfies EngineStart);
    const status = await fn({ engine, started, databaseUrl: u.toString(), adminSecret });
    const stopped = await engine.call<{ allocProfile?: string }>('stop');
    if (stopped.allocProfile)
      process.stderr.write(`bench: the engine's allocation profile written to ${stopped.allocProfile}\n`);
    await engine.exited;
    return status;
  } finally {
    engine.kill();
    await engine.exited;
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}
