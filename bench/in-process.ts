/**
 * `npm run bench -- inproc`: each workload through `Engine.run` inside the engine's process, against
 * its floor's statement through postgres.js inside the floor's process: no HTTP, no load generator,
 * no session check. What is left of the engine's excess is its own: document and plan caches,
 * variables, binding, the request budget and the statement's path; the HTTP bench's excess minus this
 * one is the HTTP layer's (routing, the access line, metrics, the session).
 *
 * Each process runs BENCH_CONNECTIONS (32) loops at once, each sending its next request when its last
 * is answered, for a warm-up (BENCH_WARMUP_SECONDS) and a measured period (BENCH_DURATION_SECONDS),
 * BENCH_ROUNDS times in turns. Printed per workload: requests a second, the process's CPU time a
 * request, PostgreSQL's (when it runs on this machine), the process's garbage-collection pauses a
 * second and its mark-compacts, engine against floor; the engine's coalesced statements are logged. The
 * database is the same scratch database; a workload that writes is undone after each run, as in the
 * HTTP bench.
 */
import { postgresJs } from '../engine/core/db/postgres';
import { isLocalDatabase, postgresCpuMicros } from './cpu';
import type { FloorStart } from './floor-server';
import { gcSum } from './gc-watch';
import type { LoopResult, LoopRun } from './in-process-loop';
import { forkChild, type Child } from './ipc';
import { withScratchEngine } from './scratch-engine';
import { engineDatabaseSettings } from './engine-flags';
import { table } from './table';
import { WORKLOADS, type Workload } from './workloads';

export interface InProcessSettings {
  baseUrl: string;
  workloads: string[];
  warmupSeconds: number;
  durationSeconds: number;
  rounds: number;
  /** Requests in flight at once, each count a run of its own. */
  connections: number[];
  extraSpendDays: number;
  /** BENCH_ALLOC_PROF: the engine's allocation profile, summarised by dist/bench/alloc-top.js. */
  allocProfDir?: string;
}

const log = (msg: string) => process.stderr.write(`bench inproc: ${msg}\n`);

type Server = 'engine' | 'floor';

export async function runInProcess(settings: InProcessSettings): Promise<number> {
  const selected = WORKLOADS.filter((w) => settings.workloads.includes(w.name) && !w.logs && !w.size);
  if (!selected.length) throw new Error('no workload for -- inproc (logs and size workloads need the HTTP bench)');
  const names = selected.map((w) => w.name);
  log(`workloads: ${names.join(', ')}`);
  return withScratchEngine(
    settings.baseUrl,
    {
      extraSpendDays: settings.extraSpendDays,
      workloads: names,
      allocProfDir: settings.allocProfDir,
      env: engineDatabaseSettings(),
    },
    async (s) => {
      const floor = forkChild('floor-server.js');
      const undo = postgresJs()(s.databaseUrl, { max: 1, onnotice: () => undefined });
      try {
        await floor.call('start', {
          databaseUrl: s.databaseUrl,
          poolSize: s.started.poolSize,
          statementTimeoutMs: s.started.statementTimeoutMs,
          workloads: s.started.workloads,
          handWritten: selected.filter((w) => w.floor || w.handJson).map((w) => w.name),
          jwt: s.started.jwt,
        } satisfies FloorStart);
        const servers: Record<Server, Child> = { engine: s.engine, floor };
        const rows: string[][] = [];
        for (const w of selected)
          for (const concurrency of settings.connections) {
            const measured = await measure(w, concurrency, settings, servers, (statement) => undo.unsafe(statement));
            rows.push(...tableRows(w.name, concurrency, measured));
          }
        process.stdout.write(`${report(settings, rows)}\n`);
        return 0;
      } finally {
        await floor.call('stop').catch(() => undefined);
        floor.kill();
        await undo.end({ timeout: 5 });
      }
    },
  );
}

/** Both servers' runs of one workload, in turns (the first round the engine first, the next the floor), merged. */
async function measure(
  w: Workload,
  concurrency: number,
  settings: InProcessSettings,
  servers: Record<Server, Child>,
  run: (statement: string) => Promise<unknown>,
): Promise<Record<Server, Measured>> {
  const local = isLocalDatabase(settings.baseUrl);
  const results: Record<Server, Measured[]> = { engine: [], floor: [] };
  for (let round = 0; round < settings.rounds; round++) {
    const order: Server[] = round % 2 === 0 ? ['engine', 'floor'] : ['floor', 'engine'];
    for (const server of order) {
      const loop = (seconds: number) =>
        servers[server].call<LoopResult>('loop', { workload: w.name, seconds, concurrency } satisfies LoopRun);
      await loop(settings.warmupSeconds);
      for (const statement of w.cleanup ?? []) await run(statement);
      const pg0 = local ? postgresCpuMicros() : undefined;
      const r: Measured = await loop(settings.durationSeconds);
      if (pg0 !== undefined) r.postgresCpuMicros = (postgresCpuMicros() ?? pg0) - pg0;
      for (const statement of w.cleanup ?? []) await run(statement);
      const batched = r.batches ? `; ${r.coalesced} of its requests answered by ${r.batches} coalesced statements` : '';
      log(
        `${w.name}: ${server} ${(r.requests / r.seconds).toFixed(0)} req/s, ${(r.cpuMicros / r.requests).toFixed(0)} µs CPU a request${batched}`,
      );
      results[server].push(r);
    }
  }
  return { engine: merged(results.engine), floor: merged(results.floor) };
}

/** A run as the server measured it, with what its statements cost PostgreSQL when it runs on this machine. */
interface Measured extends LoopResult {
  postgresCpuMicros?: number;
}

function merged(runs: Measured[]): Measured {
  return runs.reduce((a, b) => ({
    requests: a.requests + b.requests,
    seconds: a.seconds + b.seconds,
    cpuMicros: a.cpuMicros + b.cpuMicros,
    gc: gcSum(a.gc, b.gc),
    postgresCpuMicros:
      a.postgresCpuMicros === undefined || b.postgresCpuMicros === undefined
        ? undefined
        : a.postgresCpuMicros + b.postgresCpuMicros,
  }));
}

interface Figures {
  rps: number;
  cpu: number;
  /** NaN when PostgreSQL is not on this machine. */
  pg: number;
  pause: number;
  marks: number;
}

const figures = (r: Measured): Figures => ({
  rps: r.requests / r.seconds,
  cpu: r.cpuMicros / Math.max(1, r.requests),
  pg: (r.postgresCpuMicros ?? NaN) / Math.max(1, r.requests),
  pause: r.gc.pauseMs / r.seconds,
  marks: r.gc.marks / r.seconds,
});

function tableRows(name: string, concurrency: number, m: Record<Server, Measured>): string[][] {
  const e = figures(m.engine);
  const f = figures(m.floor);
  const row = (server: string, x: Figures, requests: number) => [
    name,
    server,
    String(concurrency),
    x.rps.toFixed(0),
    x.cpu.toFixed(0),
    x.pg.toFixed(0),
    x.pause.toFixed(1),
    x.marks.toFixed(1),
    String(requests),
  ];
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  return [
    row('engine.run', e, m.engine.requests),
    row('floor', f, m.floor.requests),
    [
      name,
      'engine/floor',
      String(concurrency),
      ratio(e.rps, f.rps),
      ratio(e.cpu, f.cpu),
      ratio(e.pg, f.pg),
      ratio(e.pause, f.pause),
      '',
      '',
    ],
  ];
}

function report(settings: InProcessSettings, rows: string[][]): string {
  return [
    `in process, no HTTP: ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured x ${settings.rounds} rounds`,
    table(
      [
        'workload',
        'server',
        'in flight',
        'req/s',
        'CPU µs/req',
        'PostgreSQL CPU µs/req',
        'GC pause ms/s',
        'mark-compacts/s',
        'requests',
      ],
      rows,
    ),
    "CPU µs/req: user + system CPU time of the process (engine or floor) during the measured runs, per answered request; PostgreSQL CPU µs/req: the same of all of this machine's PostgreSQL processes (NaN when the database is elsewhere).",
    'Without HTTP and the load generator, PostgreSQL has the machine to itself, as beside an engine on another host: req/s tells whether the engine lets it use its cores.',
    "engine.run: Engine.run with the admin secret's session, resolved once; floor: the floor's route without its HTTP (bench/floor-server.ts).",
  ].join('\n');
}
