import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';
import type postgres from 'postgres';
import { postgresJs } from '../engine/core/db/postgres';
import { HASURA_CLAIMS } from '../engine/serve/auth/jwt';
import type { CompiledWorkload } from './engine-server';
import { serveCalls } from './ipc';
import { watchGc } from './gc-watch';
import { floorRowsOf } from './compare';
import { BENCH_TENANT, floorAnswer, handParams, requestBody, WORKLOADS, type Workload } from './workloads';
import { loopFor, type LoopRun } from './in-process-loop';
import { FLOOR_APPLICATION_NAME, primeBackends } from './backends';

/**
 * The floor: a bare node:http route per workload that reads and parses the request body, runs the
 * very statement the engine generates (same text, same bound parameters) as a prepared statement
 * through postgres.js with the engine's pool size, and writes the response JSON around the text.
 * No GraphQL, no routing framework, no session: what is left is HTTP, JSON and the database.
 * Workloads with a `floor` of their own (the analytic actions, logs_query) run that hand-written
 * statement instead, and the route writes the rows in the shape of the engine's answer; those with a
 * `handJson` run a hand-written statement that builds the whole `data` object, with the tenant of the
 * request's session (a Bearer JWT verified as the engine does, see sessionTenants).
 */
export interface FloorStart {
  databaseUrl: string;
  poolSize: number;
  statementTimeoutMs: number;
  workloads: CompiledWorkload[];
  /** Workloads with a hand-written floor statement (workloads.ts `floor` or `handJson`), by name. */
  handWritten: string[];
  /** How to verify the engine's API JWTs (engine-server.ts EngineStarted.jwt). */
  jwt: { key: string; issuer: string; audience: string };
}

/**
 * The tenant of a request's session: the x-hasura-tenant-id header (the bench's admin-secret session),
 * or, for a Bearer JWT, its tenant claim once the JWT is verified with jose as the engine verifies it
 * (HS256 pinned, issuer, audience, expiry), remembered until it expires as the engine remembers it.
 * Unlike the engine, the floor does not check that the JWT's API token and user are still valid.
 */
function sessionTenants(jwt: FloorStart['jwt']) {
  const key = Buffer.from(jwt.key, 'base64url');
  const verified = new Map<string, { tenant: string; exp: number }>();
  return async (req: IncomingMessage): Promise<string> => {
    const auth = req.headers.authorization;
    if (!auth) return String(req.headers['x-hasura-tenant-id']);
    const token = auth.slice('Bearer '.length);
    const known = verified.get(token);
    if (known && known.exp > Date.now() / 1000) return known.tenant;
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: jwt.issuer,
      audience: jwt.audience,
      requiredClaims: ['exp', 'sub'],
    });
    const tenant = String((payload[HASURA_CLAIMS] as Record<string, unknown>)['x-hasura-tenant-id']);
    verified.set(token, { tenant, exp: payload.exp! });
    return tenant;
  };
}

/** The JSON of a hand-written workload's rows, in the shape of the engine's answer (workloads.ts floorAnswer). */
function handWrittenBody(w: Workload, rows: Record<string, unknown>[]): string {
  return floorAnswer(w, floorRowsOf(w.floor!.columns, rows));
}

let sql: postgres.Sql | undefined;
let server: Server | undefined;

/** A workload's floor: the request body in, the response body out; the tenant read only when needed. */
type FloorRoute = (body: string, tenant: () => Promise<string>) => Promise<string>;
let routes = new Map<string, FloorRoute>();

/**
 * Each workload's floor by name: its hand-written statement that builds the `data` object (`handJson`,
 * with the session's tenant), its hand-written statement whose rows the route writes (`floor`), or
 * the engine's own statement with the engine's own values.
 */
function floorRoutes(db: postgres.Sql, p: FloorStart): Map<string, FloorRoute> {
  const out = new Map<string, FloorRoute>();
  for (const w of p.workloads)
    out.set(w.name, async (body) => {
      JSON.parse(body);
      const [row] = await db.unsafe(w.text, w.params, { prepare: true });
      const parts = w.fields.map((f) => `${JSON.stringify(f.alias)}:${(row[f.column] as string | null) ?? 'null'}`);
      return `{"data":{${parts.join(',')}}}`;
    });
  for (const w of WORKLOADS.filter((x) => p.handWritten.includes(x.name))) {
    const variables = (body: string) => (JSON.parse(body).variables ?? {}) as Record<string, unknown>;
    if (w.handJson)
      out.set(w.name, async (body, tenant) => {
        const vars = variables(body);
        const [row] = await db.unsafe(w.handJson!.sql, handParams(w, await tenant(), vars), { prepare: true });
        return `{"data":${row.data as string}}`;
      });
    else if (w.floor)
      out.set(w.name, async (body) => {
        const vars = variables(body);
        const params = [...w.floor!.params, ...(w.floor!.variables ?? []).map((v) => JSON.stringify(vars[v]))];
        return handWrittenBody(w, await db.unsafe(w.floor!.sql, params, { prepare: true }));
      });
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The process's garbage collections, counted from its start (gc-watch.ts). */
const gcTotals = watchGc();

serveCalls({
  async start(p: FloorStart): Promise<{ port: number; primed: number }> {
    // postgres.js as the engine loads it, with its connection queue (engine/core/db/connection-queue.ts):
    // the floor is to differ from the engine only by what the engine adds.
    const db = postgresJs()(p.databaseUrl, {
      max: p.poolSize,
      prepare: true,
      onnotice: () => undefined,
      connection: { statement_timeout: p.statementTimeoutMs, application_name: FLOOR_APPLICATION_NAME },
    });
    sql = db;
    routes = floorRoutes(db, p);
    const tenantOf = sessionTenants(p.jwt);
    server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
      try {
        const route = req.method === 'POST' ? routes.get((req.url ?? '').slice('/floor/'.length)) : undefined;
        if (!route) {
          res.writeHead(404).end();
          return;
        }
        const body = await readBody(req);
        const answer = await route(body, () => tenantOf(req));
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(answer);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String((err as Error)?.message ?? err));
      }
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
    const primed = await primeBackends((text) => db.unsafe(text), p.poolSize);
    return { port: (server.address() as AddressInfo).port, primed };
  },
  cpu: () => process.cpuUsage(),
  gc: () => gcTotals(),
  /** `npm run bench -- inproc`: the workload's floor route in this process, no HTTP (in-process.ts). */
  loop: (p: LoopRun) => {
    const route = routes.get(p.workload)!;
    const body = requestBody(WORKLOADS.find((w) => w.name === p.workload)!);
    const tenant = () => Promise.resolve(BENCH_TENANT);
    return loopFor(async () => void (await route(body, tenant)), p, gcTotals);
  },
  stats: () => ({ memory: process.memoryUsage() }),
  async stop() {
    if (server) {
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    }
    await sql?.end({ timeout: 5 });
    setImmediate(() => process.exit(0));
    return true;
  },
});
