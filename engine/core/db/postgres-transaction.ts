import type postgres from 'postgres';
import { isConnectionFailure } from './faults';

/**
 * How long a transaction whose connection failed waits to learn whether postgres.js saw it close
 * (the close comes as its own event, after the statement's failure).
 */
const CLOSE_WAIT_MS = 1000;

/** A transaction's watch on its connection: the first connection failure among its statements. */
export class TransactionState {
  lost: unknown = undefined;

  /** Runs one statement of the transaction; after a connection failure, none reaches postgres.js. */
  async watch<T>(run: () => Promise<T>): Promise<T> {
    if (this.lost !== undefined) throw this.lost;
    try {
      return await run();
    } catch (err) {
      if (this.lost === undefined && isConnectionFailure(err)) this.lost = err;
      throw err;
    }
  }
}

/**
 * postgres.js's `sql.begin`, kept from writing on a closed connection. When a transaction's connection
 * closes (its backend was ended, the server went away), postgres.js 3.4.9 still sends ROLLBACK (or
 * COMMIT) on it once the callback settles, and that write on the closed socket throws from a timer:
 * the process ended ("Cannot read properties of null (reading 'write')" in connection.js nextWrite).
 * begin() learns of the close by itself and rejects; so once a statement of the transaction has failed
 * for its connection, the callback waits to see whether begin() rejects, and if it did, never settles,
 * so that nothing more is written on that connection. If the connection is still open, the callback
 * fails as before and postgres.js rolls back.
 */
export function beginSafely<T>(
  sql: postgres.Sql,
  body: (tx: postgres.TransactionSql, state: TransactionState) => Promise<T>,
): Promise<T> {
  const state = new TransactionState();
  let ended = false;
  let onEnd = () => undefined as void;
  const end = new Promise<void>((resolve) => (onEnd = resolve));
  const running = sql.begin(async (tx) => {
    let result: T | undefined;
    try {
      result = await body(tx, state);
    } catch (err) {
      if (state.lost === undefined && isConnectionFailure(err)) state.lost = err;
      if (state.lost === undefined) throw err;
    }
    if (state.lost === undefined) return result as T;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([end, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
    if (ended) return new Promise<never>(() => undefined);
    throw state.lost;
  }) as Promise<T>;
  const settled = () => {
    ended = true;
    onEnd();
  };
  running.then(settled, settled);
  return running;
}
