import { connectionQueue } from '../engine/core/db/connection-queue';
import { runTs } from './support/auth';
import { onPostgres } from './support/database';

describe('the connection queue given to postgres.js', () => {
  test('is first in, first out; remove takes a live entry out and answers null for one not in it', () => {
    const q = connectionQueue(['a']);
    q.push('b');
    q.push('c');
    expect(q.length).toBe(3);
    expect(q.shift()).toBe('a');
    expect(q.remove('a')).toBeNull();
    expect(q.remove('c')).toBe('c');
    expect(q.length).toBe(1);
    expect(q.shift()).toBe('b');
    expect(q.shift()).toBeUndefined();
    expect(q.length).toBe(0);
    q.push('d');
    expect([q.length, q.shift(), q.length]).toEqual([1, 'd', 0]);
  });

  test('keeps its order across the copies that drop shifted slots', () => {
    const q = connectionQueue<number>();
    const out: number[] = [];
    for (let i = 0; i < 1000; i++) {
      q.push(i);
      if (i % 3 === 2) out.push(q.shift()!, q.shift()!);
    }
    while (q.length) out.push(q.shift()!);
    expect(out).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });

  test("stays small when used as postgres.js's pool uses its busy queue: shifted, pushed back, removed", () => {
    // A pool of ten: a statement pipelined behind a running one shifts a connection and pushes it
    // back; a connection that finishes is removed from the middle. No shift ever empties the queue.
    const q = connectionQueue<number>();
    for (let c = 0; c < 10; c++) q.push(c);
    let held = 0;
    for (let i = 0; i < 100_000; i++) {
      const c = q.shift()!;
      if (q.remove(c) !== null) throw new Error('a shifted connection was still in the queue');
      q.push(c);
      if (i % 7 === 0) q.push(q.remove((c + 3) % 10)!);
      held = Math.max(held, q.held);
    }
    expect(held).toBeLessThanOrEqual(64);
    expect(q.length).toBe(10);
  });
});

// The replacement works where Node loads the modules (npm start, the image, the bench's servers), not
// under jest: the probe runs in a process of its own, on PostgreSQL (PGlite does not use postgres.js).
(onPostgres ? describe : describe.skip)('postgres.js with the engine pool', () => {
  test('makes its queues with connectionQueue, and they stay small while statements are pipelined', async () => {
    const run = await runTs('tests/support/queue-probe.ts', [], { DATABASE_URL: process.env.DATABASE_URL! });
    expect(run.err).toBe('');
    const probe = JSON.parse(run.out) as { statements: number; right: number; queues: number; largestHeld: number };
    expect(probe.right).toBe(probe.statements);
    // The pool's eight queues and one per connection at least.
    expect(probe.queues).toBeGreaterThanOrEqual(10);
    // At most twice the live entries (24 callers) or 32 shifted slots more; postgres.js's own queue
    // kept an empty slot per pipelined statement: thousands here.
    expect(probe.largestHeld).toBeLessThanOrEqual(100);
  });
});
