import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';

/**
 * The garbage collections of a bench server (engine or floor) since it started watching: how many
 * mark-compacts (V8's collections of the whole heap) and their pauses, and every kind's pauses
 * together. Read before and after a measured run (a 'gc' call, ipc.ts), like the CPU time.
 *
 * Why: the p99 of a server is set by its longest pauses, and a mark-compact pauses every request in
 * flight at once. The engine starts with a 256 MB old space, which V8 treats as a small heap and
 * grows by little; the floor runs on V8's defaults. When the engine's objects outlived their
 * requests (the coalescer's ties, until coalesce.ts CohortRows.answer cut them), it ran two or three
 * mark-compacts a second under the bench's load against the floor's one every few seconds; these
 * columns are how that showed.
 */
export interface GcTotals {
  /** Mark-compacts. */
  marks: number;
  /** Milliseconds the mark-compacts paused the thread. */
  markMs: number;
  /** Milliseconds every kind of collection paused the thread (scavenges, mark-compacts, the rest). */
  pauseMs: number;
}

const MAJOR = constants.NODE_PERFORMANCE_GC_MAJOR;

/** Starts counting this process's collections; the function returned reads the totals so far. */
export function watchGc(): () => GcTotals {
  const totals: GcTotals = { marks: 0, markMs: 0, pauseMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) count(totals, e);
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => ({ ...totals });
}

function count(totals: GcTotals, e: PerformanceEntry): void {
  totals.pauseMs += e.duration;
  if ((e as { detail?: { kind?: number } }).detail?.kind !== MAJOR) return;
  totals.marks++;
  totals.markMs += e.duration;
}

/** `a` plus `sign` times `b`, field by field. */
const combine = (a: GcTotals, b: GcTotals, sign: 1 | -1): GcTotals => ({
  marks: a.marks + sign * b.marks,
  markMs: a.markMs + sign * b.markMs,
  pauseMs: a.pauseMs + sign * b.pauseMs,
});

/** What happened between two readings. */
export const gcBetween = (a: GcTotals, b: GcTotals): GcTotals => combine(b, a, -1);

/** Two runs' together (rounds merged). */
export const gcSum = (a: GcTotals, b: GcTotals): GcTotals => combine(a, b, 1);
