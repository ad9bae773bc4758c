/**
 * `npm run bench -- soak`: a steady mixed load with a Bearer JWT, as API consumers send it, on real
 * PostgreSQL: the reference's example reads, the bench's nested and by-primary-key queries, and an
 * update, in turn, by BENCH_SOAK_CONNECTIONS (16) keep-alive connections for BENCH_SOAK_SECONDS (60).
 * The JWT comes from the token exchange of an API token made for the demo's Acme administrator, so
 * the session check is part of every request.
 *
 * Prints the requests answered, errors of every kind (transport, non-2xx, GraphQL errors in a 200
 * answer; goal 0), and the engine's resident memory over the run: the mean of its first and last
 * tenth and their ratio (goal: within 20%). Settings: BENCH_DATABASE_URL or DATABASE_URL.
 */
import autocannon from 'autocannon';
import * as fs from 'node:fs';
import { createTokenFor } from '../engine/cli/admin';
import { loadConfig } from '../engine/core/config';
import { connectDatabase } from '../engine/core/db/connect';
import { DEMO } from '../demo/demo-data';
import { EXAMPLES, withIds } from '../tests/support/examples';
import { withScratchEngine } from './scratch-engine';
import { WORKLOADS } from './workloads';

const log = (msg: string) => process.stderr.write(`bench soak: ${msg}\n`);
const CONNECTIONS = Math.max(1, Number(process.env.BENCH_SOAK_CONNECTIONS) || 16);
const SECONDS = Math.max(10, Number(process.env.BENCH_SOAK_SECONDS) || 60);
const acme = DEMO.tenants.acme;
const EXAMPLE_READS = [
  'ListCloudAccounts',
  'SpendByAccount',
  'GetRecommendations',
  'RecentEvents',
  'ListAutoPilotPolicies',
  'ListTenantUsers',
  'CloudAccounts',
] as const;

/** The request bodies of the mix, each named. */
function mix(): [string, string][] {
  const ids = { account: acme.cloudAccounts.aws, integration: acme.integrationId };
  const bodies: [string, string][] = EXAMPLE_READS.map((name) => {
    const ex = EXAMPLES[name] as { query: string; variables?: unknown };
    return [name, JSON.stringify({ query: ex.query, variables: withIds(ex.variables, ids) })];
  });
  for (const w of WORKLOADS.filter((x) => x.name === 'nested' || x.name === 'by_pk'))
    bodies.push([w.name, JSON.stringify({ query: w.query, variables: w.variables })]);
  bodies.push([
    'update_cloud_accounts_by_pk',
    JSON.stringify({
      query: `mutation Touch($id: uuid!) { update_cloud_accounts_by_pk(pk_columns: {id: $id}, _set: {status: "active"}) { id status } }`,
      variables: { id: acme.cloudAccounts.aws },
    }),
  ]);
  return bodies;
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** A JWT for Acme's administrator, through the token exchange, as an API consumer gets one. */
export async function bearer(databaseUrl: string, base: string): Promise<string> {
  const db = await connectDatabase(loadConfig({ DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '1' }));
  let secret: string;
  try {
    secret = (await createTokenFor(db, { email: acme.users.admin.username, name: 'bench soak' })).secret;
  } finally {
    await db.close();
  }
  const res = await fetch(`${base}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: acme.users.admin.username, secret }),
  });
  if (res.status !== 200) throw new Error(`token exchange answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** Each body once: the mix must be error-free before it is worth loading. */
async function checkMix(url: string, headers: Record<string, string>, bodies: [string, string][]): Promise<void> {
  for (const [name, body] of bodies) {
    const res = await fetch(url, { method: 'POST', headers, body });
    const text = await res.text();
    if (res.status !== 200 || text.startsWith('{"errors"') || text.includes('"errors":['))
      throw new Error(`${name} answered ${res.status}: ${text.slice(0, 300)}`);
  }
}

interface SoakResult {
  result: autocannon.Result;
  graphqlErrors: number;
  firstError?: string;
  rss: number[];
}

/** The mix in turn on every connection, RSS sampled each second. */
function load(url: string, headers: Record<string, string>, bodies: [string, string][], pid: number) {
  return new Promise<SoakResult>((resolve, reject) => {
    const out = { graphqlErrors: 0, firstError: undefined as string | undefined, rss: [] as number[] };
    const sampler = setInterval(() => out.rss.push(rssMb(pid)), 1000);
    const onResponse = (status: number, body: string) => {
      if (status === 200 && !body.startsWith('{"errors"') && !body.includes('"errors":[')) return;
      out.graphqlErrors += status === 200 ? 1 : 0;
      out.firstError ??= `${status} ${body.slice(0, 300)}`;
    };
    autocannon(
      {
        url,
        method: 'POST',
        headers,
        connections: CONNECTIONS,
        duration: SECONDS,
        pipelining: 1,
        timeout: 30,
        requests: bodies.map(([, body]) => ({ method: 'POST', body, onResponse })),
      },
      (err, result) => {
        clearInterval(sampler);
        if (err) reject(err);
        else resolve({ result, ...out });
      },
    );
  });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function report(s: SoakResult, names: string[]): number {
  const r = s.result;
  const errors = r.errors + r.timeouts + r.non2xx + s.graphqlErrors;
  const tenth = Math.max(1, Math.floor(s.rss.length / 10));
  const first = mean(s.rss.slice(0, tenth));
  const last = mean(s.rss.slice(-tenth));
  const ratio = last / first;
  process.stdout.write(
    `${SECONDS} s of mixed load at ${CONNECTIONS} connections with a Bearer JWT (${names.join(', ')}):\n` +
      `  ${r.requests.total} requests, ${r.requests.average.toFixed(0)} req/s; errors ${errors} (transport ${r.errors}, timeouts ${r.timeouts}, non-2xx ${r.non2xx}, GraphQL errors ${s.graphqlErrors}) (goal 0)\n` +
      (s.firstError ? `  first error: ${s.firstError}\n` : '') +
      `  RSS: first tenth ${first.toFixed(0)} MB, last tenth ${last.toFixed(0)} MB, ratio ${ratio.toFixed(2)}; min ${Math.min(...s.rss).toFixed(0)}, max ${Math.max(...s.rss).toFixed(0)} MB (goal: within 20%)\n`,
  );
  return errors === 0 && ratio <= 1.2 && ratio >= 0.8 ? 0 : 1;
}

export async function runSoak(baseUrl: string): Promise<number> {
  log('starting the engine on a scratch database (demo data and 30 extra days of spend lines)');
  return withScratchEngine(baseUrl, { extraSpendDays: 30 }, async ({ engine, started, databaseUrl }) => {
    const base = `http://127.0.0.1:${started.port}`;
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${await bearer(databaseUrl, base)}` };
    const bodies = mix();
    await checkMix(`${base}/api/graphql`, headers, bodies);
    log(`the mix answers without errors; loading for ${SECONDS} s`);
    const result = await load(`${base}/api/graphql`, headers, bodies, engine.pid);
    return report(
      result,
      bodies.map(([name]) => name),
    );
  });
}
