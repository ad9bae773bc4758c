import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';

/**
 * The first-in, first-out queue postgres.js keeps its connections and waiting statements in (its
 * `cjs/src/queue.js`: `length`, `push`, `shift`, `remove`), written again so that it stays small.
 *
 * postgres.js 3.4.9's own marks a shifted slot empty and only starts a new array once a shift empties
 * it, and `remove` searches from the array's start. Its pool's `busy` queue is shifted when a statement
 * is pipelined behind a running one and emptied by `remove`, so under steady load it is never emptied
 * by a shift: it gained one empty slot per pipelined statement, for ever, and every connection that
 * finished a statement searched all of them. Measured with postgres.js alone (32 callers looping
 * `select 1` on a pool of 10 against PostgreSQL 15): 102,535 slots after 5 s, and the rate fell from
 * 24,500 to about 5,000 statements a second within 40 s; with this queue, 44,000-54,000 a second,
 * steady.
 *
 * Here the shifted slots before `head` are dropped once they are most of the array, and `remove`
 * searches only the live part.
 */
export interface ConnectionQueue<T> {
  readonly length: number;
  /** The array's length, shifted slots not yet dropped included. */
  readonly held: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}

/** Shifted slots kept before the array is copied down: a copy per 32 shifts at most, never per shift. */
const SLACK = 32;

const made = { queues: 0, largestHeld: 0 };

/** How many queues postgres.js made with this one, and the longest array one held: for the tests. */
export function connectionQueueStats(): { queues: number; largestHeld: number } {
  return { ...made };
}

export function connectionQueue<T>(initial: readonly T[] = []): ConnectionQueue<T> {
  let items = initial.slice();
  let head = 0;
  made.queues++;
  return {
    get length() {
      return items.length - head;
    },
    get held() {
      return items.length;
    },
    push(x) {
      if (items.push(x) > made.largestHeld) made.largestHeld = items.length;
      return x;
    },
    shift() {
      if (head === items.length) return undefined;
      const out = items[head];
      items[head++] = undefined as T;
      if (head === items.length) {
        items = [];
        head = 0;
      } else if (head >= SLACK && head * 2 >= items.length) {
        items = items.slice(head);
        head = 0;
      }
      return out;
    },
    remove(x) {
      const i = items.indexOf(x, head);
      if (i === -1) return null;
      items.splice(i, 1);
      return x;
    },
  };
}

/**
 * Puts connectionQueue where postgres.js's CommonJS build requires its queue from, before postgres.js
 * is first loaded (Node's module cache takes added entries: `require.cache`). Where the file is not
 * there (another build or version of postgres.js), nothing is replaced and its own queue is used.
 * Returns whether it was replaced. Jest's module registry does not read Node's cache: under jest,
 * postgres.js keeps its own queue.
 */
export function replacePostgresJsQueue(): boolean {
  let file: string;
  try {
    file = path.join(path.dirname(require.resolve('postgres')), 'queue.js');
  } catch {
    return false;
  }
  const loaded = require.cache[file];
  if (loaded) return loaded.exports === connectionQueue;
  if (!fs.existsSync(file)) return false;
  const entry = new Module(file);
  entry.filename = file;
  entry.loaded = true;
  entry.exports = connectionQueue;
  require.cache[file] = entry;
  return true;
}
