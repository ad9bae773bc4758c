import { randomBytes } from 'node:crypto';
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
  /** Scale of the generated demo data (sql/demo/scale.ts) added when the demo set is loaded; 0: none. */
  seedDemoScale: number;
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
  auth: AuthConfig;
}

/** Sign-in: browser sessions, the token exchange and the JWTs it mints, failed-attempt limits. */
export interface AuthConfig {
  /** NEXTAUTH_SECRET: signs session cookies (and, without JWT_SECRET, the API JWTs). */
  sessionSecret: string;
  /** True when NEXTAUTH_SECRET was unset and a random one was made for this process only. */
  sessionSecretGenerated: boolean;
  /** NEXTAUTH_URL: the application's base URL, without a trailing slash. */
  baseUrl: string;
  /** JWT_SECRET, when set: the HS256 key of the API JWTs, to share with other verifiers. */
  jwtSecret?: string;
  /** Lifetime of an exchanged JWT, in seconds (the `expiry` of the exchange). */
  jwtExpirySeconds: number;
  jwtIssuer: string;
  jwtAudience: string;
  /** Lifetime of a browser session cookie, in seconds. */
  sessionMaxAgeSeconds: number;
  /** Failed sign-in attempts allowed per client address and per e-mail within a window. */
  maxFailures: number;
  failureWindowSeconds: number;
  /** Take the client address from X-Forwarded-For (behind a load balancer) rather than the socket. */
  trustProxy: boolean;
  /** How long an instance trusts its memory that a token and its user are still valid, in seconds. */
  recheckSeconds: number;
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

/** Secrets that sign things must be long enough that guessing them is hopeless. */
const MIN_SECRET_LENGTH = 32;

function secret(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < MIN_SECRET_LENGTH) throw new Error(`${name} must be at least ${MIN_SECRET_LENGTH} characters long (e.g. openssl rand -base64 32)`);
  return raw;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const n = int(env, name, fallback);
  if (n === 0) throw new Error(`${name} must be a positive integer, got "${env[name]}"`);
  return n;
}

function authConfig(env: NodeJS.ProcessEnv, port: number): AuthConfig {
  const given = secret(env, 'NEXTAUTH_SECRET');
  const rawUrl = env.NEXTAUTH_URL || `http://localhost:${port}`;
  let baseUrl: string;
  try {
    const u = new URL(rawUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    baseUrl = rawUrl.replace(/\/+$/, '');
  } catch {
    throw new Error(`NEXTAUTH_URL must be an http(s) URL, got "${rawUrl}"`);
  }
  return {
    sessionSecret: given ?? randomBytes(32).toString('base64url'),
    sessionSecretGenerated: !given,
    baseUrl,
    jwtSecret: secret(env, 'JWT_SECRET'),
    jwtExpirySeconds: positive(env, 'JWT_EXPIRY_SECONDS', 3600),
    jwtIssuer: env.JWT_ISSUER || baseUrl,
    jwtAudience: env.JWT_AUDIENCE || `${baseUrl}/api/graphql`,
    sessionMaxAgeSeconds: positive(env, 'SESSION_MAX_AGE_SECONDS', 8 * 3600),
    maxFailures: positive(env, 'AUTH_MAX_FAILURES', 10),
    failureWindowSeconds: positive(env, 'AUTH_FAILURE_WINDOW_SECONDS', 900),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    recheckSeconds: positive(env, 'AUTH_RECHECK_SECONDS', 10),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): EngineConfig {
  const root = projectRoot();
  const databaseUrl = env.DATABASE_URL || undefined;
  const port = int(env, 'PORT', 8080);
  return {
    port,
    databaseUrl,
    dataDir: env.DATA_DIR?.startsWith('memory://') ? env.DATA_DIR : path.resolve(root, env.DATA_DIR || 'data/pglite'),
    metadataDir: path.resolve(root, env.METADATA_DIR || 'metadata'),
    migrationsDir: path.resolve(root, env.MIGRATIONS_DIR || 'sql'),
    adminSecret: env.ADMIN_SECRET || undefined,
    seedDemo: bool(env, 'SEED_DEMO_DATA', !databaseUrl),
    // The embedded default's own folder gets a live-looking platform; tests and explicit folders do not.
    seedDemoScale: int(env, 'SEED_DEMO_SCALE', !databaseUrl && !env.DATA_DIR ? 1 : 0),
    limits: {
      maxRows: int(env, 'MAX_ROWS', 10000),
      maxDepth: int(env, 'MAX_QUERY_DEPTH', 15),
      bodyBytes: int(env, 'MAX_BODY_BYTES', 1024 * 1024),
      statementTimeoutMs: int(env, 'STATEMENT_TIMEOUT_MS', 30000),
      planCacheSize: int(env, 'PLAN_CACHE_SIZE', 1000),
    },
    poolSize: int(env, 'DATABASE_POOL_SIZE', 10),
    devMode: bool(env, 'DEV_MODE', false),
    auth: authConfig(env, port),
  };
}
