import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bool, httpUrl, int, oneOf, positive, secret, type Env } from './env';
import { LOG_LEVELS, type LogLevel } from './logger';
import { providersConfig, type ProvidersConfig } from './sign-in-providers';

/**
 * Everything the engine reads from its environment, with the defaults the README documents.
 * Read once at start-up; nothing else in the engine looks at process.env.
 */
export interface EngineConfig {
  port: number;
  /** PostgreSQL 15+ through postgres.js when set; otherwise the embedded PGlite. */
  databaseUrl?: string;
  /** DATABASE_URL reaches PostgreSQL through a pooler, and how (README "Scaling"). */
  pooler: PoolerConfig;
  /**
   * DATABASE_JIT: leave PostgreSQL's JIT as the server has it (true), or turn it off on the engine's
   * connections (false, the default). The engine's large analytic statements were the only ones JIT
   * came into; it compiles them on every call, and they ran faster without it (`npm run bench -- v2`,
   * README "Configuration").
   */
  databaseJit: boolean;
  /**
   * DATABASE_PARALLEL_WORKERS: PostgreSQL's max_parallel_workers_per_gather on the engine's connections
   * (0, the default: no parallel workers), or undefined (`server`): the server's own setting. See
   * parallelWorkers below.
   */
  databaseParallelWorkers: number | undefined;
  /** Where PGlite keeps its files (kept across restarts). */
  dataDir: string;
  /**
   * Not from the environment: an archive of a PGlite data folder (PGlite's `dumpDataDir`) that a
   * `memory://` database starts from instead of an empty one. The tests start each file's database
   * from one migrated and seeded once per run.
   */
  dataDirSnapshot?: Blob;
  metadataDir: string;
  migrationsDir: string;
  /** Unset: admin access is off. */
  adminSecret?: string;
  /** Seed the small demo data set when the platform's tables are empty. */
  seedDemo: boolean;
  /** Scale of the generated demo data (demo/scale.ts) added when the demo set is loaded; 0: none. */
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
    /** Most operations a batched request (a JSON array of operations) may hold. */
    maxBatchSize: number;
    /** Most fields an operation may select, fragments expanded (Hasura's node_limit). */
    maxNodes: number;
    /** Most aliased fields an operation may have. */
    maxAliases: number;
    /** Deepest nesting of objects and lists in argument values and variables. */
    maxInputDepth: number;
    /** Most rows a request (all its list fields, all its batch's operations) may return. */
    maxTotalRows: number;
    /** Largest response a request (a whole batch) may have, in bytes. */
    maxResponseBytes: number;
    /** Bytes of answers all requests of the process may hold at once; past it: `busy`. */
    maxResponseBytesInFlight: number;
    /** Time a whole request (a whole batch) may take, in milliseconds; 0: no limit. */
    requestTimeoutMs: number;
  };
  /** bigint, numeric, double precision and money values come out as JSON strings (Hasura's stringify-numeric-types). */
  stringifyNumericTypes: boolean;
  subscriptions: SubscriptionConfig;
  /** CORS_ORIGINS: the exact origins (scheme://host[:port]) whose pages may call the API; none by default. */
  corsOrigins: string[];
  /** postgres.js pool size. */
  poolSize: number;
  /** Read replicas (PostgreSQL only): where queries and subscriptions read (core/db/replicas.ts). */
  replicas: ReplicaConfig;
  database: DatabaseFaultConfig;
  /** On SIGTERM/SIGINT: how long requests in flight may take to finish before the pool is closed, in seconds. */
  drainSeconds: number;
  /**
   * How long an idle keep-alive connection stays open. Longer than the usual load balancer's idle
   * timeout (60 s), so that a balancer or client never sends on a connection the engine just closed.
   */
  keepAliveSeconds: number;
  observability: ObservabilityConfig;
  auth: AuthConfig;
  /** Product edition: SAML single sign-on exists in enterprise and cloud only. */
  edition: Edition;
  /** onprem: one licensed tenant; saas: tenants found by e-mail domain. */
  deploymentMode: DeploymentMode;
  saml: SamlConfig;
  /** Sign-in with OpenID Connect / OAuth providers (core/sign-in-providers.ts). */
  providers: ProvidersConfig;
  /** The tenant table and session variable: tenant roles may reference only their own tenant's rows. */
  tenancy?: { table: { schema: string; name: string }; variable: string };
  /** The environment it was read from: the actions read their own settings (AI, Loki, Jira) from it. */
  env: Env;
}

/** Logs, /metrics and traces (README "Logs, audit and metrics"). */
export interface ObservabilityConfig {
  /** LOG_LEVEL: the least level written (`debug` adds each compiled SQL statement's text). */
  logLevel: LogLevel;
  /** METRICS_TOKEN: with it, GET /metrics on the public port, for `Authorization: Bearer <token>` only. */
  metricsToken?: string;
  /** METRICS_PORT: a listener of its own for /metrics (0: any free port). */
  metricsPort?: number;
  /** Where that listener binds (HOST). */
  metricsHost: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: traces to `{endpoint}/v1/traces` (OTLP/HTTP, JSON); unset: no tracing. */
  otlpEndpoint?: string;
  /** OTEL_SERVICE_NAME, the traces' `service.name`. */
  serviceName: string;
  /** OTEL_BSP_SCHEDULE_DELAY: how often buffered spans are sent, in milliseconds. */
  spanDelayMs: number;
  /** DEV_MODE was set: it is no longer read (LOG_LEVEL=debug replaces it); start-up says so. */
  devModeSet: boolean;
}

function observabilityConfig(env: Env): ObservabilityConfig {
  const port = env.METRICS_PORT;
  return {
    logLevel: oneOf<LogLevel>(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    metricsToken: secret(env, 'METRICS_TOKEN'),
    metricsPort: port === undefined || port === '' ? undefined : int(env, 'METRICS_PORT', 0),
    metricsHost: env.HOST || '0.0.0.0',
    otlpEndpoint: httpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT'),
    serviceName: (env.OTEL_SERVICE_NAME ?? '').trim() || 'platform-graphql-engine',
    spanDelayMs: positive(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000),
    devModeSet: (env.DEV_MODE ?? '') !== '',
  };
}

/** Subscriptions over WebSocket (README "Subscriptions"). */
export interface SubscriptionConfig {
  /** How often each live query is run again, in milliseconds. */
  refetchIntervalMs: number;
  /** Most cohorts (sets of variables and session values) one multiplexed statement serves. */
  batchSize: number;
  /** Most subscriptions running at once on one connection, and on the whole instance. */
  maxPerConnection: number;
  maxTotal: number;
  /** Largest message a client may send, in bytes; larger: the connection is closed (1009). */
  maxMessageBytes: number;
  /** How long a connection may wait before its connection_init, in milliseconds. */
  initTimeoutMs: number;
  /** Bytes a connection may have queued unsent before it counts as a slow consumer. */
  maxQueuedBytes: number;
}

/**
 * A connection pooler (PgBouncer) between the engine and PostgreSQL. In transaction mode a client's
 * statements outside a transaction may each run on another server connection, so nothing that lives
 * on a server session can be relied on: named prepared statements, settings sent at connect time,
 * LISTEN.
 */
export interface PoolerConfig {
  /** DATABASE_POOLER=transaction. */
  transactionMode: boolean;
  /** DATABASE_PREPARED_STATEMENTS: named prepared statements (default: on, off in transaction mode). */
  preparedStatements: boolean;
  /** DATABASE_LISTEN_URL: a direct connection (not through the pooler) for LISTEN. */
  listenUrl?: string;
}

/** How the engine meets a database that is slow, busy or gone (README "Faults"). */
export interface DatabaseFaultConfig {
  /** Longest a request waits for a free connection before it is answered 503 `busy`, in milliseconds. */
  poolTimeoutMs: number;
  /** Connections of the second, small pool kept for health checks and sign-in. */
  reservePoolSize: number;
  /** Connections of the main pool kept for statements whose last run took at most `quickMs` (gate.ts). */
  quickReserve: number;
  quickMs: number;
  /** Statements at once per connection for lanes whose runs usually take at most `pipelineMs` (gate.ts). */
  pipelineDepth: number;
  pipelineMs: number;
  /** Lanes whose quickest recent runs are this quick fill a connection before taking an idle one (gate.ts). */
  pipelineShareMs: number;
  /** Queries' statements of concurrent requests run as one statement (compile/execute/coalesce.ts). */
  coalesce: boolean;
  /** Longest a connection attempt may take before the database counts as unavailable, in milliseconds. */
  connectTimeoutMs: number;
  /** At start-up: how long to keep retrying a database that cannot be reached, in seconds (0: once). */
  connectRetrySeconds: number;
}

/** Read replicas: DATABASE_READ_REPLICA_URLS and what routes reads to them (README "Read replicas"). */
export interface ReplicaConfig {
  /** postgres:// URLs of streaming replicas of DATABASE_URL's server; empty: every read on the primary. */
  urls: string[];
  /** After a mutation, that session's reads go to the primary for this long, in seconds (0: never). */
  readYourWritesSeconds: number;
  /** A replica that failed with a connection error is left out this long, then tried again, in seconds. */
  retrySeconds: number;
  /** How often each replica's state and lag are checked (for /metrics and /readyz), in seconds. */
  checkSeconds: number;
  /** Connections of each replica's pool. */
  poolSize: number;
}

function replicaConfig(env: Env, poolSize: number): ReplicaConfig {
  const urls = (env.DATABASE_READ_REPLICA_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  for (const u of urls)
    if (!/^postgres(ql)?:\/\//.test(u))
      throw new Error('DATABASE_READ_REPLICA_URLS must hold postgres:// URLs, separated by commas');
  return {
    urls,
    readYourWritesSeconds: int(env, 'READ_YOUR_WRITES_SECONDS', 5),
    retrySeconds: positive(env, 'DATABASE_REPLICA_RETRY_SECONDS', 5),
    checkSeconds: positive(env, 'DATABASE_REPLICA_CHECK_SECONDS', 10),
    poolSize,
  };
}

export type Edition = 'community' | 'enterprise' | 'cloud';
export type DeploymentMode = 'onprem' | 'saas';

/**
 * SAML 2.0 single sign-on. Problems that should not stop the engine (a missing variable, a group
 * mapping that is not JSON) are collected in `problems`: the health endpoint and the log show them,
 * and login refuses while any of the required variables is missing.
 */
export interface SamlConfig {
  /** SAML_ENABLED=true. */
  enabled: boolean;
  /** SAML_ENTRY_POINT: the IdP's single sign-on URL (HTTP-Redirect binding). */
  entryPoint?: string;
  /** SAML_ISSUER: the IdP's entity ID; responses must carry it as Issuer. */
  issuer?: string;
  /** SAML_CERT, normalised to a PEM with BEGIN/END lines and 64-character lines. */
  cert?: string;
  /** SAML_AUDIENCE: the audience assertions must name; also this service provider's entity ID. */
  audience?: string;
  /** {NEXTAUTH_URL}/api/auth/saml/acs */
  callbackUrl: string;
  /** SAML_GROUP_MAPPING: IdP group name -> tenant role (exact, case-sensitive). */
  groupMapping: Record<string, string>;
  syncRolesOnLogin: boolean;
  removeOldRoles: boolean;
  includeUnmappedGroups: boolean;
  /** AUTH_DEFAULT_ROLE: role of users created on-premise (and the fallback of a tenant without auth_default_role). */
  defaultRole: string;
  /** LICENSE_FILE: the on-premise license, a JWT signed by the vendor. */
  licenseFile?: string;
  /** LICENSE_PUBLIC_KEY (PEM) or LICENSE_PUBLIC_KEY_FILE: the vendor's key that signs licenses. */
  licensePublicKey?: string;
  /** Variables of SAML_ENTRY_POINT, SAML_ISSUER, SAML_CERT, SAML_AUDIENCE that are not set. */
  missing: string[];
  /** Configuration problems to report (health `messages`, start-up log). */
  problems: string[];
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
  /** Failed sign-in attempts allowed within a window from one client address for one e-mail. */
  maxFailures: number;
  /** ... for one e-mail from all addresses together (guessing from many addresses). */
  maxFailuresPerEmail: number;
  /** ... from one address for all e-mails together (password spraying); high, for shared addresses. */
  maxFailuresPerAddress: number;
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

/**
 * The three failure limits. The wider counters (one e-mail from every address, one address for every
 * e-mail) default to multiples of AUTH_MAX_FAILURES and may not be set below it: a wider count is never
 * smaller than the narrow one, so a lower limit would take the narrow one's place.
 */
function failureLimits(env: Env): Pick<AuthConfig, 'maxFailures' | 'maxFailuresPerEmail' | 'maxFailuresPerAddress'> {
  const maxFailures = positive(env, 'AUTH_MAX_FAILURES', 10);
  const wider = (name: string, factor: number) => {
    const n = positive(env, name, factor * maxFailures);
    if (n < maxFailures) throw new Error(`${name} must be at least AUTH_MAX_FAILURES (${maxFailures}), got "${n}"`);
    return n;
  };
  return {
    maxFailures,
    maxFailuresPerEmail: wider('AUTH_MAX_FAILURES_PER_EMAIL', 3),
    maxFailuresPerAddress: wider('AUTH_MAX_FAILURES_PER_ADDRESS', 10),
  };
}

function authConfig(env: Env, port: number): AuthConfig {
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
    ...failureLimits(env),
    failureWindowSeconds: positive(env, 'AUTH_FAILURE_WINDOW_SECONDS', 900),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    recheckSeconds: positive(env, 'AUTH_RECHECK_SECONDS', 10),
  };
}

const CERT_BEGIN = '-----BEGIN CERTIFICATE-----';
const CERT_END = '-----END CERTIFICATE-----';

/**
 * A certificate as PEM, whether it was given with or without the BEGIN/END lines, on one line or many,
 * with \\n escapes (as some deployment tools write them) or with spaces.
 */
export function normaliseCertificate(raw: string): string {
  const body = raw
    .replace(/\\n/g, '\n')
    .replace(CERT_BEGIN, '')
    .replace(CERT_END, '')
    .replace(/[^A-Za-z0-9+/=]/g, '');
  const lines = body.match(/.{1,64}/g) ?? [];
  return `${CERT_BEGIN}\n${lines.join('\n')}\n${CERT_END}\n`;
}

const TENANT_ROLE_NAMES = ['tenant_admin', 'tenant_admin_readonly'];

/**
 * SAML_GROUP_MAPPING: IdP group to tenant role. An invalid value maps nothing and an entry naming
 * another role is dropped; both are reported (log and health) rather than stopping start-up.
 */
function groupMappingOf(rawMapping: string | undefined, problems: string[]): Record<string, string> {
  let groupMapping: Record<string, string> = {};
  if (rawMapping) {
    try {
      const parsed: unknown = JSON.parse(rawMapping);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
      for (const [group, role] of Object.entries(parsed as Record<string, unknown>)) {
        if (typeof role === 'string' && TENANT_ROLE_NAMES.includes(role)) groupMapping[group] = role;
        else
          problems.push(
            `SAML_GROUP_MAPPING: group "${group}" maps to ${JSON.stringify(role)}, which is not one of ${TENANT_ROLE_NAMES.join(', ')}; the entry is ignored`,
          );
      }
    } catch (err) {
      groupMapping = {};
      problems.push(
        `SAML_GROUP_MAPPING is not a valid JSON object (${(err as Error).message}); no group is mapped to a role`,
      );
    }
  }
  return groupMapping;
}

/** The license's public key: given inline (with \\n for newlines) or in a file. */
function licensePublicKeyOf(inline: string | undefined, keyFile: string | undefined, problems: string[]) {
  let licensePublicKey = inline?.replace(/\\n/g, '\n');
  if (!licensePublicKey && keyFile) {
    try {
      licensePublicKey = fs.readFileSync(keyFile, 'utf8');
    } catch (err) {
      problems.push(`LICENSE_PUBLIC_KEY_FILE cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return licensePublicKey;
}

function samlConfig(env: Env, baseUrl: string): SamlConfig {
  const problems: string[] = [];
  const text = (name: string) => (env[name] ?? '').trim() || undefined;
  const required = {
    SAML_ENTRY_POINT: text('SAML_ENTRY_POINT'),
    SAML_ISSUER: text('SAML_ISSUER'),
    SAML_CERT: text('SAML_CERT'),
    SAML_AUDIENCE: text('SAML_AUDIENCE'),
  };
  const missing = Object.entries(required)
    .filter(([, v]) => v === undefined)
    .map(([k]) => k);
  const groupMapping = groupMappingOf(text('SAML_GROUP_MAPPING'), problems);
  const defaultRole = text('AUTH_DEFAULT_ROLE') ?? 'tenant_admin_readonly';
  if (!TENANT_ROLE_NAMES.includes(defaultRole))
    throw new Error(`AUTH_DEFAULT_ROLE must be one of ${TENANT_ROLE_NAMES.join(', ')}, got "${defaultRole}"`);
  const licensePublicKey = licensePublicKeyOf(text('LICENSE_PUBLIC_KEY'), text('LICENSE_PUBLIC_KEY_FILE'), problems);
  return {
    enabled: bool(env, 'SAML_ENABLED', false),
    entryPoint: required.SAML_ENTRY_POINT,
    issuer: required.SAML_ISSUER,
    cert: required.SAML_CERT ? normaliseCertificate(required.SAML_CERT) : undefined,
    audience: required.SAML_AUDIENCE,
    callbackUrl: `${baseUrl}/api/auth/saml/acs`,
    groupMapping,
    syncRolesOnLogin: bool(env, 'SAML_SYNC_ROLES_ON_LOGIN', true),
    removeOldRoles: bool(env, 'SAML_REMOVE_OLD_ROLES', true),
    includeUnmappedGroups: bool(env, 'SAML_INCLUDE_UNMAPPED_GROUPS', false),
    defaultRole,
    licenseFile: text('LICENSE_FILE'),
    licensePublicKey,
    missing,
    problems,
  };
}

/**
 * CORS_ORIGINS: a comma-separated list of exact origins. A value that is not one (a wildcard, a path,
 * another scheme) stops start-up: a near miss would silently allow nothing, or more than meant.
 */
function corsOrigins(env: Env): string[] {
  const list = (env.CORS_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of list) {
    let exact = false;
    try {
      const u = new URL(origin);
      exact = (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === origin;
    } catch {
      exact = false;
    }
    if (!exact)
      throw new Error(
        `CORS_ORIGINS must list exact origins such as https://app.example.com (scheme, host, port; no path, no wildcard), got "${origin}"`,
      );
  }
  return list;
}

export function loadConfig(env: Env = process.env): EngineConfig {
  const root = projectRoot();
  const databaseUrl = env.DATABASE_URL || undefined;
  const port = int(env, 'PORT', 8080);
  const auth = authConfig(env, port);
  const edition = oneOf<Edition>(env, 'EDITION', ['community', 'enterprise', 'cloud'], 'community');
  return {
    port,
    databaseUrl,
    pooler: poolerConfig(env),
    databaseJit: bool(env, 'DATABASE_JIT', false),
    databaseParallelWorkers: parallelWorkers(env),
    dataDir: env.DATA_DIR?.startsWith('memory://') ? env.DATA_DIR : path.resolve(root, env.DATA_DIR || 'data/pglite'),
    metadataDir: path.resolve(root, env.METADATA_DIR || 'metadata'),
    migrationsDir: path.resolve(root, env.MIGRATIONS_DIR || 'sql'),
    adminSecret: env.ADMIN_SECRET || undefined,
    seedDemo: bool(env, 'SEED_DEMO_DATA', !databaseUrl),
    // The embedded default's own folder gets a live-looking platform; tests and explicit folders do not.
    seedDemoScale: int(env, 'SEED_DEMO_SCALE', !databaseUrl && !env.DATA_DIR ? 1 : 0),
    limits: limitsConfig(env),
    stringifyNumericTypes: bool(env, 'STRINGIFY_NUMERIC_TYPES', false),
    subscriptions: subscriptionConfig(env),
    corsOrigins: corsOrigins(env),
    poolSize: int(env, 'DATABASE_POOL_SIZE', 10),
    replicas: replicaConfig(env, int(env, 'DATABASE_POOL_SIZE', 10)),
    database: {
      poolTimeoutMs: positive(env, 'DATABASE_POOL_TIMEOUT_MS', 5000),
      reservePoolSize: positive(env, 'DATABASE_RESERVE_POOL_SIZE', 2),
      quickReserve: int(env, 'DATABASE_POOL_QUICK_RESERVE', 2),
      quickMs: positive(env, 'DATABASE_POOL_QUICK_MS', 250),
      pipelineDepth: positive(env, 'DATABASE_PIPELINE_DEPTH', 4),
      pipelineMs: positive(env, 'DATABASE_PIPELINE_MS', 20),
      pipelineShareMs: int(env, 'DATABASE_PIPELINE_SHARE_MS', 2),
      coalesce: bool(env, 'DATABASE_COALESCE', true),
      connectTimeoutMs: positive(env, 'DATABASE_CONNECT_TIMEOUT_MS', 1500),
      connectRetrySeconds: int(env, 'DATABASE_CONNECT_RETRY_SECONDS', 60),
    },
    drainSeconds: int(env, 'SHUTDOWN_DRAIN_SECONDS', 15),
    keepAliveSeconds: positive(env, 'HTTP_KEEP_ALIVE_SECONDS', 65),
    observability: observabilityConfig(env),
    auth,
    edition,
    deploymentMode: oneOf<DeploymentMode>(
      env,
      'DEPLOYMENT_MODE',
      ['onprem', 'saas'],
      edition === 'cloud' ? 'saas' : 'onprem',
    ),
    saml: samlConfig(env, auth.baseUrl),
    providers: providersConfig(env, auth.baseUrl),
    tenancy: tenancyOf(env),
    env,
  };
}

/** The request limits (see the README's Configuration: MAX_ROWS ... REQUEST_TIMEOUT_MS). */
function limitsConfig(env: Env): EngineConfig['limits'] {
  return {
    maxRows: int(env, 'MAX_ROWS', 10000),
    maxDepth: int(env, 'MAX_QUERY_DEPTH', 15),
    bodyBytes: int(env, 'MAX_BODY_BYTES', 1024 * 1024),
    statementTimeoutMs: int(env, 'STATEMENT_TIMEOUT_MS', 30000),
    planCacheSize: int(env, 'PLAN_CACHE_SIZE', 1000),
    maxBatchSize: positive(env, 'MAX_BATCH_SIZE', 50),
    maxNodes: positive(env, 'MAX_NODES', 2000),
    maxAliases: int(env, 'MAX_ALIASES', 100),
    maxInputDepth: positive(env, 'MAX_INPUT_DEPTH', 32),
    maxTotalRows: positive(env, 'MAX_TOTAL_ROWS', 100000),
    maxResponseBytes: positive(env, 'MAX_RESPONSE_BYTES', 10 * 1024 * 1024),
    maxResponseBytesInFlight: positive(env, 'MAX_RESPONSE_BYTES_IN_FLIGHT', 32 * 1024 * 1024),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 60000),
  };
}

/**
 * DATABASE_PARALLEL_WORKERS. An API's statements run many at once, and PostgreSQL's parallel workers
 * then add processes to each statement without adding cores: under 4 and 32 clients the month-long
 * spends groupings, planned for their values and so parallel, cost PostgreSQL 1.2-1.9x the CPU a
 * request of the floor's serial plans, and without workers 0.6-1.0x (`npm run bench -- v2`, README
 * "Configuration"). `server` leaves the server's setting, for a database with cores to spare for one
 * request's statement.
 */
function parallelWorkers(env: Env): number | undefined {
  const raw = (env.DATABASE_PARALLEL_WORKERS ?? '').trim();
  if (raw.toLowerCase() === 'server') return undefined;
  if (raw === '') return 0;
  if (!/^\d+$/.test(raw))
    throw new Error(`DATABASE_PARALLEL_WORKERS must be a non-negative integer or server, got "${raw}"`);
  return Number(raw);
}

function poolerConfig(env: Env): PoolerConfig {
  const transactionMode = oneOf(env, 'DATABASE_POOLER', ['none', 'transaction'], 'none') === 'transaction';
  return {
    transactionMode,
    preparedStatements: bool(env, 'DATABASE_PREPARED_STATEMENTS', !transactionMode),
    listenUrl: env.DATABASE_LISTEN_URL || undefined,
  };
}

function subscriptionConfig(env: Env): SubscriptionConfig {
  return {
    refetchIntervalMs: positive(env, 'LIVE_QUERIES_REFETCH_INTERVAL_MS', 1000),
    batchSize: positive(env, 'LIVE_QUERIES_BATCH_SIZE', 100),
    maxPerConnection: positive(env, 'WS_MAX_SUBSCRIPTIONS_PER_CONNECTION', 100),
    maxTotal: positive(env, 'WS_MAX_SUBSCRIPTIONS', 20000),
    maxMessageBytes: positive(env, 'WS_MAX_MESSAGE_BYTES', 65536),
    initTimeoutMs: positive(env, 'WS_CONNECTION_INIT_TIMEOUT_MS', 3000),
    maxQueuedBytes: positive(env, 'WS_MAX_QUEUED_BYTES', 4 * 1024 * 1024),
  };
}

/** TENANT_TABLE (`schema.name` or `name`; `none` turns the rule off) and TENANT_SESSION_VARIABLE. */
function tenancyOf(env: Env): EngineConfig['tenancy'] {
  const raw = (env.TENANT_TABLE ?? '').trim() || 'public.tenant';
  if (raw.toLowerCase() === 'none') return undefined;
  const parts = raw.split('.');
  if (parts.length > 2 || parts.some((p) => p === ''))
    throw new Error(`TENANT_TABLE must be a table name or schema.name, got "${raw}"`);
  const variable = ((env.TENANT_SESSION_VARIABLE ?? '').trim() || 'x-hasura-tenant-id').toLowerCase();
  if (!variable.startsWith('x-hasura-'))
    throw new Error(`TENANT_SESSION_VARIABLE must start with x-hasura-, got "${variable}"`);
  const table = parts.length === 2 ? { schema: parts[0], name: parts[1] } : { schema: 'public', name: parts[0] };
  return { table, variable };
}
