import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';

/**
 * TEST_LEAK_PROBE=1 (jest.config.js): what keeps a jest worker's event loop alive after a test file
 * ended. As each file is set up (before its module is loaded, outside any hook), the worker's active
 * resources (process.getActiveResourcesInfo: ref'd timers, sockets, servers, child processes) are
 * counted and compared with the counts at the previous file's start in the same worker; a kind that
 * grew is written, with the previous file's name, to `<tmpdir>/engine-test-leaks/<worker pid>.txt`.
 * A worker that still holds such a resource when jest ends it is killed after a wait, with jest's
 * "A worker process has failed to exit gracefully".
 *
 * A worker's last file has no next file to be seen by. So five seconds after each file ends, if no other
 * file has started in the worker since, the counts are compared with those at that file's start,
 * marked "after its end" (its own afterAll hooks may still be running then); and again when jest ends
 * the worker, marked "when jest ended the worker": what is listed then is what holds the worker open.
 * A resource still closing when the next file starts (a file read, a socket's end) shows once without
 * being a leak: read the list, do not assert on it.
 * The counts pass from file to file through a file of the worker's own, since jest gives each test
 * file fresh module objects and a global object of its own.
 */
const DIR = path.join(os.tmpdir(), 'engine-test-leaks');
const stateFile = path.join(DIR, `state-${process.pid}.json`);
/** Where this worker's findings are written. */
const leaksFile = path.join(DIR, `${process.pid}.txt`);
const thisFile = expect.getState().testPath ?? '';

type Counts = Record<string, number>;

function activeCounts(): Counts {
  const counts: Counts = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** The counts saved at the start of the worker's latest file (this one, or the one before it). */
function savedState(): { file: string; counts: Counts } | undefined {
  try {
    return JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  } catch {
    return undefined;
  }
}

/** How long after a file's end its worker is looked at again when no other file has started. */
const LATE_MS = 5000;

/** Writes the kinds that grew from `before` to `now`, if any, as what `file` left behind. */
function noteGrowth(file: string, before: Counts, now: Counts, when = ''): void {
  const grown = Object.entries(now)
    .filter(([kind, n]) => n > (before[kind] ?? 0))
    .map(([kind, n]) => `${kind} ${before[kind] ?? 0} -> ${n}`);
  if (grown.length) fs.appendFileSync(leaksFile, `${file}${when}: ${grown.join(', ')}\n`);
}

// Counted as this file is set up, before its module (and what it opens on import) is loaded and
// outside any hook: a hook's own timeout timer would count as one of the file's.
fs.mkdirSync(DIR, { recursive: true });
const atStart = activeCounts();
const before = savedState();
if (before) noteGrowth(before.file, before.counts, atStart);
fs.writeFileSync(stateFile, JSON.stringify({ file: thisFile, counts: atStart }));

// Unref'd: it must not itself keep the worker alive. A worker that jest lets end exits before it fires.
afterAll(() => {
  setTimeout(() => {
    const state = savedState();
    if (state?.file === thisFile) noteGrowth(thisFile, state.counts, activeCounts(), ` (after its end, ${LATE_MS} ms)`);
  }, LATE_MS).unref();
});

/**
 * The worker's own process object: a test file's `process` is jest's copy, whose events are its own,
 * and jest-worker's messages arrive at the real one (vm.runInThisContext runs in the worker's context).
 */
const realProcess = vm.runInThisContext('process') as NodeJS.Process;

/** jest-worker's message that asks a worker to end (CHILD_MESSAGE_END); it exits once nothing holds it. */
const END = 2;
type ProbeListener = ((message: unknown) => void) & { leakProbe?: true };

/**
 * When jest ends the worker, what its last file left beside what it found: exactly what keeps the
 * worker from exiting. One listener per worker (the previous file's is replaced), and it takes itself
 * off at once: a 'message' listener keeps the worker's IPC channel, and so the worker, alive.
 */
const onEnd: ProbeListener = (message) => {
  if (!Array.isArray(message) || message[0] !== END) return;
  realProcess.removeListener('message', onEnd);
  const state = savedState();
  if (state) noteGrowth(state.file, state.counts, activeCounts(), ' (when jest ended the worker)');
  // Jest kills a worker still alive 500 ms after this message. Unref'd, this fires only if something
  // else holds the worker: then everything still active is written, leak or not.
  setTimeout(() => {
    const all = Object.entries(activeCounts()).map(([kind, n]) => `${kind} ${n}`);
    fs.appendFileSync(leaksFile, `${state?.file} (alive 300 ms after the end message): ${all.join(', ')}\n`);
  }, 300).unref();
};
onEnd.leakProbe = true;
for (const l of realProcess.listeners('message') as ProbeListener[])
  if (l.leakProbe) realProcess.removeListener('message', l);
realProcess.on('message', onEnd);
