/**
 * Statements compared on what they cost PostgreSQL, run in turn so that the machine's drift falls on
 * each alike. On the bench's machine one statement's cost moved by 15% or more between runs of a few
 * seconds, more than the differences between an engine statement and its hand-written floor, and a
 * comparison of one run of each read noise as a finding.
 *
 *   node dist/bench/statement-ab.js <spec.json> [--seconds 40] [--connections 1] [--chunk 50]
 *
 * The spec: {"database": "postgres://...", "params": [...], "statements": {"name": "SQL" or {"sql":
 * "SQL", "params": [...], "prepare": false}, ...}, "cleanup": "SQL"}. `database` defaults to
 * DATABASE_URL; a statement without params of its own takes the spec's; one with `"prepare": false`
 * is planned with its values on every run (the engine's `prepare: false` statements), the others
 * prepared; `cleanup` (optional: a DELETE of the rows an INSERT wrote) runs every 10 rounds. A statement from the engine is the `sql` of its LOG_LEVEL=debug
 * "compiled" line.
 *
 * A round runs each statement `chunk` times on each of `connections` connections, prepared as the
 * engine and the floor run theirs, the statements in turn (the order reversed every other round).
 * Printed per statement: the median over rounds of the wall time per statement (on one connection,
 * the round trip and PostgreSQL's time), and the CPU of the pool's backends per statement over all
 * rounds, read from /proc (where PostgreSQL runs on this machine).
 */
import { readFileSync } from 'node:fs';
import { postgresJs } from '../engine/core/db/postgres';
import { isLocalDatabase, processesCpuMicros } from './cpu';
import { median } from './rounds';
import { table } from './table';

export interface AbStatement {
  name: string;
  sql: string;
  params: unknown[];
  /** false: sent unnamed and planned with its values on every run, as the engine sends `prepare: false` statements. */
  prepare: boolean;
}

export interface AbSpec {
  database: string;
  statements: AbStatement[];
  cleanup?: string;
}

/** The spec file's content, checked: every statement has its SQL and its params. */
export function parseSpec(json: unknown, env: NodeJS.ProcessEnv = process.env): AbSpec {
  const spec = json as {
    database?: unknown;
    params?: unknown;
    statements?: Record<string, unknown>;
    cleanup?: unknown;
  };
  const database = typeof spec.database === 'string' ? spec.database : env.DATABASE_URL;
  if (!database) throw new Error('the spec names no "database", and DATABASE_URL is not set');
  const shared = spec.params ?? [];
  if (!Array.isArray(shared)) throw new Error('"params" must be an array');
  const entries = Object.entries(spec.statements ?? {});
  if (entries.length < 1) throw new Error('"statements" must name at least one statement');
  const statements = entries.map(([name, s]): AbStatement => {
    const own = typeof s === 'string' ? { sql: s } : (s as { sql?: unknown; params?: unknown; prepare?: unknown });
    if (typeof own.sql !== 'string') throw new Error(`statement "${name}" has no "sql" string`);
    const params = own.params ?? shared;
    if (!Array.isArray(params)) throw new Error(`statement "${name}": "params" must be an array`);
    if (own.prepare !== undefined && typeof own.prepare !== 'boolean')
      throw new Error(`statement "${name}": "prepare" must be true or false`);
    return { name, sql: own.sql, params, prepare: own.prepare ?? true };
  });
  if (spec.cleanup !== undefined && typeof spec.cleanup !== 'string') throw new Error('"cleanup" must be SQL text');
  return { database, statements, ...(spec.cleanup ? { cleanup: spec.cleanup } : {}) };
}

export interface AbOptions {
  seconds: number;
  connections: number;
  chunk: number;
}

export function parseOptions(argv: string[]): { file: string; options: AbOptions } {
  const options: AbOptions = { seconds: 40, connections: 1, chunk: 50 };
  let file: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i].replace(/^--/, '');
    if (!argv[i].startsWith('--')) file = argv[i];
    else if (flag in options) {
      const n = Number(argv[++i]);
      if (!(n > 0)) throw new Error(`--${flag} needs a positive number`);
      options[flag as keyof AbOptions] = n;
    } else throw new Error(`unknown option ${argv[i]}`);
  }
  if (!file) throw new Error('usage: statement-ab <spec.json> [--seconds 40] [--connections 1] [--chunk 50]');
  return { file, options };
}

interface Measured {
  /** Each round's wall time per statement, µs. */
  wall: number[];
  backendMicros: number;
  runs: number;
}

/** One row per statement: its median wall time and its backends' CPU, µs per statement. */
export function summarise(measured: Map<string, Measured>): string[][] {
  return [...measured].map(([name, m]) => [
    name,
    String(m.wall.length),
    median(m.wall).toFixed(0),
    m.runs ? (m.backendMicros / m.runs).toFixed(0) : '-',
  ]);
}

async function main(): Promise<void> {
  const { file, options } = parseOptions(process.argv.slice(2));
  const spec = parseSpec(JSON.parse(readFileSync(file, 'utf8')));
  const db = postgresJs()(spec.database, { max: options.connections, onnotice: () => undefined });
  try {
    // As many backends as connections, each found while the others sleep beside it.
    const pids = await Promise.all(
      Array.from({ length: options.connections }, () =>
        db.unsafe('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)').then((r) => Number(r[0].pid)),
      ),
    );
    const local = isLocalDatabase(spec.database);
    const measured = new Map(spec.statements.map((s) => [s.name, { wall: [], backendMicros: 0, runs: 0 } as Measured]));
    const runChunk = (s: AbStatement) =>
      Promise.all(
        Array.from({ length: options.connections }, async () => {
          for (let i = 0; i < options.chunk; i++) await db.unsafe(s.sql, s.params as never[], { prepare: s.prepare });
        }),
      );
    for (const s of spec.statements) await runChunk(s); // prepared and warm before anything counts
    const end = Date.now() + options.seconds * 1000;
    for (let round = 0; Date.now() < end; round++) {
      const order = round % 2 ? [...spec.statements].reverse() : spec.statements;
      for (const s of order) {
        const cpu = local ? processesCpuMicros(pids) : 0;
        const began = performance.now();
        await runChunk(s);
        const m = measured.get(s.name)!;
        m.wall.push(((performance.now() - began) * 1000) / options.chunk);
        if (local) {
          m.backendMicros += processesCpuMicros(pids) - cpu;
          m.runs += options.chunk * options.connections;
        }
      }
      if (spec.cleanup && round % 10 === 9) await db.unsafe(spec.cleanup);
    }
    if (spec.cleanup) await db.unsafe(spec.cleanup);
    const head = ['statement', 'rounds', 'wall µs/statement (median)', 'backends CPU µs/statement'];
    process.stdout.write(`${options.connections} connection(s), chunks of ${options.chunk}, ${options.seconds} s\n`);
    process.stdout.write(`${table(head, summarise(measured))}\n`);
  } finally {
    await db.end();
  }
}

if (require.main === module)
  main().catch((err: unknown) => {
    process.stderr.write(`statement-ab: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
