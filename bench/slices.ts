/**
 * A round's measured period cut into slices that alternate between the servers, so that the engine and
 * its floor are measured at the same moments of a shared machine.
 *
 * Why: on a 2-core machine the same server's rate moves by 20% and more from one few-second window to
 * the next, with nothing else running (two identical engines loaded in turns, v2_missconfig_groupings
 * at 4 connections, six trials each: one 5-s window each read A/B 0.74 to 1.14; five 1-s slices each,
 * in the order ABBA..., 0.93 to 1.06, for the same time spent). What moves the rate lasts seconds, so a
 * ratio of two back-to-back windows is mostly which window caught it; slices spread it over both.
 */

/**
 * Answers a connection must be expected to give in each slice. A slice ends with each connection's
 * request in flight, which is not counted: for slow workloads (a few answers a second) cutting the
 * period would lose more than it evens out, so they get fewer slices, down to one.
 */
export const MIN_ANSWERS_PER_SLICE = 25;

/**
 * How many slices a round's measured period gets: up to `most` (BENCH_SLICES), as many as give each
 * connection MIN_ANSWERS_PER_SLICE answers at the slowest server's warm-up rate, at least one; one
 * without warm-ups (no rate to go by).
 */
export function sliceCount(most: number, seconds: number, connections: number, warmupRps: number[]): number {
  if (warmupRps.length === 0) return 1;
  const slowest = Math.min(...warmupRps);
  if (!(slowest > 0) || !(seconds > 0)) return 1;
  const fits = Math.floor((slowest * seconds) / (connections * MIN_ANSWERS_PER_SLICE));
  return Math.max(1, Math.min(most, fits));
}

/**
 * The servers' order in slice `i`: the round's order, reversed every other slice (A B, B A, A B ...),
 * so that each server follows the other as often, and a steady drift of the machine's speed weighs on
 * both alike.
 */
export function sliceOrder<T>(order: readonly T[], i: number): T[] {
  return i % 2 === 0 ? [...order] : [...order].reverse();
}
