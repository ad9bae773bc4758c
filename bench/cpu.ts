import type { Child } from './ipc';

/**
 * CPU time of server processes over a measured period, per answered request: each process answers
 * `process.cpuUsage()` to a 'cpu' call (ipc.ts), read before and after the period; user + system.
 */
export async function cpuMicros(children: Child[]): Promise<number> {
  const all = await Promise.all(children.map((c) => c.call<NodeJS.CpuUsage>('cpu')));
  return all.reduce((sum, c) => sum + c.user + c.system, 0);
}

/** Microseconds of CPU per answered request (0 requests count as 1). */
export const perRequest = (micros: number, requests: number): number => micros / Math.max(1, requests);
