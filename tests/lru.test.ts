import { Lru } from '../engine/core/lru';

/**
 * The engine's caches (plans, verified JWTs, session facts, statement sizes and times) are Lru: bounded,
 * and what was used lately stays.
 */
describe('Lru', () => {
  test('holds at most its size, whatever is put in', () => {
    const lru = new Lru<number, number>(10);
    for (let i = 0; i < 1000; i++) {
      lru.set(i, i);
      expect(lru.size).toBeLessThanOrEqual(10);
    }
    expect(lru.get(999)).toBe(999);
  });

  test('what is used between insertions stays; what is not used goes first', () => {
    const lru = new Lru<string, number>(10);
    lru.set('hot', 1);
    lru.set('cold', 2);
    for (let i = 0; i < 100; i++) {
      lru.set(`new ${i}`, i);
      expect(lru.get('hot')).toBe(1);
    }
    expect(lru.get('cold')).toBeUndefined();
    expect(lru.get('new 99')).toBe(99);
  });

  test('a value set again is replaced, and a miss is undefined', () => {
    const lru = new Lru<string, string>(4);
    lru.set('a', 'first');
    lru.set('b', 'x');
    lru.set('c', 'y');
    lru.set('a', 'second');
    expect(lru.get('a')).toBe('second');
    expect(lru.get('nothing')).toBeUndefined();
    expect(lru.size).toBeLessThanOrEqual(4);
  });
});
