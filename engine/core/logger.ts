/** One structured log line: `level`, `msg` and whatever else helps; never a secret. */
export type Logger = (entry: Record<string, unknown>) => void;

/** JSON lines on standard output, each with its time. */
export const jsonLogger: Logger = (entry) =>
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);

/** For callers that do not care. */
export const silentLogger: Logger = () => undefined;
