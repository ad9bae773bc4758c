import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What one HTTP request did, filled in as it goes by whoever knows (the engine knows the operation,
 * the session resolver the role) and read once at the end for the access line, the metrics and the
 * trace. Never a variable's value, a header's value or a secret: names, counts and codes only.
 */
export interface RequestRecord {
  /** The `x-request-id` the client sent, or one made for it; echoed in the answer. */
  readonly id: string;
  operationName?: string;
  /** query, mutation (a batch: its operations' types joined by commas when they differ). */
  operationType?: string;
  role?: string;
  tenant?: string;
  /** Rows the request's list fields returned, all statements together. */
  rows: number;
  /** Bytes of the answer's body, when the route knows them (GraphQL answers). */
  bytes?: number;
  /** The first error code the request was answered with. */
  errorCode?: string;
  /** Whether the plan came from the cache (the last operation of a batch decides). */
  planCache?: 'hit' | 'miss';
  /** The trace's span of the request, when tracing is on (core/tracing.ts). */
  span?: unknown;
  /** Where the request's audit events (core/audit.ts) are logged and counted. */
  audit?: (event: { type: string; outcome: string; requestId?: string }) => void;
}

const storage = new AsyncLocalStorage<RequestRecord>();
/** Requests inside `withRequest` now. */
let inside = 0;

/**
 * Runs `fn` with `record` as the current request's, for the readers that cannot be handed it: audit
 * events (core/audit.ts) of the sign-in routes and of mutations' actions. The GraphQL path hands its
 * record to the engine instead (and to action handlers in their context), and enters here only around
 * mutations' action handlers.
 *
 * Node 20's AsyncLocalStorage, once used, runs a hook on every promise of the process (about a tenth
 * of the engine's CPU on a by-primary-key request): it is disabled again as soon as no request is
 * inside, so requests that never enter pay nothing. Disabling exits only contexts of requests that are
 * over; the next `run` enables it again.
 */
export async function withRequest<T>(record: RequestRecord, fn: () => Promise<T>): Promise<T> {
  inside++;
  try {
    return await storage.run(record, fn);
  } finally {
    if (--inside === 0) storage.disable();
  }
}

/** The record of the request being served inside `withRequest`, or undefined (start-up, the admin CLI). */
export function currentRequest(): RequestRecord | undefined {
  return storage.getStore();
}

/** Notes the operation of a request; a batch's differing types are kept as a list. */
export function noteOperation(r: RequestRecord | undefined, name: string | undefined, type: string): void {
  if (!r) return;
  if (name && !r.operationName) r.operationName = name;
  if (!r.operationType) r.operationType = type;
  else if (!r.operationType.split(',').includes(type)) r.operationType += `,${type}`;
}

/** Notes the size of the answer's body (the access line's `bytes`). */
export function noteBytes(r: RequestRecord | undefined, body: string): void {
  if (r) r.bytes = Buffer.byteLength(body);
}
