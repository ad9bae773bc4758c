/*
 * engine/core: the floor under every stage. Errors, session and roles, logger, headers, caches,
 * configuration and environment readers, uuids, the database interface, its adapters, migrations and
 * the SQL builder. It imports nothing from engine/compile, engine/serve, engine/cli, actions/ or demo/.
 */
/**
 * An error a caller can act on, in Hasura's shape: a message, a code and the path to the offending
 * part of the request. Anything thrown that is not a RequestError is an internal error and reaches
 * the caller as `unexpected`, without details.
 */
export type ErrorCode =
  | 'validation-failed'
  | 'permission-error'
  | 'constraint-violation'
  | 'data-exception'
  | 'invalid-jwt'
  | 'access-denied'
  | 'postgres-error'
  | 'unexpected'
  | 'invalid-json'
  | 'bad-request'
  | 'request-too-large'
  | 'not-supported'
  | 'not-found'
  | 'action-error'
  /** Past MAX_TOTAL_ROWS. */
  | 'too-many-rows'
  /** Past MAX_RESPONSE_BYTES. */
  | 'response-too-large'
  /** Past REQUEST_TIMEOUT_MS. */
  | 'timeout'
  /** The database cannot be reached (503). */
  | 'database-unavailable'
  /** No connection free within DATABASE_POOL_TIMEOUT_MS (503). */
  | 'busy'
  /** The metadata folder does not make a model (a reload that failed: the previous metadata stays). */
  | 'invalid-configuration'
  /** A body without a content type, or a cookie-signed one that is not JSON (415). */
  | 'unsupported-media-type'
  /** A mutation, or an action that writes, sent by GET (405, Allow: POST). */
  | 'method-not-allowed'
  /** The Accept header names no media type the API answers in (406). */
  | 'not-acceptable';

export class RequestError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly path: string = '$',
    /** HTTP status when the error ends the request before GraphQL execution. */
    readonly status = 200,
    /** Seconds for a Retry-After header: the condition is passing (the database is down or busy). */
    readonly retryAfterSeconds?: number,
    /** What went wrong underneath, for the log and admin callers only. */
    readonly internal?: string,
  ) {
    super(message);
  }
}

export const validationError = (message: string, path: string) => new RequestError('validation-failed', message, path);

/** Turns a Hasura-shaped error into the response body. */
export function errorBody(errors: { message: string; code: string; path: string; internal?: unknown }[]): string {
  return JSON.stringify({
    errors: errors.map((e) => ({
      message: e.message,
      extensions: { path: e.path, code: e.code, ...(e.internal ? { internal: e.internal } : {}) },
    })),
  });
}
