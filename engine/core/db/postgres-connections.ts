/**
 * The engine's PostgreSQL pool: each connection a postgres.js pool of one, and the engine choosing
 * which one a statement goes to.
 *
 * postgres.js's own pool sends a statement to an idle connection while there is one, and behind a
 * running one only when every connection is busy. For statements that take microseconds that is the
 * costly choice: four requests at once wrote four times to four backends, and each backend woke up,
 * answered and slept again; sent on one connection they are one write, one wake-up, and answers that
 * mostly arrive in one read. Measured with postgres.js's pool sending such statements behind a busy
 * connection first (v2_cloud_metrics, 4 clients, a 2-core machine): the engine's CPU per request fell
 * from 248 to 138 µs and PostgreSQL's from 105 to 43.
 *
 * So a statement the gate says may share (gate.ts: its quickest recent runs took at most
 * DATABASE_PIPELINE_SHARE_MS; it comes through `queryShared`) goes to the fullest connection that
 * holds only such statements and has room: fewer than the pipeline depth, and its statements' parts
 * of the share budget (gate.ts, Share) adding up to at most 1 with the new one's. Connections fill one
 * after another. Any other statement, and every transaction, goes to an idle connection, as postgres.js's
 * pool would send it; there is one while the gate lets it in (fewer statements run than there are
 * connections).
 */
export interface PoolConnection<S> {
  /** Replaced by a new one after a connection failure (postgres.ts, renewed). */
  sql: S;
  /** Statements and transactions in flight on it. */
  running: number;
  /** Of them, those a sharing statement may not wait behind: all but the sharing ones. */
  own: number;
  /** The sharing ones' parts of the share budget, added up. */
  shared: number;
}

export class ConnectionChoice<S> {
  /** In the order an idle one is taken: the first idle one, so that few connections stay busy. */
  private readonly order: PoolConnection<S>[];

  constructor(
    sqls: readonly S[],
    /** Sharing statements at once on one connection, at most. */
    private readonly depth: number,
  ) {
    this.order = sqls.map((sql) => ({ sql, running: 0, own: 0, shared: 0 }));
  }

  get connections(): readonly PoolConnection<S>[] {
    return this.order;
  }

  /**
   * Where a sharing statement taking `share` of the budget goes: the fullest sharing connection with
   * room for it, else as any other.
   */
  forShared(share: number): PoolConnection<S> {
    let best: PoolConnection<S> | undefined;
    for (const c of this.order)
      if (c.own === 0 && c.running > 0 && c.running < this.depth && c.shared + share <= 1)
        if (!best || c.running > best.running) best = c;
    return best ?? this.forOwn();
  }

  /** Counts a statement (or transaction) on `c` while it runs; `share` as for forShared, undefined for any other. */
  enter(c: PoolConnection<S>, share: number | undefined): void {
    c.running++;
    if (share === undefined) c.own++;
    else c.shared += share;
  }

  leave(c: PoolConnection<S>, share: number | undefined): void {
    c.running--;
    if (share === undefined) c.own--;
    // Back to exactly 0 when idle, so that rounding does not build up over the parts added and taken.
    else c.shared = c.running === 0 ? 0 : c.shared - share;
  }

  /**
   * Where any other statement goes: the first idle connection, as postgres.js's pool reuses the
   * connections it has before it opens another, so that a quiet engine holds few and each statement's
   * plan is prepared on few. With none idle (a statement the gate pipelines because every connection
   * is busy), the least busy of those running nothing that is not sharing, else the least busy.
   */
  forOwn(): PoolConnection<S> {
    let least = this.order[0];
    let leastShared: PoolConnection<S> | undefined;
    for (const c of this.order) {
      if (c.running === 0) return c;
      if (c.running < least.running) least = c;
      if (c.own === 0 && (!leastShared || c.running < leastShared.running)) leastShared = c;
    }
    return leastShared ?? least;
  }

  /**
   * A statement on `c` failed for its connection: it goes last. postgres.js learns that the socket
   * closed after the statement's failure, and a statement sent before then fails too: the probe that
   * asks whether the database is back (gate.ts) was sent on the same dead connection and answered no.
   */
  failed(c: PoolConnection<S>): void {
    const i = this.order.indexOf(c);
    if (i >= 0) this.order.push(...this.order.splice(i, 1));
  }
}
