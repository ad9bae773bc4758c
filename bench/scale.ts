/**
 * `npm run bench -- scale`: requests per second of a read workload as the engine scales out on
 * PostgreSQL's own machinery (README "Scaling"), in one run, one set-up after the other:
 *
 * 1. one engine process on the primary only;
 * 2. one engine process reading from two streaming replicas (DATABASE_READ_REPLICA_URLS);
 * 3. three engine processes, each reading from the two replicas, behind a small round-robin HTTP proxy
 *    in this process (node:http, keep-alive agents): the issue's topology, one address in front as a
 *    load balancer gives. The proxy costs CPU on the same cores, so the same three engines are also
 *    loaded with autocannon spreading its connections over their three addresses itself (3b), which
 *    shows what the proxy costs.
 *
 * The bench starts a primary cluster of its own (initdb into a temporary folder, a free port;
 * tests/support/own-cluster.ts), lets the first engine migrate and seed it, clones two replicas from
 * it with `pg_basebackup -R`, waits until they have replayed all the primary wrote before each set-up,
 * and removes the clusters at the end, also on failure. Each engine is bench/engine-server.ts in a
 * process of its own (errors-only log, as in `npm run bench`); the load generator is autocannon
 * (bench/load.ts) in another. Workloads: by_pk and nested of bench/workloads.ts, with the admin secret
 * acting as a tenant_admin; each run is a warm-up and a measured period, and the two engines added for
 * set-up 3 are warmed up directly first. Printed: req/s, p50 and p99 per set-up and workload, the
 * ratio of each set-up to set-up 1, the CPU time per request of the engines and of the proxy, the
 * machine's load average before each run (other work on the machine disturbs the figures), where the
 * reads ran (the engines' database_reads_total{target} from /metrics), and each cluster's committed
 * transactions over the whole run (pg_stat_database).
 *
 * Settings (environment): BENCH_SCALE_DURATION_SECONDS (8), BENCH_WARMUP_SECONDS (2),
 * BENCH_CONNECTIONS (32), BENCH_WORKLOADS (by_pk,nested), BENCH_EXTRA_SPEND_DAYS (0).
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as os from 'node:os';
import type { AddressInfo } from 'node:net';
import { postgresJs } from '../engine/core/db/postgres';
import { createOwnCluster, createReplica, type OwnCluster } from '../tests/support/own-cluster';
import type { EngineStart, EngineStarted } from './engine-server';
import { cpuMicros, perRequest } from './cpu';
import { forkChild, type Child } from './ipc';
import { engineNodeFlags } from './engine-flags';
import type { LoadResult, LoadRun } from './load';
import { requestBody, sessionHeaders, WORKLOADS, type Workload } from './workloads';

const log = (msg: string) => process.stderr.write(`bench scale: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function intSetting(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

/**
 * Read when the scale mode runs, not when run.ts loads this module: the other modes read the same
 * variables their own way (BENCH_CONNECTIONS a comma list).
 */
let read: ReturnType<typeof readSettings> | undefined;
const settings = () => (read ??= readSettings());
function readSettings() {
  return {
    seconds: intSetting('BENCH_SCALE_DURATION_SECONDS', 8, 1),
    warmupSeconds: intSetting('BENCH_WARMUP_SECONDS', 2, 0),
    connections: intSetting('BENCH_CONNECTIONS', 32, 1),
    extraSpendDays: intSetting('BENCH_EXTRA_SPEND_DAYS', 0, 0),
    workloads: (process.env.BENCH_WORKLOADS || 'by_pk,nested').split(',').map((s) => s.trim()),
  };
}
const ENGINES = 3;
const ADMIN_SECRET = randomBytes(16).toString('hex');
const METRICS_TOKEN = randomBytes(24).toString('hex');
/** Shared by every instance, as README "Scaling" requires. */
const SESSION_SECRET = randomBytes(24).toString('hex');

const SET_UPS = [
  '1. one engine, primary only',
  '2. one engine, 2 replicas',
  '3. three engines, 2 replicas, proxy',
  '3b. three engines, 2 replicas, no proxy',
];

interface SetUp {
  label: string;
  /** The engines read from the replicas (and count where in database_reads_total). */
  replicas: boolean;
  /** Through the proxy of this process. */
  proxied?: boolean;
  /** One address, or several that autocannon spreads its connections over. */
  url: string | string[];
  engines: Engine[];
}

interface Engine {
  child: Child;
  port: number;
}

/** Everything to remove at the end, whatever happened. */
interface Parts {
  clusters: OwnCluster[];
  engines: Engine[];
  load?: Child;
  proxy?: http.Server;
}

/**
 * An engine process (bench/engine-server.ts) on the primary, reading from `replicas` when given. The
 * first one (no replicas) migrates and seeds, and adds the extra spend lines, which must be added once.
 */
async function startEngine(parts: Parts, primary: OwnCluster, replicas: OwnCluster[]): Promise<Engine> {
  const child = forkChild('engine-server.js', engineNodeFlags());
  const engine = { child, port: 0 };
  parts.engines.push(engine);
  const env: Record<string, string> = { METRICS_TOKEN, NEXTAUTH_SECRET: SESSION_SECRET };
  if (replicas.length) env.DATABASE_READ_REPLICA_URLS = replicas.map((r) => r.url).join(',');
  const started = await child.call<EngineStarted>('start', {
    databaseUrl: primary.url,
    adminSecret: ADMIN_SECRET,
    extraSpendDays: replicas.length ? 0 : settings().extraSpendDays,
    scale: 0,
    logLines: 0,
    workloads: [],
    direct: false,
    env,
  } satisfies EngineStart);
  engine.port = started.port;
  return engine;
}

async function stopEngine(parts: Parts, engine: Engine): Promise<void> {
  // Requests the load generator left when its run ended may still be running in the engine: stopping
  // now would close the pool under them (and the engine would log them as database-unavailable).
  await sleep(1000);
  await engine.child.call('stop');
  await engine.child.exited;
  parts.engines = parts.engines.filter((e) => e !== engine);
}

/**
 * The round-robin proxy of set-up 3: each request, read whole (a GraphQL body is small), goes to the
 * next engine over a keep-alive connection of that engine's agent, and the answer streams back. A
 * request sent on a kept-alive connection the engine had just closed as idle is sent once more, as a
 * load balancer does, on a fresh connection.
 */
async function startProxy(ports: number[]): Promise<http.Server> {
  const agents = ports.map(() => new http.Agent({ keepAlive: true, maxSockets: settings().connections }));
  let next = 0;
  const forward = (i: number, req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, again: boolean) => {
    const upstream = http.request(
      { host: '127.0.0.1', port: ports[i], path: req.url, method: req.method, headers: req.headers, agent: agents[i] },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (again && upstream.reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET')
        return forward(i, req, body, res, false);
      log(`proxy: engine ${i + 1}: ${(err as NodeJS.ErrnoException).code ?? err.message}`);
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    upstream.end(body);
  };
  const server = http.createServer((req, res) => {
    const i = next;
    next = (next + 1) % ports.length;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(i, req, Buffer.concat(chunks), res, true));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  server.on('close', () => agents.forEach((a) => a.destroy()));
  return server;
}

/** Waits until every replica has replayed all the primary has written so far. */
async function waitForReplay(primary: OwnCluster, replicas: OwnCluster[]): Promise<void> {
  const sql = (c: OwnCluster) => postgresJs()(c.url, { max: 1, onnotice: () => undefined });
  const p = sql(primary);
  try {
    const [{ lsn }] = await p`SELECT pg_current_wal_lsn()::text AS lsn`;
    for (const replica of replicas) {
      const r = sql(replica);
      try {
        for (let waited = 0; ; waited += 100) {
          const [{ done }] = await r`SELECT pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn AS done`;
          if (done) break;
          if (waited > 60_000) throw new Error(`replica on port ${replica.port} did not replay up to ${lsn}`);
          await sleep(100);
        }
      } finally {
        await r.end();
      }
    }
  } finally {
    await p.end();
  }
}

/** database_reads_total{target} of the engines' /metrics, summed over them (set-ups with replicas only). */
async function readsByTarget(engines: Engine[]): Promise<Map<string, number>> {
  const sums = new Map<string, number>();
  for (const e of engines) {
    const res = await fetch(`http://127.0.0.1:${e.port}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const text = await res.text();
    for (const m of text.matchAll(/^database_reads_total\{target="([^"]+)"\} (\d+)/gm))
      sums.set(m[1], (sums.get(m[1]) ?? 0) + Number(m[2]));
  }
  return sums;
}

/** Each workload's answer through the set-up: 200, data and no error, the same body as set-up 1's. */
async function verify(setUp: SetUp, workloads: Workload[], expected: Map<string, string>): Promise<void> {
  const urls = Array.isArray(setUp.url) ? setUp.url : [setUp.url];
  for (const w of workloads) {
    for (const url of urls) {
      const res = await fetch(url, { method: 'POST', headers: sessionHeaders(ADMIN_SECRET), body: requestBody(w) });
      const body = await res.text();
      const parsed = JSON.parse(body) as { data?: unknown; errors?: unknown };
      if (res.status !== 200 || parsed.errors || !parsed.data)
        throw new Error(`${setUp.label}, ${w.name}: HTTP ${res.status} ${body.slice(0, 300)}`);
      const first = expected.get(w.name);
      if (first === undefined) expected.set(w.name, body);
      else if (first !== body) throw new Error(`${setUp.label}, ${w.name}: an answer other than set-up 1's`);
    }
  }
}

interface Measured {
  setUp: string;
  results: Map<string, Result>;
  reads?: Map<string, number>;
}

/** A load run, with the CPU time of the engines and of the proxy during it, and the machine's load before it. */
interface Result extends LoadResult {
  proxyCpuMicros: number;
  loadAverage: number;
}

/** The measured run of one workload: the engines' CPU and, when proxied, this process's (the proxy's). */
async function measuredRun(load: Child, setUp: SetUp, run: Omit<LoadRun, 'seconds' | 'measure'>): Promise<Result> {
  const loadAverage = os.loadavg()[0];
  const engines0 = await cpuMicros(setUp.engines.map((e) => e.child));
  const proxy0 = process.cpuUsage();
  const r = await load.call<LoadResult>('run', {
    ...run,
    seconds: settings().seconds,
    measure: true,
  } satisfies LoadRun);
  const proxy = process.cpuUsage(proxy0);
  r.serverCpuMicros = (await cpuMicros(setUp.engines.map((e) => e.child))) - engines0;
  return { ...r, proxyCpuMicros: setUp.proxied ? proxy.user + proxy.system : 0, loadAverage };
}

/** A run of `w` that is not measured. */
async function warmUp(load: Child, url: string | string[], w: Workload, seconds: number): Promise<void> {
  if (seconds <= 0) return;
  const run: LoadRun = {
    url,
    headers: sessionHeaders(ADMIN_SECRET),
    body: requestBody(w),
    connections: settings().connections,
    seconds,
    measure: false,
  };
  await load.call<LoadResult>('run', run);
}

/** Every workload through one set-up: a warm-up, then the measured run. */
async function measure(load: Child, setUp: SetUp, workloads: Workload[]): Promise<Measured> {
  const results = new Map<string, Result>();
  const before = setUp.replicas ? await readsByTarget(setUp.engines) : undefined;
  for (const w of workloads) {
    const run = {
      url: setUp.url,
      headers: sessionHeaders(ADMIN_SECRET),
      body: requestBody(w),
      connections: settings().connections,
    };
    await warmUp(load, setUp.url, w, settings().warmupSeconds);
    const r = await measuredRun(load, setUp, run);
    log(`${setUp.label}, ${w.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`);
    if (r.errors + r.non2xx > 0) log(`${setUp.label}, ${w.name}: ${r.errors} errors/timeouts, ${r.non2xx} non-2xx`);
    results.set(w.name, r);
  }
  if (!before) return { setUp: setUp.label, results };
  const after = await readsByTarget(setUp.engines);
  const reads = new Map([...after].map(([t, n]) => [t, n - (before.get(t) ?? 0)]));
  return { setUp: setUp.label, results, reads };
}

/** Committed transactions of each cluster's database, for the closing cross-check. */
async function commits(clusters: OwnCluster[]): Promise<number[]> {
  return Promise.all(
    clusters.map(async (c) => {
      const sql = postgresJs()(c.url, { max: 1, onnotice: () => undefined });
      try {
        const [{ n }] = await sql`SELECT xact_commit::float8 AS n FROM pg_stat_database WHERE datname = 'postgres'`;
        return Number(n);
      } finally {
        await sql.end();
      }
    }),
  );
}

function report(measured: Measured[], workloads: Workload[], names: Map<string, string>, xacts: string[]): void {
  const out: string[] = [];
  const pad = (s: string, n: number) => s.padEnd(n);
  out.push('');
  out.push(
    `scale: read workloads, ${settings().connections} keep-alive connections, ${settings().warmupSeconds} s warm-up + ${settings().seconds} s measured per run`,
  );
  out.push('(on this 2-core machine engines, replicas, proxy and load generator share the same two cores:');
  out.push(' the ratios to set-up 1 say more than the absolute figures)');
  for (const w of workloads) {
    out.push('');
    out.push(`${w.name}: ${w.description}`);
    out.push(
      `  ${pad('set-up', 42)}${'req/s'.padStart(7)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'vs 1'.padStart(7)}` +
        `${'engine CPU'.padStart(12)}${'proxy CPU'.padStart(11)}${'load avg'.padStart(10)}`,
    );
    const base = measured[0].results.get(w.name)!.rps;
    for (const m of measured) {
      const r = m.results.get(w.name)!;
      const perRequestMs = (micros: number) => `${(perRequest(micros, r.ok) / 1000).toFixed(2)} ms`;
      out.push(
        `  ${pad(m.setUp, 42)}${r.rps.toFixed(0).padStart(7)}${r.p50.toFixed(2).padStart(9)}${r.p99.toFixed(2).padStart(9)}` +
          `${`${(r.rps / base).toFixed(2)}x`.padStart(7)}${perRequestMs(r.serverCpuMicros).padStart(12)}` +
          `${(r.proxyCpuMicros ? perRequestMs(r.proxyCpuMicros) : '-').padStart(11)}${r.loadAverage.toFixed(1).padStart(10)}` +
          (r.errors + r.non2xx ? `  (${r.errors} errors/timeouts, ${r.non2xx} non-2xx)` : ''),
      );
    }
  }
  out.push('');
  out.push('engine CPU, proxy CPU: CPU time per answered request (all engines together; the proxy runs in the');
  out.push("bench's own process). load avg: the machine's 1-minute load average before the run (other work");
  out.push('on the machine shows there).');
  out.push('');
  out.push('where the reads ran (database_reads_total{target} of the engines, over each set-up):');
  out.push(`  ${pad(measured[0].setUp, 42)}all on the primary (no replica configured)`);
  for (const m of measured.slice(1)) {
    const parts = [...(m.reads ?? [])].map(([t, n]) => `${names.get(t) ?? t} ${n}`);
    out.push(`  ${pad(m.setUp, 42)}${parts.join(', ')}`);
  }
  out.push(`committed transactions per cluster over the whole run (pg_stat_database): ${xacts.join(', ')}`);
  out.push('');
  process.stdout.write(out.join('\n') + '\n');
}

function selectedWorkloads(): Workload[] {
  return settings().workloads.map((name) => {
    const w = WORKLOADS.find((x) => x.name === name && !x.writes);
    if (!w) throw new Error(`BENCH_WORKLOADS: no read workload "${name}"`);
    return w;
  });
}

/** The primary, migrated and seeded by the engine of set-up 1, and two replicas cloned from it then. */
async function startClusters(parts: Parts): Promise<{ primary: OwnCluster; replicas: OwnCluster[]; single: Engine }> {
  log('starting a primary cluster of its own');
  const primary = await createOwnCluster();
  parts.clusters.push(primary);
  log('engine 1 on the primary: migrating and seeding');
  const single = await startEngine(parts, primary, []);
  log('cloning two streaming replicas (pg_basebackup -R)');
  const replicas: OwnCluster[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await createReplica(primary);
    parts.clusters.push(r);
    replicas.push(r);
  }
  return { primary, replicas, single };
}

async function scale(parts: Parts): Promise<void> {
  const workloads = selectedWorkloads();
  const { primary, replicas, single } = await startClusters(parts);
  const before = await commits(parts.clusters);
  const load = forkChild('load.js');
  parts.load = load;
  const answers = new Map<string, string>();
  const url = (e: Engine) => `http://127.0.0.1:${e.port}/api/graphql`;
  const measured: Measured[] = [];
  const run = async (setUp: SetUp) => {
    await waitForReplay(primary, replicas);
    await verify(setUp, workloads, answers);
    measured.push(await measure(load, setUp, workloads));
  };

  await run({ label: SET_UPS[0], replicas: false, url: url(single), engines: [single] });
  await stopEngine(parts, single);

  log('engines with DATABASE_READ_REPLICA_URLS = the two replicas');
  const first = await startEngine(parts, primary, replicas);
  await run({ label: SET_UPS[1], replicas: true, url: url(first), engines: [first] });

  const many = [first];
  while (many.length < ENGINES) many.push(await startEngine(parts, primary, replicas));
  parts.proxy = await startProxy(many.map((e) => e.port));
  const proxyPort = (parts.proxy.address() as AddressInfo).port;
  // The new engines are warmed up first: a process that has just started spends more CPU per request
  // for a while (measured: 40 to 80 % more on by_pk in its first run), which would weigh on whichever
  // set-up came first.
  log(`warming up the new engines: ${settings().warmupSeconds * (ENGINES - 1)} s per workload`);
  for (const w of workloads) await warmUp(load, many.slice(1).map(url), w, settings().warmupSeconds * (ENGINES - 1));
  await run({
    label: SET_UPS[2],
    replicas: true,
    proxied: true,
    url: `http://127.0.0.1:${proxyPort}/api/graphql`,
    engines: many,
  });
  await run({ label: SET_UPS[3], replicas: true, url: many.map(url), engines: many });

  for (const e of [...parts.engines]) await stopEngine(parts, e);
  // Backends report their statistics when they end: after the engines' exit the counts are whole.
  await sleep(500);
  const after = await commits(parts.clusters);
  const clusterNames = ['primary', 'replica 1', 'replica 2'];
  const names = new Map<string, string>([['primary', 'primary (no replica answered)']]);
  replicas.forEach((r, i) => names.set(`127.0.0.1:${r.port}/postgres`, clusterNames[i + 1]));
  report(
    measured,
    workloads,
    names,
    after.map((n, i) => `${clusterNames[i]} ${n - before[i]}`),
  );
  const failed = measured.filter((m) => [...m.results.values()].some((r) => r.errors + r.non2xx > 0));
  if (failed.length) throw new Error(`requests failed under load in: ${failed.map((m) => m.setUp).join(', ')}`);
}

export async function runScale(): Promise<number> {
  const parts: Parts = { clusters: [], engines: [] };
  try {
    await scale(parts);
    return 0;
  } finally {
    parts.proxy?.close();
    parts.proxy?.closeAllConnections();
    for (const e of parts.engines) e.child.kill();
    await Promise.all(parts.engines.map((e) => e.child.exited));
    parts.load?.kill();
    if (parts.load) await parts.load.exited;
    // Replicas first: a primary stopped under them would leave them retrying its WAL stream.
    for (const c of [...parts.clusters].reverse()) await c.destroy();
  }
}
