import pino from 'pino';

/**
 * One structured log line: `level` (`trace` ... `fatal`, default `info`), `msg` and whatever else
 * helps; never a secret, never a variable's value. A plain function, so that callers and tests need
 * nothing of pino: tests pass a collector, the engine passes `createLogger(LOG_LEVEL)`.
 */
export type Logger = (entry: Record<string, unknown>) => void;

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Method = Exclude<LogLevel, 'silent'>;
const METHODS = new Set<string>(LOG_LEVELS.filter((l) => l !== 'silent'));

/**
 * JSON lines on standard output through pino: `{"level":"info","time":"<ISO>","pid":..,...,"msg":..}`.
 * The level is written as its name (log shippers and people read it; pino's numbers need a table),
 * the time as ISO 8601. Lines below `level` cost one comparison.
 */
export function createLogger(level: LogLevel = 'info', destination?: pino.DestinationStream): Logger {
  const base = pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
  return (entry) => {
    const { level: asked, msg, ...rest } = entry;
    const method: Method = typeof asked === 'string' && METHODS.has(asked) ? (asked as Method) : 'info';
    if (!base.isLevelEnabled(method)) return;
    base[method](rest, typeof msg === 'string' ? msg : msg === undefined ? '' : String(msg));
  };
}

/** The default before the configuration is read (and for a fatal start-up error): info and above. */
export const jsonLogger: Logger = createLogger('info');

/** For callers that do not care. */
export const silentLogger: Logger = () => undefined;
