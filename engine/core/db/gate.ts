import type { Database, Queryable } from './database';
import { RequestError } from '../errors';
import { asUnavailable, busyError, isConnectionFailure, unavailableError } from './faults';

/**
 * A first-come, first-served gate in front of a pool: at most `permits` statements (or transactions)
 * at once, one per connection, and a caller waits for a turn at most `waitMs`, then is told the
 * server is busy. Without it postgres.js queues without bound and, once every connection is busy,
 * pipelines a new statement behind a running one: a quick request waits for the slowest statement.
 */
export class Gate {
  private running = 0;
  private readonly waiting: { start(): void; timer: NodeJS.Timeout }[] = [];

  constructor(
    readonly permits: number,
    readonly waitMs: number,
  ) {}

  /** For the pool gauges of /metrics (core/metrics.ts). */
  stats(): { inUse: number; waiting: number; size: number } {
    return { inUse: this.running, waiting: this.waiting.length, size: this.permits };
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.enter();
    try {
      return await fn();
    } finally {
      this.leave();
    }
  }

  private enter(): Promise<void> {
    if (this.running < this.permits && this.waiting.length === 0) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = {
        start: () => {
          clearTimeout(entry.timer);
          this.running++;
          resolve();
        },
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          reject(busyError(this.waitMs));
        }, this.waitMs),
      };
      this.waiting.push(entry);
    });
  }

  private leave(): void {
    this.running--;
    this.waiting.shift()?.start();
  }
}

/**
 * A database whose statements and transactions pass the gate, and whose connection failures reach
 * callers as `database-unavailable` (faults.ts). After a connection failure the database counts as
 * down: one statement at a time goes through to find out whether it is back, and the others are
 * answered at once instead of each waiting on a connection attempt of its own. LISTEN keeps its own
 * connection and passes freely.
 */
export function gated(db: Database, gate: Gate): Database {
  let down: unknown;
  let probing = false;
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (down !== undefined && probing) throw unavailableError(down);
    const probe = down !== undefined;
    if (probe) probing = true;
    try {
      const result = await gate.run(fn);
      down = undefined;
      return result;
    } catch (err) {
      if (isConnectionFailure(err)) down = err;
      else if (!(err instanceof RequestError)) down = undefined;
      throw asUnavailable(err);
    } finally {
      if (probe) probing = false;
    }
  };
  return {
    kind: db.kind,
    query: (text, params, options) => guard(() => db.query(text, params, options)),
    exec: (script) => guard(() => db.exec(script)),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => guard(() => db.transaction(fn)),
    listen: (channel, onNotify, onListen) => db.listen(channel, onNotify, onListen),
    ...(db.setAddress ? { setAddress: (host: string, port: number) => db.setAddress!(host, port) } : {}),
    poolStats: () => gate.stats(),
    close: () => db.close(),
  };
}
