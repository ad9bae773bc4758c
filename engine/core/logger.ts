import pino from 'pino';

/**
 * One structured log line: `level` (`trace` ... `fatal`, default `info`), `msg` and whatever else
 * helps; never a secret, never a variable's value. A plain function, so that callers and tests need
 * nothing of pino: tests pass a collector, the engine passes `createLogger(LOG_LEVEL)`.
 */
export type Logger = (entry: Record<string, unknown>) => void;

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where lines go: pino's destination (SonicBoom) on standard output, or a test's stream. */
export interface LineSink {
  write(line: string): unknown;
}

/** Each level's rank, in LOG_LEVELS' order; `silent` above every line's. */
const RANK = new Map<string, number>(LOG_LEVELS.map((l, i) => [l, l === 'silent' ? Infinity : i]));

/**
 * JSON lines on standard output: `{"level":"info","time":"<ISO>","pid":..,...,"msg":..}`, as pino
 * wrote them. The level is written as its name (log shippers and people read it; pino's numbers
 * need a table), the time as ISO 8601. Lines below `level` cost one comparison.
 *
 * The line is made here, by one JSON.stringify of the fields (pino's logger took twice as long a
 * line, and every request writes its access line), and written with the others of its turn of the
 * event loop (descriptorSink).
 */
export function createLogger(level: LogLevel = 'info', destination?: LineSink): Logger {
  const least = RANK.get(level)!;
  const sink = destination ?? standardOutput();
  return (entry) => {
    const asked = entry.level;
    const method = typeof asked === 'string' && asked !== 'silent' && RANK.has(asked) ? asked : 'info';
    if (RANK.get(method)! < least) return;
    sink.write(lineOf(method, entry));
  };
}

const PID = `,"pid":${process.pid}`;

/**
 * One line: level, time and pid first, then the entry's fields (undefined ones left out), msg last.
 * Written field by field rather than as one JSON.stringify of a copy of the entry without level and
 * msg: the copy and the generic walk were most of the cost of every request's access line.
 */
function lineOf(level: string, entry: Record<string, unknown>): string {
  let line = `{"level":"${level}","time":"${isoNow()}"${PID}`;
  for (const key in entry) {
    // Own fields only, as the spread copy took them; no array of keys made per line.
    if (key === 'level' || key === 'msg' || !Object.hasOwn(entry, key)) continue;
    const value = valueJson(entry[key]);
    if (value !== undefined) line += `,${quotedKey(key)}:${value}`;
  }
  const msg = entry.msg;
  const text = typeof msg === 'string' ? msg : msg === undefined ? '' : String(msg);
  return `${line},"msg":${JSON.stringify(text)}}\n`;
}

/**
 * A field's value as JSON, or undefined where JSON.stringify leaves the field out (undefined, a
 * function); a value JSON.stringify refuses (a cycle, a BigInt) written as its String.
 */
function valueJson(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value) as string | undefined;
  } catch {
    return JSON.stringify(String(value));
  }
}

/** Field names are a few, written again on every line: each is quoted once. */
const QUOTED = new Map<string, string>();
const QUOTED_MOST = 1000;

function quotedKey(key: string): string {
  let quoted = QUOTED.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (QUOTED.size < QUOTED_MOST) QUOTED.set(key, quoted);
  }
  return quoted;
}

let lastMs = 0;
let lastIso = '';
let secondMs = -1;
let secondIso = '';

/**
 * The time as ISO 8601 (`2026-11-28T17:25:23.123Z`), made once per millisecond, and its date and
 * second once per second: under load many lines share a millisecond, and most a second.
 */
function isoNow(): string {
  const ms = Date.now();
  if (ms === lastMs) return lastIso;
  lastMs = ms;
  const milli = ms % 1000;
  if (ms - milli !== secondMs) {
    secondMs = ms - milli;
    secondIso = new Date(secondMs).toISOString().slice(0, 20);
  }
  lastIso = `${secondIso}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
  return lastIso;
}

/**
 * Lines to a file descriptor, a write for many (pino's destination, sync, which waits out a full pipe):
 * under load a write per request's access line cost more than making the line. Lines are written at
 * the end of their turn of the event loop, and at most one write every FLUSH_MS: with a few clients
 * each turn holds one request, and its write was 4% of the engine's time (the bench's `_v2` groupings
 * at 4 connections). What is held is written before the process exits.
 */
export function descriptorSink(fd: number): LineSink {
  const dest = pino.destination({ dest: fd, sync: true });
  let held = '';
  let lastWrite = 0;
  const flush = () => {
    if (!held) return;
    const out = held;
    held = '';
    lastWrite = Date.now();
    dest.write(out);
  };
  const schedule = () => {
    const wait = lastWrite + FLUSH_MS - Date.now();
    if (wait <= 0) setImmediate(flush);
    else setTimeout(flush, wait).unref();
  };
  process.on('exit', flush);
  return {
    write(line: string) {
      if (!held) schedule();
      held += line;
      if (held.length >= FLUSH_BYTES) flush();
    },
  };
}

/** The least time between two writes of held lines. */
const FLUSH_MS = 10;
/** Held lines are written at once past this many characters. */
const FLUSH_BYTES = 65_536;

let stdout: LineSink | undefined;

/** Standard output, shared by every logger of the process. */
function standardOutput(): LineSink {
  stdout ??= descriptorSink(1);
  return stdout;
}

/** The default before the configuration is read (and for a fatal start-up error): info and above. */
export const jsonLogger: Logger = createLogger('info');

/** For callers that do not care. */
export const silentLogger: Logger = () => undefined;
