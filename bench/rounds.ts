/**
 * The engine against its floor round by round. Within a round the two servers take turns slice by
 * slice (slices.ts; rounds rotate which goes first), so a round's ratio compares them at the same
 * moments of a shared, noisy machine. The summary's verdict is the median of the rounds' ratios, as
 * issue 20 measured its own table (interleaved rounds, medians): one round slowed by something else
 * on the machine moves the median less than it moves the ratio of the rounds merged.
 */
export function roundRatios(engine: readonly { rps: number }[], floor: readonly { rps: number }[]): number[] {
  if (engine.length !== floor.length)
    throw new Error(`${engine.length} engine rounds against ${floor.length} floor rounds`);
  return engine.map((e, i) => e.rps / floor[i].rps);
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. Also plans.ts's. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
