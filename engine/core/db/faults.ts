import { RequestError } from '../errors';

/**
 * Database faults as a client sees them. A database that cannot be reached is not the client's fault
 * and not the engine's: the answer is 503 `database-unavailable` with Retry-After, and the driver's
 * text (which names the server's address) goes to the log and admin callers only.
 */

/**
 * PostgreSQL's query_canceled: a statement cancelled (its request's deadline) or past
 * statement_timeout. A database error the engine answers with its own code, never this one.
 */
export const QUERY_CANCELED = '57014';

/** Seconds a client is asked to wait before trying again. */
export const UNAVAILABLE_RETRY_SECONDS = 5;
export const BUSY_RETRY_SECONDS = 1;

/** Socket errors of Node and the connection errors of postgres.js: the server is not there (any more). */
const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

/**
 * SQLSTATEs that mean the server is going away or not accepting yet: 57P01 admin_shutdown,
 * 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections, and class 08
 * (connection exceptions).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Whether an error says the database could not be reached, rather than that a statement failed. */
export function isConnectionFailure(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  if (err instanceof RequestError) return err.code === 'database-unavailable';
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  return CONNECTION_ERRNOS.has(code) || UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code);
}

export function unavailableError(cause: unknown): RequestError {
  return new RequestError(
    'database-unavailable',
    'the database is unavailable: try again shortly',
    '$',
    503,
    UNAVAILABLE_RETRY_SECONDS,
    (cause as Error)?.message ?? String(cause),
  );
}

export function busyError(waitedMs: number): RequestError {
  return new RequestError(
    'busy',
    `the server is busy: no database connection became free within ${waitedMs} ms; try again shortly`,
    '$',
    503,
    BUSY_RETRY_SECONDS,
  );
}

/** A connection failure as the client's 503; any other error as it is. */
export function asUnavailable(err: unknown): unknown {
  return isConnectionFailure(err) && !(err instanceof RequestError) ? unavailableError(err) : err;
}

/**
 * Runs of a read whose connection fails under it. After the server restarts, each connection that
 * sat idle through it fails the statement sent on it once; a read has nothing to undo, and a request
 * should not fail for a connection it never used before the restart.
 */
export const READ_ATTEMPTS = 3;

/**
 * A read, run again on a connection failure up to READ_ATTEMPTS runs in all; not once `aborted` says
 * its request is cancelled. Only for statements that are safe to send twice: not a write.
 */
export async function readAgainOnFailure<T>(run: () => Promise<T>, aborted?: () => boolean): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= READ_ATTEMPTS || aborted?.() || !isConnectionFailure(err)) throw err;
    }
  }
}
