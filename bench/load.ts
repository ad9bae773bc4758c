import autocannon from 'autocannon';
import { serveCalls } from './ipc';
import type { GcTotals } from './gc-watch';

/** One load run; a warm-up is the same run with `measure` off. */
export interface LoadRun {
  /** Several: autocannon spreads the connections over them in turn (the scale bench's set-up 3b). */
  url: string | string[];
  headers: Record<string, string>;
  body: string;
  connections: number;
  seconds: number;
  measure: boolean;
}

export interface LoadResult {
  /** 2xx responses in the measured run. */
  ok: number;
  seconds: number;
  rps: number;
  /** Latencies in milliseconds, over the 2xx responses. */
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  errors: number;
  non2xx: number;
  /** The non-2xx answers by status ("503": 2), to tell a refusal under load (busy) from a failure. */
  statuses?: Record<string, number>;
  /** Every latency, for runs that are merged across rounds. */
  latencies: number[];
  /** CPU time (user + system) of the server process during the run, in microseconds. */
  serverCpuMicros: number;
  /** CPU time of PostgreSQL's processes during the run (cpu.ts), when the database runs on this machine. */
  postgresCpuMicros?: number;
  /** Of it, the CPU time of the server's own backends (its pool's connections), when known. */
  backendsCpuMicros?: number;
  /** The server process's garbage collections during the run (gc-watch.ts). */
  serverGc?: GcTotals;
}

function run(opts: LoadRun, onResponse?: (status: number, ms: number) => void): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: opts.url,
        method: 'POST',
        headers: opts.headers,
        body: opts.body,
        connections: opts.connections,
        duration: opts.seconds,
        pipelining: 1,
        timeout: 30,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    // autocannon's own histogram keeps whole milliseconds; these are the exact response times.
    if (onResponse)
      instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => onResponse(status, ms));
  });
}

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

export function summarize(
  latencies: number[],
  seconds: number,
  errors: number,
  non2xx: number,
  serverCpuMicros = 0,
): LoadResult {
  const sorted = Float64Array.from(latencies).sort();
  const list = Array.from(sorted);
  return {
    ok: list.length,
    seconds,
    rps: list.length / seconds,
    p50: percentile(list, 0.5),
    p90: percentile(list, 0.9),
    p99: percentile(list, 0.99),
    mean: list.reduce((a, b) => a + b, 0) / (list.length || 1),
    errors,
    non2xx,
    latencies: list,
    serverCpuMicros,
  };
}

serveCalls({
  async run(opts: LoadRun): Promise<LoadResult> {
    const latencies: number[] = [];
    let non2xx = 0;
    const statuses: Record<string, number> = {};
    // A warm-up keeps no latencies, only how many were answered: its rate tells the measured period.
    let answered = 0;
    const result = await run(
      opts,
      opts.measure
        ? (status, ms) => {
            if (status >= 200 && status < 300) latencies.push(ms);
            else {
              non2xx++;
              statuses[status] = (statuses[status] ?? 0) + 1;
            }
          }
        : (status) => {
            if (status >= 200 && status < 300) answered++;
          },
    );
    const summary = summarize(latencies, result.duration, result.errors + result.timeouts, non2xx);
    return opts.measure ? { ...summary, statuses } : { ...summary, ok: answered, rps: answered / result.duration };
  },
});
