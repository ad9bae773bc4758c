/**
 * The two servers' PostgreSQL backends, put in the same state before they are measured.
 *
 * A backend's memory comes from glibc's malloc, which hands freed memory at the top of its heap back
 * to the kernel once more than its trim threshold (128 KB at first) is free. A statement that uses a
 * few hundred KB while it builds its JSON and frees them at its end then pays page faults on every
 * call. Once the backend has freed one chunk larger than glibc's mmap threshold, both thresholds rise
 * (to that chunk's size, and twice it), and the same statement's memory stays mapped from call to call.
 *
 * Measured on the bench's data (object_rel's hand-written statement, 100 rows with their account,
 * 31 KB of JSON; PostgreSQL 15 on Debian, one connection, its backend's CPU a call): 1,600 µs, 1,000 of
 * them system time, in a backend that had run nothing else; 400 µs (100 system) after one statement
 * that allocated 1 MB. Which backends had such a statement depends on what each server happened to
 * run before, so the two servers' figures differed by what their backends had done, not by their SQL.
 */

/** The floor's connections' application_name (the engine's is core/db/postgres.ts APPLICATION_NAME). */
export const FLOOR_APPLICATION_NAME = 'bench-floor';

/** A statement that allocates and frees 1 MB in the backend, holding its connection for 0.1 s. */
const PRIME = `SELECT pg_backend_pid() AS pid, length(repeat('x', 1048576)) AS n FROM pg_sleep(0.1)`;

/**
 * Runs PRIME on each of a pool's `size` connections: `size` at once, each holding its connection, so
 * that the pool opens them all; twice, since the engine's gate lets a statement it has not yet seen
 * be quick hold all but its reserve of connections. Answers how many backends ran it.
 */
export async function primeBackends(
  query: (text: string) => Promise<Record<string, unknown>[]>,
  size: number,
): Promise<number> {
  const pids = new Set<unknown>();
  for (let round = 0; round < 2; round++) {
    const rows = await Promise.all(Array.from({ length: size }, () => query(PRIME)));
    for (const [row] of rows) pids.add(row.pid);
  }
  return pids.size;
}
