/**
 * `npm run bench`: the engine against its floor, on real PostgreSQL, over real HTTP.
 * (`npm run bench -- faults`: database faults instead, see faults.ts; `npm run bench -- startup`: start-up
 * times, see startup.ts; `npm run bench -- scale`: read throughput with one engine on the primary, then
 * with two streaming replicas, then three engines behind a round-robin proxy, on clusters of its own,
 * see scale.ts; `npm run bench -- size`: flat in size, the spends_page workload against spends tables
 * of BENCH_SIZES (10,000 and 10,000,000) generated rows, each in a scratch database of its own, both
 * sizes' figures and their ratios (goal: within 1.5x) and the indexes of both EXPLAINs; `npm run bench
 * -- v2`: every `_v2` operation (workloads-v2.ts) and the logs_query workloads at scale 100, defaults
 * BENCH_SCALE=100, BENCH_LOG_LINES=3000000, BENCH_CONNECTIONS=4,32, BENCH_WARMUP_SECONDS=3,
 * BENCH_DURATION_SECONDS=5, BENCH_ROUNDS=1, goal 0.9 of the floor; `npm run bench -- inproc`: the
 * workloads through Engine.run and through the floor's statements inside their processes, without
 * HTTP, CPU a request and collections of each, see in-process.ts.)
 *
 * A scratch database is created, migrated and seeded by starting the engine on it, and dropped at
 * the end. Three child processes do the work, each with an event loop of its own: the engine behind
 * @hono/node-server, the floor (a bare node:http route that runs through postgres.js, as a prepared
 * statement, the SQL a skilled person writes by hand for the same answer, or for by_pk the engine's
 * own statement), and the autocannon load generator. Each workload is sent by a fixed number of
 * keep-alive connections for a warm-up and then a measured period, first to one server and then to
 * the other.
 *
 * The default workloads (workloads.ts): by_pk; nested (accounts, a spend aggregate each and their top
 * recommendations); object_rel (100 spend lines, each with its account object); aggregate (count and
 * sum over 5,430 spend lines); five_roots (five root fields in one request); insert_returning (a 10-row
 * insert with `returning`: it writes, but the bench deletes its rows after each run, so it runs by
 * default); and the reference's example reads ex_ListCloudAccounts ... ex_CloudAccounts, sent with a
 * Bearer JWT from the token exchange (POST /api/auth/token), so that the session check is part of the
 * engine's cost; the floor verifies the same JWT with the same library (jose, remembered until it
 * expires as the engine remembers it; it does not check revocation). Before a workload is loaded its
 * answers from engine and floor are compared: byte for byte where the floor runs the engine's
 * statement, by value where it runs its own.
 *
 * Printed per workload: req/s, p50/p90/p99 latency and server CPU µs/req (user + system CPU time of
 * the process over the measured period, per answered request: cpu.ts, shared with scale.ts) of engine
 * and floor, and their ratios, with issue 20's goals marked when missed (req/s >= 0.95 of the floor's,
 * p99 <= 1.2x); the engine's plan-cache look-ups (graphql_plan_cache_total of /metrics, read before
 * and after the first request and after the load: the first request compiles, the next N do not);
 * and for the PostgreSQL-bound workloads (nested, object_rel, aggregate) the EXPLAIN (ANALYZE, BUFFERS)
 * of the engine's statement beside the floor's. For every workload's engine statement (writes left
 * out), custom against generic plans (plans.ts: median planning + execution time of EXPLAIN (ANALYZE)
 * EXECUTE under force_custom_plan and force_generic_plan, in turns; goal: generic <= 1.10x custom, else
 * the engine should not prepare it) and JIT (whether it came into the custom plan, its cost, the time
 * with jit = off). The engine's peak RSS during the load runs (rss.ts: VmRSS sampled every 200 ms;
 * goal < 150 MB).
 *
 * Settings (environment): BENCH_DATABASE_URL or DATABASE_URL (a server where databases may be
 * created), BENCH_CONNECTIONS (32; a comma list loads each workload at each count), BENCH_SIZES
 * (`-- size`: 10000,10000000), BENCH_WARMUP_SECONDS (5: the engine's code takes longer
 * than the floor's to be optimized), BENCH_DURATION_SECONDS (8; longer for a workload whose warm-up
 * answered fewer than 25 requests a connection in that time, up to 30 s: measuredSeconds),
 * BENCH_ROUNDS (3; rounds rotate which server goes first, and so do workloads; each server's figures
 * merge its rounds, and the summary's req/s ratio is the median of the rounds' ratios, rounds.ts),
 * BENCH_SLICES (5: after both servers' warm-ups, a round's measured period is cut into up to this many
 * slices, the servers loaded in turns slice by slice, A B B A ..., and each server's slices merged;
 * fewer for slow workloads: slices.ts),
 * BENCH_EXTRA_SPEND_DAYS (365 days of spend lines added before the demo's), BENCH_WORKLOADS (comma
 * list, default all but those that write rows without undoing it, such as nested_insert, which run
 * only when named),
 * BENCH_DIAGNOSE=1 (also load `Engine.run` behind a bare node:http route, without Hono, to split
 * the engine's overhead into HTTP layer and engine), BENCH_CPU_PROF (a folder: the engine and floor
 * processes write V8 CPU profiles there when they stop; summarise with dist/bench/profile-top.js),
 * BENCH_ALLOC_PROF (a folder: the engine writes an allocation profile there when it stops, collected
 * objects included: alloc-profile.ts; summarise with dist/bench/alloc-top.js), BENCH_ALLOC_PROF_OLD=1
 * (that profile keeps only the objects that lived into the old generation),
 * BENCH_ENGINE_NODE_FLAGS (the engine process's Node.js flags; default those of `npm start`, '' for
 * V8's defaults: bench/engine-flags.ts),
 * BENCH_RANDOM_PAGE_COST (1.1: the scratch database's random_page_cost, as the README advises for
 * data held in memory; '' keeps the server's), BENCH_KEEP_DATA=1 (keep the seeded database of a run
 * whose workloads write nothing, and copy it in a later run of the same data settings and seeding
 * sources instead of seeding again: kept-data.ts),
 * BENCH_SCALE (0; N > 0 adds the generated demo data of scale N, about 100,000 × N spend lines, through
 * COPY before loading, sets BENCH_EXTRA_SPEND_DAYS' default to 0, and selects by default the
 * large-data workloads spend_by_service and spend_by_day: spend_groupings_v2 against hand-written
 * SQL on the floor, answers compared by value, with EXPLAIN (ANALYZE, BUFFERS) of both statements),
 * BENCH_LOG_LINES (0; N > 0 writes N generated log lines into `logs` (bench/data.ts: INSERT ... SELECT
 * generate_series in batches, four accounts of both tenants, five namespaces, four levels, four days),
 * sets BENCH_EXTRA_SPEND_DAYS' default to 0 and BENCH_CONNECTIONS' to 8, and selects by default the
 * workloads logs_selector, logs_rare and logs_window: logs_query mutations with Loki-style selectors
 * against hand-written SQL on the floor, answers compared by value, with EXPLAIN (ANALYZE, BUFFERS) of
 * both statements, custom and generic plans; after each load run of these the bench waits until the
 * database has no statement of the run left, so that a slow statement does not weigh on the next run).
 */
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import type postgres from 'postgres';
import { APPLICATION_NAME, postgresJs } from '../engine/core/db/postgres';
import { FLOOR_APPLICATION_NAME } from './backends';
import type { EngineStart, EngineStarted, Explained } from './engine-server';
import type { FloorStart } from './floor-server';
import { runFaults } from './faults';
import { forkChild, type Child } from './ipc';
import { summarize, type LoadResult, type LoadRun } from './load';
import { runBomb } from './bomb';
import { runSoak } from './soak';
import { runScale } from './scale';
import { runStartup } from './startup';
import { runSubscriptions } from './subscriptions';
import { answerRows, requestBody, sessionHeaders, WORKLOADS, type Workload } from './workloads';
import { rowsDifference, valueDifference } from './compare';
import { cpuMicros, isLocalDatabase, perRequest, postgresCpuMicros, processesCpuMicros } from './cpu';
import { gcBetween, gcSum, type GcTotals } from './gc-watch';
import { table } from './table';
import { runInProcess } from './in-process';
import { bearer } from './soak';
import type { PlanCheck } from './plans';
import { sampleRss, type RssPeak } from './rss';
import { engineDatabaseSettings, engineNodeFlags } from './engine-flags';
import { median, roundRatios } from './rounds';
import { sliceCount, sliceOrder } from './slices';
import { copyKept, keep, keptDataName } from './kept-data';

const env = process.env;
const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

function intSetting(name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

/** `npm run bench -- size` and `-- v2`: the workloads of issue 20's flat-in-size and `_v2` goals, with their defaults. */
const mode = process.argv[2] ?? '';
const sizeMode = mode === 'size';
const v2Mode = mode === 'v2';

function listSetting(name: string, fallback: number[], min = 1): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw.split(',').map((part) => {
    const n = Number(part.trim());
    if (!Number.isInteger(n) || n < min)
      throw new Error(`${name} must be integers >= ${min}, comma-separated, got "${raw}"`);
    return n;
  });
}

const scale = intSetting('BENCH_SCALE', v2Mode ? 100 : 0);
const logLines = intSetting('BENCH_LOG_LINES', v2Mode ? 3_000_000 : 0);

/** The default workloads of a mode: `-- size` the size workload, `-- v2` the _v2 and logs_query ones, else by the data. */
function defaultWorkload(w: Workload): boolean {
  if (w.writes) return false;
  if (sizeMode) return !!w.size;
  if (v2Mode) return !!w.v2 || !!w.logs;
  if (w.size) return false;
  if (w.logs) return logLines > 0;
  if (w.large) return scale > 0;
  return !w.v2 && scale === 0 && logLines === 0;
}

const settings = {
  baseUrl: env.BENCH_DATABASE_URL || env.DATABASE_URL || DEFAULT_URL,
  /** Each workload is loaded at each of these connection counts. */
  connections: listSetting('BENCH_CONNECTIONS', v2Mode ? [4, 32] : logLines > 0 ? [8] : [32]),
  warmupSeconds: intSetting('BENCH_WARMUP_SECONDS', v2Mode ? 3 : 5),
  durationSeconds: intSetting('BENCH_DURATION_SECONDS', v2Mode ? 5 : 8, 1),
  rounds: intSetting('BENCH_ROUNDS', v2Mode ? 1 : 3, 1),
  /** The most slices a round's measured period is cut into, alternating between the servers (slices.ts). */
  slices: intSetting('BENCH_SLICES', 5, 1),
  scale,
  logLines,
  /** `-- size`: the spends table sizes, each a scratch database of its own. */
  sizes: listSetting('BENCH_SIZES', [10_000, 10_000_000]),
  extraSpendDays: intSetting('BENCH_EXTRA_SPEND_DAYS', scale > 0 || logLines > 0 || sizeMode ? 0 : 365),
  workloads: env.BENCH_WORKLOADS
    ? env.BENCH_WORKLOADS.split(',').map((s) => s.trim())
    : WORKLOADS.filter(defaultWorkload).map((w) => w.name),
  cpuProfDir: env.BENCH_CPU_PROF ? path.resolve(env.BENCH_CPU_PROF) : undefined,
  allocProfDir: env.BENCH_ALLOC_PROF ? path.resolve(env.BENCH_ALLOC_PROF) : undefined,
  allocProfOld: /^(1|true|yes|on)$/i.test(env.BENCH_ALLOC_PROF_OLD ?? ''),
  diagnose: /^(1|true|yes|on)$/i.test(env.BENCH_DIAGNOSE ?? ''),
  keepData: /^(1|true|yes|on)$/i.test(env.BENCH_KEEP_DATA ?? ''),
  engineNodeFlags: engineNodeFlags(env),
  randomPageCost: randomPageCost(),
};

/**
 * The scratch database's random_page_cost (BENCH_RANDOM_PAGE_COST, default 1.1; '' keeps the server's):
 * the README's advice for data held in memory ("Scaling"), which both servers then plan with. With the
 * server's default 4, the engine's custom plan of spend_by_day sat on a cost tie between a parallel
 * scan of all 10 M spend lines and a bitmap scan of the tenant's month, 2.5x quicker, and which one it
 * got depended on ANALYZE's random sample: on one copy of the data four of eight ANALYZEs in a row
 * drew the full scan.
 */
function randomPageCost(): number | undefined {
  const raw = env.BENCH_RANDOM_PAGE_COST ?? '1.1';
  if (raw === '') return undefined;
  const n = Number(raw);
  if (!(n > 0)) throw new Error(`BENCH_RANDOM_PAGE_COST must be a number > 0, or empty, got "${raw}"`);
  return n;
}

type Target = 'engine' | 'floor' | 'engine.run';
const TARGET_LABEL: Record<Target, string> = { engine: 'engine', floor: 'floor', 'engine.run': 'engine.run, no Hono' };

/** The server's address without credentials, for the report. */
function where(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}`;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, text: await res.text() };
}

function shorten(s: string, n = 600): string {
  return s.length > n ? `${s.slice(0, n)}... (${s.length} chars)` : s;
}

/** Hand-written floors: the same rows, in the same order, with the same values (compare.ts rowsDifference). */
function sameRows(w: Workload, engineText: string, floorText: string): string | undefined {
  return rowsDifference(w.floor!.columns, answerRows(w, engineText), answerRows(w, floorText));
}

/** Both servers must give the same answer (byte for byte; by value for hand-written floors), and it must be a real answer. */
async function verifySameBodies(
  w: Workload,
  engineUrl: string,
  floorUrl: string,
  headers: Record<string, string>,
): Promise<{ bytes: number; rows?: number }> {
  const body = requestBody(w);
  const [e, f] = await Promise.all([post(engineUrl, headers, body), post(floorUrl, headers, body)]);
  const problems: string[] = [];
  if (e.status !== 200) problems.push(`engine answered ${e.status}`);
  if (f.status !== 200) problems.push(`floor answered ${f.status}`);
  if (w.handJson) {
    const differ =
      e.status === 200 && f.status === 200
        ? valueDifference(JSON.parse(e.text).data, JSON.parse(f.text).data, w.handJson)
        : undefined;
    if (differ) problems.push(`the answers differ at ${differ}`);
    if (JSON.parse(e.text).errors) problems.push('the engine answered errors');
  } else if (w.floor) {
    const differ = e.status === 200 && f.status === 200 ? sameRows(w, e.text, f.text) : undefined;
    if (differ) problems.push(`the answers differ: ${differ}`);
    if (e.status === 200 && !answerRows(w, e.text).length) problems.push('the engine answered no rows');
  } else if (e.text !== f.text) problems.push('the response bodies differ');
  let data: Record<string, unknown> | undefined;
  try {
    data = JSON.parse(e.text).data;
  } catch {
    problems.push('the engine body is not JSON');
  }
  if (!data || Object.values(data).some((v) => v === null || (Array.isArray(v) && v.length === 0)))
    problems.push('the engine answered no data');
  if (problems.length) {
    throw new Error(
      `workload ${w.name}: ${problems.join('; ')}\n  engine: ${shorten(e.text)}\n  floor:  ${shorten(f.text)}`,
    );
  }
  return { bytes: e.text.length, rows: w.floor ? answerRows(w, e.text).length : undefined };
}

/**
 * Waits until the bench database runs no statement (at most `maxSeconds`): when a load run ends, the
 * requests still in flight are dropped by the load generator but their statements run on, and would
 * weigh on the next run. Used after each warm-up and run of the logs_query workloads, whose statements are slow.
 */
async function settle(admin: postgres.Sql, dbName: string, maxSeconds = 120): Promise<number> {
  const t0 = performance.now();
  // Twice idle in a row: a server may hand a queued request to a connection just between two looks.
  for (let idle = 0; ;) {
    const [{ n }] = await admin.unsafe(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND backend_type = 'client backend'`,
      [dbName],
    );
    idle = Number(n) === 0 ? idle + 1 : 0;
    const seconds = (performance.now() - t0) / 1000;
    if (idle === 2 || seconds > maxSeconds) return seconds;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Row {
  workload: Workload;
  /** The engine's peak RSS while this workload ran (all its connection counts), bytes. */
  peakRss: number;
  /** The workload's name, with its connection count when the run loads several. */
  label: string;
  connections: number;
  bytes: number;
  answerRows?: number;
  /** Each server's rounds merged: its requests over its seconds, its latencies pooled. */
  results: Partial<Record<Target, LoadResult>>;
  /** Each server's rounds, in order: the summary's ratio is the median of the rounds' (rounds.ts). */
  rounds: Partial<Record<Target, LoadResult[]>>;
  /** The engine's plan-cache look-ups: for the first request (the answers' check), and during the load runs. */
  plans: { first: PlanCount; load: PlanCount };
}

function merge(results: LoadResult[]): LoadResult {
  const sum = (f: (r: LoadResult) => number) => results.reduce((a, r) => a + f(r), 0);
  const merged = summarize(
    results.flatMap((r) => r.latencies),
    sum((r) => r.seconds),
    sum((r) => r.errors),
    sum((r) => r.non2xx),
    sum((r) => r.serverCpuMicros),
  );
  if (results.every((r) => r.postgresCpuMicros !== undefined))
    merged.postgresCpuMicros = sum((r) => r.postgresCpuMicros!);
  if (results.every((r) => r.backendsCpuMicros !== undefined))
    merged.backendsCpuMicros = sum((r) => r.backendsCpuMicros!);
  if (results.every((r) => r.serverGc !== undefined)) merged.serverGc = results.map((r) => r.serverGc!).reduce(gcSum);
  merged.statuses = {};
  for (const r of results)
    for (const [status, n] of Object.entries(r.statuses ?? {}))
      merged.statuses[status] = (merged.statuses[status] ?? 0) + n;
  return merged;
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
const fmt = (n: number, digits = 2) => (n ?? NaN).toFixed(digits);
const cpuPerRequest = (r: LoadResult) => perRequest(r.serverCpuMicros, r.ok);
/** A server's garbage collections a second of a measured run (gc-watch.ts); NaN when not counted. */
const gcPerSecond = (r: LoadResult, field: 'pauseMs' | 'marks') =>
  r.serverGc ? r.serverGc[field] / Math.max(r.seconds, 1e-9) : NaN;
const pgPerRequest = (r: LoadResult) =>
  r.postgresCpuMicros === undefined ? undefined : perRequest(r.postgresCpuMicros, r.ok);
const backendsPerRequest = (r: LoadResult) =>
  r.backendsCpuMicros === undefined ? undefined : perRequest(r.backendsCpuMicros, r.ok);

type Memory = { before: NodeJS.MemoryUsage; after: NodeJS.MemoryUsage; collected: NodeJS.MemoryUsage; peak: RssPeak };

/** Issue 20's memory goal: the engine's RSS under sustained load under 150 MB. */
const RSS_GOAL_BYTES = 150 * 1e6;

/** The report's opening: where it ran, on what, and with which settings. */
function headerLines(started: EngineStarted, pgVersion: string): string[] {
  return [
    '',
    `PostgreSQL ${pgVersion} at ${where(settings.baseUrl)}; ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}); node ${process.version}`,
    `${settings.connections.join(' and ')} connections, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured (more for slow workloads)` +
      `${settings.rounds > 1 ? ` x ${settings.rounds} rounds` : ''}, each server's measured time in up to ${settings.slices} slices taken in turns; pool size ${started.poolSize} (engine and floor); spends rows: ${started.spendsRows}` +
      `${settings.logLines > 0 ? `; log lines: ${started.logsRows}` : ''}`,
  ];
}

/** A table row of one server's results for one workload. */
function targetRow(workload: string, t: Target, x: LoadResult): string[] {
  return [
    workload,
    TARGET_LABEL[t],
    fmt(x.rps, 0),
    fmt(x.p50),
    fmt(x.p90),
    fmt(x.p99),
    fmt(cpuPerRequest(x), 0),
    fmt(pgPerRequest(x) ?? NaN, 0),
    fmt(backendsPerRequest(x) ?? NaN, 0),
    fmt(gcPerSecond(x, 'pauseMs'), 1),
    fmt(gcPerSecond(x, 'marks'), 1),
    String(x.ok),
    String(x.errors + x.non2xx),
  ];
}

/** Issue 20's throughput goal against the floor: 0.9 for the `_v2` operations and logs_query, 0.95 for the others. */
const throughputGoal = (w: Workload) => (w.v2 || w.logs ? 0.9 : 0.95);

/** A table row comparing two servers; `goal` marks a throughput below it (issue 20's) and a p99 above 1.2x. */
function ratioRow(name: string, a: LoadResult, b: LoadResult, workload: string, goal?: number): string[] {
  const tp = a.rps / b.rps;
  const p99 = a.p99 / b.p99;
  const aim = goal !== undefined;
  return [
    workload,
    name,
    `${fmt(tp)}x${aim && tp < goal ? ` (<${goal})` : ''}`,
    `${fmt(a.p50 / b.p50)}x`,
    `${fmt(a.p90 / b.p90)}x`,
    `${fmt(p99)}x${aim && p99 > 1.2 ? ' (>1.2)' : ''}`,
    `${fmt(cpuPerRequest(a) / cpuPerRequest(b))}x`,
    `${fmt((pgPerRequest(a) ?? NaN) / (pgPerRequest(b) ?? NaN))}x`,
    `${fmt((backendsPerRequest(a) ?? NaN) / (backendsPerRequest(b) ?? NaN))}x`,
    `${fmt(gcPerSecond(a, 'pauseMs') / gcPerSecond(b, 'pauseMs'))}x`,
    '',
    '',
    '',
  ];
}

/** The results table: each server's numbers per workload, then the ratios to the floor. */
function resultsTable(rows: Row[]): string {
  const body: string[][] = [];
  for (const r of rows) {
    for (const t of ['engine', 'floor', 'engine.run'] as const) {
      const x = r.results[t];
      if (x) body.push(targetRow(r.label, t, x));
    }
    body.push(ratioRow('engine/floor', r.results.engine!, r.results.floor!, r.label, throughputGoal(r.workload)));
    if (r.results['engine.run'])
      body.push(ratioRow('engine.run/floor', r.results['engine.run'], r.results.floor!, r.label));
  }
  return table(
    [
      'workload',
      'server',
      'req/s',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'server CPU µs/req',
      'PostgreSQL CPU µs/req',
      'its backends µs/req',
      'GC pause ms/s',
      'mark-compacts/s',
      'requests',
      'failed',
    ],
    body,
  );
}

/** Issue 20's summary: a line per workload, the engine beside the floor, the goals marked when missed. */
function summaryTable(rows: Row[]): string {
  const body = rows.map((r) => {
    const e = r.results.engine!;
    const f = r.results.floor!;
    const each = roundRatios(r.rounds.engine!, r.rounds.floor!);
    const tp = median(each);
    const p99 = e.p99 / f.p99;
    const goal = throughputGoal(r.workload);
    return [
      r.label,
      r.workload.jwt ? 'JWT' : 'admin secret',
      fmt(e.rps, 0),
      fmt(f.rps, 0),
      `${fmt(tp)}${tp < goal ? ` (<${goal})` : ''}`,
      each.map((x) => fmt(x)).join(' '),
      fmt(e.p99),
      fmt(f.p99),
      `${fmt(p99)}${p99 > 1.2 ? ' (>1.2)' : ''}`,
      fmt(cpuPerRequest(e), 0),
      fmt(cpuPerRequest(f), 0),
      `${r.plans.first.miss} / ${r.plans.load.miss} of ${r.plans.load.hit + r.plans.load.miss}`,
    ];
  });
  const head = [
    'workload',
    'session',
    'engine req/s',
    'floor req/s',
    'ratio',
    'rounds',
    'engine p99 ms',
    'floor p99 ms',
  ];
  return table([...head, 'p99 ratio', 'engine CPU µs/req', 'floor CPU µs/req', 'plans compiled: 1st / load'], body);
}

/**
 * The engine's plan compilations for a workload: the first request compiles, the load's requests
 * should not; and the statements coalesced. Each count of connections its own (`rows`, the workload's
 * rows): at 4 the reads run side by side (coalesce.ts roomBeside), at 32 they are batched.
 */
function planLine(rows: Row[]): string {
  const first = rows[0].plans.first;
  const loads = rows.map((r) => {
    const load = r.plans.load;
    const at = rows.length > 1 ? `at ${r.connections} connections, ` : '';
    const coalesced =
      load.statements > 0
        ? `${load.requests} of the requests answered by ${load.statements} coalesced statements`
        : 'no coalesced statement';
    return `${at}load runs ${load.miss} compiled, ${load.hit} from the plan cache, ${coalesced}`;
  });
  return `engine plans: first request ${first.miss} compiled (${first.hit} cached); ${loads.join('; ')}`;
}

/** The notes under the table: the CPU column, each workload's answer, the engine's memory and plan compilations, the seeding. */
function noteLines(rows: Row[], started: EngineStarted, memory: Memory, compilations: number): string[] {
  const out: string[] = [];
  out.push(
    'server CPU µs/req: user + system CPU time of the server process during the measured runs, per answered request.',
    "PostgreSQL CPU µs/req: the same of all of this machine's PostgreSQL processes (NaN when the database is elsewhere), background processes, other clients and the parallel workers of parallel plans included.",
    "its backends µs/req: of it, the backends of the server's own connections (pg_stat_activity by application_name): what its statements cost the database, without the checkpointer's, autovacuum's or anyone else's share; of a parallel plan, the leader's share only (its workers are processes of their own).",
    "GC pause ms/s, mark-compacts/s: the server process's garbage-collection pauses (every kind) and its full collections (V8's mark-compacts), a second of the measured runs (bench/gc-watch.ts); a mark-compact stops every request in flight, so they show in the p99.",
    'goals (issue 20): engine/floor req/s >= 0.95 (0.9 for the _v2 operations and logs_query), p99 <= 1.2x; marked when missed.',
    "ratio: the median of the rounds' engine/floor req/s (rounds: each round's, in order; within a round the servers warmed up one after the other, then took turns slice by slice, slices.ts); the servers' own lines above merge their rounds, and their ratio line is the merged one. p99 ratio: over the rounds' latencies pooled.",
  );
  for (const r of rows) {
    if (r.label !== r.workload.name && r.connections !== settings.connections[0]) continue;
    const same = r.workload.handJson
      ? `the same answer by value from engine and floor (engine body ${r.bytes} bytes)`
      : r.workload.floor
        ? `the same rows and values from engine and floor (${r.answerRows} rows, engine body ${r.bytes} bytes)`
        : `identical ${r.bytes}-byte bodies from engine and floor`;
    const own = rows.filter((x) => x.workload === r.workload);
    out.push(`${r.workload.name}: ${r.workload.description}; ${same}; ${planLine(own)}`);
  }
  out.push(
    `engine process memory: RSS ${mib(memory.after.rss)} after the run (${mib(memory.before.rss)} before the load); heap used ${mib(memory.after.heapUsed)}, external ${mib(memory.after.external)}, ` +
      `${mib(memory.collected.heapUsed)} after a full GC (RSS then ${mib(memory.collected.rss)})`,
    `engine peak RSS during the load runs: ${(memory.peak.peakBytes / 1e6).toFixed(1)} MB (${mib(memory.peak.peakBytes)}; VmRSS of /proc/<pid>/status, ${memory.peak.samples} samples 200 ms apart)` +
      `${memory.peak.peakBytes >= RSS_GOAL_BYTES ? ' (>= 150 MB, the goal is < 150 MB)' : ', goal < 150 MB met'}; ` +
      `the process's high-water mark (VmHWM, start-up and seeding included) ${(memory.peak.highWaterBytes / 1e6).toFixed(1)} MB`,
  );
  out.push(
    `engine peak RSS per workload (MB): ${rows
      .filter((r) => r.connections === settings.connections[0])
      .map((r) => `${r.workload.name} ${(r.peakRss / 1e6).toFixed(0)}`)
      .join(', ')}`,
  );
  out.push(`engine plan compilations during the whole run: ${compilations} (plan cache hits for everything else)`);
  if (started.seeded) out.push(`BENCH_SCALE=${settings.scale}: ${started.seeded}`);
  if (started.logsSeeded) out.push(`BENCH_LOG_LINES=${settings.logLines}: ${started.logsSeeded}`);
  if (started.sizeSeeded) out.push(`spends: ${started.sizeSeeded}`);
  out.push(`before the load runs: ${started.checkpointed}`);
  return out;
}

/** A plan's indexes and sequential scans, in one line. */
function describePlan(plan: string): string {
  const uses = [
    ...new Set(
      [...plan.matchAll(/(?:Index|Index Only|Bitmap Index) Scan (?:Backward )?(?:using|on) (\w+)/g)].map((m) => m[1]),
    ),
  ];
  const seq = [...new Set([...plan.matchAll(/Seq Scan on (\w+)/g)].map((m) => m[1]))];
  return `indexes used: ${uses.join(', ') || 'none'}${seq.length ? `; sequential scans: ${seq.join(', ')}` : ''}`;
}

/** One workload's EXPLAIN section: the engine's statement and plans, then the floor's. */
function explainLines(x: Explained): string[] {
  const out: string[] = [];
  out.push('');
  out.push(`${x.name}, the engine's statement (${x.source} for the same request):`);
  out.push(x.engineSql);
  out.push(`EXPLAIN (ANALYZE, BUFFERS), ${describePlan(x.engine)}:`);
  out.push(x.engine);
  if (x.engineGeneric) {
    out.push(
      `${x.name}, the engine's statement, generic plan (plan_cache_mode = force_generic_plan), EXPLAIN (ANALYZE, BUFFERS) EXECUTE, ${describePlan(x.engineGeneric)}:`,
    );
    out.push(x.engineGeneric);
  }
  if (x.coalesced) {
    const c = x.coalesced;
    out.push(
      `${x.name}, the engine's statement as ${c.cohorts} concurrent requests run it (coalesced, each request a cohort):`,
      c.sql,
      `EXPLAIN (ANALYZE, BUFFERS), ${describePlan(c.plan)}:`,
      c.plan,
    );
  }
  out.push('');
  if (x.floor === undefined) {
    out.push(`${x.name}, the floor: the engine's own statement (the plan above)`);
    return out;
  }
  const floorSql = x.floorSql ?? (x.engineGeneric ? workloadNamed(x.name)?.floor?.sql : undefined);
  if (floorSql)
    out.push(
      `${x.name}, the floor's hand-written statement:`,
      floorSql,
      `EXPLAIN (ANALYZE, BUFFERS), ${describePlan(x.floor)}:`,
    );
  else out.push(`${x.name}, the floor's hand-written statement, EXPLAIN (ANALYZE, BUFFERS), ${describePlan(x.floor)}:`);
  out.push(x.floor);
  if (x.floorGeneric) {
    out.push(
      `${x.name}, the floor's statement, generic plan, EXPLAIN (ANALYZE, BUFFERS) EXECUTE, ${describePlan(x.floorGeneric)}:`,
    );
    out.push(x.floorGeneric);
  }
  return out;
}

/**
 * Issue 20's plan goals per workload (plans.ts): the engine's statement under custom and generic
 * plans, the ratio marked above 1.10 (then the engine should not prepare it), and whether JIT came
 * into its custom plan, what it cost and the time with jit = off.
 */
function plansTable(plans: PlanCheck[]): string[] {
  const timed = plans.find((p) => p.engineJit);
  const body = plans.map((p) => {
    if (p.skipped) return [p.name, p.prepared ? 'yes' : 'no', '-', '-', '-', '-', '-', '-', `not timed: ${p.skipped}`];
    const ratio = p.genericMs / p.customMs;
    return [
      p.name,
      p.prepared ? 'yes' : 'no (planned anew)',
      fmt(p.customMs, 3),
      fmt(p.genericMs, 3),
      `${fmt(ratio)}${ratio > 1.1 ? ' (>1.10)' : ''}`,
      p.jit ? `${fmt(p.jit.ms, 1)} ms, ${p.jit.functions} functions` : 'no',
      p.jitOnMs === undefined ? '-' : fmt(p.jitOnMs, 3),
      p.jitOffMs === undefined || !p.jit ? '-' : fmt(p.jitOffMs, 3),
      `${p.runs} runs`,
    ];
  });
  const worse = plans.filter((p) => p.genericMs / p.customMs > 1.1);
  const jit = plans.filter((p) => p.jit);
  const jitCosts = jit.filter((p) => p.jitOffMs! < p.jitOnMs!);
  const head = ['workload', 'engine prepares', 'custom ms', 'generic ms', 'generic/custom', 'JIT (jit = on)'];
  return [
    '',
    `plans of the engine statements (engine connections: jit = ${timed?.engineJit ?? '?'}, ` +
      `max_parallel_workers_per_gather = ${timed?.engineParallelWorkers ?? '?'}): median PostgreSQL planning + execution ms of ` +
      'EXPLAIN (ANALYZE, TIMING OFF) EXECUTE, custom (force_custom_plan) against generic (force_generic_plan) plans, in turns on one connection; ' +
      'JIT: the JIT section of a custom plan with jit = on, and custom plans timed with jit on and off; goal (issue 20): generic <= 1.10x custom, else the engine should not prepare it:',
    table([...head, 'jit=on ms', 'jit=off ms', ''], body),
    `generic plans more than 10% slower than custom (the engine should not prepare these): ${worse.map((p) => `${p.name} (${fmt(p.genericMs / p.customMs)}x${p.prepared ? '' : ', not prepared already'})`).join(', ') || 'none'}`,
    `JIT came into the custom plan (jit = on) of: ${jit.map((p) => `${p.name} (JIT ${fmt(p.jit!.ms, 1)} ms)`).join(', ') || 'none'}; ` +
      `faster with jit = off: ${jitCosts.map((p) => `${p.name} (${fmt(p.jitOnMs!, 1)} -> ${fmt(p.jitOffMs!, 1)} ms)`).join(', ') || 'none'}`,
  ];
}

function report(rows: Row[], started: EngineStarted, memory: Memory, compilations: number, pgVersion: string): void {
  const out = [
    ...headerLines(started, pgVersion),
    '',
    'engine against floor (goals: ratio of req/s >= 0.95, 0.9 for _v2 and logs_query, of p99 <= 1.2; marked when missed):',
    summaryTable(rows),
    '',
    'each server:',
    resultsTable(rows),
    '',
    ...noteLines(rows, started, memory, compilations),
    ...plansTable(started.plans),
    ...started.explains.flatMap(explainLines),
    '',
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

const workloadNamed = (name: string) => WORKLOADS.find((w) => w.name === name);

/** The workloads of BENCH_WORKLOADS (or the default ones); the logs_query ones need BENCH_LOG_LINES. */
function selectedWorkloads(): Workload[] {
  const selected = WORKLOADS.filter((w) => settings.workloads.includes(w.name));
  if (!selected.length) throw new Error(`BENCH_WORKLOADS names none of: ${WORKLOADS.map((w) => w.name).join(', ')}`);
  const logsWorkloads = selected.filter((w) => w.logs).map((w) => w.name);
  if (logsWorkloads.length && settings.logLines === 0)
    throw new Error(
      `the workloads ${logsWorkloads.join(', ')} read generated log lines: set BENCH_LOG_LINES (e.g. 3000000)`,
    );
  return selected;
}

/** The scratch database on the server and the child processes that use it. */
interface Scratch {
  admin: postgres.Sql;
  dbName: string;
  children: Child[];
  /** Creates the database (a copy of the kept one, with BENCH_KEEP_DATA); answers the server's version. */
  create(): Promise<string>;
  /** Whether the database is a copy of a kept one (kept-data.ts): its data need not be seeded. */
  readonly copied: boolean;
  /** Keep the database rather than drop it at the end, with BENCH_KEEP_DATA (its workloads wrote nothing). */
  keepAtEnd: boolean;
  /** Stops the children and drops (or keeps) the database, once however often called. */
  cleanup(): Promise<void>;
}

function scratchDatabase(spendRows?: number): Scratch {
  const admin = postgresJs()(settings.baseUrl, { max: 1, onnotice: () => undefined });
  const dbName = `bench_${randomBytes(6).toString('hex')}`;
  const kept = settings.keepData ? keptDataName({ ...settings, spendRows }) : undefined;
  const children: Child[] = [];
  let created = false;
  let copied = false;
  let cleaning: Promise<void> | undefined;
  const scratch: Scratch = {
    admin,
    dbName,
    children,
    get copied() {
      return copied;
    },
    keepAtEnd: false,
    async create() {
      const [{ server_version: pgVersion }] = await admin.unsafe('SHOW server_version');
      copied = kept !== undefined && (await copyKept(admin, kept, dbName));
      if (copied) log(`created database ${dbName} as a copy of ${kept} (BENCH_KEEP_DATA)`);
      else await admin.unsafe(`CREATE DATABASE ${dbName}`);
      created = true;
      // Per-database settings are not copied with a template: set on each.
      if (settings.randomPageCost !== undefined) {
        await admin.unsafe(`ALTER DATABASE ${dbName} SET random_page_cost = ${settings.randomPageCost}`);
        log(`${dbName}: random_page_cost = ${settings.randomPageCost} (BENCH_RANDOM_PAGE_COST)`);
      }
      return pgVersion as string;
    },
    cleanup: () =>
      (cleaning ??= (async () => {
        for (const c of children) c.kill();
        await Promise.all(children.map((c) => c.exited));
        // A seeded database of a run that wrote nothing is kept (renamed); any other is dropped.
        const keptNow = created && kept && scratch.keepAtEnd && !copied && (await keptAs(admin, dbName, kept));
        if (created && !keptNow) {
          await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
          log(`dropped database ${dbName}`);
        }
        await admin.end({ timeout: 5 });
      })()),
  };
  return scratch;
}

/** Keeps a seeded scratch database for later runs (kept-data.ts); false when it could not be. */
async function keptAs(admin: postgres.Sql, dbName: string, kept: string): Promise<boolean> {
  try {
    if (!(await keep(admin, dbName, kept))) return false;
    log(`kept database ${dbName} as ${kept} for later runs of the same data (BENCH_KEEP_DATA)`);
    return true;
  } catch (err) {
    log(`could not keep database ${dbName}: ${(err as Error).message}`);
    return false;
  }
}

/** Runs `body` with a scratch database that is cleaned up at the end, or on SIGINT or SIGTERM. */
async function withScratch<T>(body: (scratch: Scratch) => Promise<T>, spendRows?: number): Promise<T> {
  const scratch = scratchDatabase(spendRows);
  const onSignal = () => {
    log('interrupted, cleaning up');
    scratch.cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await body(scratch);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await scratch.cleanup();
  }
}

/** The running children: the engine (which migrated and seeded the database), the floor and the load generator. */
interface Servers {
  engine: Child;
  floor: Child;
  load: Child;
  started: EngineStarted;
  /** The scratch database, for the workloads' cleanup. */
  db: postgres.Sql;
  /** The session headers of a workload: the admin secret as a tenant_admin, or a Bearer JWT from the token exchange. */
  headersOf: (w: Workload) => Record<string, string>;
  urlOf: (t: Target, w: Workload) => string;
  /** The engine's plan-cache look-ups so far (graphql_plan_cache_total of /metrics). */
  plans: () => Promise<PlanCount>;
}

/** Plan-cache look-ups, and coalesced statements with the requests they answered. */
type PlanCount = { hit: number; miss: number; statements: number; requests: number };

/** graphql_plan_cache_total{result} and database_coalesced_*_total of the engine's /metrics. */
async function planCount(base: string, token: string): Promise<PlanCount> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${shorten(text)}`);
  const count = (result: string) =>
    Number(new RegExp(`^graphql_plan_cache_total\\{result="${result}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const total = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return {
    hit: count('hit'),
    miss: count('miss'),
    statements: total('database_coalesced_statements_total'),
    requests: total('database_coalesced_requests_total'),
  };
}

/** Undoes a workload's writes (workloads.ts `cleanup`). */
async function cleanUp(w: Workload, s: Servers): Promise<void> {
  for (const statement of w.cleanup ?? []) await s.db.unsafe(statement);
}

/** Starts the engine on the scratch database, then the floor with the engine's pool size and statements, then the load generator. */
async function startServers(scratch: Scratch, selected: Workload[], spendRows?: number): Promise<Servers> {
  const databaseUrl = withDatabase(settings.baseUrl, scratch.dbName);
  const adminSecret = randomBytes(16).toString('hex');
  const metricsToken = randomBytes(24).toString('hex');
  const headers = sessionHeaders(adminSecret);
  if (scratch.copied) log(`starting the engine on ${scratch.dbName} (its data copied, not seeded)`);
  else
    log(
      `created database ${scratch.dbName} on ${where(settings.baseUrl)}; starting the engine (migrations, demo data, ${settings.extraSpendDays} extra spend days` +
        `${settings.scale > 0 ? `, generated data of scale ${settings.scale} through COPY` : ''}` +
        `${settings.logLines > 0 ? `, ${settings.logLines} generated log lines` : ''}` +
        `${spendRows ? `, ${spendRows} generated spend lines instead of the demo's` : ''})`,
    );

  const profArgs = settings.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfDir}`] : [];
  const engine = forkChild('engine-server.js', [...settings.engineNodeFlags, ...profArgs, '--expose-gc']);
  scratch.children.push(engine);
  const started = await engine.call<EngineStarted>('start', {
    databaseUrl,
    adminSecret,
    extraSpendDays: settings.extraSpendDays,
    direct: settings.diagnose,
    scale: settings.scale,
    logLines: settings.logLines,
    spendRows,
    copied: scratch.copied,
    workloads: selected.map((w) => w.name),
    allocProfDir: settings.allocProfDir,
    allocProfOld: settings.allocProfOld,
    // A JWT that outlives the longest run; /metrics for the plan-cache counts; the pool's settings
    // of the bench's own environment (DATABASE_POOL_*, DATABASE_PIPELINE_*, DATABASE_COALESCE,
    // DATABASE_PARALLEL_WORKERS), to compare them.
    env: { ...engineDatabaseSettings(), METRICS_TOKEN: metricsToken, JWT_EXPIRY_SECONDS: '86400' },
  } satisfies EngineStart);
  const floor = forkChild('floor-server.js', profArgs);
  scratch.children.push(floor);
  if (settings.cpuProfDir) log(`CPU profiles: engine process ${engine.pid}, floor process ${floor.pid}`);
  const { port: floorPort, primed } = await floor.call<{ port: number; primed: number }>('start', {
    databaseUrl,
    poolSize: started.poolSize,
    statementTimeoutMs: started.statementTimeoutMs,
    workloads: started.workloads,
    handWritten: selected.filter((w) => w.floor || w.handJson).map((w) => w.name),
    jwt: started.jwt,
  } satisfies FloorStart);
  log(
    `PostgreSQL backends that allocated and freed 1 MB before the runs (bench/backends.ts): engine ${started.primed}, floor ${primed}`,
  );
  const load = forkChild('load.js');
  scratch.children.push(load);

  const engineUrl = `http://127.0.0.1:${started.port}/api/graphql`;
  const floorUrl = (w: Workload) => `http://127.0.0.1:${floorPort}/floor/${w.name}`;
  const directUrl = `http://127.0.0.1:${started.directPort}/`;
  const urlOf = (t: Target, w: Workload) => (t === 'engine' ? engineUrl : t === 'floor' ? floorUrl(w) : directUrl);
  const base = `http://127.0.0.1:${started.port}`;
  const jwt = selected.some((w) => w.jwt) ? await bearer(databaseUrl, base) : '';
  const jwtHeaders = { 'content-type': 'application/json', authorization: `Bearer ${jwt}` };
  const db = postgresJs()(databaseUrl, { max: 1, onnotice: () => undefined });
  const headersOf = (w: Workload) => (w.jwt ? jwtHeaders : headers);
  const plans = () => planCount(base, metricsToken);
  return { engine, floor, load, started, db, headersOf, urlOf, plans };
}

type Answer = { bytes: number; rows?: number };

/** The workload's answer from the engine (and engine.run, with BENCH_DIAGNOSE) equals the floor's; answers its size. */
async function verifyAnswer(w: Workload, s: Servers): Promise<Answer> {
  const answer = await verifySameBodies(w, s.urlOf('engine', w), s.urlOf('floor', w), s.headersOf(w));
  if (settings.diagnose) await verifySameBodies(w, s.urlOf('engine.run', w), s.urlOf('floor', w), s.headersOf(w));
  if (w.cleanup) await cleanUp(w, s);
  return answer;
}

/**
 * Answers a connection gives at least in a measured period (measuredSeconds). Each connection's count
 * is a whole number give or take the one in flight at the end, so this many keep that to about 4%:
 * with 10, spend_by_day at 4 connections answered 35 and 53 requests in one round and read 0.88.
 */
const MIN_ANSWERS_PER_CONNECTION = 25;
/** The longest a measured period is made (measuredSeconds). */
const MAX_MEASURED_SECONDS = 30;

/**
 * The measured period: BENCH_DURATION_SECONDS, or longer for a workload slow enough that the requests
 * still in flight as it ends (one a connection, not counted) are many beside those it answered. At
 * scale 100, spend_by_day at 32 connections answered 38 and 49 requests in 4 s, each taking 2-3 s:
 * its ratio, 0.77, said more of where the period ended than of either server (its statement cost
 * PostgreSQL 0.79 of the floor's). So: at least MIN_ANSWERS_PER_CONNECTION answers a connection at
 * the warm-up's rate, and at most MAX_MEASURED_SECONDS.
 */
function measuredSeconds(warmupRps: number | undefined, connections: number): number {
  const base = settings.durationSeconds;
  if (!warmupRps || warmupRps <= 0) return base;
  const wanted = Math.ceil((MIN_ANSWERS_PER_CONNECTION * connections) / warmupRps);
  return Math.max(base, Math.min(MAX_MEASURED_SECONDS, wanted));
}

/** A run's failed requests: `0 errors/timeouts, 2 non-2xx (503 x2)`. */
function failureText(r: LoadResult): string {
  const each = Object.entries(r.statuses ?? {}).map(([status, n]) => `${status} x${n}`);
  return `${r.errors} errors/timeouts, ${r.non2xx} non-2xx${each.length ? ` (${each.join(', ')})` : ''}`;
}

/** The load run of `w` on one server, without its length. */
function loadOf(w: Workload, target: Target, s: Servers, connections: number) {
  return { url: s.urlOf(target, w), headers: s.headersOf(w), body: requestBody(w), connections };
}

/** One server's warm-up before a round's slices: its rate, which sets how long and in how many slices the round measures. */
async function warmUp(
  w: Workload,
  target: Target,
  round: number,
  s: Servers,
  connections: number,
): Promise<number | undefined> {
  log(
    `${w.name}: loading ${TARGET_LABEL[target]} with ${connections} connections (round ${round + 1}/${settings.rounds})`,
  );
  if (settings.warmupSeconds === 0) return undefined;
  const run = { ...loadOf(w, target, s, connections), seconds: settings.warmupSeconds, measure: false };
  return (await s.load.call<LoadResult>('run', run satisfies LoadRun)).rps;
}

/**
 * One measured slice of one server: its requests, with the server's and PostgreSQL's CPU time. For the
 * slow logs and `_v2` workloads it then waits until their statements have ended (settle).
 */
async function measureSlice(
  w: Workload,
  target: Target,
  s: Servers,
  scratch: Scratch,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  const server = target === 'floor' ? s.floor : s.engine;
  if (w.cleanup) await cleanUp(w, s);
  const cpu0 = await cpuMicros([server]);
  const gc0 = await server.call<GcTotals>('gc');
  const pg0 = isLocalDatabase(settings.baseUrl) ? postgresCpuMicros() : undefined;
  const backends = pg0 === undefined ? [] : await backendsOf(scratch, target);
  const backends0 = processesCpuMicros(backends);
  const run = { ...loadOf(w, target, s, connections), seconds, measure: true };
  const r = await s.load.call<LoadResult>('run', run satisfies LoadRun);
  r.serverCpuMicros = (await cpuMicros([server])) - cpu0;
  r.serverGc = gcBetween(gc0, await server.call<GcTotals>('gc'));
  if (pg0 !== undefined) r.postgresCpuMicros = (postgresCpuMicros() ?? pg0) - pg0;
  if (backends.length > 0) r.backendsCpuMicros = processesCpuMicros(backends) - backends0;
  if (w.cleanup) await cleanUp(w, s);
  if (w.logs || w.v2) {
    const waited = await settle(scratch.admin, scratch.dbName);
    if (waited > 0.5) log(`${w.name}: waited ${waited.toFixed(1)} s for the run's statements to end`);
  }
  return r;
}

/**
 * One round: each server's warm-up in `order`, then the measured period cut into slices that take
 * the servers in turns (slices.ts), each server's slices merged.
 */
async function measureRound(
  w: Workload,
  order: Target[],
  round: number,
  s: Servers,
  scratch: Scratch,
  connections: number,
): Promise<Map<Target, LoadResult>> {
  const warm: number[] = [];
  for (const target of order) {
    const rps = await warmUp(w, target, round, s, connections);
    if (rps !== undefined) warm.push(rps);
  }
  // The warm-ups' statements ended before the first slice; each slice waits for its own (measureSlice).
  if (w.logs || w.v2) await settle(scratch.admin, scratch.dbName);
  const seconds = measuredSeconds(warm.length ? Math.min(...warm) : undefined, connections);
  const slices = sliceCount(settings.slices, seconds, connections, warm);
  if (seconds > settings.durationSeconds)
    log(
      `${w.name}: measured for ${seconds} s (at ${Math.min(...warm).toFixed(1)} req/s in the slowest warm-up; measuredSeconds)`,
    );
  const parts = new Map<Target, LoadResult[]>(order.map((t) => [t, []]));
  for (let i = 0; i < slices; i++)
    for (const target of sliceOrder(order, i))
      parts.get(target)!.push(await measureSlice(w, target, s, scratch, connections, seconds / slices));
  const merged = new Map([...parts].map(([t, rs]) => [t, merge(rs)]));
  for (const [target, r] of merged)
    log(
      `${w.name}: ${target} ${r.rps.toFixed(0)} req/s, p50 ${(r.p50 ?? NaN).toFixed(2)} ms, p99 ${(r.p99 ?? NaN).toFixed(2)} ms` +
        ` (${slices} slice${slices > 1 ? 's' : ''})` +
        `${r.errors + r.non2xx ? `, ${failureText(r)}` : ''}`,
    );
  return merged;
}

/** Each server's connections, by their application_name. */
const APPLICATION_NAMES: Record<Target, string> = {
  engine: APPLICATION_NAME,
  'engine.run': APPLICATION_NAME,
  floor: FLOOR_APPLICATION_NAME,
};

/**
 * The pids of a server's backends on the scratch database. Its pool keeps them open from the warm-up
 * through the measured run; one opened during the run (a reconnect) would go uncounted.
 */
async function backendsOf(scratch: Scratch, target: Target): Promise<number[]> {
  const rows = await scratch.admin.unsafe(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
    [scratch.dbName, APPLICATION_NAMES[target]],
  );
  return rows.map((r) => Number(r.pid));
}

const delta = (a: PlanCount, b: PlanCount): PlanCount => ({
  hit: b.hit - a.hit,
  miss: b.miss - a.miss,
  statements: b.statements - a.statements,
  requests: b.requests - a.requests,
});

/**
 * One workload: its answers compared (the engine's first request of it), then its rounds, each starting
 * with another server, merged per server into a report row, with the engine's plan-cache look-ups.
 * The first round's first server also turns with the workload's place in the run (`index`) and the
 * connection count's: with one round (the `_v2` default) the engine always went first, so it alone
 * always ran straight after the workload before.
 */
async function measureWorkload(w: Workload, index: number, s: Servers, scratch: Scratch): Promise<Row[]> {
  const p0 = await s.plans();
  const answer = await verifyAnswer(w, s);
  const first = delta(p0, await s.plans());
  const targets: Target[] = settings.diagnose ? ['engine', 'floor', 'engine.run'] : ['engine', 'floor'];
  const rows: Row[] = [];
  const rss = sampleRss(s.engine.pid);
  for (const [c, connections] of settings.connections.entries()) {
    const p1 = await s.plans();
    const results = new Map<Target, LoadResult[]>(targets.map((t) => [t, []]));
    for (let round = 0; round < settings.rounds; round++) {
      const first = (round + index + c) % targets.length;
      const order = [...targets.slice(first), ...targets.slice(0, first)];
      const merged = await measureRound(w, order, round, s, scratch, connections);
      for (const target of targets) results.get(target)!.push(merged.get(target)!);
    }
    const p2 = await s.plans();
    rows.push({
      workload: w,
      peakRss: 0,
      label: settings.connections.length > 1 ? `${w.name} @${connections}` : w.name,
      connections,
      plans: { first, load: delta(p1, p2) },
      bytes: answer.bytes,
      answerRows: answer.rows,
      results: Object.fromEntries([...results].map(([t, rs]) => [t, merge(rs)])),
      rounds: Object.fromEntries(results),
    });
  }
  const peak = rss.stop().peakBytes;
  for (const r of rows) r.peakRss = peak;
  return rows;
}

/** Stops the engine and the floor, so that they write their profiles when asked to. */
async function stopServers(s: Servers): Promise<void> {
  await s.db.end({ timeout: 5 });
  const [stopped] = await Promise.all([s.engine.call<{ allocProfile?: string }>('stop'), s.floor.call('stop')]);
  await Promise.all([s.engine.exited, s.floor.exited]);
  if (settings.cpuProfDir) log(`CPU profiles written to ${settings.cpuProfDir}`);
  if (stopped.allocProfile) log(`the engine's allocation profile written to ${stopped.allocProfile}`);
}

async function main(): Promise<number> {
  // `npm run bench -- bomb`: memory under the batch and alias bombs (bench/bomb.ts) instead of the workloads.
  if (process.argv[2] === 'bomb') return runBomb(settings.baseUrl);
  // `npm run bench -- soak`: 60 s of mixed load with a Bearer JWT, errors and memory (bench/soak.ts).
  if (process.argv[2] === 'soak') return runSoak(settings.baseUrl);
  // `npm run bench -- subscriptions`: 5,000 live-query subscribers over WebSocket (bench/subscriptions.ts).
  if (process.argv[2] === 'subscriptions') return runSubscriptions(settings.baseUrl);
  // `npm run bench -- inproc`: Engine.run and the floor's statements without HTTP (bench/in-process.ts).
  if (process.argv[2] === 'inproc') return runInProcess(settings);
  const selected = selectedWorkloads();
  if (!sizeMode) return (await runWorkloads(selected)).failed.length ? 1 : 0;
  const runs: SizeRun[] = [];
  for (const spendRows of settings.sizes) runs.push({ spendRows, measured: await runWorkloads(selected, spendRows) });
  process.stdout.write(`${sizeLines(runs).join('\n')}\n`);
  return runs.some((r) => r.measured.failed.length) ? 1 : 0;
}

interface Measured {
  rows: Row[];
  started: EngineStarted;
  failed: string[];
}

/** One scratch database, its servers and the workloads measured; the report printed. `spendRows`: `-- size`'s table. */
function runWorkloads(selected: Workload[], spendRows?: number): Promise<Measured> {
  return withScratch(async (scratch) => {
    const pgVersion = await scratch.create();
    const s = await startServers(scratch, selected, spendRows);
    const before = (await s.engine.call<{ memory: NodeJS.MemoryUsage }>('stats')).memory;
    const rss = sampleRss(s.engine.pid);
    const rows: Row[] = [];
    // A database whose workloads write is not kept: a copy must hold what seeding made.
    scratch.keepAtEnd = selected.every((w) => !w.writes && !w.cleanup);
    for (const [i, w] of selected.entries()) rows.push(...(await measureWorkload(w, i, s, scratch)));
    const peak = rss.stop();
    log(
      'engine and floor gave the same answers for every workload (identical bodies; the same rows and values for hand-written floors)',
    );
    const stats = await s.engine.call<{ memory: NodeJS.MemoryUsage; compilations: number }>('stats');
    const collected = (await s.engine.call<{ memory: NodeJS.MemoryUsage }>('stats', { gc: true })).memory;
    // Still the same answers after the load.
    for (const w of selected) {
      await verifySameBodies(w, s.urlOf('engine', w), s.urlOf('floor', w), s.headersOf(w));
      if (w.cleanup) await cleanUp(w, s);
    }

    await stopServers(s);
    report(rows, s.started, { before, after: stats.memory, collected, peak }, stats.compilations, pgVersion);
    // Each row with failed requests, and each of its servers' failures.
    const failed = rows
      .map((r) => ({
        label: r.label,
        failures: Object.entries(r.results)
          .filter(([, x]) => x.errors + x.non2xx > 0)
          .map(([t, x]) => `${t} ${failureText(x)}`),
      }))
      .filter((f) => f.failures.length > 0);
    if (failed.length)
      log(`requests failed under load in: ${failed.map((f) => `${f.label} (${f.failures.join('; ')})`).join(', ')}`);
    return { rows, started: s.started, failed: failed.map((f) => f.label) };
  }, spendRows);
}

interface SizeRun {
  spendRows: number;
  measured: Measured;
}

/** Issue 20's flat-in-size goal: the same query at the largest size within 1.5x of the smallest. */
const SIZE_GOAL = 1.5;

/**
 * `-- size`'s summary: each workload at each table size, engine and floor, and the largest size's
 * figures against the smallest's (latency ratios, and the smallest's req/s over the largest's), with
 * the indexes each statement's plan used at each size (the EXPLAINs are in each size's report above).
 */
function sizeLines(runs: SizeRun[]): string[] {
  const [small, large] = [runs[0], runs[runs.length - 1]];
  const body: string[][] = [];
  const verdicts: string[] = [];
  for (const r0 of small.measured.rows) {
    for (const run of runs) {
      const r = run.measured.rows.find((x) => x.label === r0.label)!;
      for (const t of ['engine', 'floor'] as const) {
        const x = r.results[t]!;
        body.push([
          r.label,
          `${t}, ${run.spendRows.toLocaleString('en-US')} rows`,
          fmt(x.rps, 0),
          fmt(x.p50),
          fmt(x.p90),
          fmt(x.p99),
        ]);
      }
    }
    const rl = large.measured.rows.find((x) => x.label === r0.label)!;
    for (const t of ['engine', 'floor'] as const) {
      const [a, b] = [r0.results[t]!, rl.results[t]!];
      const worst = Math.max(a.rps / b.rps, b.p50 / a.p50, b.p99 / a.p99);
      body.push([
        r0.label,
        `${t}, ${large.spendRows.toLocaleString('en-US')} / ${small.spendRows.toLocaleString('en-US')}`,
        `${fmt(b.rps / a.rps)}x`,
        `${fmt(b.p50 / a.p50)}x`,
        `${fmt(b.p90 / a.p90)}x`,
        `${fmt(b.p99 / a.p99)}x`,
      ]);
      verdicts.push(
        `${r0.label}, ${t}: ${worst <= SIZE_GOAL ? 'flat' : 'NOT flat'} (worst of small/large req/s and large/small p50, p99: ${fmt(worst)}x; goal <= ${SIZE_GOAL}x)`,
      );
    }
  }
  const plans = runs.flatMap((run) =>
    run.measured.started.explains.map(
      (x) =>
        `${x.name} at ${run.spendRows.toLocaleString('en-US')} rows: engine ${describePlan(x.engine)}; floor ${x.floor ? describePlan(x.floor) : 'the same statement'}; ` +
        `engine execution ${/Execution Time: ([\d.]+ ms)/.exec(x.engine)?.[1] ?? '?'}, floor ${/Execution Time: ([\d.]+ ms)/.exec(x.floor ?? '')?.[1] ?? '?'}`,
    ),
  );
  return [
    '',
    `flat in size (issue 20: the same query against ${runs.map((r) => r.spendRows.toLocaleString('en-US')).join(' and ')} spend rows within ${SIZE_GOAL}x; each size a database of its own, figures from the reports above):`,
    table(['workload', 'server, spends rows', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms'], body),
    ...verdicts,
    ...plans,
    ...runs.map((r) => `${r.spendRows.toLocaleString('en-US')} rows: ${r.measured.started.sizeSeeded ?? ''}`),
  ];
}

// `npm run bench -- faults`: the database faults instead of the workloads (faults.ts); `-- startup`: start-up
// times (startup.ts); `-- scale`: one engine, replicas, three engines (scale.ts).
const modes: Record<string, () => Promise<number>> = { faults: runFaults, startup: runStartup, scale: runScale };
(Object.hasOwn(modes, process.argv[2] ?? '') ? modes[process.argv[2]] : main)().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench failed: ${(err as Error)?.stack ?? err}\n`);
    process.exit(1);
  },
);
