/**
 * The one small database interface the engine talks to. Two adapters implement it: PostgreSQL through
 * postgres.js (`postgres.ts`) and the embedded PGlite (`pglite.ts`). Parameters always travel as text
 * (or null) and every placeholder in engine SQL carries a cast, so both adapters see the same SQL.
 */
export type Row = Record<string, unknown>;
export type Param = string | null;

/** How a statement is run. */
export interface QueryOptions {
  /**
   * false: plan it anew with each call's values (PostgreSQL: an unnamed statement), never from a
   * prepared statement's generic plan. For a statement whose best plan depends on its values, such
   * as a LIMIT over an index walk whose row count only the values tell; PGlite always plans anew. (A
   * statement run often, whose parsing costs, can instead be prepared with sql.ts' customPlansOnly.)
   * PostgreSQL gets its values written into the text as literals (literals.ts), to take one round trip.
   */
  prepare?: boolean;
  /**
   * Aborted when the request it runs for is out of time: PostgreSQL cancels the running statement
   * (error 57014). PGlite runs a statement to its end in this thread and cannot honour it.
   */
  signal?: CancelSignal;
  /**
   * Each row as it arrives, and the promise then resolves with no rows: postgres.js parses rows from
   * the socket as PostgreSQL sends them, so a caller may use the first rows of a statement still
   * running. PGlite gives them all once the statement has ended.
   */
  onRow?: (row: Row) => void;
}

/**
 * What `QueryOptions.signal` needs of an AbortSignal. An AbortSignal is one; the engine passes a
 * lighter one of its own for each request (compile/execute/request-budget.ts): creating an
 * AbortSignal (an EventTarget) and adding and removing its listeners cost more per request than
 * binding the statement's values.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface Queryable {
  query(text: string, params?: readonly Param[], options?: QueryOptions): Promise<Row[]>;
  /** Several statements without parameters (migrations, seed scripts). */
  exec(script: string): Promise<void>;
}

export interface Database extends Queryable {
  /**
   * `query` for a statement that may share a connection with others of its kind: the gate (gate.ts)
   * calls it for a statement whose quickest recent runs took at most DATABASE_PIPELINE_SHARE_MS,
   * with `share` the part of a shared connection's budget it takes (gate.ts, Share). PostgreSQL
   * sends it on a connection already running such statements when one has room for it
   * (postgres-connections.ts); PGlite, with one connection, has none.
   */
  queryShared?(
    text: string,
    params: readonly Param[] | undefined,
    options: QueryOptions | undefined,
    share: number,
  ): Promise<Row[]>;
  readonly kind: 'postgres' | 'pglite';
  /** Runs `fn` inside BEGIN/COMMIT on one connection; rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * LISTEN on a channel: `onNotify` gets each NOTIFY payload sent after the transaction that sent it
   * commits; `onListen` runs each time the listener is (re)connected, since notices sent while it was
   * not are lost. Resolves once listening, to a function that stops.
   */
  listen(channel: string, onNotify: (payload: string) => void, onListen?: () => void): Promise<() => Promise<void>>;
  /** The embedded database: records the engine's HTTP address in its folder's lock (data-lock.ts), for `npm run admin`. */
  setAddress?(host: string, port: number): void;
  /** The embedded database's data folder as an archive, which `dataDirSnapshot` starts another from. */
  snapshot?(): Promise<Blob>;
  close(): Promise<void>;
  /** Connections in use, callers waiting and the pool's size (the gate's, core/db/gate.ts): for /metrics. */
  poolStats?(): { inUse: number; waiting: number; size: number };
  /**
   * A small pool of its own for health checks and sign-in, so that slow statements on the main pool
   * never starve them. Absent: use this database (PGlite has one connection for everything).
   */
  readonly reserve?: Database;
  /** Read replicas (DATABASE_READ_REPLICA_URLS, replicas.ts): where provably read-only statements may run. */
  readonly replicas?: ReadReplicas;
}

/** One replica as /readyz and /metrics show it. */
export interface ReplicaState {
  /** host:port/database, never a password. */
  replica: string;
  /** Down: its last statement or check failed to reach it; reads skip it until it is retried. */
  up: boolean;
  /** Seconds its replay is behind (0 when it has replayed all it received); undefined until checked. */
  lagSeconds?: number;
  /** Bytes of the primary's WAL it has not replayed yet; undefined until checked. */
  lagBytes?: number;
}

/** Where reads went: `primary` or a replica's name, for /metrics. */
export type ReadCounts = Record<string, number>;

/**
 * The reads of a database with read replicas: a statement known to be read-only runs on the next
 * replica in turn, and `exec` (scripts) on the primary. Absent from a database without replicas.
 */
export interface ReadReplicas extends Queryable {
  states(): ReplicaState[];
  reads(): ReadCounts;
  /** Each replica's pool (its gate's figures), by replica name: for the pool gauges of /metrics. */
  poolStats(): Record<string, { inUse: number; waiting: number; size: number }>;
  close(): Promise<void>;
}

/** A PostgreSQL error as both drivers report it, reduced to what the engine needs. */
export interface DbError {
  code?: string;
  message: string;
  detail?: string;
  constraint?: string;
}

export function asDbError(err: unknown): DbError | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as Record<string, unknown>;
  const code = typeof e.code === 'string' ? e.code : undefined;
  // postgres.js names the constraint `constraint_name`, PGlite `constraint`.
  const constraint = (e.constraint_name ?? e.constraint) as string | undefined;
  if (!code || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  return { code, message: String(e.message ?? ''), detail: e.detail as string | undefined, constraint };
}
