/*
 * Live queries (subscriptions), multiplexed as Hasura does it. Subscribers whose live query has the
 * same statement (same role, document, operation and variable shape give the same SQL text) share a
 * poller; those of a poller with the same values (variables and session values) form a cohort. Every
 * interval the poller runs ONE statement per batch of cohorts (sql/multiplex.ts), whatever the number
 * of subscribers, and sends a cohort's result to each of its subscribers whose last result differs
 * (by hash). A stream (T_stream) is a cohort per subscriber: its rows after its cursor, each batch
 * sent once, the cursor then moved past it. Statements go through the database's gate like requests' (on PGlite, its one
 * connection), so polling never starves requests: it waits its turn as they do.
 */
import { createHash } from 'node:crypto';
import type { Param, Queryable } from '../../core/db/database';
import { arrayLiteral, scalarText } from '../../core/db/sql';
import { STREAM_CURSOR } from '../plan/plan-stream';
import { RequestError } from '../../core/errors';
import { multiplexedStatement, type Multiplexed } from '../sql/multiplex';
import type { LiveQuery } from './engine';

/** Where a subscriber's results go (the WebSocket transport). */
export interface LiveSink {
  /** A result, JSON text `{"data":{...}}`, sent only when it differs from the last one sent. */
  next(body: string): void;
  /** The live query cannot go on (its values fail, its answer is too large): it has ended. */
  error(err: unknown): void;
}

export interface LiveQueryOptions {
  intervalMs: number;
  batchSize: number;
  /** The byte limit of one cohort's answer (MAX_RESPONSE_BYTES). */
  maxResponseBytes: number;
}

interface Subscriber {
  sink: LiveSink;
  lastHash?: string;
}

interface Cohort {
  key: string;
  values: Param[];
  subscribers: Set<Subscriber>;
}

/** Faults that pass: the live query goes on and is run again at the next interval. */
const PASSING = new Set(['busy', 'database-unavailable', 'timeout']);

class Poller {
  readonly cohorts = new Map<string, Cohort>();
  /** Cohorts with a subscriber still waiting for its first result: run at once, not at the next interval. */
  private fresh = new Set<Cohort>();
  private freshTimer?: NodeJS.Timeout;
  private timer?: NodeJS.Timeout;
  /** Runs are chained, so that results reach subscribers in the order they were read. */
  private chain: Promise<void> = Promise.resolve();
  private readonly statement: Multiplexed;

  /** Streams (T_stream): each subscriber is a cohort of its own, whose cursor moves past each batch. */
  private streams = 0;

  constructor(
    private readonly owner: LiveQueries,
    readonly key: string,
    private readonly alias: string,
    text: string,
    bytesParam: number,
    /** A stream's cursor: which value it is. */
    private readonly cursorParam?: number,
    cohortTypes?: readonly (string | undefined)[],
  ) {
    this.statement = multiplexedStatement(text, bytesParam, { cohortTypes });
    this.timer = setTimeout(() => this.tick(), owner.options.intervalMs);
  }

  add(values: Param[], sink: LiveSink): () => void {
    const key = this.cursorParam === undefined ? JSON.stringify(values) : `stream ${++this.streams}`;
    let cohort = this.cohorts.get(key);
    if (!cohort) {
      cohort = { key, values, subscribers: new Set() };
      this.cohorts.set(key, cohort);
    }
    const subscriber: Subscriber = { sink };
    cohort.subscribers.add(subscriber);
    this.fresh.add(cohort);
    this.freshTimer ??= setTimeout(() => {
      this.freshTimer = undefined;
      const cohorts = [...this.fresh];
      this.fresh.clear();
      this.enqueue(cohorts);
    }, 0);
    const c = cohort;
    return () => this.remove(c, subscriber);
  }

  private remove(cohort: Cohort, subscriber: Subscriber): void {
    if (!cohort.subscribers.delete(subscriber)) return;
    if (cohort.subscribers.size > 0) return;
    this.cohorts.delete(cohort.key);
    this.fresh.delete(cohort);
    if (this.cohorts.size === 0) this.stop();
  }

  stop(): void {
    clearTimeout(this.timer);
    clearTimeout(this.freshTimer);
    this.timer = this.freshTimer = undefined;
    this.owner.forget(this);
  }

  /** The interval's run: every cohort, in batches; the next run an interval after this one began. */
  private tick(): void {
    const started = Date.now();
    this.enqueue([...this.cohorts.values()]).then(() => {
      if (this.cohorts.size === 0) return;
      const wait = Math.max(0, this.owner.options.intervalMs - (Date.now() - started));
      this.timer = setTimeout(() => this.tick(), wait);
    });
  }

  private enqueue(cohorts: Cohort[]): Promise<void> {
    this.chain = this.chain
      .then(() => this.runAll(cohorts))
      .catch((err) => this.owner.log({ level: 'error', msg: `live query: ${(err as Error)?.stack ?? String(err)}` }));
    return this.chain;
  }

  private async runAll(cohorts: Cohort[]): Promise<void> {
    const live = cohorts.filter((c) => c.subscribers.size > 0);
    const size = this.owner.options.batchSize;
    for (let i = 0; i < live.length; i += size) await this.runBatch(live.slice(i, i + size));
  }

  /**
   * One statement for a batch of cohorts. When it fails for a reason of its values (a malformed
   * uuid of one cohort), each cohort is run alone, so that one cohort's bad values end only its own
   * subscriptions.
   */
  private async runBatch(batch: Cohort[]): Promise<void> {
    const n = this.statement.cohortParams;
    const params: Param[] = [];
    for (let p = 0; p < n; p++) params.push(arrayLiteral(batch.map((c) => c.values[p])));
    params.push(String(this.owner.options.maxResponseBytes));
    let rows;
    try {
      this.owner.statements++;
      rows = await this.owner.db.query(this.statement.text, params);
    } catch (err) {
      if (err instanceof RequestError && PASSING.has(err.code)) {
        this.owner.log({ level: 'warn', msg: `live query not refreshed: ${err.message}`, code: err.code });
        return;
      }
      if (batch.length > 1) {
        for (const c of batch) await this.runBatch([c]);
        return;
      }
      this.fail(batch[0], err);
      return;
    }
    for (const row of rows) this.deliver(batch[Number(row.__cohort) - 1], row.f0 as string | null, Number(row.__bytes));
  }

  private deliver(cohort: Cohort, json: string | null, bytes: number): void {
    const limit = this.owner.options.maxResponseBytes;
    if (json === null && bytes > limit) {
      const message = `the answer (${bytes} bytes) is larger than MAX_RESPONSE_BYTES (${limit})`;
      this.fail(cohort, new RequestError('response-too-large', message, '$'));
      return;
    }
    if (this.cursorParam !== undefined) return this.deliverBatch(cohort, json, this.cursorParam);
    const body = `{"data":{${JSON.stringify(this.alias)}:${json ?? 'null'}}}`;
    const hash = createHash('sha1').update(body).digest('base64');
    for (const s of cohort.subscribers) {
      if (s.lastHash === hash) continue;
      s.lastHash = hash;
      s.sink.next(body);
    }
  }

  /** A stream's batch: sent when it has rows, and the cursor moved to its last row's. */
  private deliverBatch(cohort: Cohort, json: string | null, cursorParam: number): void {
    const rows = JSON.parse(json ?? '[]') as Record<string, unknown>[];
    if (rows.length === 0) return;
    cohort.values[cursorParam] = scalarText(rows[rows.length - 1][STREAM_CURSOR]);
    for (const r of rows) delete r[STREAM_CURSOR];
    const body = JSON.stringify({ data: { [this.alias]: rows } });
    for (const s of cohort.subscribers) s.sink.next(body);
  }

  private fail(cohort: Cohort, err: unknown): void {
    for (const s of [...cohort.subscribers]) {
      this.remove(cohort, s);
      s.sink.error(err);
    }
  }
}

/** The instance's live queries: one poller per statement, cohorts per set of values. */
export class LiveQueries {
  /** Multiplexed statements run so far: tests and the bench show one per batch, not per subscriber. */
  statements = 0;
  private readonly pollers = new Map<string, Poller>();

  constructor(
    readonly db: Queryable,
    readonly options: LiveQueryOptions,
    readonly log: (entry: Record<string, unknown>) => void = () => undefined,
  ) {}

  /** Starts delivering the live query's results to `sink`; returns the function that stops it. */
  subscribe(live: LiveQuery, sink: LiveSink): () => void {
    const key = `${live.alias}\u0000${live.text}`;
    let poller = this.pollers.get(key);
    if (!poller) {
      poller = new Poller(
        this,
        key,
        live.alias,
        live.text,
        live.bytesParam,
        live.stream?.cursorParam,
        live.cohortTypes,
      );
      this.pollers.set(key, poller);
    }
    return poller.add(live.values, sink);
  }

  /** Pollers, cohorts and subscribers now running. */
  counts(): { pollers: number; cohorts: number; subscribers: number } {
    let cohorts = 0;
    let subscribers = 0;
    for (const p of this.pollers.values()) {
      cohorts += p.cohorts.size;
      for (const c of p.cohorts.values()) subscribers += c.subscribers.size;
    }
    return { pollers: this.pollers.size, cohorts, subscribers };
  }

  /** @internal a poller without cohorts leaves. */
  forget(poller: Poller): void {
    if (this.pollers.get(poller.key) === poller) this.pollers.delete(poller.key);
  }

  close(): void {
    for (const p of [...this.pollers.values()]) p.stop();
  }
}
