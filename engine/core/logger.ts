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

/** One line: level, time and pid first, then the entry's fields (undefined ones left out), msg last. */
function lineOf(level: string, entry: Record<string, unknown>): string {
  const { level: _level, msg, ...fields } = entry;
  const text = typeof msg === 'string' ? msg : msg === undefined ? '' : String(msg);
  const json = fieldsJson(fields);
  return `{"level":"${level}","time":"${isoNow()}"${PID}${json.length > 2 ? `,${json.slice(1, -1)}` : ''},"msg":${JSON.stringify(text)}}\n`;
}

/** The fields as one JSON object; a value JSON.stringify refuses (a cycle, a BigInt) written as its String. */
function fieldsJson(fields: Record<string, unknown>): string {
  try {
    return JSON.stringify(fields);
  } catch {
    const safe: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields)) {
      try {
        JSON.stringify(v);
        safe[k] = v;
      } catch {
        safe[k] = String(v);
      }
    }
    return JSON.stringify(safe);
  }
}

let lastMs = 0;
let lastIso = '';

/** The time as ISO 8601, made once per millisecond: under load many lines share one. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
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
