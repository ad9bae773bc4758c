import { RequestError } from '../../core/errors';

/** The work one HTTP request may cause, shared by the operations of a batch. */
export interface BudgetLimits {
  /** Rows of all list fields (and aggregate `nodes`) together. */
  maxTotalRows: number;
  /** Bytes of the JSON the operations answer, together. */
  maxResponseBytes: number;
  /** Milliseconds from the start of the request to its answer; 0: none. */
  requestTimeoutMs: number;
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
  private readonly controller = new AbortController();
  private readonly timer?: NodeJS.Timeout;
  /** PGlite blocks this thread while a statement runs: the timer may fire late, the clock tells. */
  private readonly deadline: number;
  readonly expired: Promise<never>;

  constructor(readonly limits: BudgetLimits) {
    this.deadline = limits.requestTimeoutMs > 0 ? Date.now() + limits.requestTimeoutMs : Infinity;
    let fail: (err: RequestError) => void = () => undefined;
    this.expired = new Promise<never>((_, reject) => (fail = reject));
    // Nobody may be waiting on it when it fires.
    this.expired.catch(() => undefined);
    if (limits.requestTimeoutMs > 0) {
      this.timer = setTimeout(() => {
        this.controller.abort();
        fail(this.timeoutError());
      }, limits.requestTimeoutMs);
      this.timer.unref();
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get timedOut(): boolean {
    return this.controller.signal.aborted || Date.now() >= this.deadline;
  }

  /** Bytes still allowed: the SQL withholds a larger answer rather than send it. */
  get bytesLeft(): number {
    return Math.max(0, this.limits.maxResponseBytes - this.bytes);
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

  addBytes(n: number): void {
    this.bytes += n;
    if (this.bytes > this.limits.maxResponseBytes)
      throw new RequestError(
        'response-too-large',
        `the response would be larger than ${this.limits.maxResponseBytes} bytes (MAX_RESPONSE_BYTES); ask for fewer rows or fields`,
        '$',
      );
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

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
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

/** Index just past the JSON string starting at `i` (a quote). */
function skipString(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j += 2;
    else if (c === QUOTE) return j + 1;
    else j++;
  }
  return j;
}

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/** Index just past the JSON value starting at `i`, however deeply nested, without recursion. */
function skipValue(text: string, i: number): number {
  const first = text[i];
  if (first === '"') return skipString(text, i);
  let j = i;
  if (first !== '{' && first !== '[') {
    // A number, true, false or null.
    while (j < text.length && !',}]'.includes(text[j]) && !isSpace(text.charCodeAt(j))) j++;
    return j;
  }
  let depth = 0;
  while (j < text.length) {
    const c = text[j];
    if (c === '"') {
      j = skipString(text, j);
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
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

/**
 * Rows in the JSON text of one field, as PostgreSQL wrote it, read without parsing it into objects:
 * the elements of each array the shape marks as a list of rows, at any depth the shape reaches. Parts
 * of the text the shape does not name (column values, jsonb included) are skipped whole.
 */
export function countRows(text: string, shape: RowShape, start = 0): { rows: number; end: number } {
  let i = skipSpace(text, start);
  if (text[i] === '[' && shape.list) {
    let rows = 0;
    i = skipSpace(text, i + 1);
    while (i < text.length && text[i] !== ']') {
      const item = countRows(text, { list: false, children: shape.children }, i);
      rows += 1 + item.rows;
      i = skipSpace(text, item.end);
      if (text[i] === ',') i = skipSpace(text, i + 1);
    }
    return { rows, end: i + 1 };
  }
  if (text[i] !== '{' || shape.children.size === 0) return { rows: 0, end: skipValue(text, i) };
  let rows = 0;
  i = skipSpace(text, i + 1);
  while (i < text.length && text[i] !== '}') {
    const keyEnd = skipString(text, i);
    const child = shape.children.get(text.slice(i, keyEnd));
    i = skipSpace(text, keyEnd);
    i = skipSpace(text, i + 1); // the colon
    if (child) {
      const inner = countRows(text, child, i);
      rows += inner.rows;
      i = inner.end;
    } else i = skipValue(text, i);
    i = skipSpace(text, i);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return { rows, end: i + 1 };
}
