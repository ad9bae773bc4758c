/**
 * A live query's results as an async generator, the form graphql-ws consumes. A live query's feed
 * holds at most one result not yet taken: a newer result replaces it, so a client that reads slower
 * than results come gets the newest and the server's memory for it stays one result. A stream's
 * batches must each arrive: its feed holds them up to `keep.maxBytes` (always at least one), and past
 * that ends with `overflow()` (a slow consumer's bounded queue).
 */
export class Feed<T> implements AsyncGenerator<T, undefined> {
  private readonly queue: T[] = [];
  /** Bytes of the values in `queue` (as their pushers counted them). */
  private queuedBytes = 0;
  private readonly sizes: number[] = [];
  private failure: Error | undefined;
  private ended = false;
  private waiter?: { resolve: (r: IteratorResult<T, undefined>) => void; reject: (e: Error) => void };

  constructor(
    private readonly onEnd: () => void,
    private readonly keep?: { maxBytes: number; overflow: () => Error },
  ) {}

  /** `bytes`: the value's size on the wire, which bounds a stream's queue. */
  push(value: T, bytes = 0): void {
    if (this.ended) return;
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      w.resolve({ value, done: false });
    } else if (!this.keep) this.queue.splice(0, this.queue.length, value);
    else if (this.queue.length === 0 || this.queuedBytes + bytes <= this.keep.maxBytes) {
      this.queue.push(value);
      this.sizes.push(bytes);
      this.queuedBytes += bytes;
    } else {
      this.onEnd();
      this.fail(this.keep.overflow());
    }
  }

  /** Ends the feed with an error: the consumer's next read throws it. */
  fail(err: Error): void {
    if (this.ended) return;
    this.ended = true;
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      w.reject(err);
    } else this.failure = err;
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.queue.length > 0) {
      this.queuedBytes -= this.sizes.shift() ?? 0;
      return Promise.resolve({ value: this.queue.shift() as T, done: false });
    }
    if (this.failure) {
      const err = this.failure;
      this.failure = undefined;
      return Promise.reject(err);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  return(): Promise<IteratorResult<T, undefined>> {
    const first = !this.ended;
    this.ended = true;
    this.queue.length = 0;
    this.sizes.length = 0;
    this.queuedBytes = 0;
    const w = this.waiter;
    this.waiter = undefined;
    w?.resolve({ value: undefined, done: true });
    if (first) this.onEnd();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(): Promise<IteratorResult<T, undefined>> {
    return this.return();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }
}
