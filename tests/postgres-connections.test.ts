import { ConnectionChoice, type PoolConnection } from '../engine/core/db/postgres-connections';

/**
 * Which of the engine's PostgreSQL connections a statement goes to (engine/core/db/postgres-connections.ts):
 * statements that may share fill one connection to the pipeline depth before the next; any other
 * statement takes the first idle connection. The pool itself, through the gate, is tested on
 * PostgreSQL in faults-pool.test.ts.
 */
type Conn = PoolConnection<string>;

/** Places a statement as postgres.ts does: counted on its connection until `end` is called. */
function place(pool: ConnectionChoice<string>, shared: boolean): { c: Conn; end: () => void } {
  const c = shared ? pool.forShared() : pool.forOwn();
  c.running++;
  if (!shared) c.own++;
  return {
    c,
    end: () => {
      c.running--;
      if (!shared) c.own--;
    },
  };
}

describe('the choice of a PostgreSQL connection', () => {
  test('sharing statements fill one connection to the depth, then the next', () => {
    const pool = new ConnectionChoice(['a', 'b', 'c'], 4);
    const placed = Array.from({ length: 9 }, () => place(pool, true).c.sql);
    expect(placed).toEqual(['a', 'a', 'a', 'a', 'b', 'b', 'b', 'b', 'c']);
  });

  test('a sharing statement goes to the fullest sharing connection with room', () => {
    const pool = new ConnectionChoice(['a', 'b', 'c'], 4);
    const onA = [place(pool, true), place(pool, true), place(pool, true), place(pool, true)];
    const onB = [place(pool, true), place(pool, true)];
    expect(onB.map((p) => p.c.sql)).toEqual(['b', 'b']);
    onA[0].end();
    onA[1].end();
    onA[2].end();
    // a holds one, b two: b is the fuller.
    expect(place(pool, true).c.sql).toBe('b');
  });

  test('a sharing statement never goes behind a statement that does not share', () => {
    const pool = new ConnectionChoice(['a', 'b'], 4);
    const own = place(pool, false);
    expect(own.c.sql).toBe('a');
    expect(place(pool, true).c.sql).toBe('b');
    expect(place(pool, true).c.sql).toBe('b');
    own.end();
    // a is idle again, but b has room: sharing ones keep filling b.
    expect(place(pool, true).c.sql).toBe('b');
  });

  test('other statements take the first idle connection; one whose statement failed for its connection goes last', () => {
    const pool = new ConnectionChoice(['a', 'b', 'c'], 4);
    const first = place(pool, false);
    expect(first.c.sql).toBe('a');
    first.end();
    expect(place(pool, false).c.sql).toBe('a');
    const pool2 = new ConnectionChoice(['a', 'b', 'c'], 4);
    pool2.failed(pool2.forOwn());
    expect(pool2.connections.map((c) => c.sql)).toEqual(['b', 'c', 'a']);
    expect(place(pool2, false).c.sql).toBe('b');
  });

  test('with no idle connection, another statement goes to the least busy one holding only sharing statements', () => {
    const pool = new ConnectionChoice(['a', 'b', 'c'], 2);
    place(pool, false); // a
    place(pool, true); // b, the first idle one
    place(pool, true); // b
    place(pool, true); // c
    expect(place(pool, false).c.sql).toBe('c');
    // b still holds only sharing statements, though more of them than a holds.
    expect(place(pool, false).c.sql).toBe('b');
    // Every connection now holds one that does not share: the least busy of all.
    expect(place(pool, false).c.sql).toBe('a');
  });

  test('a depth of one never shares: each sharing statement takes an idle connection', () => {
    const pool = new ConnectionChoice(['a', 'b'], 1);
    expect([place(pool, true).c.sql, place(pool, true).c.sql]).toEqual(['a', 'b']);
  });
});
