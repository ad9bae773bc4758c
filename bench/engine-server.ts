import '../engine/production-default';
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { serve } from '@hono/node-server';
import { getVariableValues, Kind, parse, validate, type OperationDefinitionNode } from 'graphql';
import { createSessionResolver } from '../engine/serve/auth/resolve-session';
import { apiJwtKey } from '../engine/serve/auth/jwt';
import type { Session } from '../engine/core/session';
import { loadConfig, type EngineConfig } from '../engine/core/config';
import { createLogger, descriptorSink, type Logger, type LogLevel } from '../engine/core/logger';
import { keepConnections } from '../engine/serve/http/keep-alive';
import { compile } from '../engine/compile/execute/compile';
import { bindParams } from '../engine/compile/execute/params';
import { coalescedStatement } from '../engine/compile/execute/coalesce';
import type { ParamSlot } from '../engine/compile/sql/writer';
import { arrayLiteral } from '../engine/core/db/sql';
import { startEngine, type Started } from '../engine/main';
import { postgresJs } from '../engine/core/db/postgres';
import { buildQuery } from '../actions/analytics/builder';
import type { Dataset } from '../actions/analytics/dataset';
import * as anomalyActions from '../actions/anomalies';
import * as automationActions from '../actions/automation';
import * as cloudActions from '../actions/cloud';
import * as costActions from '../actions/cost';
import * as eventActions from '../actions/events';
import * as kubernetesActions from '../actions/kubernetes';
import * as recommendationActions from '../actions/recommendations';
import { parseSelector } from '../actions/logs/selector';
import { logsStatement, rangeStatement } from '../actions/logs/store';
import { copyTarget } from '../demo/load';
import { seedDemoScale } from '../demo/seed';
import { serveCalls } from './ipc';
import { watchGc } from './gc-watch';
import { extraSpendsSql, logLinesSql, sizeAccountsSql, sizeSpendsSql } from './data';
import { checkPlans, type PlanCheck, type StatementToCheck } from './plans';
import {
  BENCH_ROLE,
  BENCH_TENANT,
  handParams,
  requestBody,
  sessionHeaders,
  WORKLOADS,
  type Workload,
} from './workloads';
import { loopFor, type LoopResult, type LoopRun } from './in-process-loop';
import { startAllocProfile } from './alloc-profile';
import { primeBackends } from './backends';

/** The statement the engine runs for one workload, as its own modules compile and bind it. */
export interface CompiledWorkload {
  name: string;
  text: string;
  params: (string | null)[];
  /** Response keys in order, each with the output column that holds its JSON text. */
  fields: { alias: string; column: string }[];
}

export interface EngineStart {
  databaseUrl: string;
  adminSecret: string;
  extraSpendDays: number;
  /** Generated demo data of this scale (demo/seed.ts, through COPY) on top of the demo set; 0: none. */
  scale: number;
  /** Generated log lines (data.ts logLinesSql) written into `logs` before loading; 0: none. */
  logLines: number;
  /** The workloads to compile and explain. */
  workloads: string[];
  /** The spends table replaced by this many generated rows (data.ts sizeSpendsSql), for `-- size`; 0: not. */
  spendRows?: number;
  /** The database is a copy of a kept one (kept-data.ts) whose data these settings made: nothing is seeded. */
  copied?: boolean;
  /** Also serve `Engine.run` on a bare node:http server (no Hono), to split the engine's cost. */
  direct: boolean;
  /** More engine environment (the subscriptions bench's settings). */
  env?: Record<string, string>;
  /** A folder: profile what the process allocates from start to stop (alloc-profile.ts) and write it there. */
  allocProfDir?: string;
  /** Profile only the objects that lived into the old generation (alloc-profile.ts `old`). */
  allocProfOld?: boolean;
}

export interface EngineStarted {
  port: number;
  /** The bare node:http route to `Engine.run`, when asked for. */
  directPort?: number;
  poolSize: number;
  statementTimeoutMs: number;
  spendsRows: number;
  logsRows: number;
  workloads: CompiledWorkload[];
  /** The scale seeding, when asked for: a line for the report. */
  seeded?: string;
  /** The log lines' seeding, when asked for: a line for the report. */
  logsSeeded?: string;
  /** The CHECKPOINT after the data was written (`checkpoint`): a line for the report. */
  checkpointed: string;
  /** How the engine's API JWTs are verified (the key base64url-encoded), for the floor to verify the same JWTs. */
  jwt: { key: string; issuer: string; audience: string };
  /** EXPLAIN (ANALYZE, BUFFERS) of the workloads with a hand-written floor: the engine's statement and the floor's. */
  explains: Explained[];
  /** Custom against generic plans and JIT of each workload's engine statement (plans.ts). */
  plans: PlanCheck[];
  /** The engine's PostgreSQL backends that ran backends.ts PRIME. */
  primed: number;
  /** The generated spends of `-- size`, when asked for: a line for the report. */
  sizeSeeded?: string;
}

export interface Explained {
  name: string;
  /** Where the engine's statement comes from, for the report. */
  source: string;
  engineSql: string;
  engine: string;
  /** Absent when the floor runs the engine's own statement (the plan is the engine's). */
  floor?: string;
  /** The floor's statement, when it is not the engine's (absent: the floor runs the engine's statement). */
  floorSql?: string;
  /**
   * The same statements' generic plans (plan_cache_mode = force_generic_plan), when they have
   * parameters: engine and floor run them as prepared statements, and PostgreSQL may switch a
   * prepared statement to its generic plan after five executions on a connection.
   */
  engineGeneric?: string;
  floorGeneric?: string;
  /**
   * The engine's statement as concurrent requests run it (engine/compile/execute/coalesce.ts): its
   * multiplexed text, and the plan of `cohorts` cohorts of the request's values.
   */
  coalesced?: { sql: string; plan: string; cohorts: number };
}

/** Cohorts in the coalesced statement's EXPLAIN: a batch of concurrent requests. */
const COALESCED_COHORTS = 8;

let started: Started | undefined;
let server: Server | undefined;
let direct: Server | undefined;
const LOOPBACK = { port: 0, hostname: '127.0.0.1' };

/**
 * Diagnosis only: the same engine and session logic behind a plain node:http listener, so that the
 * gap between the engine and the floor splits into the HTTP layer (Hono, web Request/Response) and
 * the engine itself (document cache, variable coercion, plan lookup, binding, query).
 */
function directServer(s: Started, config: EngineConfig): Server {
  // The engine's own resolver: the admin secret's session, or a Bearer JWT's (the ex_ workloads).
  const resolveSession = createSessionResolver({
    auth: config.auth,
    revocations: s.revocations,
    adminSecret: config.adminSecret,
  });
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let r: { status: number; body: string };
      try {
        const session = await resolveSession(req.headers);
        r = await s.engine.run(JSON.parse(Buffer.concat(chunks).toString('utf8')), session);
      } catch (err) {
        r = s.engine.failure(err);
      }
      res.writeHead(r.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(r.body);
    });
  });
}

/**
 * A workload through Engine.run, as the HTTP route calls it once the body is read and the session
 * resolved (the admin secret's, once, by the engine's own resolver).
 */
async function engineLoop(s: Started, p: LoopRun): Promise<LoopResult & { batches: number; coalesced: number }> {
  const w = WORKLOADS.find((x) => x.name === p.workload)!;
  const config = s.engine.config;
  const resolveSession = createSessionResolver({
    auth: config.auth,
    revocations: s.revocations,
    adminSecret: config.adminSecret,
  });
  const session = await resolveSession(sessionHeaders(config.adminSecret!));
  const body = requestBody(w);
  const once = async () => {
    const r = await s.engine.run(JSON.parse(body) as never, session);
    if (r.status !== 200 || r.body.startsWith('{"errors"')) throw new Error(`${w.name}: ${r.body.slice(0, 300)}`);
  };
  const { batches, coalesced } = s.engine.coalescer;
  const result = await loopFor(once, p, gcTotals);
  return {
    ...result,
    batches: s.engine.coalescer.batches - batches,
    coalesced: s.engine.coalescer.coalesced - coalesced,
  };
}

async function listen(srv: Server): Promise<number> {
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  return (srv.address() as AddressInfo).port;
}

async function shut(srv: Server | undefined): Promise<void> {
  if (!srv) return;
  const closed = new Promise<void>((resolve) => srv.close(() => resolve()));
  srv.closeAllConnections();
  await closed;
}

/**
 * GraphQL document -> the engine's plan (compile.ts) -> the workload's one statement, bound for the
 * bench's admin-secret session; with its placeholders' types (`slots`), which the coalescer unnests.
 */
function compileWorkload(s: Started, w: Workload): CompiledWorkload & { slots: ParamSlot[] } {
  const role = s.engine.schemaFor(BENCH_ROLE);
  const session: Session = {
    role: BENCH_ROLE,
    vars: { 'x-hasura-role': BENCH_ROLE, 'x-hasura-tenant-id': BENCH_TENANT },
    isAdmin: true,
  };
  const document = parse(w.query);
  const errors = validate(role.schema, document);
  if (errors.length) throw new Error(`workload ${w.name}: ${errors[0].message}`);
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
  const coerced = getVariableValues(role.schema, operation.variableDefinitions ?? [], w.variables);
  if (coerced.errors) throw new Error(`workload ${w.name}: ${coerced.errors[0].message}`);
  const plan = compile(role, operation, {}, coerced.coerced, s.engine.config.limits);
  const query = plan.queries.length === 1 ? plan.queries[0] : undefined;
  if (!query || plan.fields.some((f) => f.from !== 'query'))
    throw new Error(`workload ${w.name} does not compile to one SQL statement`);
  return {
    name: w.name,
    text: query.text,
    slots: query.params,
    // The last placeholder: the bytes the answer may have (the engine's MAX_RESPONSE_BYTES).
    params: [...bindParams(query.params, coerced.coerced, session), String(s.engine.config.limits.maxResponseBytes)],
    fields: plan.fields.map((f) => ({ alias: f.alias, column: (f as { column: string }).column })),
  };
}

/** The statements the floor runs for the workloads without a hand-written floor: the engine's own. */
function compileWorkloads(s: Started, names: string[]): CompiledWorkload[] {
  return WORKLOADS.filter((w) => names.includes(w.name) && !w.floor && !w.handJson).map((w) => {
    const { slots: _, ...compiled } = compileWorkload(s, w);
    return compiled;
  });
}

type Explain = (text: string, params: (string | null)[]) => Promise<string>;

const isDataset = (x: unknown): x is Dataset =>
  typeof x === 'object' && x !== null && 'name' in x && 'from' in x && 'fields' in x && 'where' in x && 'tenant' in x;

/** The analytic operations' datasets by operation name (every dataset the action modules export), for the workloads' `analytic.dataset`. */
const DATASETS = new Map<string, Dataset>(
  [anomalyActions, automationActions, cloudActions, costActions, eventActions, kubernetesActions, recommendationActions]
    .flatMap((m) => Object.values(m).filter(isDataset))
    .map((d) => [d.name, d]),
);

/** The statement the builder makes for an analytic workload's request (as actions/analytics/operation.ts does). */
function buildAnalytic(w: Workload) {
  const ds = DATASETS.get(w.analytic!.dataset ?? 'spend_groupings_v2');
  if (!ds) throw new Error(`workload ${w.name}: no dataset ${w.analytic!.dataset}`);
  return buildQuery(ds, w.analytic!.request, BENCH_TENANT, w.analytic!.columns);
}

/** EXPLAIN (ANALYZE, BUFFERS) of the engine's statement for an analytic workload (the builder's, for the same request) and of the floor's. */
async function explainAnalytic(w: Workload, explain: Explain): Promise<Explained> {
  const built = buildAnalytic(w);
  return {
    name: w.name,
    source: 'built by actions/analytics/builder.ts',
    engineSql: built.text,
    engine: await explain(built.text, built.params),
    floor: await explain(w.floor!.sql, w.floor!.params),
  };
}

/** The same for a logs_query workload (actions/logs/store.ts, for the request as actions/logs.ts reads it), with generic plans. */
/** A logs_query workload's request as actions/logs.ts reads it. */
function logsQueryOf(w: Workload) {
  const r = w.logs!;
  return {
    tenant: BENCH_TENANT,
    account: r.account_id,
    selector: parseSelector(r.query),
    start: new Date(r.start).toISOString(),
    end: new Date(r.end).toISOString(),
    limit: r.limit,
  };
}

async function explainLogs(s: Started, w: Workload, explain: Explain): Promise<Explained> {
  const query = logsQueryOf(w);
  // The newest lines first; the whole range only when they fall short (actions/logs.ts): both shown.
  const stmt = logsStatement(query);
  const range = rangeStatement(query);
  const then = '\n-- then, only when the newest lines fall short (complete = false), the whole range:\n';
  return {
    name: w.name,
    source: 'built by actions/logs/store.ts',
    engineSql: `${stmt.text};${then}${range.text}`,
    engine: `${await explain(stmt.text, stmt.params)}${then}${await explain(range.text, range.params)}`,
    floor: await explain(w.floor!.sql, w.floor!.params),
    engineGeneric: await explainGeneric(s, stmt.text, stmt.params),
    floorGeneric: await explainGeneric(s, w.floor!.sql, w.floor!.params),
  };
}

/** A PostgreSQL-bound GraphQL workload: the engine's statement as it compiles it, and the floor's hand-written one. */
async function explainCompiled(s: Started, w: Workload, explain: Explain): Promise<Explained> {
  const c = compileWorkload(s, w);
  const floorParams = w.handJson ? handParams(w, BENCH_TENANT, w.variables) : undefined;
  return {
    name: w.name,
    source: 'compiled by engine/compile and bound for the admin-secret session,',
    engineSql: c.text,
    engine: await explain(c.text, c.params),
    floorSql: w.handJson?.sql,
    floor: floorParams ? await explain(w.handJson!.sql, floorParams) : undefined,
    ...(await explainCoalesced(c, explain)),
  };
}

/** EXPLAIN of the statement as a batch of COALESCED_COHORTS requests with the same values runs it. */
async function explainCoalesced(c: CompiledWorkload & { slots: ParamSlot[] }, explain: Explain) {
  const m = coalescedStatement({ text: c.text, bytesParam: c.params.length, params: c.slots });
  const params = c.params.map((p) => arrayLiteral(Array.from({ length: COALESCED_COHORTS }, () => p)));
  return { coalesced: { sql: m.text, plan: await explain(m.text, params), cohorts: COALESCED_COHORTS } };
}

const literal = (v: string | null) => (v === null ? 'NULL' : `'${v.replace(/'/g, "''")}'`);

/** EXPLAIN (ANALYZE, BUFFERS) EXECUTE of a statement PREPAREd on one connection, with its generic plan forced. */
async function explainGeneric(s: Started, text: string, params: (string | null)[]): Promise<string> {
  return s.db.transaction(async (tx) => {
    await tx.exec(`SET LOCAL plan_cache_mode = force_generic_plan; PREPARE bench_generic AS ${text}`);
    try {
      const rows = await tx.query(
        `EXPLAIN (ANALYZE, BUFFERS) EXECUTE bench_generic(${params.map(literal).join(', ')})`,
      );
      return rows.map((r) => String(r['QUERY PLAN'])).join('\n');
    } finally {
      await tx.exec('DEALLOCATE bench_generic');
    }
  });
}

/** The generated demo data of `scale` (seed.ts, through COPY), then vacuumed: a line for the report. */
async function seedScale(s: Started, databaseUrl: string, scale: number): Promise<string> {
  const raw = postgresJs()(databaseUrl, {
    max: 1,
    onnotice: () => undefined,
    connection: { statement_timeout: 0, application_name: 'bench-seed' },
  });
  try {
    const r = await seedDemoScale(s.db, { scale, target: copyTarget(raw) });
    return `${r.message} in ${r.seconds.toFixed(1)} s, ${await vacuumSeeded(raw, r.tables)}`;
  } finally {
    await raw.end({ timeout: 5 });
  }
}

/**
 * A CHECKPOINT once the data is written: the seeding's dirty pages are written out now, not by the
 * checkpointer while servers are measured (a spread checkpoint takes minutes after ten million rows).
 * It needs a superuser or pg_checkpoint; without, the report says so and the bench goes on.
 */
async function checkpoint(db: Started['db']): Promise<string> {
  const t0 = performance.now();
  try {
    await db.exec('CHECKPOINT');
    return `CHECKPOINT in ${((performance.now() - t0) / 1000).toFixed(1)} s`;
  } catch (err) {
    return `no CHECKPOINT (${(err as Error).message})`;
  }
}

/**
 * VACUUM (ANALYZE) of the tables the scale's seeding wrote (ten million rows at scale 100), as
 * autovacuum would leave them. Without it the rows were measured as COPY left them: the first
 * statements to read a page set its hint bits and dirtied it (the engine's EXPLAIN, run first, read
 * `shared read=85 written=80` where the floor's then hit 85), index-only scans visited the heap, and
 * autovacuum's insert threshold was due. It fell on whichever server ran first, the engine in the
 * first round: with one round, spend_by_day read 0.77 and 0.87 of its floor at 4 and 32 connections,
 * v2_events 0.80 and 0.87; after the VACUUM (3.7 s), 0.94 and 0.92, 0.98 and 1.02.
 */
async function vacuumSeeded(
  raw: ReturnType<ReturnType<typeof postgresJs>>,
  tables: { table: string; rows: number }[],
): Promise<string> {
  const t0 = performance.now();
  const names = tables.filter((t) => t.rows > 0).map((t) => t.table);
  if (names.length > 0) await raw.unsafe(`VACUUM (ANALYZE) ${names.join(', ')}`);
  return `VACUUM (ANALYZE) in ${((performance.now() - t0) / 1000).toFixed(1)} s`;
}

/**
 * `n` generated log lines (data.ts) through INSERT ... SELECT generate_series, in batches (a line of
 * progress each), on a connection without statement timeout; then VACUUM (ANALYZE) of the table, as
 * autovacuum would leave it.
 */
async function seedLogLines(databaseUrl: string, n: number): Promise<string> {
  const raw = postgresJs()(databaseUrl, {
    max: 1,
    onnotice: () => undefined,
    connection: { statement_timeout: 0, application_name: 'bench-seed' },
  });
  try {
    const t0 = performance.now();
    const batch = 500_000;
    for (let lo = 1; lo <= n; lo += batch) {
      const hi = Math.min(n, lo + batch - 1);
      await raw.unsafe(logLinesSql(lo, hi, n));
      process.stderr.write(
        `bench: log lines ${hi.toLocaleString('en-US')} of ${n.toLocaleString('en-US')} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`,
      );
    }
    const written = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    await raw.unsafe('VACUUM (ANALYZE) logs');
    const [size] = await raw.unsafe(
      `SELECT pg_size_pretty(pg_table_size('logs')) AS heap, pg_size_pretty(pg_indexes_size('logs')) AS indexes`,
    );
    return (
      `${n.toLocaleString('en-US')} log lines written in ${written.toFixed(1)} s (INSERT ... SELECT generate_series, indexes in place), ` +
      `VACUUM (ANALYZE) in ${((performance.now() - t1) / 1000).toFixed(1)} s; logs: ${size.heap} of table, ${size.indexes} of indexes`
    );
  } finally {
    await raw.end({ timeout: 5 });
  }
}

/**
 * The engine's statement of each named workload, for the custom/generic comparison: the builder's
 * (analytic), actions/logs/store.ts' newest-lines statement (which the engine plans anew each time),
 * or the compiled GraphQL query; writes are left out (timing them would write rows).
 */
function statementsToCheck(s: Started, names: string[]): StatementToCheck[] {
  const out: StatementToCheck[] = [];
  for (const w of WORKLOADS) {
    if (!names.includes(w.name) || w.writes || w.cleanup) continue;
    if (w.analytic) {
      const built = buildAnalytic(w);
      const prepared = !DATASETS.get(w.analytic.dataset ?? 'spend_groupings_v2')?.planEachRun;
      out.push({ name: w.name, text: built.text, params: built.params, prepared });
    } else if (w.logs) {
      const stmt = logsStatement(logsQueryOf(w));
      // Prepared, but never run on its generic plan (actions/logs/store.ts, PLANNED_EACH_RUN).
      out.push({ name: w.name, text: stmt.text, params: stmt.params, prepared: false });
    } else {
      try {
        const c = compileWorkload(s, w);
        out.push({ name: w.name, text: c.text, params: c.params, prepared: true });
      } catch (err) {
        out.push({ name: w.name, text: '', params: [], prepared: true, skipped: (err as Error).message });
      }
    }
  }
  return out;
}

/**
 * `rows` generated spend lines instead of the table's (data.ts sizeSpendsSql) for `-- size`, written
 * fast and as a real table would hold them: the indexes are dropped and made again after the load
 * (the same definitions), the foreign-key triggers are off while loading (the rows are valid by
 * construction), then VACUUM (ANALYZE). A line of progress per batch.
 */
async function seedSizeSpends(databaseUrl: string, rows: number): Promise<string> {
  const raw = postgresJs()(databaseUrl, {
    max: 1,
    onnotice: () => undefined,
    connection: { statement_timeout: 0, application_name: 'bench-seed' },
  });
  try {
    const t0 = performance.now();
    const indexes = await raw.unsafe(
      `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def, con.conname AS constraint_name
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid
       WHERE i.indrelid = 'spends'::regclass`,
    );
    await raw.unsafe(`SET maintenance_work_mem = '512MB'; SET session_replication_role = replica; TRUNCATE spends`);
    for (const ix of indexes)
      await raw.unsafe(
        ix.constraint_name ? `ALTER TABLE spends DROP CONSTRAINT ${ix.constraint_name}` : `DROP INDEX ${ix.name}`,
      );
    for (const statement of sizeAccountsSql(rows)) await raw.unsafe(statement);
    const batch = 2_000_000;
    for (let lo = 0; lo < rows; lo += batch) {
      const hi = Math.min(rows, lo + batch) - 1;
      await raw.unsafe(sizeSpendsSql(lo, hi, rows));
      process.stderr.write(
        `bench: spends ${(hi + 1).toLocaleString('en-US')} of ${rows.toLocaleString('en-US')} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`,
      );
    }
    const written = (performance.now() - t0) / 1000;
    for (const ix of indexes)
      await raw.unsafe(
        ix.constraint_name ? `ALTER TABLE spends ADD CONSTRAINT ${ix.constraint_name} PRIMARY KEY (id)` : ix.def,
      );
    await raw.unsafe('RESET session_replication_role');
    const indexed = (performance.now() - t0) / 1000;
    await raw.unsafe('VACUUM (ANALYZE) spends, cloud_accounts, cloud_resourses');
    const [size] = await raw.unsafe(
      `SELECT pg_size_pretty(pg_table_size('spends')) AS heap, pg_size_pretty(pg_indexes_size('spends')) AS indexes`,
    );
    return (
      `${rows.toLocaleString('en-US')} generated spend lines written in ${written.toFixed(1)} s (INSERT ... SELECT generate_series, indexes dropped), ` +
      `indexes made in ${(indexed - written).toFixed(1)} s, VACUUM (ANALYZE) in ${((performance.now() - t0) / 1000 - indexed).toFixed(1)} s; ` +
      `spends: ${size.heap} of table, ${size.indexes} of indexes (${indexes.map((i) => i.name).join(', ')})`
    );
  } finally {
    await raw.end({ timeout: 5 });
  }
}

/** EXPLAIN (ANALYZE, BUFFERS) of the engine's and the floor's statements of the named workloads that ask for it. */
async function explainWorkloads(s: Started, names: string[]): Promise<Explained[]> {
  const explain: Explain = async (text, params) =>
    (await s.db.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)).map((r) => String(r['QUERY PLAN'])).join('\n');
  const explains: Explained[] = [];
  for (const w of WORKLOADS) {
    if (!names.includes(w.name)) continue;
    if (w.analytic) explains.push(await explainAnalytic(w, explain));
    else if (w.logs) explains.push(await explainLogs(s, w, explain));
    else if (w.explain) explains.push(await explainCompiled(s, w, explain));
  }
  return explains;
}

/**
 * The engine's lines as deployed (LOG_LEVEL, info: an access line per request), made by its own
 * logger and written to /dev/null, so that the bench counts their cost; errors also to the bench's
 * standard error. (A real standard output, a pipe or a file, costs a little more a line.)
 */
function benchLogger(level: LogLevel): Logger {
  const lines = createLogger(level, descriptorSink(fs.openSync('/dev/null', 'w')));
  return (e) => {
    lines(e);
    if (e.level === 'error') process.stderr.write(`engine: ${JSON.stringify(e)}\n`);
  };
}

/** Ends the allocation profile and writes it, when one was asked for. */
let stopAllocProfile: (() => Promise<string>) | undefined;

/** The process's garbage collections, counted from its start (gc-watch.ts). */
const gcTotals = watchGc();

serveCalls({
  async start(p: EngineStart): Promise<EngineStarted> {
    if (p.allocProfDir) stopAllocProfile = await startAllocProfile(p.allocProfDir, p.allocProfOld);
    const config = loadConfig({
      DATABASE_URL: p.databaseUrl,
      ADMIN_SECRET: p.adminSecret,
      SEED_DEMO_DATA: 'true',
      ...p.env,
    });
    started = await startEngine(config, benchLogger(config.observability.logLevel));
    const seed = !p.copied;
    if (seed && p.extraSpendDays > 0) await started.db.exec(extraSpendsSql(p.extraSpendDays));
    const seeded = seed && p.scale > 0 ? await seedScale(started, p.databaseUrl, p.scale) : undefined;
    const logsSeeded = seed && p.logLines > 0 ? await seedLogLines(p.databaseUrl, p.logLines) : undefined;
    const sizeSeeded = seed && p.spendRows ? await seedSizeSpends(p.databaseUrl, p.spendRows) : undefined;
    // A copy keeps its statistics: analyzed again, it would draw a new sample, and plans that sit near
    // a cost tie could change from one run to the next of the same data.
    if (seed) await started.db.exec('ANALYZE');
    const checkpointed = await checkpoint(started.db);
    const [count] = await started.db.query('SELECT count(*)::int AS n FROM spends');
    const [logCount] = await started.db.query('SELECT count(*)::int AS n FROM logs');
    const s = started;
    const explains = await explainWorkloads(s, p.workloads);
    const plans = await checkPlans(s.db, statementsToCheck(s, p.workloads));
    const primed = await primeBackends((text) => s.db.query(text), config.poolSize);
    server = serve({ fetch: started.app.fetch, createServer: started.createServer, ...LOOPBACK }) as Server;
    keepConnections(server, config.keepAliveSeconds);
    started.attachWebSockets(server);
    await new Promise<void>((resolve) => (server!.listening ? resolve() : server!.once('listening', () => resolve())));
    if (p.direct) direct = directServer(started, config);
    return {
      port: (server.address() as AddressInfo).port,
      directPort: direct ? await listen(direct) : undefined,
      poolSize: config.poolSize,
      statementTimeoutMs: config.limits.statementTimeoutMs,
      spendsRows: Number(count.n),
      logsRows: Number(logCount.n),
      workloads: compileWorkloads(started, p.workloads),
      seeded,
      logsSeeded,
      sizeSeeded,
      checkpointed,
      explains,
      plans,
      primed,
      jwt: {
        key: Buffer.from(apiJwtKey(config.auth)).toString('base64url'),
        issuer: config.auth.jwtIssuer,
        audience: config.auth.jwtAudience,
      },
    };
  },
  cpu: () => process.cpuUsage(),
  gc: () => gcTotals(),
  /** `npm run bench -- inproc`: the workload through Engine.run in this process, no HTTP (in-process.ts). */
  loop: (p: LoopRun) => engineLoop(started!, p),
  /** Live queries: multiplexed statements run so far, and pollers, cohorts and subscribers now. */
  live: () => ({ statements: started?.live.statements ?? 0, ...started?.live.counts() }),
  /** With `gc` (the process runs with --expose-gc), a full collection first. */
  stats: (p?: { gc?: boolean }) => {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (p?.gc && gc) gc();
    return { memory: process.memoryUsage(), compilations: started?.engine.compilations ?? 0 };
  },
  async stop() {
    const allocProfile = await stopAllocProfile?.();
    started?.drain();
    await Promise.all([shut(server), shut(direct)]);
    await started?.close();
    setImmediate(() => process.exit(0));
    return { allocProfile };
  },
});
