import type { Logger } from '../logger';
import type { Database, Param, QueryOptions, ReadCounts, ReadReplicas, Row } from './database';
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

/** Seconds behind: 0 once all WAL received is replayed (an idle primary makes no replica late). */
const REPLICA_LAG = `SELECT CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
  ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END::float8 AS "seconds",
  pg_last_wal_replay_lsn()::text AS "lsn"`;
const BYTES_BEHIND = `SELECT GREATEST(pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn), 0)::float8 AS "bytes"`;

/**
 * Round robin over the replicas: a read starts at the next replica and, when one cannot be reached,
 * moves on to the next and finally to the primary, so that a replica that stops fails no request. A
 * replica that failed is left out for `retryMs`; the periodic check (or the first read after that
 * time) brings it back. Only connection failures move a read on: a statement's own error (a timeout,
 * bad input) would fail on the primary alike and is the caller's answer.
 */
export function readReplicas(
  primary: Database,
  replicas: { name: string; db: Database }[],
  opts: ReplicaOptions,
): ReadReplicas {
  const all: Replica[] = replicas.map((r) => ({ ...r, downUntil: 0 }));
  const counts: ReadCounts = { primary: 0 };
  for (const r of all) counts[r.name] = 0;
  let next = 0;
  const fail = (r: Replica, err: unknown) => {
    if (r.downUntil === 0)
      opts.log({ level: 'warn', msg: `read replica ${r.name} is unreachable; reading elsewhere`, error: String(err) });
    r.downUntil = Date.now() + opts.retryMs;
  };
  const recover = (r: Replica) => {
    if (r.downUntil !== 0) opts.log({ level: 'info', msg: `read replica ${r.name} is back` });
    r.downUntil = 0;
  };

  async function query(text: string, params?: readonly Param[], options?: QueryOptions): Promise<Row[]> {
    const start = next;
    next = (next + 1) % all.length;
    const now = Date.now();
    for (let i = 0; i < all.length; i++) {
      const r = all[(start + i) % all.length];
      if (r.downUntil > now) continue;
      try {
        const rows = await r.db.query(text, params, options);
        recover(r);
        counts[r.name]++;
        return rows;
      } catch (err) {
        if (!isConnectionFailure(err) || options?.signal?.aborted) throw err;
        fail(r, err);
      }
    }
    counts.primary++;
    return primary.query(text, params, options);
  }

  /** Each replica's lag, read on it; its bytes behind, measured on the primary against its replay position. */
  async function check(r: Replica): Promise<void> {
    try {
      const [lag] = await r.db.query(REPLICA_LAG, [], { prepare: false });
      recover(r);
      r.lagSeconds = Number(lag.seconds);
      const [b] = lag.lsn === null ? [] : await primary.query(BYTES_BEHIND, [String(lag.lsn)], { prepare: false });
      r.lagBytes = b ? Number(b.bytes) : undefined;
    } catch (err) {
      if (isConnectionFailure(err)) fail(r, err);
      else opts.log({ level: 'warn', msg: `read replica ${r.name}: lag check failed`, error: String(err) });
    }
  }
  let checking: Promise<unknown> = Promise.resolve();
  const checkAll = () => (checking = Promise.all(all.map(check)));
  void checkAll();
  const timer = setInterval(() => void checkAll(), opts.checkMs);
  timer.unref();

  return {
    query,
    exec: (script) => primary.exec(script),
    states: () =>
      all.map((r) => ({ replica: r.name, up: r.downUntil === 0, lagSeconds: r.lagSeconds, lagBytes: r.lagBytes })),
    reads: () => ({ ...counts }),
    async close() {
      clearInterval(timer);
      await checking.catch(() => undefined);
      await Promise.all(all.map((r) => r.db.close()));
    },
  };
}
