/**
 * A bounded map that forgets what was used least recently, by generations: entries live in a current
 * generation and an old one. A hit in the current costs one look-up and no reordering (a classic LRU
 * deletes and re-inserts on every hit, which was the engine's costliest line of its own per request);
 * a hit in the old moves the entry to the current; once the current holds half of `max`, it becomes
 * the old and the old is dropped. So it holds at most `max` entries (rounded up to even), and keeps
 * every entry used since the last turn.
 */
export class Lru<K, V> {
  private current = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly generation: number;

  constructor(max: number) {
    this.generation = Math.max(1, Math.ceil(max / 2));
  }

  get(key: K): V | undefined {
    const v = this.current.get(key);
    if (v !== undefined) return v;
    const o = this.old.get(key);
    if (o !== undefined) {
      this.old.delete(key);
      this.put(key, o);
    }
    return o;
  }

  set(key: K, value: V): void {
    if (this.current.has(key)) this.current.set(key, value);
    else {
      this.old.delete(key);
      this.put(key, value);
    }
  }

  get size(): number {
    return this.current.size + this.old.size;
  }

  private put(key: K, value: V): void {
    this.current.set(key, value);
    if (this.current.size >= this.generation) {
      this.old = this.current;
      this.current = new Map();
    }
  }
}
