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

/** Runs `fn` with `record` as the current request's. */
export function withRequest<T>(record: RequestRecord, fn: () => T): T {
  return storage.run(record, fn);
}

/** The record of the request being served, or undefined outside one (start-up, the admin CLI). */
export function currentRequest(): RequestRecord | undefined {
  return storage.getStore();
}

/** Notes the operation of a request; a batch's differing types are kept as a list. */
export function noteOperation(name: string | undefined, type: string): void {
  const r = storage.getStore();
  if (!r) return;
  if (name && !r.operationName) r.operationName = name;
  if (!r.operationType) r.operationType = type;
  else if (!r.operationType.split(',').includes(type)) r.operationType += `,${type}`;
}

/** Notes the size of the answer's body (the access line's `bytes`). */
export function noteBytes(body: string): void {
  const r = storage.getStore();
  if (r) r.bytes = Buffer.byteLength(body);
}
