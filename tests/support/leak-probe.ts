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
 * The last file of each worker is not seen, and a resource still closing when the next file starts
 * (a file read, a socket's end) shows once without being a leak: read the list, do not assert on it.
 * The counts pass from file to file through a file of the worker's own, since jest gives each test
 * file fresh module objects and a global object of its own.
 */
const DIR = path.join(os.tmpdir(), 'engine-test-leaks');
const stateFile = path.join(DIR, `state-${process.pid}.json`);

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

beforeAll(() => {
  fs.mkdirSync(DIR, { recursive: true });
  const now = activeCounts();
  const before = previousFile();
  if (before) {
    const grown = Object.entries(now)
      .filter(([kind, n]) => n > (before.counts[kind] ?? 0))
      .map(([kind, n]) => `${kind} ${before.counts[kind] ?? 0} -> ${n}`);
    if (grown.length) fs.appendFileSync(path.join(DIR, `${process.pid}.txt`), `${before.file}: ${grown.join(', ')}\n`);
  }
  fs.writeFileSync(stateFile, JSON.stringify({ file: expect.getState().testPath, counts: now }));
});
