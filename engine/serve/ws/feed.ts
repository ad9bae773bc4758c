/**
 * A live query's results as an async generator, the form graphql-ws consumes. It holds at most one
 * result not yet taken: a newer result replaces it, so a client that reads slower than results come
 * gets the newest and the server's memory for it stays one result (a slow consumer's bounded queue).
 */
export class Feed<T> implements AsyncGenerator<T, undefined> {
  private pending: T | undefined;
  private hasPending = false;
  private failure: Error | undefined;
  private ended = false;
  private waiter?: { resolve: (r: IteratorResult<T, undefined>) => void; reject: (e: Error) => void };

  constructor(private readonly onEnd: () => void) {}

  push(value: T): void {
    if (this.ended) return;
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      w.resolve({ value, done: false });
    } else {
      this.pending = value;
      this.hasPending = true;
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
    if (this.hasPending) {
      const value = this.pending as T;
      this.pending = undefined;
      this.hasPending = false;
      return Promise.resolve({ value, done: false });
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
    this.pending = undefined;
    this.hasPending = false;
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
