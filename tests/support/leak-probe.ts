import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * TEST_LEAK_PROBE=1 (jest.config.js): what keeps a jest worker's event loop alive after a test file
 * ended. At each file's start, the worker's active resources (process.getActiveResourcesInfo: ref'd
 * timers, sockets, servers, child processes) are counted and compared with the counts at the previous
 * file's start in the same worker; a kind that grew is written, with the previous file's name, to
 * `<tmpdir>/engine-test-leaks/<worker pid>.txt`. A worker that still holds such a resource when jest
 * ends it is killed after a wait, with jest's "A worker process has failed to exit gracefully".
 *
 * A worker's last file has no next file to be seen by: a second after each file ends, if no other file
 * has started in the worker since (a marker written before each file's module is loaded), the counts are compared with those at that file's start, and growth
 * is written the same way, marked "after its end". A resource still closing when the next file
 * starts (a file read, a socket's end) shows once without being a leak: read the list, do not assert
 * on it.
 * The counts pass from file to file through a file of the worker's own, since jest gives each test
 * file fresh module objects and a global object of its own.
 */
const DIR = path.join(os.tmpdir(), 'engine-test-leaks');
const stateFile = path.join(DIR, `state-${process.pid}.json`);
/** The file the worker runs now, written before its module (and what it opens on import) is loaded. */
const currentFile = path.join(DIR, `current-${process.pid}`);
const thisFile = expect.getState().testPath ?? '';
fs.mkdirSync(DIR, { recursive: true });
fs.writeFileSync(currentFile, thisFile);

type Counts = Record<string, number>;

function activeCounts(): Counts {
  const counts: Counts = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

function previousFile(): { file: string; counts: Counts } | undefined {
  try {
    return JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  } catch {
    return undefined;
  }
}

/** How long after a file's end its worker is looked at again when no other file has started. */
const LATE_MS = 1000;

/** Writes the kinds that grew from `before` to `now`, if any, as what `file` left behind. */
function noteGrowth(file: string, before: Counts, now: Counts, when = ''): void {
  const grown = Object.entries(now)
    .filter(([kind, n]) => n > (before[kind] ?? 0))
    .map(([kind, n]) => `${kind} ${before[kind] ?? 0} -> ${n}`);
  if (grown.length) fs.appendFileSync(path.join(DIR, `${process.pid}.txt`), `${file}${when}: ${grown.join(', ')}\n`);
}

beforeAll(() => {
  const now = activeCounts();
  const before = previousFile();
  if (before) noteGrowth(before.file, before.counts, now);
  fs.writeFileSync(stateFile, JSON.stringify({ file: thisFile, counts: now }));
});

// Unref'd: it must not itself keep the worker alive. A worker that jest lets end exits before it fires.
afterAll(() => {
  setTimeout(() => {
    if (fs.readFileSync(currentFile, 'utf8') !== thisFile) return;
    const state = previousFile();
    if (state?.file === thisFile) noteGrowth(thisFile, state.counts, activeCounts(), ` (after its end, ${LATE_MS} ms)`);
  }, LATE_MS).unref();
});
