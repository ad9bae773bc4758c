/**
 * `npm run bench -- subscriptions`: many live-query subscribers over WebSocket on one engine, on real
 * PostgreSQL. BENCH_SUBSCRIBERS (5000) subscriptions over BENCH_SUB_CONNECTIONS (1000) connections of
 * the graphql-transport-ws protocol, as tenant_admin of 10 tenants (the demo's two and eight empty
 * ones), half on a spends aggregate and half on the latest events, each with one of three variable
 * sets: 2 pollers of 30 cohorts. Measured: the time until every subscriber has its first result; the
 * multiplexed statements per refetch interval while idle (goal: one per batch of cohorts, here one
 * per poller, not one per subscriber); the delay from a committed change (a spend line of Acme
 * inserted through SQL) to its delivery to each Acme subscriber of the aggregate, p50 and p99 over
 * BENCH_SUB_ROUNDS (10) changes (goal p99 under 1.5 intervals); the engine's RSS (goal under 400 MB)
 * and CPU. Settings: BENCH_DATABASE_URL or DATABASE_URL, LIVE_QUERIES_REFETCH_INTERVAL_MS (1000).
 */
import * as fs from 'node:fs';
import type postgres from 'postgres';
import { postgresJs } from '../engine/core/db/postgres';
import WebSocket from 'ws';
import { DEMO } from '../demo/demo-data';
import { type Child } from './ipc';
import { withScratchEngine } from './scratch-engine';

const log = (msg: string) => process.stderr.write(`bench subscriptions: ${msg}\n`);
const setting = (name: string, fallback: number) => Math.max(1, Number(process.env[name]) || fallback);
const SUBSCRIBERS = setting('BENCH_SUBSCRIBERS', 5000);
const CONNECTIONS = Math.min(SUBSCRIBERS, setting('BENCH_SUB_CONNECTIONS', 1000));
const ROUNDS = setting('BENCH_SUB_ROUNDS', 10);
const INTERVAL = setting('LIVE_QUERIES_REFETCH_INTERVAL_MS', 1000);
const acme = DEMO.tenants.acme;

const SPENDS = `subscription Spend($since: timestamp!) { spends_aggregate(where: {date: {_gte: $since}}) {
  aggregate { count sum { amount } } } }`;
const EVENTS = `subscription Latest($limit: Int!) { events(order_by: {created_at: desc}, limit: $limit) {
  id title severity created_at } }`;
const SINCE = ['2020-01-01', '2024-01-01', '2025-01-01'];
const LIMITS = [5, 10, 20];

interface Sub {
  tenant: string;
  kind: 'spends' | 'events';
  results: number;
  lastAt: number;
}

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

/** One connection: connection_init with the admin secret as the tenant's tenant_admin, then its subscriptions. */
function open(url: string, secret: string, tenant: string, subs: Map<string, Sub>, first: number, n: number) {
  return new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, 'graphql-transport-ws');
    ws.on('error', reject);
    ws.on('open', () =>
      ws.send(
        JSON.stringify({
          type: 'connection_init',
          payload: {
            headers: { 'x-hasura-admin-secret': secret, 'x-hasura-role': 'tenant_admin', 'x-hasura-tenant-id': tenant },
          },
        }),
      ),
    );
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as { type: string; id?: string; payload?: unknown };
      if (m.type === 'connection_ack') {
        for (let i = first; i < first + n; i++) {
          const kind = i % 2 === 0 ? 'spends' : 'events';
          const id = String(i);
          subs.set(id, { tenant, kind, results: 0, lastAt: 0 });
          const variables = kind === 'spends' ? { since: SINCE[i % 3] } : { limit: LIMITS[i % 3] };
          ws.send(
            JSON.stringify({
              id,
              type: 'subscribe',
              payload: { query: kind === 'spends' ? SPENDS : EVENTS, variables },
            }),
          );
        }
        resolve(ws);
      } else if (m.type === 'next') {
        const s = subs.get(m.id!)!;
        s.results++;
        s.lastAt = performance.now();
      } else if (m.type === 'error') log(`error for ${m.id}: ${JSON.stringify(m.payload).slice(0, 200)}`);
    });
    ws.on('close', (code) => code !== 1000 && code !== 1001 && log(`a connection closed with ${code}`));
  });
}

async function tenants(db: postgres.Sql): Promise<string[]> {
  const extra = await db.unsafe(
    `INSERT INTO tenant (id, name, created_by, updated_by)
     SELECT gen_random_uuid(), 'bench-tenant-' || g || '-' || md5(random()::text), gen_random_uuid(), gen_random_uuid()
     FROM generate_series(1, 8) AS g RETURNING id::text AS id`,
  );
  return [acme.id, DEMO.tenants.globex.id, ...extra.map((r) => String(r.id))];
}

/** Each round: a spend line of Acme committed, then each Acme aggregate subscriber's delay to its next result. */
async function delays(db: postgres.Sql, subs: Map<string, Sub>): Promise<{ ms: number[]; missed: number }> {
  const watched = [...subs.values()].filter((s) => s.tenant === acme.id && s.kind === 'spends');
  const ms: number[] = [];
  let missed = 0;
  for (let round = 0; round < ROUNDS; round++) {
    await sleep(INTERVAL * (0.5 + Math.random()));
    await db.unsafe(`INSERT INTO spends (tenant, cloud_account, date, amount) VALUES ($1::uuid, $2::uuid, now(), 1)`, [
      acme.id,
      acme.cloudAccounts.aws,
    ]);
    const committed = performance.now();
    await sleep(INTERVAL * 3);
    for (const s of watched) {
      if (s.lastAt > committed) ms.push(s.lastAt - committed);
      else missed++;
    }
  }
  return { ms, missed };
}

async function measure(engine: Child, port: number, secret: string, db: postgres.Sql): Promise<number> {
  const url = `ws://127.0.0.1:${port}/v1/graphql`;
  const ids = await tenants(db);
  const subs = new Map<string, Sub>();
  const sockets: WebSocket[] = [];
  const t0 = performance.now();
  const per = Math.ceil(SUBSCRIBERS / CONNECTIONS);
  for (let c = 0, first = 0; first < SUBSCRIBERS; c++, first += per)
    sockets.push(await open(url, secret, ids[c % ids.length], subs, first, Math.min(per, SUBSCRIBERS - first)));
  while ([...subs.values()].some((s) => s.results === 0) && performance.now() - t0 < 120_000) await sleep(50);
  const firstAll = performance.now() - t0;
  const waiting = [...subs.values()].filter((s) => s.results === 0).length;
  await sleep(INTERVAL * 2);
  const live0 = await engine.call<{ statements: number; pollers: number; cohorts: number; subscribers: number }>(
    'live',
  );
  const cpu0 = await engine.call<NodeJS.CpuUsage>('cpu');
  const idleStart = performance.now();
  const rss: number[] = [];
  for (let i = 0; i < 10; i++) {
    await sleep(INTERVAL);
    rss.push(rssMb(engine.pid));
  }
  const live1 = await engine.call<{ statements: number }>('live');
  const cpu1 = await engine.call<NodeJS.CpuUsage>('cpu');
  const idleMs = performance.now() - idleStart;
  const intervals = idleMs / INTERVAL;
  const cpuPct = ((cpu1.user - cpu0.user + cpu1.system - cpu0.system) / 1000 / idleMs) * 100;
  const d = await delays(db, subs);
  rss.push(rssMb(engine.pid));
  for (const s of sockets) s.close(1000);
  const perInterval = (live1.statements - live0.statements) / intervals;
  process.stdout.write(
    `${subs.size} subscribers on ${sockets.length} WebSocket connections (graphql-transport-ws), ${ids.length} tenants, refetch interval ${INTERVAL} ms:\n` +
      `  ${live0.pollers} pollers, ${live0.cohorts} cohorts, ${live0.subscribers} subscribers in the engine; every first result after ${(firstAll / 1000).toFixed(1)} s (${waiting} still waiting)\n` +
      `  multiplexed statements per interval while idle: ${perInterval.toFixed(2)} (goal: one per batch of cohorts = ${live0.pollers}; one per subscriber would be ${subs.size})\n` +
      `  delay from a committed change to its delivery (${d.ms.length} deliveries over ${ROUNDS} changes, ${d.missed} missed): p50 ${pct(d.ms, 50).toFixed(0)} ms, p99 ${pct(d.ms, 99).toFixed(0)} ms, max ${Math.max(...d.ms).toFixed(0)} ms (goal p99 under ${(1.5 * INTERVAL).toFixed(0)} ms)\n` +
      `  engine RSS ${Math.min(...rss).toFixed(0)}-${Math.max(...rss).toFixed(0)} MB (goal under 400 MB); engine CPU while idle ${cpuPct.toFixed(1)}% of one core\n`,
  );
  const ok =
    d.missed === 0 && pct(d.ms, 99) < 1.5 * INTERVAL && Math.max(...rss) < 400 && perInterval <= live0.pollers + 0.5;
  return ok ? 0 : 1;
}

export async function runSubscriptions(baseUrl: string): Promise<number> {
  log('starting the engine on a scratch database (demo data and 30 extra days of spend lines)');
  const env = { LIVE_QUERIES_REFETCH_INTERVAL_MS: String(INTERVAL) };
  return withScratchEngine(
    baseUrl,
    { extraSpendDays: 30, env },
    async ({ engine, started, databaseUrl, adminSecret }) => {
      const db = postgresJs()(databaseUrl, { max: 1, onnotice: () => undefined });
      try {
        log(`subscribing ${SUBSCRIBERS} over ${CONNECTIONS} connections`);
        return await measure(engine, started.port, adminSecret, db);
      } finally {
        await db.end();
      }
    },
  );
}
