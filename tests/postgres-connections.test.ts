import { ConnectionChoice, type PoolConnection } from '../engine/core/db/postgres-connections';

/**
 * Which of the engine's PostgreSQL connections a statement goes to (engine/core/db/postgres-connections.ts):
 * statements that may share fill one connection to the pipeline depth, or until their parts of the
 * share budget add up to 1, before the next; any other
 * statement takes the first idle connection. The pool itself, through the gate, is tested on
 * PostgreSQL in faults-pool.test.ts.
 */
type Conn = PoolConnection<string>;

/** Places a statement as postgres.ts does: counted on its connection until `end` is called. */
function place(pool: ConnectionChoice<string>, share?: number): { c: Conn; end: () => void } {
  const c = share !== undefined ? pool.forShared(share) : pool.forOwn();
  pool.enter(c, share);
  return { c, end: () => pool.leave(c, share) };
}

/** A sharing statement of a tenth of the budget: only the depth limits how many go together. */
const TENTH = 0.1;

describe('the choice of a PostgreSQL connection', () => {
  test('sharing statements fill one connection to the depth, then the next', () => {
    const pool = new ConnectionChoice(['a', 'b', 'c'], 4);
    const placed = Array.from({ length: 9 }, () => place(pool, TENTH).c.sql);
    expect(placed).toEqual(['a', 'a', 'a', 'a', 'b', 'b', 'b', 'b', 'c']);
  });

  test('a sharing statement goes to the fullest sharing connection with room', () => {
    const pool = new ConnectionChoice(['a', 'b', 'c'], 4);
    const onA = [place(pool, TENTH), place(pool, TENTH), place(pool, TENTH), place(pool, TENTH)];
    const onB = [place(pool, TENTH), place(pool, TENTH)];
    expect(onB.map((p) => p.c.sql)).toEqual(['b', 'b']);
    onA[0].end();
    onA[1].end();
    onA[2].end();
    // a holds one, b two: b is the fuller.
    expect(place(pool, TENTH).c.sql).toBe('b');
  });

  test('a sharing statement never goes behind a statement that does not share', () => {
    const pool = new ConnectionChoice(['a', 'b'], 4);
    const own = place(pool);
    expect(own.c.sql).toBe('a');
    expect(place(pool, TENTH).c.sql).toBe('b');
    expect(place(pool, TENTH).c.sql).toBe('b');
    own.end();
    // a is idle again, but b has room: sharing ones keep filling b.
    expect(place(pool, TENTH).c.sql).toBe('b');
  });

  test('other statements take the first idle connection; one whose statement failed for its connection goes last', () => {
    const pool = new ConnectionChoice(['a', 'b', 'c'], 4);
    const first = place(pool);
    expect(first.c.sql).toBe('a');
    first.end();
    expect(place(pool).c.sql).toBe('a');
    const pool2 = new ConnectionChoice(['a', 'b', 'c'], 4);
    pool2.failed(pool2.forOwn());
    expect(pool2.connections.map((c) => c.sql)).toEqual(['b', 'c', 'a']);
    expect(place(pool2, false).c.sql).toBe('b');
  });

  test('with no idle connection, another statement goes to the least busy one holding only sharing statements', () => {
    const pool = new ConnectionChoice(['a', 'b', 'c'], 2);
    place(pool); // a
    place(pool, TENTH); // b, the first idle one
    place(pool, TENTH); // b
    place(pool, TENTH); // c
    expect(place(pool).c.sql).toBe('c');
    // b still holds only sharing statements, though more of them than a holds.
    expect(place(pool).c.sql).toBe('b');
    // Every connection now holds one that does not share: the least busy of all.
    expect(place(pool).c.sql).toBe('a');
  });

  test('sharing statements go together while their parts of the budget add up to at most 1', () => {
    const pool = new ConnectionChoice(['a', 'b', 'c'], 4);
    // Each half of the budget: two to a connection.
    expect(Array.from({ length: 4 }, () => place(pool, 0.5).c.sql)).toEqual(['a', 'a', 'b', 'b']);
    const pool2 = new ConnectionChoice(['a', 'b'], 4);
    const big = place(pool2, 0.7);
    // 0.7 + 0.4 is over the budget, 0.7 + 0.3 is not.
    expect(place(pool2, 0.4).c.sql).toBe('b');
    expect(place(pool2, 0.3).c.sql).toBe('a');
    big.end();
  });

  test("a connection's parts of the budget go back to 0 when it is idle", () => {
    const pool = new ConnectionChoice(['a', 'b'], 4);
    // Parts whose sum, added and taken away in floating point, is not exactly 0.
    const placed = [0.1, 0.2, 0.3].map((share) => place(pool, share));
    placed.forEach((p) => p.end());
    expect(pool.connections[0]).toMatchObject({ running: 0, own: 0, shared: 0 });
    // Then a full part fits beside nothing but itself.
    const whole = place(pool, 1);
    expect(whole.c.sql).toBe('a');
    expect(place(pool, 1).c.sql).toBe('b');
  });

  test('a depth of one never shares: each sharing statement takes an idle connection', () => {
    const pool = new ConnectionChoice(['a', 'b'], 1);
    expect([place(pool, TENTH).c.sql, place(pool, TENTH).c.sql]).toEqual(['a', 'b']);
  });
});
