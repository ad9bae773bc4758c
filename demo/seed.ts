/*
 * demo/: the demo data set (demo-data.ts, columns.ts, the .sql files) and its generated scale
 * (scale.ts, load.ts), loaded by the composition root on a first start and by `npm run seed`
 * (seed-cli.ts). Imports engine/core only.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectRoot } from '../engine/core/config';
import type { Database, Queryable } from '../engine/core/db/database';
import { DEMO, demoDataSql } from './demo-data';
import { insertTarget, QuietProgress, type BulkTarget, type Progress, type TableReport } from './load';
import { accountsForScale, generatedTables, planScale, type GeneratedTable, type ScalePlan } from './scale';

/**
 * Loads the small demo data set, once: only when the platform's `tenant` table exists and is empty,
 * so a restart or a database with real data is left alone. Returns whether it seeded.
 */
export async function seedDemoData(db: Database): Promise<boolean> {
  const [row] = await db.query(`SELECT to_regclass('public.tenant') IS NOT NULL AS present`);
  if (!row.present) return false;
  const [count] = await db.query('SELECT count(*)::int AS n FROM public.tenant');
  if (Number(count.n) > 0) return false;
  await db.transaction(async (tx) => {
    await tx.exec(demoDataSql());
    // Tables of later families keep their demo rows in SQL files of their own, where present.
    for (const file of DEMO_SQL_FILES) {
      const full = path.join(projectRoot(), 'demo', file);
      if (fs.existsSync(full)) await tx.exec(fs.readFileSync(full, 'utf8'));
    }
  });
  return true;
}

/** Demo rows written as SQL (read from the sources, so they need no build step). */
const DEMO_SQL_FILES = ['workflows.sql', 'k8s-metrics.sql', 'recommendation-security.sql', 'ai-catalogue.sql'];

// ---------------------------------------------------------------------------------------------
// Generated data at a scale (demo/scale.ts), on top of the fixed set

/** Records what the generated data holds, so that a second run adds only what is missing. */
export const SEED_STATE_TABLE = 'demo_seed';
/** Any fixed number: the advisory lock that keeps two seeders from running at once. */
const SEED_LOCK = 74_112_034;

export interface SeedState {
  scale: number;
  tenants: number;
  /** Generated accounts 1..accounts are there. */
  accounts: number;
}

export type ForeignKeyMode = 'per-row' | 'after-load';

export interface ScaleSeedResult {
  /** False when the database already held that scale (nothing was written). */
  seeded: boolean;
  message: string;
  /** What the database holds now. */
  state: SeedState;
  plan?: ScalePlan;
  tables: TableReport[];
  /** How foreign keys were checked, and the time the after-load checks took. */
  foreignKeys?: { mode: ForeignKeyMode; constraints: number; seconds: number };
  seconds: number;
}

export interface ScaleSeedOptions {
  /** 1 is about 100,000 spend lines; default 1. */
  scale?: number;
  /** Tenants in all (Acme, Globex, then generated ones); default 2, or what the database holds. */
  tenants?: number;
  /** Where the rows go; default multi-row INSERTs through `db`. */
  target?: BulkTarget;
  progress?: Progress;
  /**
   * How foreign keys are checked. 'per-row': by the database, row by row as they go in (its
   * triggers). 'after-load' (default): a superuser (PGlite's user is one) loads with
   * session_replication_role = replica, which skips those per-row triggers, then checks every
   * foreign key of the loaded tables with one query each before committing: the same guarantee,
   * three to four times faster on PostgreSQL. It falls back to 'per-row' when the user is not a
   * superuser or a loaded table has an INSERT trigger of its own (which replica mode would skip).
   */
  foreignKeys?: ForeignKeyMode;
  /** Called once the plan is known, before any row is written. */
  onPlan?: (plan: ScalePlan, state: SeedState | null) => void;
}

export async function readSeedState(q: Queryable): Promise<SeedState | null> {
  const [reg] = await q.query(`SELECT to_regclass('public.${SEED_STATE_TABLE}') IS NOT NULL AS present`);
  if (!reg || !(reg.present === true || reg.present === 't')) return null;
  const [row] = await q.query(
    `SELECT scale::float8 AS scale, tenants, accounts FROM public.${SEED_STATE_TABLE} WHERE id = 1`,
  );
  return row ? { scale: Number(row.scale), tenants: Number(row.tenants), accounts: Number(row.accounts) } : null;
}

/**
 * Adds the generated data of `scale` for the demo tenants, on top of the fixed set (which must be
 * there: see `seedDemoData`). Safe to run again: the state table records what is there, the same
 * scale adds nothing and a larger one adds only the accounts it lacks. Everything is written in one
 * transaction, then the tables are analysed.
 */
export async function seedDemoScale(db: Database, opts: ScaleSeedOptions = {}): Promise<ScaleSeedResult> {
  const scale = opts.scale ?? 1;
  const wanted = accountsForScale(scale);
  const target = opts.target ?? insertTarget(db);
  const progress = opts.progress ?? new QuietProgress();
  const started = performance.now();
  await requireFixedSet(db);
  const result = await target.transaction((tx, load) => seedInTransaction(tx, load, { scale, wanted, progress, opts }));
  if (result.seeded)
    await db.exec(
      `ANALYZE ${result.tables
        .filter((t) => t.rows > 0)
        .map((t) => t.table)
        .join(', ')}`,
    );
  return { ...result, seconds: (performance.now() - started) / 1000 };
}

async function requireFixedSet(db: Database): Promise<void> {
  const fixed = await db.query('SELECT count(*)::int AS n FROM public.tenant WHERE id = ANY($1::uuid[])', [
    `{${DEMO.tenants.acme.id},${DEMO.tenants.globex.id}}`,
  ]);
  if (Number(fixed[0]!.n) !== 2) {
    throw new Error(
      'generated demo data goes on top of the demo set, and this database does not hold it (Acme and Globex): use an empty database',
    );
  }
}

type LoadTables = (tables: readonly GeneratedTable[], progress: Progress) => Promise<TableReport[]>;

interface SeedRun {
  scale: number;
  /** The accounts `scale` asks for. */
  wanted: number;
  progress: Progress;
  opts: ScaleSeedOptions;
}

/** The seeding itself, inside the target's transaction: what is there, what to add, then the rows and the new state. */
async function seedInTransaction(
  tx: Queryable,
  load: LoadTables,
  run: SeedRun,
): Promise<Omit<ScaleSeedResult, 'seconds'>> {
  const { scale, wanted, opts } = run;
  const state = await lockedSeedState(tx);
  const tenants = opts.tenants ?? state?.tenants ?? 2;
  if (state && state.tenants !== tenants) {
    throw new Error(
      `this database holds generated data for ${state.tenants} tenants; seed it with --tenants ${state.tenants}, or start from an empty database`,
    );
  }
  if (state && state.accounts >= wanted) {
    return {
      seeded: false,
      state,
      tables: [] as TableReport[],
      message: `the generated data of scale ${state.scale} (${state.accounts} accounts, ${state.tenants} tenants) is there already; nothing to add`,
    };
  }
  const plan = planScale({ scale, tenants }, state?.accounts ?? 0);
  const { tables, foreignKeys } = await loadPlan(tx, load, plan, state, run);
  const next: SeedState = { scale, tenants, accounts: plan.toAccount };
  await tx.query(
    `INSERT INTO public.${SEED_STATE_TABLE} (id, scale, tenants, accounts) VALUES (1, $1::float8, $2::int, $3::int)
       ON CONFLICT (id) DO UPDATE SET scale = EXCLUDED.scale, tenants = EXCLUDED.tenants, accounts = EXCLUDED.accounts, seeded_at = now()`,
    [String(next.scale), String(next.tenants), String(next.accounts)],
  );
  const rows = tables.reduce((sum, t) => sum + t.rows, 0);
  return {
    seeded: true,
    state: next,
    plan,
    tables,
    foreignKeys,
    message: `added generated accounts ${plan.fromAccount + 1} to ${plan.toAccount} for ${tenants} tenants (scale ${scale}): ${rows.toLocaleString('en-US')} rows`,
  };
}

/** Takes the seeders' lock, creates the state table when missing, and reads it. */
async function lockedSeedState(tx: Queryable): Promise<SeedState | null> {
  await tx.query(`SELECT pg_advisory_xact_lock(${SEED_LOCK})`);
  await tx.exec(`CREATE TABLE IF NOT EXISTS public.${SEED_STATE_TABLE} (
      id integer PRIMARY KEY CHECK (id = 1),
      scale double precision NOT NULL,
      tenants integer NOT NULL,
      accounts integer NOT NULL,
      seeded_at timestamptz NOT NULL DEFAULT now())`);
  return readSeedState(tx);
}

/** Loads the tables of `plan`, checking foreign keys per row or after the load (see ScaleSeedOptions.foreignKeys). */
async function loadPlan(
  tx: Queryable,
  load: LoadTables,
  plan: ScalePlan,
  state: SeedState | null,
  run: SeedRun,
): Promise<{ tables: TableReport[]; foreignKeys: ScaleSeedResult['foreignKeys'] }> {
  const generated = generatedTables(plan);
  const names = generated.filter((t) => t.count > 0).map((t) => t.name);
  const mode =
    run.opts.foreignKeys === 'per-row' || !(await canLoadWithoutTriggers(tx, names)) ? 'per-row' : 'after-load';
  run.opts.onPlan?.(plan, state);
  if (mode === 'after-load') await tx.exec('SET LOCAL session_replication_role = replica');
  const tables = await load(generated, run.progress);
  let foreignKeys: ScaleSeedResult['foreignKeys'] = { mode, constraints: 0, seconds: 0 };
  if (mode === 'after-load') {
    await tx.exec('SET LOCAL session_replication_role = origin');
    const t0 = performance.now();
    const constraints = await verifyForeignKeys(tx, names);
    foreignKeys = { mode, constraints, seconds: (performance.now() - t0) / 1000 };
  }
  return { tables, foreignKeys };
}

/** Whether `tables` can be loaded in replica mode: a superuser, and no INSERT triggers but the foreign keys'. */
async function canLoadWithoutTriggers(tx: Queryable, tables: readonly string[]): Promise<boolean> {
  const [su] = await tx.query(`SELECT current_setting('is_superuser') AS su`);
  if (su?.su !== 'on') return false;
  const triggers = await tx.query(
    `SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND (tgtype & 4) <> 0 AND tgrelid = ANY($1::regclass[])`,
    [`{${tables.join(',')}}`],
  );
  return triggers.length === 0;
}

/**
 * Checks every foreign key of `tables` over all their rows, one anti-join per constraint (MATCH
 * SIMPLE: a key with a null column points at nothing and is fine). Throws on the first constraint a
 * row breaks; returns how many constraints were checked.
 */
export async function verifyForeignKeys(tx: Queryable, tables: readonly string[]): Promise<number> {
  if (!tables.length) return 0;
  const constraints = await tx.query(
    `SELECT c.conname, c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent,
       (SELECT json_agg(a.attname ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY AS k (attnum, n)
          JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum)::text AS columns,
       (SELECT json_agg(a.attname ORDER BY k.n) FROM unnest(c.confkey) WITH ORDINALITY AS k (attnum, n)
          JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum)::text AS parent_columns
     FROM pg_constraint c
     WHERE c.contype = 'f' AND c.conrelid = ANY($1::regclass[])
     ORDER BY 2, 1`,
    [`{${tables.join(',')}}`],
  );
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  for (const c of constraints) {
    const columns = JSON.parse(String(c.columns)) as string[];
    const parentColumns = JSON.parse(String(c.parent_columns)) as string[];
    const notNull = columns.map((col) => `x.${quote(col)} IS NOT NULL`).join(' AND ');
    const match = columns.map((col, i) => `p.${quote(parentColumns[i]!)} = x.${quote(col)}`).join(' AND ');
    const [bad] = await tx.query(
      `SELECT count(*)::int AS n FROM ${c.child} x WHERE ${notNull} AND NOT EXISTS (SELECT 1 FROM ${c.parent} p WHERE ${match})`,
    );
    if (Number(bad?.n) > 0) {
      throw new Error(
        `demo data: ${bad!.n} rows of ${c.child} break its foreign key ${c.conname} (to ${c.parent}); nothing was written`,
      );
    }
  }
  return constraints.length;
}
