import type { EngineConfig } from '../config';
import { silentLogger, type Logger } from '../logger';
import type { Database } from './database';
import { isConnectionFailure } from './faults';
import { Gate, gated, PROBE, type GateOptions } from './gate';
import { openPglite } from './pglite';
import { connectPostgres } from './postgres';
import { readReplicas } from './replicas';

/** What every PostgreSQL connection of the engine is opened with (primary, replicas, reserve). */
function connectionSettings(config: EngineConfig) {
  return {
    statementTimeoutMs: config.limits.statementTimeoutMs,
    connectTimeoutMs: config.database.connectTimeoutMs,
    transactionPooler: config.pooler.transactionMode,
    preparedStatements: config.pooler.preparedStatements,
    jit: config.databaseJit,
    parallelWorkers: config.databaseParallelWorkers,
  };
}

/**
 * PostgreSQL when DATABASE_URL is set, the embedded PGlite otherwise; either behind a gate that bounds
 * the wait for a connection (gate.ts). PostgreSQL also gets a small reserve pool for health checks
 * and sign-in, and a server that cannot be reached yet is retried (waitForServer). `holder` names the
 * opener in the PGlite folder's lock (`engine`, `admin`, ...).
 */
export async function connectDatabase(
  config: EngineConfig,
  opts: { log?: Logger; holder?: string } = {},
): Promise<Database> {
  const { log = silentLogger, holder = 'engine' } = opts;
  const { poolTimeoutMs, reservePoolSize, connectRetrySeconds } = config.database;
  const statementTimeoutMs = config.limits.statementTimeoutMs;
  if (!config.databaseUrl) {
    if (config.replicas.urls.length)
      log({
        level: 'warn',
        msg: 'DATABASE_READ_REPLICA_URLS is ignored: read replicas need DATABASE_URL (PostgreSQL)',
      });
    // One connection in this process: PGlite would queue without bound, the gate bounds the wait.
    return gated(
      await openPglite(config.dataDir, { statementTimeoutMs, holder, snapshot: config.dataDirSnapshot }),
      new Gate({ permits: 1, waitMs: poolTimeoutMs }),
    );
  }
  const url = config.databaseUrl;
  const listenUrl = config.pooler.listenUrl;
  const pg = connectionSettings(config);
  // Replicas behind the same kind of pooler take the same settings; only the primary listens.
  // The main pools (primary and replicas) keep room for quick statements and pipeline very quick
  // ones (gate.ts); the small reserve pool does neither.
  const { quickReserve, quickMs, pipelineDepth, pipelineMs, pipelineShareMs: shareMs } = config.database;
  const sharing = { quickReserve, quickMs, pipelineDepth, pipelineMs, shareMs };
  const open = (poolSize: number, share: Partial<GateOptions> = {}, at = url) =>
    gated(
      connectPostgres(at, {
        ...pg,
        poolSize,
        pipelineDepth: share.pipelineDepth,
        listenUrl: at === url ? listenUrl : undefined,
      }),
      new Gate({ permits: poolSize, waitMs: poolTimeoutMs, ...share }),
    );
  const main = open(config.poolSize, sharing);
  try {
    await waitForServer(main, url, connectRetrySeconds, log);
    if (pg.transactionPooler) await checkServerTimeout(main, statementTimeoutMs, log);
  } catch (err) {
    await main.close().catch(() => undefined);
    throw err;
  }
  const reserve = open(reservePoolSize);
  const primary = { ...main, reserve };
  // Replicas are not waited for: one that is not up yet is left out and retried (replicas.ts).
  const { urls, poolSize, retrySeconds, checkSeconds } = config.replicas;
  const replicas = urls.length
    ? readReplicas(
        primary,
        urls.map((u) => ({ name: databaseTarget(u), db: open(poolSize, sharing, u) })),
        { retryMs: retrySeconds * 1000, checkMs: checkSeconds * 1000, log },
      )
    : undefined;
  return {
    ...primary,
    replicas,
    close: async () => void (await Promise.all([main.close(), reserve.close(), replicas?.close()])),
  };
}

/** Where a URL points, for messages: host, port and database, never the user's password. */
export function databaseTarget(url: string): string {
  try {
    const u = new URL(url);
    const host = u.searchParams.get('host') ?? u.hostname ?? 'localhost';
    return `${host}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return 'the server of DATABASE_URL (not a valid URL)';
  }
}

/** PgBouncer refuses the statement_timeout the engine sends at connect time unless told of the pooler. */
const poolerHint = (reason: string) =>
  /unsupported startup parameter/i.test(reason)
    ? ' (a pooler such as PgBouncer is in front: set DATABASE_POOLER=transaction, README "Scaling")'
    : '';

/**
 * Behind a pooler in transaction mode statement_timeout cannot travel with the connection: statements
 * outside a transaction run under the server's own setting. Said at start-up when that is none.
 */
async function checkServerTimeout(db: Database, statementTimeoutMs: number, log: Logger): Promise<void> {
  const [row] = await db.query("SELECT current_setting('statement_timeout') AS t");
  if (row?.t !== '0') return;
  log({
    level: 'warn',
    msg: `DATABASE_POOLER=transaction: statement_timeout cannot be set per connection, and the server has none; statements outside a transaction run without STATEMENT_TIMEOUT_MS (${statementTimeoutMs} ms) until the database or role has it (ALTER ROLE ... SET statement_timeout, README "Scaling")`,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The first statement, retried with a doubling delay (0.25 s up to 5 s) while the server cannot be
 * reached and `retrySeconds` have not passed: a database that starts after the engine (a compose
 * file, a restart) is waited for. A refusal that waiting does not mend (a wrong password, a missing
 * database) ends it at once.
 */
async function waitForServer(db: Database, url: string, retrySeconds: number, log: Logger): Promise<void> {
  const target = databaseTarget(url);
  const deadline = Date.now() + retrySeconds * 1000;
  let delay = 250;
  for (let attempt = 1; ; attempt++) {
    try {
      await db.query(PROBE);
      if (attempt > 1) log({ level: 'info', msg: `PostgreSQL at ${target} is reachable`, attempts: attempt });
      return;
    } catch (err) {
      const reason = (err as { internal?: string }).internal ?? (err as Error)?.message ?? String(err);
      if (!isConnectionFailure(err) || /startup parameter/i.test(reason))
        throw new Error(`PostgreSQL at ${target} refused the connection: ${reason}${poolerHint(reason)}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `cannot reach PostgreSQL at ${target} (${reason}); gave up after ${retrySeconds} s (DATABASE_CONNECT_RETRY_SECONDS)`,
        );
      const wait = Math.min(delay, left);
      log({ level: 'warn', msg: `PostgreSQL at ${target} is not reachable (${reason}); retrying in ${wait} ms` });
      await sleep(wait);
      delay = Math.min(delay * 2, 5000);
    }
  }
}
