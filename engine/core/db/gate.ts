import type { Database, Queryable } from './database';
import { RequestError } from '../errors';
import { Lru } from '../lru';
import { asUnavailable, busyError, isConnectionFailure, unavailableError } from './faults';

/** How a gate shares its connections (README "Faults"). */
export interface GateOptions {
  /** Statements (or transactions) at once: one per connection. */
  permits: number;
  /** Longest a caller waits for a turn, then it is told the server is busy. */
  waitMs: number;
  /**
   * Permits kept for statements known to be quick: a statement whose last run took at most `quickMs`.
   * Every other statement (new, slow, or a transaction) may hold at most `permits - quickReserve`, so
   * slow statements, however many, never hold every connection.
   */
  quickReserve?: number;
  quickMs?: number;
}

interface Waiter {
  lane?: string;
  start(): void;
  timer: NodeJS.Timeout;
}

/** How many statement texts the gate remembers the last duration of. */
const LANES_REMEMBERED = 500;

/**
 * A first-come, first-served gate in front of a pool: at most `permits` statements at once, one per
 * connection, and a caller waits for a turn at most `waitMs`, then is told the server is busy. Without
 * it postgres.js queues without bound and, once every connection is busy, pipelines a new statement
 * behind a running one: a quick request waits for the slowest statement.
 *
 * A statement's lane is its SQL text: a plan's statement has the same text on every request, so its
 * last duration says whether it is quick. The last `quickReserve` permits go only to quick lanes, so
 * that a flood of slow analytic statements (or statements stuck behind a lock) leaves room for the
 * quick requests behind them. A lane that turns slow while in the reserve holds it for one run; its
 * slow run then takes it out of the reserve.
 */
export class Gate {
  readonly permits: number;
  readonly waitMs: number;
  private readonly reserve: number;
  private readonly quickMs: number;
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private readonly lastMs = new Lru<string, number>(LANES_REMEMBERED);

  constructor(opts: GateOptions) {
    this.permits = opts.permits;
    this.waitMs = opts.waitMs;
    this.reserve = Math.max(0, Math.min(opts.quickReserve ?? 0, opts.permits - 1));
    this.quickMs = opts.quickMs ?? 250;
  }

  /** For the pool gauges of /metrics (core/metrics.ts). */
  stats(): { inUse: number; waiting: number; size: number } {
    return { inUse: this.running, waiting: this.waiting.length, size: this.permits };
  }

  async run<T>(fn: () => Promise<T>, lane?: string): Promise<T> {
    await this.enter(lane);
    const started = performance.now();
    let ok = false;
    try {
      const result = await fn();
      ok = true;
      return result;
    } finally {
      this.leave();
      // A failure says nothing of the lane's speed, unless it took long (a statement timeout).
      const ms = performance.now() - started;
      if (lane !== undefined && this.reserve > 0 && (ok || ms > this.quickMs)) this.lastMs.set(lane, ms);
    }
  }

  private mayStart(lane: string | undefined): boolean {
    if (this.running < this.permits - this.reserve) return true;
    if (this.running >= this.permits || lane === undefined) return false;
    const ms = this.lastMs.get(lane);
    return ms !== undefined && ms <= this.quickMs;
  }

  private enter(lane: string | undefined): Promise<void> {
    // No waiter can start now (leave() starts every one that can), so a caller that may start
    // passes no one who was first.
    if (this.mayStart(lane)) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry: Waiter = {
        lane,
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

  /** Starts waiters in their order, each that may start now: a quick one may pass slow ones held back. */
  private leave(): void {
    this.running--;
    for (let i = 0; i < this.waiting.length && this.running < this.permits;) {
      if (!this.mayStart(this.waiting[i].lane)) i++;
      else this.waiting.splice(i, 1)[0].start();
    }
  }
}

/**
 * A database whose statements and transactions pass the gate, and whose connection failures reach
 * callers as `database-unavailable` (faults.ts). After a connection failure the database counts as
 * down: one statement at a time goes through to find out whether it is back, and the others are
 * answered at once instead of each waiting on a connection attempt of its own. LISTEN keeps its own
 * connection and passes freely. A statement's lane is its text; a transaction has none.
 */
export function gated(db: Database, gate: Gate): Database {
  let down: unknown;
  let probing = false;
  const guard = async <T>(fn: () => Promise<T>, lane?: string): Promise<T> => {
    if (down !== undefined && probing) throw unavailableError(down);
    const probe = down !== undefined;
    if (probe) probing = true;
    try {
      const result = await gate.run(fn, lane);
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
    query: (text, params, options) => guard(() => db.query(text, params, options), text),
    exec: (script) => guard(() => db.exec(script)),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => guard(() => db.transaction(fn)),
    listen: (channel, onNotify, onListen) => db.listen(channel, onNotify, onListen),
    ...(db.setAddress ? { setAddress: (host: string, port: number) => db.setAddress!(host, port) } : {}),
    poolStats: () => gate.stats(),
    close: () => db.close(),
  };
}
