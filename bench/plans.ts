import type { Database, Queryable } from '../engine/core/db/database';
import { median } from './rounds';

/**
 * Custom against generic plans of the engine's statements, and what PostgreSQL's JIT does to them.
 * The engine runs most statements as named prepared statements (postgres.js `prepare`), and
 * PostgreSQL may run a prepared statement with its generic plan (made once, without the values) from
 * the sixth execution on a connection; issue 20 asks that a generic plan never be more than 10 %
 * slower than a custom one, or that the engine not prepare that statement.
 *
 * Each statement is PREPAREd on one connection and run as `EXPLAIN (ANALYZE, TIMING OFF, FORMAT
 * JSON) EXECUTE`, in turns: plan_cache_mode = force_custom_plan, force_generic_plan, and (when JIT
 * came into a custom plan) force_custom_plan with jit = off. A run's time is PostgreSQL's planning
 * plus execution time (the planning of a custom plan happens at each EXECUTE and is counted; the
 * generic plan is made at its first EXECUTE, which is not counted); the medians are compared. No
 * network or client time is in them.
 */
export interface StatementToCheck {
  name: string;
  text: string;
  params: (string | null)[];
  /** Whether the engine may run it on a prepared statement's generic plan (false: planned for its values each time). */
  prepared: boolean;
  /** Not timed, and why (e.g. the workload does not compile to one statement). */
  skipped?: string;
}

export interface PlanCheck {
  name: string;
  prepared: boolean;
  /** The jit setting of the engine's connections (DATABASE_JIT), under which custom and generic are timed. */
  engineJit?: string;
  /** max_parallel_workers_per_gather of the engine's connections (DATABASE_PARALLEL_WORKERS), likewise. */
  engineParallelWorkers?: string;
  /** Median planning + execution ms per run. */
  customMs: number;
  genericMs: number;
  /** Custom plans with jit = on and with jit = off; both only when JIT came into the plan with jit = on. */
  jitOnMs?: number;
  jitOffMs?: number;
  runs: number;
  /** JIT in a custom plan with jit = on: its total time (compilation) in ms and the functions compiled; undefined when it did not come in. */
  jit?: { ms: number; functions: number };
  /** Why it was not timed. */
  skipped?: string;
}

interface Run {
  ms: number;
  jit?: { ms: number; functions: number };
}

const literal = (v: string | null) => (v === null ? 'NULL' : `'${v.replace(/'/g, "''")}'`);

/** One EXPLAIN (ANALYZE) EXECUTE: planning + execution time, and the JIT section if any. */
async function explainRun(tx: Queryable, name: string, args: string): Promise<Run> {
  const rows = await tx.query(`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) EXECUTE ${name}${args}`, [], {
    prepare: false,
  });
  const raw = rows[0]['QUERY PLAN'];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Record<string, unknown>[];
  const top = doc[0] as { 'Planning Time': number; 'Execution Time': number; JIT?: Record<string, unknown> };
  // TIMING OFF leaves JIT's own timing out: NaN until a run with timing fills it in (jitTiming).
  const jit = top.JIT as { Functions: number; Timing?: { Total: number } } | undefined;
  const jitMs = jit?.Timing?.Total ?? NaN;
  return {
    ms: top['Planning Time'] + top['Execution Time'],
    jit: jit ? { ms: jitMs, functions: jit.Functions } : undefined,
  };
}

/** JIT's compilation time of one run (EXPLAIN with timing, which the timed runs leave out). */
async function jitTiming(tx: Queryable, name: string, args: string): Promise<number> {
  const rows = await tx.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}${args}`, [], { prepare: false });
  const raw = rows[0]['QUERY PLAN'];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { JIT?: { Timing?: { Total: number } } }[];
  return doc[0].JIT?.Timing?.Total ?? NaN;
}

/** The three modes in turns until `budgetMs` of wall time or `maxRuns` runs each (at least `minRuns`). */
async function timeModes(
  tx: Queryable,
  name: string,
  args: string,
  budgetMs: number,
): Promise<Omit<PlanCheck, 'name' | 'prepared'>> {
  // Custom and generic plans under the engine's own jit and parallel workers settings (DATABASE_JIT,
  // DATABASE_PARALLEL_WORKERS: its connection's); JIT itself seen with jit = on.
  const [{ jit: engineJit, workers }] = await tx.query(
    `SELECT current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS workers`,
    [],
    { prepare: false },
  );
  const other = engineJit === 'on' ? 'off' : 'on';
  const mode = (m: string, jit = String(engineJit)) =>
    tx.exec(`SET LOCAL plan_cache_mode = ${m}; SET LOCAL jit = ${jit}`);
  // The generic plan is made at its first execution: not counted.
  await mode('force_generic_plan');
  await explainRun(tx, name, args);
  await mode('force_custom_plan', 'on');
  const probe = await explainRun(tx, name, args);
  const [custom, generic, otherJit]: Run[][] = [[], [], []];
  const t0 = performance.now();
  const [minRuns, maxRuns] = [3, 30];
  for (let i = 0; i < maxRuns && (i < minRuns || performance.now() - t0 < budgetMs); i++) {
    await mode('force_custom_plan');
    custom.push(await explainRun(tx, name, args));
    await mode('force_generic_plan');
    generic.push(await explainRun(tx, name, args));
    if (probe.jit) {
      await mode('force_custom_plan', other);
      otherJit.push(await explainRun(tx, name, args));
    }
  }
  if (probe.jit) {
    await mode('force_custom_plan', 'on');
    probe.jit.ms = await jitTiming(tx, name, args);
  }
  const customMs = median(custom.map((r) => r.ms));
  const otherMs = otherJit.length ? median(otherJit.map((r) => r.ms)) : undefined;
  return {
    engineJit: String(engineJit),
    engineParallelWorkers: String(workers),
    customMs,
    genericMs: median(generic.map((r) => r.ms)),
    jitOnMs: engineJit === 'on' ? customMs : otherMs,
    jitOffMs: engineJit === 'on' ? otherMs : customMs,
    runs: custom.length,
    jit: probe.jit,
  };
}

/** Custom and generic plans of each statement, on one connection of `db`, each in a transaction of its own. */
export async function checkPlans(db: Database, statements: StatementToCheck[], budgetMs = 1500): Promise<PlanCheck[]> {
  const out: PlanCheck[] = [];
  for (const [i, s] of statements.entries()) {
    // A name of its own: PREPARE outlives a transaction that failed, and DEALLOCATE cannot run in one.
    const name = `bench_plan_${i}`;
    if (s.skipped) {
      out.push({ name: s.name, prepared: s.prepared, customMs: NaN, genericMs: NaN, runs: 0, skipped: s.skipped });
      continue;
    }
    const args = s.params.length ? `(${s.params.map(literal).join(', ')})` : '';
    try {
      const timed = await db.transaction(async (tx) => {
        await tx.exec(`PREPARE ${name} AS ${s.text}`);
        try {
          return await timeModes(tx, name, args, budgetMs);
        } finally {
          await tx.exec(`DEALLOCATE ${name}`);
        }
      });
      out.push({ name: s.name, prepared: s.prepared, ...timed });
    } catch (err) {
      const skipped = String((err as Error)?.message ?? err).split('\n')[0];
      out.push({ name: s.name, prepared: s.prepared, customMs: NaN, genericMs: NaN, runs: 0, skipped });
    }
  }
  return out;
}
