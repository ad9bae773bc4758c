import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Everything the engine reads from its environment, with the defaults the README documents.
 * Read once at start-up; nothing else in the engine looks at process.env.
 */
export interface EngineConfig {
  port: number;
  /** PostgreSQL 15+ through postgres.js when set; otherwise the embedded PGlite. */
  databaseUrl?: string;
  /** Where PGlite keeps its files (kept across restarts). */
  dataDir: string;
  metadataDir: string;
  migrationsDir: string;
  /** Unset: admin access is off. */
  adminSecret?: string;
  /** Seed the small demo data set when the platform's tables are empty. */
  seedDemo: boolean;
  limits: {
    /** Cap on the rows any list field returns, whatever `limit` says. */
    maxRows: number;
    /** Deepest nesting of selections a query may have. */
    maxDepth: number;
    /** Largest request body accepted, in bytes. */
    bodyBytes: number;
    /** PostgreSQL statement_timeout, in milliseconds. */
    statementTimeoutMs: number;
    /** Number of compiled plans kept in memory. */
    planCacheSize: number;
  };
  /** postgres.js pool size. */
  poolSize: number;
  /** Log SQL and errors in detail (never secrets). */
  devMode: boolean;
}

/** The folder that holds package.json, wherever this file runs from (sources or dist/). */
export function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
  return dir;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): EngineConfig {
  const root = projectRoot();
  const databaseUrl = env.DATABASE_URL || undefined;
  return {
    port: int(env, 'PORT', 8080),
    databaseUrl,
    dataDir: env.DATA_DIR?.startsWith('memory://') ? env.DATA_DIR : path.resolve(root, env.DATA_DIR || 'data/pglite'),
    metadataDir: path.resolve(root, env.METADATA_DIR || 'metadata'),
    migrationsDir: path.resolve(root, env.MIGRATIONS_DIR || 'sql'),
    adminSecret: env.ADMIN_SECRET || undefined,
    seedDemo: bool(env, 'SEED_DEMO_DATA', !databaseUrl),
    limits: {
      maxRows: int(env, 'MAX_ROWS', 10000),
      maxDepth: int(env, 'MAX_QUERY_DEPTH', 15),
      bodyBytes: int(env, 'MAX_BODY_BYTES', 1024 * 1024),
      statementTimeoutMs: int(env, 'STATEMENT_TIMEOUT_MS', 30000),
      planCacheSize: int(env, 'PLAN_CACHE_SIZE', 1000),
    },
    poolSize: int(env, 'DATABASE_POOL_SIZE', 10),
    devMode: bool(env, 'DEV_MODE', false),
  };
}
