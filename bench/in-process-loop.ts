import { gcBetween, type GcTotals } from './gc-watch';

/** What `npm run bench -- inproc` asks a server process to run (in-process.ts): one workload, no HTTP. */
export interface LoopRun {
  workload: string;
  seconds: number;
  /** Requests in flight at once: that many loops, each sending its next request when its last is answered. */
  concurrency: number;
}

/** What a server process measured over a LoopRun: its own CPU time and collections, not the database's. */
export interface LoopResult {
  requests: number;
  seconds: number;
  cpuMicros: number;
  gc: GcTotals;
  /** The engine's: statements its coalescer ran for two requests or more, and the requests they answered. */
  batches?: number;
  coalesced?: number;
}

/**
 * `concurrency` loops of `once` for `seconds`, in this process: the requests answered and this
 * process's CPU time and garbage collections meanwhile. A failed request ends the run with its error,
 * so that a broken workload is never measured as a fast one.
 */
export async function loopFor(
  once: () => Promise<void>,
  run: Pick<LoopRun, 'seconds' | 'concurrency'>,
  gcTotals: () => GcTotals,
): Promise<LoopResult> {
  const started = performance.now();
  const until = started + run.seconds * 1000;
  const cpu0 = process.cpuUsage();
  const gc0 = gcTotals();
  const loop = async () => {
    let n = 0;
    while (performance.now() < until) {
      await once();
      n++;
    }
    return n;
  };
  const counts = await Promise.all(Array.from({ length: run.concurrency }, loop));
  const cpu = process.cpuUsage(cpu0);
  return {
    requests: counts.reduce((a, b) => a + b, 0),
    seconds: (performance.now() - started) / 1000,
    cpuMicros: cpu.user + cpu.system,
    gc: gcBetween(gc0, gcTotals()),
  };
}
