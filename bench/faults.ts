/**
 * `npm run bench -- faults`: the engine (dist/engine/main.js, its own process) on a PostgreSQL cluster
 * of its own (initdb into a temporary folder, a free port; tests/support/own-cluster.ts), through
 * three faults, printing in one run:
 *
 * 1. the database stopped for 10 s under load (16 loops of a simple query): the share of requests made
 *    meanwhile that were answered within 2 s (and how: 503 database-unavailable), and the time from
 *    the database's return to the first success;
 * 2. 32 statements held until the statement timeout (a lock on spends; STATEMENT_TIMEOUT_MS=5000,
 *    DATABASE_POOL_TIMEOUT_MS=1000, pool of 10): p99 of /readyz, of the token exchange and of a simple GraphQL query meanwhile
 *    (with how the query was answered), and the time the 32 took to clear;
 * 3. SIGTERM under load (16 loops, and 6 requests waiting on a lock released 1 s after the signal):
 *    errors among requests made before the signal (goal 0), how many were in flight, the exit code.
 *
 * Settings (environment): BENCH_OUTAGE_SECONDS (10), BENCH_SLOW_STATEMENTS (32).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { postgresJs } from '../engine/core/db/postgres';
import { createTokenFor } from '../engine/cli/admin';
import { loadConfig } from '../engine/core/config';
import { connectDatabase } from '../engine/core/db/connect';
import { createOwnCluster, type OwnCluster } from '../tests/support/own-cluster';

const ADMIN_SECRET = 'bench-faults-admin-secret';
const STATEMENT_TIMEOUT_MS = 5000;
const POOL_TIMEOUT_MS = 1000;
const EMAIL = 'alice.admin@acme.example.com';
const SIMPLE = JSON.stringify({ query: '{ cloud_accounts(limit: 1) { id } }' });
const SLOW = JSON.stringify({ query: '{ spends(limit: 1) { id } }' });
const ADMIN = { 'content-type': 'application/json', 'x-hasura-admin-secret': ADMIN_SECRET };
const outageSeconds = Number(process.env.BENCH_OUTAGE_SECONDS || 10);
const slowStatements = Number(process.env.BENCH_SLOW_STATEMENTS || 32);

const log = (msg: string) => process.stderr.write(`bench faults: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Sample {
  started: number;
  ended: number;
  status: number;
  code?: string;
  failure?: boolean;
}

async function send(url: string, body: string | undefined, headers: Record<string, string> = ADMIN): Promise<Sample> {
  const started = Date.now();
  try {
    const res = await fetch(url, body === undefined ? {} : { method: 'POST', headers, body });
    const text = await res.text();
    let code: string | undefined;
    try {
      code = JSON.parse(text).errors?.[0]?.extensions?.code;
    } catch {
      code = 'not-json';
    }
    return { started, ended: Date.now(), status: res.status, code };
  } catch {
    return { started, ended: Date.now(), status: 0, failure: true };
  }
}

const ok = (s: Sample) => s.status === 200 && !s.code;
const ms = (s: Sample) => s.ended - s.started;

function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function tally(samples: Sample[]): string {
  const counts = new Map<string, number>();
  for (const s of samples) {
    const key = s.failure ? 'no connection' : `${s.status}${s.code ? ` ${s.code}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n} × ${k}`).join(', ');
}

interface Engine {
  url: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function startEngine(cluster: OwnCluster): Promise<Engine> {
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'engine', 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: cluster.url,
      ADMIN_SECRET,
      SEED_DEMO_DATA: 'true',
      STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DATABASE_POOL_TIMEOUT_MS: String(POOL_TIMEOUT_MS),
      SHUTDOWN_DRAIN_SECONDS: '10',
      NEXTAUTH_SECRET: 'bench-faults-session-secret-0123456789abcdef',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on http:\/\/localhost:(\d+)/.exec(out);
      if (m) {
        clearInterval(timer);
        resolve({ url: `http://127.0.0.1:${m[1]}`, child, output: () => out, exited });
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`the engine exited with ${code}:\n${out}`));
    });
  });
}

/** `loops` loops of `body` until `until()`; every sample. */
async function load(url: string, body: string | undefined, loops: number, until: () => boolean): Promise<Sample[]> {
  const samples: Sample[] = [];
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (!until()) samples.push(await send(url, body));
    }),
  );
  return samples;
}

/** 1. The database stopped for `outageSeconds` under load, then started again. */
async function outage(engine: Engine, cluster: OwnCluster): Promise<string[]> {
  let done = false;
  const running = load(`${engine.url}/api/graphql`, SIMPLE, 16, () => done);
  await sleep(2000);
  log(`stopping the database for ${outageSeconds} s under load`);
  const stopAt = Date.now();
  await cluster.stop();
  await sleep(outageSeconds * 1000);
  await cluster.start();
  const backAt = Date.now();
  await sleep(3000);
  done = true;
  const samples = await running;
  const during = samples.filter((s) => s.started >= stopAt && s.started < backAt);
  const fast = during.filter((s) => ms(s) <= 2000);
  const firstOk = samples.filter((s) => s.ended >= backAt && ok(s)).sort((a, b) => a.ended - b.ended)[0];
  return [
    `database stopped ${((backAt - stopAt) / 1000).toFixed(1)} s under 16 loops of a simple query:`,
    `  requests made meanwhile answered within 2 s: ${fast.length}/${during.length} (${((100 * fast.length) / Math.max(1, during.length)).toFixed(1)}%), slowest ${Math.max(0, ...during.map(ms))} ms, p99 ${percentile(during.map(ms), 99)} ms`,
    `  answered: ${tally(during)}`,
    `  from the database's return to the first success: ${firstOk ? firstOk.ended - backAt : NaN} ms`,
  ];
}

/** A lock on spends held for `holdMs`: statements on spends wait on it until their statement timeout. */
async function lockSpends(url: string, holdMs: number): Promise<{ released: Promise<void> }> {
  const sql = postgresJs()(url, { max: 1, onnotice: () => undefined });
  let locked: () => void = () => undefined;
  const isLocked = new Promise<void>((r) => (locked = r));
  const held = sql
    .begin(async (tx) => {
      await tx`LOCK TABLE spends IN ACCESS EXCLUSIVE MODE`;
      locked();
      await sleep(holdMs);
    })
    .then(() => sql.end());
  await isLocked;
  // Wrapped: an async function returning a promise would wait for it.
  return { released: held };
}

/** 2. `slowStatements` statements held until the statement timeout; quick requests meanwhile. */
async function slowQueries(engine: Engine, cluster: OwnCluster, secret: string): Promise<string[]> {
  const lock = await lockSpends(cluster.url, STATEMENT_TIMEOUT_MS + 1500);
  const start = Date.now();
  const slow = Promise.all(Array.from({ length: slowStatements }, () => send(`${engine.url}/api/graphql`, SLOW)));
  let done = false;
  void slow.then(() => (done = true));
  const exchangeBody = JSON.stringify({ email: EMAIL, secret });
  const [ready, exchanged, simple] = await Promise.all([
    load(`${engine.url}/readyz`, undefined, 2, () => done),
    load(`${engine.url}/api/auth/token`, exchangeBody, 2, () => done),
    load(`${engine.url}/api/graphql`, SIMPLE, 4, () => done),
  ]);
  const slowAnswers = await slow;
  const cleared = Date.now() - start;
  await lock.released;
  const line = (name: string, s: Sample[]) =>
    `  ${name}: p99 ${percentile(s.map(ms), 99)} ms, p50 ${percentile(s.map(ms), 50)} ms over ${s.length}; ${tally(s)}`;
  return [
    `${slowStatements} statements held to the statement timeout (${STATEMENT_TIMEOUT_MS} ms), pool of 10, DATABASE_POOL_TIMEOUT_MS ${POOL_TIMEOUT_MS}:`,
    `  the ${slowStatements} cleared in ${cleared} ms: ${tally(slowAnswers)}`,
    line('GET /readyz (reserve pool)', ready),
    line('POST /api/auth/token (reserve pool)', exchanged),
    line('a simple GraphQL query (main pool)', simple),
  ];
}

/** 3. SIGTERM under load, with requests waiting on a lock released 1 s after the signal. */
async function sigterm(engine: Engine, cluster: OwnCluster): Promise<string[]> {
  let signalled = false;
  const samples: Sample[] = [];
  const loops = Array.from({ length: 16 }, async () => {
    for (;;) {
      const s = await send(`${engine.url}/api/graphql`, SIMPLE);
      samples.push(s);
      if (s.failure || signalled) return;
    }
  });
  const lock = await lockSpends(cluster.url, 2500);
  const waiting = Array.from({ length: 6 }, () => send(`${engine.url}/api/graphql`, SLOW));
  await sleep(1000);
  const signalAt = Date.now();
  signalled = true;
  engine.child.kill('SIGTERM');
  const code = await engine.exited;
  await Promise.all(loops);
  await lock.released;
  const all = [...samples, ...(await Promise.all(waiting))];
  const before = all.filter((s) => s.started < signalAt);
  const errors = before.filter((s) => !ok(s));
  const inFlight = before.filter((s) => s.ended > signalAt);
  return [
    'SIGTERM under 16 loops and 6 requests waiting on a lock released 1 s later:',
    `  errors among requests made before the signal: ${errors.length} of ${before.length} (${inFlight.length} still in flight at the signal, the last finished ${Math.max(0, ...inFlight.map((s) => s.ended - signalAt))} ms after it)`,
    `  exit code ${code}; drain log: ${engine
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => String(JSON.parse(l).msg))
      .filter((msg) => /SIGTERM|shutting down|in flight|pool closed|drain/.test(msg))
      .join(' / ')}`,
  ];
}

async function newSecret(cluster: OwnCluster): Promise<string> {
  const db = await connectDatabase(loadConfig({ DATABASE_URL: cluster.url, DATABASE_POOL_SIZE: '1' }));
  try {
    return (await createTokenFor(db, { email: EMAIL, name: 'bench faults' })).secret;
  } finally {
    await db.close();
  }
}

export async function runFaults(): Promise<number> {
  log('creating a PostgreSQL cluster of its own');
  const cluster = await createOwnCluster();
  let engine: Engine | undefined;
  try {
    engine = await startEngine(cluster);
    const secret = await newSecret(cluster);
    // Build the admin role's schema and warm the pool before measuring.
    for (let i = 0; i < 20; i++) await send(`${engine.url}/api/graphql`, SIMPLE);
    const report = [...(await outage(engine, cluster)), ''];
    // Connections idle through the outage fail once when next used: cycle through the pool.
    for (let i = 0; i < 3; i++)
      await Promise.all(Array.from({ length: 12 }, () => send(`${engine!.url}/api/graphql`, SIMPLE)));
    report.push(...(await slowQueries(engine, cluster, secret)), '');
    report.push(...(await sigterm(engine, cluster)));
    process.stdout.write(`\n${report.join('\n')}\n`);
    return 0;
  } finally {
    engine?.child.kill('SIGKILL');
    await cluster.destroy();
  }
}
