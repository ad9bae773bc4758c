import type postgres from 'postgres';
import type { CancelSignal, Database, Param, Queryable, QueryOptions, Row } from './database';
import { isConnectionFailure, QUERY_CANCELED } from './faults';
import { onFirstUse } from '../on-first-use';
import { replacePostgresJsQueue } from './connection-queue';
import { beginSafely, type TransactionState } from './postgres-transaction';
import { ConnectionChoice } from './postgres-connections';
import { inlineParams } from './literals';

/**
 * The engine binds every parameter as text and casts it in SQL. postgres.js would otherwise serialise
 * by the described parameter type (JSON.stringify a jsonb string, `new Date()` a timestamp in local
 * time, 'f' for the string 'true'), so those serialisers pass text through unchanged.
 */
const passThrough = (x: unknown) => x;
const TEXT_PARAMS = {
  json: { to: 114, from: [114, 3802], serialize: passThrough, parse: (x: string) => JSON.parse(x) },
  boolean: { to: 16, from: [16], serialize: passThrough, parse: (x: string) => x === 't' },
  date: { to: 1184, from: [1082, 1114, 1184], serialize: passThrough, parse: (x: string) => new Date(x) },
};

let survivesDroppedTypeFetch = false;

/**
 * postgres.js reads the array types on every new connection (fetchArrayTypes) and drops that promise:
 * when the server goes away during it, the rejection is unhandled and Node ends the process, so that a
 * database restart would take the engine with it. Such a rejection is a connection failure, and the
 * pool reconnects by itself: it is ignored. Any other unhandled rejection still ends the process, as
 * Node's default does. (Only a pool's first connections read the types: see typesReadBy.)
 */
function surviveDroppedTypeFetch(): void {
  if (survivesDroppedTypeFetch) return;
  survivesDroppedTypeFetch = true;
  process.on('unhandledRejection', (reason) => {
    if (isConnectionFailure(reason)) return;
    throw reason;
  });
}

export interface PostgresOptions {
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  /**
   * Behind a pooler in transaction mode (PgBouncer): statement_timeout is not sent at connect time
   * (PgBouncer refuses a start-up parameter it does not know, or drops it when told to ignore it), but
   * with SET LOCAL at the start of each transaction; statements outside one run under the server's
   * own setting (ALTER ROLE ... SET statement_timeout, README "Scaling"). LISTEN needs `listenUrl`.
   */
  transactionPooler?: boolean;
  /** Named prepared statements (default true); off, every statement is an unnamed one, planned anew. */
  preparedStatements?: boolean;
  /**
   * false: JIT off on these connections (sent at connect time, like statement_timeout; behind a pooler
   * in transaction mode it cannot be, and the role's or database's setting applies). Default: the
   * server's own setting.
   */
  jit?: boolean;
  /**
   * max_parallel_workers_per_gather on these connections (sent at connect time, as jit; not behind a
   * pooler in transaction mode). Default: the server's own setting.
   */
  parallelWorkers?: number;
  /** A direct URL for LISTEN (not through the pooler); default: the pool's own URL. */
  listenUrl?: string;
  /** Statements of queryShared sent on one connection at once, at most (default 1). */
  pipelineDepth?: number;
}

const LISTEN_THROUGH_POOLER =
  'LISTEN does not work through a pooler in transaction mode (DATABASE_POOLER=transaction); set DATABASE_LISTEN_URL to a direct URL of the primary';

/**
 * postgres.js, loaded when DATABASE_URL is set: the embedded default never needs it. Its connection
 * queue is ours (connection-queue.ts): its own grows without end under steady load.
 */
const loadPostgresJs = onFirstUse<typeof postgres>('postgres');
export const postgresJs = (): typeof postgres => {
  replacePostgresJsQueue();
  return loadPostgresJs();
};

/** The engine's connections' application_name: how they are told apart in pg_stat_activity. */
export const APPLICATION_NAME = 'graphql-engine';

function openSql(url: string, opts: PostgresOptions, max: number): postgres.Sql {
  const connection: Record<string, string | number> = { application_name: APPLICATION_NAME };
  if (!opts.transactionPooler) connection.statement_timeout = opts.statementTimeoutMs;
  if (!opts.transactionPooler && opts.jit === false) connection.jit = 'off';
  // As text: postgres.js leaves out a start-up parameter whose value is falsy, so 0 would not be sent.
  if (!opts.transactionPooler && opts.parallelWorkers !== undefined)
    connection.max_parallel_workers_per_gather = String(opts.parallelWorkers);
  return postgresJs()(url, {
    max,
    // Seconds, fractions allowed: a server that does not answer is given up on quickly, so that a
    // request is told the database is unavailable instead of hanging for postgres.js's default 30 s.
    connect_timeout: opts.connectTimeoutMs / 1000,
    // Seconds before reconnecting after a failed connection. postgres.js's default grows to 20 s, and a
    // statement waits that out before it is even tried: requests hung while the database was away, and
    // stayed slow after it came back. The gate (gate.ts) lets one statement at a time try instead.
    backoff: (retries: number) => Math.min(0.05 * retries, 0.25),
    prepare: opts.preparedStatements ?? true,
    types: TEXT_PARAMS as never,
    onnotice: () => undefined,
    connection,
  });
}

/**
 * What fetchArrayTypes reads goes into a postgres.js pool's options, and a connection runs its first
 * statement only after reading them: once any statement has been answered, the connections made after
 * (a reconnect, another of the engine's pools of one) need not read them again. They are given to
 * every pool of `all` then, and reading them is turned off, so that a new connection costs one round
 * trip less and cannot drop a rejected promise (the handler above catches that in production, but a
 * test runner's own handler fails the test). Array types made after start-up are not read, as a
 * long-lived connection's never were.
 */
function typesReadBy(answered: postgres.Sql, all: readonly postgres.Sql[] = [answered]): void {
  const read = answered.options as postgres.Sql['options'] & { shared: { typeArrayMap: object } };
  for (const sql of all) {
    if (sql !== answered) {
      const to = sql.options as typeof read;
      Object.assign(to.parsers, read.parsers);
      Object.assign(to.serializers, read.serializers);
      Object.assign(to.shared.typeArrayMap, read.shared.typeArrayMap);
    }
    sql.options.fetch_types = false;
  }
}

// postgres.js's options of a statement: the same objects for every statement.
const PREPARE = { prepare: true };
const DO_NOT_PREPARE = { prepare: false };
/**
 * A statement with its values as literals (literals.ts), sent as a simple query: under load it cost
 * both processes less than the same text as an unnamed extended-protocol statement (logs_selector at
 * 32 clients, when logs_query's statements were sent so: 0.79 of its floor against 0.63, PostgreSQL
 * 1,992 against 3,459 µs a request, the engine 615 against 966; one client alone showed no
 * difference). A simple query may hold several statements; this text holds one, the engine's own, and
 * every value in it is a whole literal.
 */
const INLINED = { prepare: false, simple: true };

/**
 * The error of a statement whose signal was aborted before it was made, as a statement cancelled while
 * it ran fails. It is not made at all: it would only be sent to be cancelled (cancelUntilEnded).
 */
function cancelledBeforeSent(): Error {
  return Object.assign(new Error('canceling statement due to user request'), { code: QUERY_CANCELED });
}

/**
 * Runs a statement on a pool or in a transaction of it: prepared unless told not to, cancelled by its
 * signal.
 *
 * Its rows come one by one (postgres.js `forEach`), to the caller's `onRow` or into an array of the
 * engine's own that nothing of postgres.js reaches once the statement has ended: the Query resolves
 * with an empty Result, and its row callback finds a new array. Kept in the Query (as its Result, or
 * by a callback that still reached them), the rows lived as long as the Query did, and something,
 * once a slow stretch has passed, keeps every Query past its end until the next full collection (which
 * was not found: it needs statements pipelined on shared connections, and neither TurboFan nor the
 * coalescer). Every request's rows then outlived two young collections and were copied into the old
 * generation: after logs_selector, 3-8% of what v2_security's stretch allocated, against 0.06% when
 * it ran alone, with 1.2-1.5 full collections a second against none (`npm run bench -- v2`,
 * README "Memory"). Rows pushed here also have no holes: postgres.js 3.4.9 counts a statement's rows
 * on the connection and resets the count only when a statement completes, so after a backend that
 * ended mid-statement the next statement's first row was put at index 1.
 */
function statementRunner(prepared: boolean) {
  return async (
    q: postgres.Sql | postgres.TransactionSql,
    text: string,
    params: readonly Param[],
    options: QueryOptions,
  ): Promise<Row[]> => {
    if (options.signal?.aborted) throw cancelledBeforeSent();
    const pending = send(q, text, params, prepared && options.prepare !== false, options.prepare === false);
    let rows: Row[] = [];
    void pending.forEach(options.onRow ?? ((row: Row) => void rows.push(row)));
    const stop = options.signal && cancelOnAbort(pending as unknown as PendingQuery, options.signal);
    try {
      await pending;
    } finally {
      stop?.();
    }
    const got = rows;
    rows = [];
    return got;
  };
}

/**
 * Hands a statement to postgres.js: prepared, or unnamed; one the caller asked to plan anew each time
 * goes with its values as literals (literals.ts) where they can be, to take one round trip.
 */
function send(
  q: postgres.Sql | postgres.TransactionSql,
  text: string,
  params: readonly Param[],
  prepare: boolean,
  planEachCall: boolean,
) {
  const inlined = planEachCall && params.length > 0 ? inlineParams(text, params) : undefined;
  if (inlined !== undefined) return q.unsafe(inlined, [], INLINED);
  return q.unsafe(text, params as Param[], prepare ? PREPARE : DO_NOT_PREPARE);
}

/**
 * Cancels a statement when its signal aborts (a cancelled statement fails with QUERY_CANCELED); the
 * function returned stops listening, and stops the cancels still being sent.
 */
function cancelOnAbort(pending: PendingQuery, signal: CancelSignal): () => void {
  let stopCancelling: (() => void) | undefined;
  const cancel = () => void (stopCancelling = cancelUntilEnded(pending));
  if (signal.aborted) cancel();
  else signal.addEventListener('abort', cancel, { once: true });
  return () => {
    signal.removeEventListener('abort', cancel);
    stopCancelling?.();
  };
}

/** The first wait before a cancel is sent again, and the longest (it doubles in between). */
const RESEND_FIRST_MS = 250;
const RESEND_MOST_MS = 2000;
/** How often a statement not yet on its connection is looked at again, to be cancelled once it is. */
const UNSENT_LOOK_MS = 5;

/** postgres.js's query: its pool's cancel, and its backend once a connection has taken it. */
interface PendingQuery {
  cancel(): void;
  canceller?: ((query: unknown) => Promise<void>) | null;
  state?: object | null;
}

/**
 * Cancels a statement once its connection has taken it, and again at growing intervals until it has
 * ended (the function returned).
 *
 * Not before: postgres.js 3.4.9 rejects a statement cancelled before a connection took it, but a
 * connection that then takes it sends nothing and never counts itself free again: the connection
 * being opened for it (connection.js runs `initial` once connected, and only a statement that ran
 * makes it open), or a transaction's connection, whose queued ROLLBACK then waits forever. Each
 * connection being a pool of one, every later statement placed there waited: after a request ran out
 * of time on a fresh connection, a mutation past REQUEST_TIMEOUT_MS hung (CI). A statement still
 * waiting for its connection is looked at again shortly, and cancelled once sent.
 *
 * PostgreSQL drops a cancel that comes while the backend waits for the client's next message, and
 * postgres.js counts a statement as running from its first message: the first run of a statement text
 * on a connection sends Parse and Describe, waits for the parameters' types, and only then Bind and
 * Execute. A cancel that came in between was lost, and the statement ran on to statement_timeout
 * (request-limits' HTTP deadline test, 1 run in 4 to 8 with the machine's cores busy). Sent again, it
 * finds the statement running. A cancel that arrives just after the statement ended could cancel the
 * connection's next one, as the first could: so they stop at the end, and space out.
 */
function cancelUntilEnded(pending: PendingQuery): () => void {
  // postgres.js's pool cancel, kept on the query: its `cancel()` calls it once and drops the promise,
  // whose rejection (the cancel's own connection failing) would go unhandled.
  const canceller = pending.canceller;
  if (typeof canceller !== 'function') {
    pending.cancel();
    return () => undefined;
  }
  let timer: NodeJS.Timeout | undefined;
  const send = (wait: number) => {
    if (!pending.state) timer = setTimeout(send, UNSENT_LOOK_MS, wait);
    else {
      canceller(pending).catch(() => undefined);
      timer = setTimeout(send, wait, Math.min(2 * wait, RESEND_MOST_MS));
    }
    timer.unref();
  };
  send(RESEND_FIRST_MS);
  return () => clearTimeout(timer);
}

/**
 * Runs a statement (or transaction) on the connection chosen for it, counted there while it runs.
 * The first answer's array types go to every connection (typesReadBy). A connection whose statement
 * failed for the connection gets a new postgres.js pool of one (`open`) in its place.
 *
 * Why new, rather than postgres.js reconnecting its own: postgres.js 3.4.9 sends a small write on
 * the next turn of the event loop, and a socket that closes before that turn leaves its connection
 * believing a write is still on its way (`nextWriteTimer` is cleared but not reset). Every later
 * write under 1024 bytes, the start-up message of each reconnection included, then waits for a
 * turn that never comes, and each attempt ends at DATABASE_CONNECT_TIMEOUT_MS. The server closing a
 * connection just as a statement was sent on it (a restart) left two of the engine's ten connections
 * so for 9 s and more after the database was back: a known-quick request placed on one was answered
 * 503 after 1.5 s (tests/faults-database.test.ts, 4 runs in about 70).
 */
function placer(pool: ConnectionChoice<postgres.Sql>, open: () => postgres.Sql) {
  let typesShared = false;
  const renewed = (old: postgres.Sql): postgres.Sql => {
    const fresh = open();
    if (typesShared) typesReadBy(old, [fresh]);
    // Its connection has failed: statements still queued on it fail for the connection too, and a
    // read is run again elsewhere (faults.ts readAgainOnFailure).
    old.end({ timeout: 0 }).catch(() => undefined);
    return fresh;
  };
  return async <T>(share: number | undefined, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> => {
    const c = share !== undefined ? pool.forShared(share) : pool.forOwn();
    const sql = c.sql;
    pool.enter(c, share);
    try {
      const result = await fn(sql);
      if (!typesShared) {
        typesShared = true;
        const all = pool.connections.map((p) => p.sql);
        typesReadBy(sql, all);
      }
      return result;
    } catch (err) {
      if (isConnectionFailure(err)) {
        pool.failed(c);
        // Once per failure: the statements that failed with it on the same connection find it renewed.
        if (c.sql === sql) c.sql = renewed(sql);
      }
      throw err;
    } finally {
      pool.leave(c, share);
    }
  };
}

/**
 * PostgreSQL 15+ through postgres.js: a pool of `poolSize` connections, each a postgres.js pool of one
 * whose statements the engine places (postgres-connections.ts); prepared statements (unless turned
 * off), parameters as text.
 */
export function connectPostgres(url: string, opts: PostgresOptions): Database {
  surviveDroppedTypeFetch();
  const open = () => openSql(url, opts, 1);
  const pool = new ConnectionChoice(
    Array.from({ length: Math.max(1, opts.poolSize) }, open),
    Math.max(1, Math.trunc(opts.pipelineDepth ?? 1)),
  );
  // postgres.js keeps a connection of its own for LISTEN, made by the pool it is asked of: a pool
  // of its own here, since the statements' pools are ended when renewed (placer).
  let listener: postgres.Sql | undefined;
  const listenSql = () =>
    (listener ??= opts.listenUrl ? openSql(opts.listenUrl, { ...opts, transactionPooler: false }, 1) : open());
  const run = statementRunner(opts.preparedStatements ?? true);
  const placed = placer(pool, open);
  // Inside a transaction each statement passes its watch (postgres-transaction.ts).
  const inTransaction = (tx: postgres.TransactionSql, state: TransactionState): Queryable => ({
    query: (text, params = [], options = {}) => state.watch(() => run(tx, text, params, options)),
    exec: (script: string) => state.watch(async () => void (await tx.unsafe(script).simple())),
  });
  return {
    kind: 'postgres',
    query: (text, params = [], options = {}) => placed(undefined, (sql) => run(sql, text, params, options)),
    queryShared: (text, params = [], options = {}, share) => placed(share, (sql) => run(sql, text, params, options)),
    exec: (script) => placed(undefined, async (sql) => void (await sql.unsafe(script).simple())),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
      placed(undefined, (sql) =>
        beginSafely(sql, async (tx, state) => {
          if (opts.transactionPooler)
            await state.watch(() => tx.unsafe(`SET LOCAL statement_timeout = ${Math.trunc(opts.statementTimeoutMs)}`));
          return fn(inTransaction(tx, state));
        }),
      ),
    // postgres.js reconnects the LISTEN connection by itself; onListen runs each time.
    async listen(channel, onNotify, onListen) {
      // Through the pooler LISTEN would succeed and then hear nothing: its server connection goes back
      // to the pool after the statement. Refused, so that the caller says what is lost.
      if (opts.transactionPooler && !opts.listenUrl) throw new Error(LISTEN_THROUGH_POOLER);
      const on = listenSql();
      const { unlisten } = await on.listen(channel, onNotify, onListen);
      typesReadBy(on);
      return () => unlisten().catch(() => undefined);
    },
    close: async () =>
      void (await Promise.all([
        ...pool.connections.map((c) => c.sql.end({ timeout: 5 })),
        listener?.end({ timeout: 5 }),
      ])),
  };
}
