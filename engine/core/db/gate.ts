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
  /**
   * Statements at once per connection for lanes whose runs usually take at most `pipelineMs` (1: none).
   * postgres.js sends such statements behind one another on a connection (pipelining): one write and
   * one read for several, for the engine and for PostgreSQL.
   */
  pipelineDepth?: number;
  pipelineMs?: number;
  /**
   * A shared connection's budget: light lanes share a connection with others of their kind before
   * taking an idle one, but never one running anything else (postgres-connections.ts), while the
   * quickest recent runs (LaneTimes.least) of the statements on it add up to at most this many
   * milliseconds. Told by the `share` argument of `run`'s callback: the part of the budget a
   * statement takes. 0: never.
   */
  shareMs?: number;
}

/** What the gate knows of a lane's runs. */
interface LaneTimes {
  /** The last run's milliseconds (the quick reserve's measure). */
  last: number;
  /**
   * A moving average of its runs (each run weighs a fifth): pipelining's measure, which one run slowed
   * by a busy moment does not flip, so that pipelining does not stop and start with every spike.
   */
  usual: number;
  /**
   * Near its quickest runs: down to a quicker run at once, up a fifth of the way to a slower one.
   * Sharing's measure: shared statements wait for each other's answers in the engine's busy event
   * loop, which makes their runs look slower than the database made them (v2_security_groupings at 4
   * clients: runs of 0.3 to 4.8 ms, usual 1.4 to 2.7, for a statement PostgreSQL runs in 0.1), and
   * the quickest are the closest to what the database takes.
   */
  least: number;
}

/** A light lane's times (Gate.lightOf), or undefined for a statement that is not light. */
type Light = LaneTimes | undefined;

/** How a statement was let in: light (pipelinable) or not, and whether it counts against the quick reserve. */
interface Admission {
  light: Light;
  /** Not known to be quick (new, slow, or a transaction): at most `permits - quickReserve` of these at once. */
  slow: boolean;
}

/**
 * The part of a shared connection's budget (GateOptions.shareMs) a statement takes: its lane's
 * quickest recent runs over the budget, at most 1. Statements share a connection while
 * their parts add up to at most 1: sharing saves the engine and the backend wake-ups, but the shared
 * statements run one after another on one backend, and so on one core. Statements of a tenth of a
 * millisecond fill a connection (the pipeline depth); statements of 1 ms go two to a connection,
 * so that four of them at once still keep two cores busy (v2_recommendation_groupings at 4 clients
 * on a 2-core machine, sent four to a connection: 0.73 of the floor's requests a second). undefined:
 * it may not share.
 */
export type Share = number | undefined;

/** How much the latest run weighs in a lane's usual time. */
const USUAL_WEIGHT = 0.2;

interface Waiter {
  lane?: string;
  /** When it is told the server is busy (performance.now()'s milliseconds). */
  deadline: number;
  resolve(admission: Admission): void;
  reject(err: unknown): void;
}

/** How many statement texts the gate remembers the last duration of. */
const LANES_REMEMBERED = 500;

/** The statement that asks whether a database counted as down is back (gated): quick by nature. */
export const PROBE = 'SELECT 1';

/**
 * A first-come, first-served gate in front of a pool: at most `permits` statements at once, one per
 * connection, and a caller waits for a turn at most `waitMs`, then is told the server is busy. Without
 * it postgres.js queues without bound and, once every connection is busy, pipelines a new statement
 * behind a running one: a quick request waits for the slowest statement.
 *
 * A statement's lane is its SQL text: a plan's statement has the same text on every request, so its
 * last duration says whether it is quick. At most `permits - quickReserve` statements not known to
 * be quick run at once, so that a flood of slow analytic statements (or statements stuck behind a
 * lock) leaves room for the quick requests behind them. A lane that turns slow while it runs counts
 * as quick for that one run; its slow run then counts it with the slow ones.
 *
 * Pipelining is let in where it cannot make a quick request wait for a slow one: a lane whose last
 * runs usually take at most `pipelineMs` may go beyond one statement per connection (up to `pipelineDepth`
 * each) while every statement in flight is such a lane and no one waits. A slow or new statement, or
 * a transaction, stops it until those in flight are answered: it then waits for its turn as before.
 */
export class Gate {
  readonly permits: number;
  readonly waitMs: number;
  private readonly reserve: number;
  private readonly quickMs: number;
  private readonly pipelined: number;
  private readonly pipelineMs: number;
  private readonly shareMs: number;
  /** Whether lanes' durations matter: a quick reserve or pipelining. */
  private readonly remembers: boolean;
  private running = 0;
  /** Statements in flight that may not be pipelined behind (new, slow, transactions). */
  private heavy = 0;
  /** Statements in flight not known to be quick: the quick reserve keeps them to `permits - reserve`. */
  private slow = 0;
  /** In the order they came, and so in the order of their deadlines (every caller waits `waitMs`). */
  private readonly waiting: Waiter[] = [];
  /** Armed for the first waiter's deadline, or for an earlier one's that has started since. */
  private expiry?: NodeJS.Timeout;
  private readonly times = new Lru<string, LaneTimes>(LANES_REMEMBERED);

  constructor(opts: GateOptions) {
    this.permits = opts.permits;
    this.waitMs = opts.waitMs;
    this.reserve = Math.max(0, Math.min(opts.quickReserve ?? 0, opts.permits - 1));
    this.quickMs = opts.quickMs ?? 250;
    this.pipelined = opts.permits * Math.max(1, Math.trunc(opts.pipelineDepth ?? 1));
    this.pipelineMs = opts.pipelineMs ?? 20;
    this.shareMs = Math.min(opts.shareMs ?? 0, this.pipelineMs);
    this.remembers = this.reserve > 0 || this.pipelined > this.permits;
  }

  /** For the pool gauges of /metrics (core/metrics.ts). */
  stats(): { inUse: number; waiting: number; size: number } {
    return { inUse: this.running, waiting: this.waiting.length, size: this.permits };
  }

  /**
   * Runs `fn` when its turn comes. `share`: the part of a shared connection's budget its statement
   * takes (Share), or undefined when it may not share one.
   */
  run<T>(fn: (share: Share) => Promise<T>, lane?: string): Promise<T> {
    // No waiter can start now (leave() starts every one that can), so a caller that may start
    // passes no one who was first; and pipelining never passes a waiter. Started at once, without
    // waiting a turn of the event loop for a promise that is already settled.
    const admission = this.admission(lane, this.waiting.length === 0);
    if (admission) {
      this.admit(admission);
      return this.runAdmitted(fn, lane, admission);
    }
    return this.wait(lane).then((started) => this.runAdmitted(fn, lane, started));
  }

  private async runAdmitted<T>(
    fn: (share: Share) => Promise<T>,
    lane: string | undefined,
    admission: Admission,
  ): Promise<T> {
    const started = performance.now();
    let ok = false;
    try {
      const result = await fn(this.shareOf(admission.light));
      ok = true;
      return result;
    } finally {
      this.leave(admission);
      // A failure says nothing of the lane's speed, unless it took long (a statement timeout).
      const ms = performance.now() - started;
      if (lane !== undefined && this.remembers && (ok || ms > this.quickMs)) this.note(lane, ms);
    }
  }

  /** The part of a shared connection's budget a statement of this lane takes (Share). */
  private shareOf(light: Light): Share {
    if (light === undefined || this.shareMs <= 0 || light.least > this.shareMs) return undefined;
    return light.least / this.shareMs;
  }

  private note(lane: string, ms: number): void {
    const t = this.times.get(lane);
    if (!t) this.times.set(lane, { last: ms, usual: ms, least: ms });
    else {
      t.last = ms;
      t.usual += USUAL_WEIGHT * (ms - t.usual);
      t.least = ms < t.least ? ms : t.least + USUAL_WEIGHT * (ms - t.least);
    }
  }

  /**
   * A lane's times when it may share a connection with other statements (its runs are usually very
   * quick), kept for whether it may also fill one before taking an idle one (shareMs); else undefined.
   */
  private lightOf(t: LaneTimes | undefined): Light {
    return t !== undefined && this.pipelined > this.permits && t.usual <= this.pipelineMs ? t : undefined;
  }

  /**
   * How a statement of `lane` is let in now, or undefined if it must wait. A free connection goes to
   * a quick lane, or to any other while fewer than `permits - reserve` of those run: the reserve
   * bounds the slow ones, not everyone. Counting all statements instead starved a slow lane behind a
   * stream of quick ones (each freed connection went to the next quick waiter, since the slow one
   * needed two free): v2_monitoring at 32 clients had 2 of 1,000 requests refused as busy after 5 s,
   * with the others answered in 0.5 s.
   */
  private admission(lane: string | undefined, pipelining: boolean): Admission | undefined {
    // One look-up of the lane's times serves both questions (light, quick).
    const t = lane === undefined || !this.remembers ? undefined : this.times.get(lane);
    const light = this.lightOf(t);
    if (this.running < this.permits) {
      const slow = !this.isQuick(lane, t);
      return !slow || this.slow < this.permits - this.reserve ? { light, slow } : undefined;
    }
    const pipelined = pipelining && light !== undefined && this.heavy === 0 && this.running < this.pipelined;
    return pipelined ? { light, slow: !this.isQuick(lane, t) } : undefined;
  }

  /** Whether a lane may use the quick reserve: the probe, or a statement whose last run was quick. */
  private isQuick(lane: string | undefined, t: LaneTimes | undefined): boolean {
    return lane === PROBE || (t !== undefined && t.last <= this.quickMs);
  }

  /**
   * Waits for a turn; resolves with how it was let in. One timer serves every waiter: they all wait
   * `waitMs` and queue in the order they came, so the first one's deadline is the next to pass. A timer
   * of their own for each (made, then cleared when its turn came) was a cost of every request that
   * waited, and at 32 clients on a pool of 10 many do.
   */
  private wait(lane: string | undefined): Promise<Admission> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ lane, deadline: performance.now() + this.waitMs, resolve, reject });
      this.expiry ??= setTimeout(this.expire, this.waitMs);
    });
  }

  /**
   * Tells the waiters whose deadline has passed that the server is busy, then sets the timer for the
   * first one left. Waiters started before their deadline leave the timer as it was: it then finds no
   * one to tell, and is set again for whoever is first.
   */
  private readonly expire = (): void => {
    this.expiry = undefined;
    const now = performance.now();
    while (this.waiting.length > 0 && this.waiting[0].deadline <= now)
      this.waiting.shift()!.reject(busyError(this.waitMs));
    if (this.waiting.length > 0) this.expiry = setTimeout(this.expire, this.waiting[0].deadline - now);
  };

  private admit(a: Admission): void {
    this.running++;
    if (!a.light) this.heavy++;
    if (a.slow) this.slow++;
  }

  /**
   * Starts waiters in their order, each that may start now: a quick one may pass slow ones held back,
   * but none is pipelined past a waiter that could not start.
   */
  private leave(a: Admission): void {
    this.running--;
    if (!a.light) this.heavy--;
    if (a.slow) this.slow--;
    let pipelining = true;
    for (let i = 0; i < this.waiting.length && this.running < this.pipelined;) {
      const waiter = this.waiting[i];
      const admission = this.admission(waiter.lane, pipelining);
      if (admission) {
        this.waiting.splice(i, 1);
        this.admit(admission);
        waiter.resolve(admission);
      } else {
        pipelining = false;
        i++;
      }
    }
    // No one left to tell: the process need not wake, nor stay up, for a deadline of no one's.
    if (this.waiting.length === 0 && this.expiry !== undefined) {
      clearTimeout(this.expiry);
      this.expiry = undefined;
    }
  }
}

/**
 * A database whose statements and transactions pass the gate, and whose connection failures reach
 * callers as `database-unavailable` (faults.ts). After a connection failure the database counts as
 * down until a probe (PROBE, which may use the quick reserve) is answered: one caller at a time sends
 * it before its own statement, and the others are answered at once instead of each waiting on a
 * connection attempt of its own. The probe is not the caller's statement: one stuck behind a lock or
 * an analytic one would have every other request refused for as long as it ran, with the database up
 * (a single connection that died while idle counts it as down). LISTEN keeps its own connection and
 * passes freely. A statement's lane is its text; a transaction has none.
 */
export function gated(db: Database, gate: Gate): Database {
  let down: unknown;
  let probing = false;
  /** What a statement's outcome says of the database: up when it answered, down when unreachable. */
  const learn = (err?: unknown) => {
    if (err === undefined) down = undefined;
    else if (isConnectionFailure(err)) down = err;
    else if (!(err instanceof RequestError)) down = undefined;
  };
  const probe = async () => {
    if (probing) throw unavailableError(down);
    probing = true;
    try {
      await gate.run(() => db.query(PROBE), PROBE);
      learn();
    } catch (err) {
      learn(err);
      if (down !== undefined || err instanceof RequestError) throw asUnavailable(err);
    } finally {
      probing = false;
    }
  };
  const guard = async <T>(fn: (share: Share) => Promise<T>, lane?: string): Promise<T> => {
    if (down !== undefined) await probe();
    try {
      const result = await gate.run(fn, lane);
      learn();
      return result;
    } catch (err) {
      learn(err);
      throw asUnavailable(err);
    }
  };
  return {
    kind: db.kind,
    query: (text, params, options) =>
      guard(
        (share) =>
          share !== undefined && db.queryShared
            ? db.queryShared(text, params, options, share)
            : db.query(text, params, options),
        text,
      ),
    exec: (script) => guard(() => db.exec(script)),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => guard(() => db.transaction(fn)),
    listen: (channel, onNotify, onListen) => db.listen(channel, onNotify, onListen),
    ...(db.setAddress ? { setAddress: (host: string, port: number) => db.setAddress!(host, port) } : {}),
    poolStats: () => gate.stats(),
    close: () => db.close(),
  };
}
