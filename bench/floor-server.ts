import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import type { CompiledWorkload } from './engine-server';
import { serveCalls } from './ipc';
import { floorAnswer, WORKLOADS, type Workload } from './workloads';

/**
 * The floor: a bare node:http route per workload that reads and parses the request body, runs the
 * very statement the engine generates (same text, same bound parameters) as a prepared statement
 * through postgres.js with the engine's pool size, and writes the response JSON around the text.
 * No GraphQL, no routing framework, no session: what is left is HTTP, JSON and the database.
 * Workloads with a `floor` of their own (the analytic actions) run that hand-written statement
 * instead (the analytic actions, logs_query), and the route writes the rows in the shape of the
 * engine's answer.
 */
export interface FloorStart {
  databaseUrl: string;
  poolSize: number;
  statementTimeoutMs: number;
  workloads: CompiledWorkload[];
  /** Workloads with a hand-written floor statement (workloads.ts `floor`), by name. */
  handWritten: string[];
}

/** The JSON of a hand-written workload's rows, in the shape of the engine's answer (workloads.ts floorAnswer). */
function handWrittenBody(w: Workload, rows: Record<string, unknown>[]): string {
  const cols = w.floor!.columns;
  const out = rows.map((row) =>
    Object.fromEntries(
      cols.map((c) => {
        const v = row[c.name];
        return [c.name, v instanceof Date ? v.toISOString() : (v ?? null)];
      }),
    ),
  );
  return floorAnswer(w, out);
}

let sql: postgres.Sql | undefined;
let server: Server | undefined;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

serveCalls({
  async start(p: FloorStart): Promise<{ port: number }> {
    const db = postgres(p.databaseUrl, {
      max: p.poolSize,
      prepare: true,
      onnotice: () => undefined,
      connection: { statement_timeout: p.statementTimeoutMs, application_name: 'bench-floor' },
    });
    sql = db;
    const routes = new Map(p.workloads.map((w) => [`/floor/${w.name}`, w]));
    const handRoutes = new Map(
      WORKLOADS.filter((w) => w.floor && p.handWritten.includes(w.name)).map((w) => [`/floor/${w.name}`, w]),
    );
    server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
      try {
        const hand = req.method === 'POST' ? handRoutes.get(req.url ?? '') : undefined;
        const w = req.method === 'POST' ? routes.get(req.url ?? '') : undefined;
        const body = await readBody(req);
        if (hand) {
          const vars = (JSON.parse(body).variables ?? {}) as Record<string, unknown>;
          const params = [...hand.floor!.params, ...(hand.floor!.variables ?? []).map((v) => JSON.stringify(vars[v]))];
          const rows = await db.unsafe(hand.floor!.sql, params, { prepare: true });
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          res.end(handWrittenBody(hand, rows));
          return;
        }
        if (!w) {
          res.writeHead(404).end();
          return;
        }
        JSON.parse(body);
        const [row] = await db.unsafe(w.text, w.params, { prepare: true });
        const parts = w.fields.map((f) => `${JSON.stringify(f.alias)}:${(row[f.column] as string | null) ?? 'null'}`);
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(`{"data":{${parts.join(',')}}}`);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String((err as Error)?.message ?? err));
      }
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
    return { port: (server.address() as AddressInfo).port };
  },
  cpu: () => process.cpuUsage(),
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
