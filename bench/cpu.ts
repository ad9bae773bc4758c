import * as fs from 'node:fs';
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

/** Linux's clock ticks per second in /proc/<pid>/stat (USER_HZ, 100 on every architecture Node runs on). */
const TICKS_PER_SECOND = 100;

/**
 * utime + stime of one process, in microseconds; with `reaped`, cutime + cstime too: the time of its
 * children that have ended and that it has waited for. Undefined when it has gone or cannot be read.
 */
function processCpuMicros(pid: string, reaped = false): number | undefined {
  try {
    // The command name may hold spaces and parentheses: the fields are counted from the last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0);
    return (ticks * 1e6) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * CPU time of the given processes (a server's PostgreSQL backends), in microseconds: what its
 * statements cost the database, without the background processes' and other clients' share that
 * postgresCpuMicros counts too. A pid gone or unreadable counts 0; `reaped` adds each one's ended
 * children's time (processCpuMicros). The parallel workers a backend's plan starts are processes of
 * their own, which end with the statement: their time is not here (postgresCpuMicros has it), so for
 * a parallel plan this is the leader's share only.
 */
export function processesCpuMicros(pids: readonly number[], reaped = false): number {
  return pids.reduce((sum, pid) => sum + (processCpuMicros(String(pid), reaped) ?? 0), 0);
}

/** Whether the database at `url` runs on this machine, where postgresCpuMicros can read its processes. */
export function isLocalDatabase(url: string): boolean {
  return ['', 'localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);
}

/**
 * CPU time of every PostgreSQL process of this machine (postmaster, backends, background workers), in
 * microseconds, or undefined where /proc cannot tell (not Linux). Read before and after a load run,
 * it is what the run's statements cost PostgreSQL. Processes that ended meanwhile are counted too, by
 * the postmaster's time of its ended children (cutime, cstime): the parallel workers of a parallel
 * plan start and end with each statement. Without them spend_by_day (`npm run bench -- v2`, scale
 * 100, 32 connections) read as costing the database 132 ms a request against the floor's 207, at the
 * same requests a second on a machine busy all the while; with them, 224 against 206: the engine's
 * statements had done more of their work in workers (its own backends 129 ms, the floor's 197). It
 * counts whatever else PostgreSQL did meanwhile (autovacuum, another database's clients) too: on a
 * quiet machine, little.
 */
export function postgresCpuMicros(): number | undefined {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  let total = 0;
  for (const pid of pids) {
    let comm: string;
    try {
      comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm === 'postgres') total += processCpuMicros(pid, true) ?? 0;
  }
  return total;
}
