import { RequestError } from '../../core/errors';
import { Lru } from '../../core/lru';
import type { CancelSignal } from '../../core/db/database';
import type { RequestRecord } from '../../core/request-context';

/** The work one HTTP request may cause, shared by the operations of a batch. */
export interface BudgetLimits {
  /** Rows of all list fields (and aggregate `nodes`) together. */
  maxTotalRows: number;
  /** Bytes of the JSON the operations answer, together. */
  maxResponseBytes: number;
  /** Milliseconds from the start of the request to its answer; 0: none. */
  requestTimeoutMs: number;
}

/**
 * A request may always hold this much of answers, whatever the others hold: small answers never
 * wait on large ones.
 */
export const SMALL_ANSWER_BYTES = 64 * 1024;

/** How many statements' last answer sizes the answer memory remembers. */
const SIZES_REMEMBERED = 500;

/**
 * The bytes of answers all requests of the process hold at once (MAX_RESPONSE_BYTES_IN_FLIGHT). Each
 * request's limit bounds one answer; this bounds the sum, so that many large requests at once cannot
 * take the process's memory: past it a request gets `busy` (503, Retry-After) instead.
 *
 * A running statement holds room for its answer before it comes: twice its last answer's size (the
 * same statement text answers alike from request to request), or all it may answer when it has not
 * run yet. Room held for a small answer is small, so quick requests do not crowd large ones out.
 */
export class AnswerMemory {
  private used = 0;
  private readonly lastBytes = new Lru<string, number>(SIZES_REMEMBERED);
  constructor(readonly capacity: number) {}

  get free(): number {
    return Math.max(0, this.capacity - this.used);
  }

  take(n: number): void {
    this.used += n;
  }

  give(n: number): void {
    this.used -= n;
  }

  /** Room to hold for a statement's answer of at most `allowed` bytes. */
  roomFor(statement: string, allowed: number): number {
    const last = this.lastBytes.get(statement);
    return last === undefined ? allowed : Math.min(allowed, 2 * last + 1024);
  }

  remember(statement: string, bytes: number): void {
    this.lastBytes.set(statement, bytes);
  }
}

/**
 * A request's cancellation: a CancelSignal that the deadline aborts. The statements of one request run
 * one after another, so it has few listeners at a time; no EventTarget is made.
 */
export class Cancellation implements CancelSignal {
  aborted = false;
  private listeners: (() => void)[] = [];

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }

  /** Aborts once: each listener is called once (they were added with `once`, or are removed after). */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const l of listeners) l();
  }

  /**
   * The request has ended: the listeners still on it are dropped unheard, whoever added them. A
   * listener keeps what it closes over alive as long as the signal lives, and the signal lives as long
   * as anything still points at the request (see CohortRows.answer in coalesce.ts for what that cost).
   */
  release(): void {
    this.listeners = [];
  }
}

/** Errors that end a whole request (a batch stops at them). */
export const BUDGET_CODES = new Set(['too-many-rows', 'response-too-large', 'timeout']);

/**
 * One request's running totals against its limits. The deadline aborts `signal`, which cancels the
 * statement running on PostgreSQL at that moment (PGlite runs a statement to its end in this thread:
 * there the request fails as soon as the statement returns).
 */
export class RequestBudget {
  private rows = 0;
  private bytes = 0;
  private readonly controller = new Cancellation();
  private readonly timer?: NodeJS.Timeout;
  /** PGlite blocks this thread while a statement runs: the timer may fire late, the clock tells. */
  private readonly deadline: number;
  private expiry?: Promise<never>;
  private fail?: (err: RequestError) => void;

  constructor(
    readonly limits: BudgetLimits,
    private readonly memory?: AnswerMemory,
    /** The HTTP request's record (core/request-context.ts), which the engine notes what it did in. */
    readonly record?: RequestRecord,
  ) {
    this.deadline = limits.requestTimeoutMs > 0 ? Date.now() + limits.requestTimeoutMs : Infinity;
    if (limits.requestTimeoutMs > 0) {
      this.timer = setTimeout(() => {
        this.controller.abort();
        this.fail?.(this.timeoutError());
      }, limits.requestTimeoutMs);
      this.timer.unref();
    }
  }

  /**
   * Rejects with the timeout error at the deadline. Made when first asked for: a query races its
   * answer against it, a mutation never asks (its statement is cancelled, and a transaction must end
   * before the answer), and a promise and its handler for every request were a cost of their own.
   */
  get expired(): Promise<never> {
    if (!this.expiry) {
      this.expiry = this.controller.aborted
        ? Promise.reject(this.timeoutError())
        : new Promise<never>((_, reject) => (this.fail = reject));
      // Nobody may be waiting on it when it fires.
      this.expiry.catch(() => undefined);
    }
    return this.expiry;
  }

  get signal(): CancelSignal {
    return this.controller;
  }

  get timedOut(): boolean {
    return this.controller.aborted || Date.now() >= this.deadline;
  }

  /** Bytes still allowed by this request's own limit. */
  private get ownLeft(): number {
    return Math.max(0, this.limits.maxResponseBytes - this.bytes);
  }

  /**
   * Bytes the next answer may have: what is left of this request's limit and of the process's answer
   * memory (a request's first SMALL_ANSWER_BYTES always). A statement takes it as its last parameter
   * and withholds a larger answer rather than send it.
   */
  get bytesLeft(): number {
    if (!this.memory) return this.ownLeft;
    return Math.min(this.ownLeft, Math.max(this.memory.free, SMALL_ANSWER_BYTES - this.bytes));
  }

  timeoutError(): RequestError {
    return new RequestError(
      'timeout',
      `the request took longer than the time limit of ${this.limits.requestTimeoutMs} ms (REQUEST_TIMEOUT_MS) and was cancelled`,
      '$',
    );
  }

  /** Throws the timeout error once the deadline has passed. */
  checkTime(): void {
    if (this.timedOut) throw this.timeoutError();
  }

  /**
   * Runs a statement whose last parameter is the bytes its answer may have (the SQL withholds a larger
   * one and says its size), holding room for the answer in the process's memory meanwhile; then
   * counts the answer.
   */
  async answer<T>(statement: string, run: (allowed: number) => Promise<{ row: T; bytes: number }>): Promise<T> {
    const allowed = this.bytesLeft;
    const room = this.memory ? this.memory.roomFor(statement, allowed) : 0;
    this.memory?.take(room);
    let result: { row: T; bytes: number };
    try {
      result = await run(allowed);
    } finally {
      this.memory?.give(room);
    }
    if (result.bytes <= allowed) this.memory?.remember(statement, result.bytes);
    this.addBytes(result.bytes, allowed);
    return result.row;
  }

  /**
   * Counts an answer of `n` bytes, allowed `allowed` bytes (for a statement: the bytesLeft it was
   * given, since what is left may have changed while it ran). Too large for the request's own limit:
   * `response-too-large`; for what the process has left: `busy`.
   */
  addBytes(n: number, allowed = this.bytesLeft): void {
    if (n > this.ownLeft)
      throw new RequestError(
        'response-too-large',
        `the response would be larger than ${this.limits.maxResponseBytes} bytes (MAX_RESPONSE_BYTES); ask for fewer rows or fields`,
        '$',
      );
    if (n > allowed)
      throw new RequestError(
        'busy',
        'the server is busy answering other large requests (MAX_RESPONSE_BYTES_IN_FLIGHT); try again shortly',
        '$',
        503,
        1,
      );
    this.bytes += n;
    this.memory?.take(n);
  }

  /** Rows counted so far (the access log's `rows`). */
  get rowCount(): number {
    return this.rows;
  }

  addRows(n: number): void {
    this.rows += n;
    if (this.rows > this.limits.maxTotalRows)
      throw new RequestError(
        'too-many-rows',
        `the request would return more than ${this.limits.maxTotalRows} rows in all (MAX_TOTAL_ROWS); ask for fewer rows`,
        '$',
      );
  }

  /** Ends the request: its timer stops, its signal's listeners go and the answer memory it held is given back. */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.controller.release();
    this.memory?.give(this.bytes);
    this.bytes = 0;
  }
}

/**
 * Where the rows of a response field are: `list` when the value is a JSON array of rows, `children`
 * the keys (response aliases, as JSON.stringify writes them) under which each row or object holds more.
 */
export interface RowShape {
  list: boolean;
  children: Map<string, RowShape>;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;

/**
 * Index just past the JSON string starting at `i` (a quote): the next quote not escaped, found with
 * indexOf (a string's characters are most of a row's text, and indexOf passes them fastest).
 */
function skipString(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    // Escaped when an odd number of backslashes comes before it; the opening quote stops the walk.
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/** Index just past the JSON value starting at `i`, however deeply nested, without recursion. */
function skipValue(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return skipString(text, i);
  let j = i;
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null.
    for (; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
    }
    return j;
  }
  let depth = 0;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === QUOTE) {
      j = skipString(text, j);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  return j;
}

const skipSpace = (text: string, i: number): number => {
  let j = i;
  while (j < text.length && isSpace(text.charCodeAt(j))) j++;
  return j;
};

/** The shape under the key (a JSON string) at `i`..`end`, compared in place: no key is copied out. */
function childAt(text: string, i: number, end: number, children: Map<string, RowShape>): RowShape | undefined {
  for (const [key, child] of children) if (key.length === end - i && text.startsWith(key, i)) return child;
  return undefined;
}

/**
 * Rows in the JSON text of one field, as PostgreSQL wrote it, read without parsing it into objects:
 * the elements of each array the shape marks as a list of rows, at any depth the shape reaches. Parts
 * of the text the shape does not name (column values, jsonb included) are skipped whole.
 */
export function countRows(text: string, shape: RowShape, start = 0): { rows: number; end: number } {
  // A shape without rows (a by-primary-key field without lists under it) needs no reading at all.
  if (start === 0 && !shape.list && shape.children.size === 0) return { rows: 0, end: text.length };
  let i = skipSpace(text, start);
  if (text.charCodeAt(i) === OPEN_BRACKET && shape.list) {
    let rows = 0;
    const row = { list: false, children: shape.children };
    i = skipSpace(text, i + 1);
    while (i < text.length && text.charCodeAt(i) !== CLOSE_BRACKET) {
      const item = countRows(text, row, i);
      rows += 1 + item.rows;
      i = skipSpace(text, item.end);
      if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
    }
    return { rows, end: i + 1 };
  }
  if (text.charCodeAt(i) !== OPEN_BRACE || shape.children.size === 0) return { rows: 0, end: skipValue(text, i) };
  let rows = 0;
  i = skipSpace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) !== CLOSE_BRACE) {
    const keyEnd = skipString(text, i);
    const child = childAt(text, i, keyEnd, shape.children);
    i = skipSpace(text, keyEnd);
    i = skipSpace(text, i + 1); // the colon
    if (child) {
      const inner = countRows(text, child, i);
      rows += inner.rows;
      i = inner.end;
    } else i = skipValue(text, i);
    i = skipSpace(text, i);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return { rows, end: i + 1 };
}
