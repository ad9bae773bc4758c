import type { Logger } from '../logger';
import {
  asDbError,
  type Database,
  type Param,
  type QueryOptions,
  type ReadCounts,
  type ReadReplicas,
  type ReplicaState,
  type Row,
} from './database';
import { isConnectionFailure } from './faults';

export interface ReplicaOptions {
  /** A replica that failed to connect is skipped this long, then one read tries it again. */
  retryMs: number;
  /** How often each replica's state and lag are read. */
  checkMs: number;
  log: Logger;
}

interface Replica {
  name: string;
  db: Database;
  /** Date.now() before which it is skipped; 0: up. */
  downUntil: number;
  lagSeconds?: number;
  lagBytes?: number;
}

/** serialization_failure, which a hot standby answers when replay cancels a statement it conflicts with. */
const RECOVERY_CONFLICT = '40001';
/** read_only_sql_transaction: the statement writes after all (a native query's function, say). */
const WRITES = '25006';

/** Seconds behind: 0 once all WAL received is replayed (an idle primary makes no replica late). */
const REPLICA_LAG = `SELECT CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
  ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END::float8 AS "seconds",
  pg_last_wal_replay_lsn()::text AS "lsn"`;
const BYTES_BEHIND = `SELECT GREATEST(pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn), 0)::float8 AS "bytes"`;

/**
 * Round robin over the replicas: a read starts at the next replica and, when one cannot be reached,
 * moves on to the next and finally to the primary, so that a replica that stops fails no request. A
 * replica that failed is left out for `retryMs`; the periodic check (or the first read after that
 * time) brings it back. Only connection failures (and a replica's conflict with its replay) move a read
 * on: a statement's own error (a timeout, bad input) would fail on the primary alike and is the
 * caller's answer.
 */
export function readReplicas(
  primary: Database,
  replicas: { name: string; db: Database }[],
  opts: ReplicaOptions,
): ReadReplicas {
  const router = new ReplicaRouter(primary, replicas, opts);
  return {
    query: (text, params, options) => router.query(text, params, options),
    exec: (script) => primary.exec(script),
    states: () => router.states(),
    reads: () => router.reads(),
    poolStats: () => router.poolStats(),
    close: () => router.close(),
  };
}

class ReplicaRouter {
  private readonly all: Replica[];
  private readonly counts: ReadCounts = { primary: 0 };
  private next = 0;
  private checking: Promise<unknown> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly primary: Database,
    replicas: { name: string; db: Database }[],
    private readonly opts: ReplicaOptions,
  ) {
    this.all = replicas.map((r) => ({ ...r, downUntil: 0 }));
    for (const r of this.all) this.counts[r.name] = 0;
    this.checkAll();
    this.timer = setInterval(() => this.checkAll(), opts.checkMs);
    this.timer.unref();
  }

  async query(text: string, params?: readonly Param[], options?: QueryOptions): Promise<Row[]> {
    const all = this.all;
    const start = this.next;
    this.next = (this.next + 1) % all.length;
    const now = Date.now();
    for (let i = 0; i < all.length; i++) {
      const r = all[(start + i) % all.length];
      if (r.downUntil > now) continue;
      try {
        const rows = await r.db.query(text, params, options);
        this.recover(r);
        this.counts[r.name]++;
        return rows;
      } catch (err) {
        if (options?.signal?.aborted) throw err;
        const code = asDbError(err)?.code;
        // SQL the engine took for a read writes (a function of a native query): only the primary can run it.
        if (code === WRITES) break;
        if (isConnectionFailure(err)) this.fail(r, err);
        // A replica cancels a read whose rows its replay must change (a conflict with recovery): the
        // replica's doing, not the statement's, so the read moves on as from an unreachable one.
        else if (code !== RECOVERY_CONFLICT) throw err;
      }
    }
    this.counts.primary++;
    return this.primary.query(text, params, options);
  }

  states(): ReplicaState[] {
    return this.all.map((r) => ({
      replica: r.name,
      up: r.downUntil === 0,
      lagSeconds: r.lagSeconds,
      lagBytes: r.lagBytes,
    }));
  }

  reads(): ReadCounts {
    return { ...this.counts };
  }

  poolStats(): Record<string, { inUse: number; waiting: number; size: number }> {
    const out: Record<string, { inUse: number; waiting: number; size: number }> = {};
    for (const r of this.all) {
      const stats = r.db.poolStats?.();
      if (stats) out[r.name] = stats;
    }
    return out;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.checking.catch(() => undefined);
    await Promise.all(this.all.map((r) => r.db.close()));
  }

  private fail(r: Replica, err: unknown): void {
    if (r.downUntil === 0)
      this.opts.log({
        level: 'warn',
        msg: `read replica ${r.name} is unreachable; reading elsewhere`,
        error: String(err),
      });
    r.downUntil = Date.now() + this.opts.retryMs;
  }

  private recover(r: Replica): void {
    if (r.downUntil !== 0) this.opts.log({ level: 'info', msg: `read replica ${r.name} is back` });
    r.downUntil = 0;
  }

  private checkAll(): void {
    this.checking = Promise.all(this.all.map((r) => this.check(r)));
  }

  /** A replica's lag, read on it; its bytes behind, measured on the primary against its replay position. */
  private async check(r: Replica): Promise<void> {
    let lag: Row;
    try {
      [lag] = await r.db.query(REPLICA_LAG, [], { prepare: false });
      this.recover(r);
    } catch (err) {
      if (isConnectionFailure(err)) this.fail(r, err);
      else this.opts.log({ level: 'warn', msg: `read replica ${r.name}: lag check failed`, error: String(err) });
      return;
    }
    r.lagSeconds = Number(lag.seconds);
    // The primary being away says nothing of the replica: its bytes behind are then unknown.
    const behind =
      lag.lsn === null
        ? []
        : await this.primary.query(BYTES_BEHIND, [String(lag.lsn)], { prepare: false }).catch(() => []);
    r.lagBytes = behind[0] ? Number(behind[0].bytes) : undefined;
  }
}
