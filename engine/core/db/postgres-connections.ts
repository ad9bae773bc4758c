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
 * So a statement the gate says may share (gate.ts: its runs usually take at most
 * DATABASE_PIPELINE_SHARE_MS, and nothing slow is in flight) goes to the fullest connection that
 * holds only such statements and has room (fewer than the pipeline depth): connections fill one after
 * another. Any other statement, and every transaction, goes to an idle connection, as postgres.js's
 * pool would send it; there is one while the gate lets it in (fewer statements run than there are
 * connections).
 */
export interface PoolConnection<S> {
  readonly sql: S;
  /** Statements and transactions in flight on it. */
  running: number;
  /** Of them, those a sharing statement may not wait behind: all but the sharing ones. */
  own: number;
}

export class ConnectionChoice<S> {
  readonly connections: readonly PoolConnection<S>[];
  /** Where forOwn's search for an idle connection starts. */
  private turn = 0;

  constructor(
    sqls: readonly S[],
    /** Sharing statements at once on one connection, at most. */
    private readonly depth: number,
  ) {
    this.connections = sqls.map((sql) => ({ sql, running: 0, own: 0 }));
  }

  /** Where a sharing statement goes: the fullest sharing connection with room, else as any other. */
  forShared(): PoolConnection<S> {
    let best: PoolConnection<S> | undefined;
    for (const c of this.connections)
      if (c.own === 0 && c.running > 0 && c.running < this.depth && (!best || c.running > best.running)) best = c;
    return best ?? this.forOwn();
  }

  /**
   * Where any other statement goes: an idle connection, the one after the last so chosen (in turn, as
   * postgres.js's pool takes them: a connection whose backend has just ended is not the next one
   * tried, before it has even seen its socket close); with none idle (a statement the gate pipelines
   * because every connection is busy), the least busy of those running nothing that is not sharing,
   * else the least busy.
   */
  forOwn(): PoolConnection<S> {
    const all = this.connections;
    let least = all[0];
    let leastShared: PoolConnection<S> | undefined;
    for (let k = 0; k < all.length; k++) {
      const i = (this.turn + k) % all.length;
      const c = all[i];
      if (c.running === 0) {
        this.turn = i + 1;
        return c;
      }
      if (c.running < least.running) least = c;
      if (c.own === 0 && (!leastShared || c.running < leastShared.running)) leastShared = c;
    }
    return leastShared ?? least;
  }
}
