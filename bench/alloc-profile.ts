/**
 * An allocation profile of the process it runs in (BENCH_ALLOC_PROF for the bench's engine): V8's
 * sampling heap profiler, keeping the samples of objects that were collected since. Without those it
 * shows what is alive when it stops, not what the requests allocated and the collector then had to
 * sweep. `old` (BENCH_ALLOC_PROF_OLD=1) keeps only the objects that lived into the old generation: those
 * collected by a scavenge are left out, so it shows what the mark-compacts had to collect. Summarise the
 * file with dist/bench/alloc-top.js.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Session } from 'node:inspector/promises';

/** One sample every this many bytes allocated, on average. */
const SAMPLING_BYTES = 4096;

/** Starts profiling; the function returned stops it and writes the profile into `dir`, returning its path. */
export async function startAllocProfile(dir: string, old = false): Promise<() => Promise<string>> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: SAMPLING_BYTES,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: !old,
  });
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    session.disconnect();
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `engine-${process.pid}.heapprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    return file;
  };
}
