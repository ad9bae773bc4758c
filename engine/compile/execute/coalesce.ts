import type { CancelSignal, Database, Param, Queryable, Row } from '../../core/db/database';
import { arrayLiteral } from '../../core/db/sql';
import { isConnectionFailure, QUERY_CANCELED, readAgainOnFailure } from '../../core/db/faults';
import { RequestError } from '../../core/errors';
import { Lru } from '../../core/lru';
import { multiplexedStatement, type Multiplexed } from '../sql/multiplex';
import type { BatchedChange } from '../sql/mutation';
import { cohortType, type ParamSlot } from '../sql/writer';
import { Cancellation } from './request-budget';

/**
 * Queries' statements of concurrent requests, coalesced: the statements with the same text that
 * requests ask for in one turn of the event loop run as ONE statement, multiplexed as the live queries
 * are (sql/multiplex.ts): each request's values are a cohort, and each gets its own row back. Under
 * load that is one round trip, one Bind and one executor start-up for many requests instead of one
 * each, for the engine (postgres.js builds and parses one message) and for PostgreSQL alike. A
 * request alone in its turn runs its own statement, as before, and so does a read while the pool has
 * a connection for each request in flight (`roomBeside`).
 *
 * The statements are a plan's query statements (compile/sql/query.ts): a read of one row, whose
 * placeholders carry their casts, the last being the bytes the answer may have (each request's own);
 * and the reads of action handlers (`rows`: the analytic operations), any number of rows a request,
 * whose placeholders' types PostgreSQL is asked once per text (core/db/placeholder-types.ts) before
 * the text is batched: until then its requests run alone.
 *
 * A batch holds as many requests as its time budget of the database's time (BATCH_MS for the reads
 * of one row, ROWS_BATCH_MS for those of many): it runs on one connection, so PostgreSQL runs its
 * cohorts one after the other on one core, and a turn's requests past that make batches of their
 * own, on other connections and cores. A statement whose one cohort costs more than its budget runs
 * alone, and is tried in a batch again RETRY_MS later, since what it costs depends on the data and
 * the load.
 *
 * A statement that fails for one request's values (a malformed value PostgreSQL refuses) is run again
 * alone for each request, so that one request's error is its own. So is a batch whose text PostgreSQL
 * refuses (class 42: a type it could not resolve), whose statement is then never batched again. A
 * connection that fails under a batch (one that died while idle: the server restarted) gets the batch
 * run again (up to READ_ATTEMPTS runs, core/db/faults.ts), since one request alone would have failed
 * once but a batch fails all of its own; a read run alone is run again alike. Other failures (the
 * database down, a timeout) are every request's of the batch. A request cancelled at its deadline
 * stops waiting; the batch's statement is cancelled once every request in it is.
 *
 * Lone inserts are coalesced too (`change`, sql/mutation.ts batchedInsertSql), with three
 * differences: a batch commits all or nothing, so its requests are answered when it has ended; it
 * is never run again on another connection (a lost one may have committed it); and a request past
 * its deadline waits for its batch.
 */

/** A request's statement waiting for its turn's batch. */
interface Waiting {
  params: readonly Param[];
  signal?: CancelSignal;
  /** The request's rows: the rows of its cohort, in the order the statement gave them. */
  resolve(rows: Row[]): void;
  reject(err: unknown): void;
  /** The batch's listener on `signal` (batchSignal), taken off once the request is answered. */
  gone?: () => void;
}

interface Batch {
  reader: Queryable;
  lane: Lane;
  text: string;
  /** The requests gathered; once the batch runs, its CohortRows holds them instead (and lets each go when answered). */
  waiting: Waiting[];
}

/** What the coalescer knows of a statement text. */
interface Lane {
  /** The batches' statement; undefined while its placeholders' types are asked, or when it cannot be batched. */
  multiplexed?: Multiplexed;
  /**
   * Milliseconds a cohort of its batches usually costs the database (a moving average; 0 before any
   * batch): the time between its batches' first and last rows, over the cohorts between them.
   */
  usual: number;
  /** Rows a cohort usually returns (a moving average, as `usual`). */
  usualRows: number;
  /** The database's time its batches may take (BATCH_MS, ROWS_BATCH_MS). */
  budgetMs: number;
  /** Requests its batches may hold: as many as its budget holds; under 2, it runs alone. */
  size: number;
  /** performance.now() after which a lane that runs alone is tried in a batch again. */
  retryAt: number;
  /**
   * How long it runs alone once its batch proved too costly (undefined: RETRY_MS), doubled by each trial
   * batch after (runsAlone), and forgotten once a batch fits its budget.
   */
  retryMs?: number;
  /** Each cohort answers one row (a plan's query statement): its request is answered at its row. */
  one: boolean;
  /**
   * A lone insert's (`change`): its batch is all or nothing, so each request is answered when the
   * statement has ended (committed), never run twice (a lost connection may have committed it), and
   * cancelled only with every request of its batch.
   */
  change?: boolean;
}

/** Requests a batch may hold: the arrays of its values grow with it (sent as text array literals). */
const MAX_BATCH = 64;
/**
 * Requests a batch of inserts may hold. Each request's answer is read from the rows numbered as its
 * own, a scan of the batch's rows per request: a few dozen requests cost that little.
 */
const CHANGE_BATCH = 16;
/**
 * The database's time a batch may take, the sum of its cohorts' usual costs. A batch runs on one
 * connection, one cohort after the other, on one core. The database's own clock measures a cohort
 * (multiplex.ts `timed`): under load the engine's clock would count the turns of its event loop,
 * milliseconds, whatever the statement.
 *
 * Batches are made only while more requests are in flight than the pool has connections
 * (`roomBeside`), when the database's cores are busy anyway: then what a batch saves (a statement's
 * round trip, Bind and executor start-up, and a backend woken, for each request but one) is worth
 * more than cohorts run side by side. Measured on the bench's machine (two cores shared by engine,
 * PostgreSQL and load; `npm run bench`, 32 connections), engine requests a second at budgets of 4,
 * 12, 24 and 48 ms: `nested` (an aggregate under a list, about 0.7 ms a cohort) 1777-1876, 2144-2304,
 * 2026-2348, 1967; `aggregate` (5,430 rows summed, 1.2 ms) 1765-1813, 1782-2029, 1886-1988, 1553. At 4
 * ms most of their requests ran alone (a cohort measured 2 ms or more under load).
 */
const BATCH_MS = 24;
/**
 * The budget of the reads of many rows a request (`rows`: the analytic operations), whose rows the
 * engine reads one by one, batched or not. A larger budget cost them more than it saved: at 24 ms
 * (`npm run bench -- v2`, scale 5, 32 connections, against 4 ms in the same conditions) the engine's
 * CPU a request rose for most, anomaly_v2 307 -> 391 µs, namespace_v2 269 -> 426, and 17 of 23 `_v2`
 * workloads fell against their floors, by 0.1 to 0.3.
 */
const ROWS_BATCH_MS = 4;
/**
 * How long a lane whose batch proved too costly runs alone before it is tried in a batch again: at
 * first RETRY_MS, doubled each time the batch proves so again, up to RETRY_MOST_MS. Each try makes the
 * requests of a batch wait for one another's cohorts: events_v2 at scale 100 (a cohort of 35 ms,
 * nine times ROWS_BATCH_MS) tried every second had a p99 of 3.4 s at 32 connections against the
 * floor's 0.9 (`npm run bench -- v2`), 0.75 s with coalescing off, and 0.77-0.89 s tried so: once in
 * one batch (runsAlone), its wait doubled each time.
 */
const RETRY_MS = 1000;
const RETRY_MOST_MS = 64_000;
/** The window over which the most requests in flight are remembered (`recentPeak`). */
const LOAD_WINDOW_MS = 1000;
/**
 * The rows a batch may return, the sum of its cohorts' usual rows. Coalescing saves what a statement
 * costs apart from its rows (a round trip, a Bind, an executor start-up), which is most of a one-row
 * read's cost and little of a long list's. Measured on the bench's machine (`npm run bench -- v2`, 3
 * rounds): anomaly_v2's 50 rows a request in batches of two fell from 0.79 of the floor's requests
 * per second to 0.49 (the engine's CPU a request from 243 to 450 µs), while the one-row groupings
 * rose (cloud_metric_groupings_v2 from 0.68 to 0.94, auto_playbook_grouping_v2 from 0.67 to 0.94).
 */
const BATCH_ROWS = 64;
/**
 * The database's time past which a turn's batch is split over more connections (`parts`). A batch
 * runs its cohorts one after the other on one backend, so on one core: with every request in flight
 * in one batch, the database's other cores waited. Measured with `npm run bench -- inproc` (no HTTP,
 * so PostgreSQL had the machine's two cores to itself, as beside an engine on another host; 32
 * requests in flight), the aggregate workload (about 0.6 ms a cohort there) ran 32 requests a
 * statement, one statement at a time: 0.54 of its floor's requests a second, at the same PostgreSQL
 * CPU a request. Split at 4 ms: 0.99, but on the HTTP bench (engine, PostgreSQL and load on the same
 * two cores, where a cohort measures twice as long) aggregate's statements answered 2.9 requests
 * each instead of 9, and its engine CPU a request rose from 151 to 242 µs. At 12 ms: 1.01 in process,
 * and on the HTTP bench 7.8 requests a statement and 152 µs.
 */
const SPLIT_MS = 12;
/**
 * SPLIT_MS of the reads of many rows a request (`rows`), whose batches take at most ROWS_BATCH_MS: at
 * SPLIT_MS none was ever split, and a full batch kept one of the database's cores busy while the other
 * waited. At scale 100 (`npm run bench -- v2`, 32 connections, 2 rounds, each setting its own run),
 * split at 2 ms against 12: auto_playbook_grouping_v2 0.96 of its floor against 0.87, the
 * misconfiguration groupings 0.96 against 0.89, with 9.9 requests a statement against 11.6. At the
 * demo's scale a batch's cohorts cost too little to reach 2 ms: nothing changes there.
 */
const ROWS_SPLIT_MS = 2;
/** How much the latest batch weighs in a lane's usual time. */
const USUAL_WEIGHT = 0.2;

/** PostgreSQL's classes of errors caused by a value: data exceptions (22), and a check, a cast (42804). */
const VALUE_ERROR = /^22|^42804$/;
/** Errors of a statement's text (syntax, types, names: class 42): a batch's text the lone one is not. */
const TEXT_ERROR = /^42/;

/**
 * A plan's query statement: its text, the number of its last placeholder (the bytes its answer may
 * have), and its placeholders' types when known (the others are unnested as text).
 */
export interface QueryStatement {
  text: string;
  bytesParam: number;
  params?: readonly ParamSlot[];
}

/** The types PostgreSQL gives a statement's placeholders ($1 first), as SQL type names. */
export type DescribePlaceholders = (text: string) => Promise<string[]>;

/** How statements are run: on `reader`, with the request's cancel signal. */
export type RunStatement = (
  reader: Queryable,
  text: string,
  params: readonly Param[],
  signal?: CancelSignal,
  /** Each row as it arrives (QueryOptions.onRow); the promise then resolves with none. */
  onRow?: (row: Row) => void,
) => Promise<Row[]>;

/** A query statement's one row: its answer. */
function firstRow(rows: Row[]): Row {
  if (!rows[0]) throw new Error('a query statement returned no row');
  return rows[0];
}

export class Coalescer {
  private open = new Map<Queryable, Map<string, Batch>>();
  private scheduled = false;
  private readonly lanes = new Lru<string, Lane>(1000);
  /** Statements run for batches of two requests or more, and the requests they answered (tests, the bench). */
  batches = 0;
  coalesced = 0;

  private readonly counted: (requests: number) => void;
  /** The budgets of new lanes: of reads of one row (`row`) and of many (`rows`). */
  private readonly budgets: { row: number; rows: number };
  private readonly retryMs: number;
  private readonly describe?: DescribePlaceholders;
  private readonly requestsInFlight?: () => number;
  private readonly load = { peak: 0, before: 0, since: 0 };

  constructor(
    private readonly runStatement: RunStatement,
    options: {
      /** Told of each batch run, with its number of requests (the engine's metrics). */
      counted?: (requests: number) => void;
      /**
       * The database's time a batch may take, every lane's (instead of BATCH_MS and ROWS_BATCH_MS);
       * tests set it to show the rule apart from the clock.
       */
      batchMs?: number;
      /** The first wait of a lane too costly to batch before it is tried again (RETRY_MS); tests shorten it. */
      retryMs?: number;
      /** Asks the database for a statement's placeholders' types (`rows`); absent, `rows` runs each alone. */
      describe?: DescribePlaceholders;
      /** The requests the engine is answering (`roomBeside`); absent, the reads of a turn are always batched. */
      requestsInFlight?: () => number;
    } = {},
  ) {
    this.counted = options.counted ?? (() => undefined);
    this.budgets = { row: options.batchMs ?? BATCH_MS, rows: options.batchMs ?? ROWS_BATCH_MS };
    this.retryMs = options.retryMs ?? RETRY_MS;
    this.describe = options.describe;
    this.requestsInFlight = options.requestsInFlight;
  }

  /**
   * The answer row of `statement` with `params`; the last is the bytes the answer may have. A
   * statement with no other placeholder cannot be told apart per request and runs alone.
   */
  row(reader: Queryable, statement: QueryStatement, params: readonly Param[], signal?: CancelSignal): Promise<Row> {
    const lane =
      statement.bytesParam < 2 ? undefined : this.laneOf(statement.text, () => coalescedStatement(statement));
    return this.enqueue(reader, statement.text, lane, params, signal).then(firstRow);
  }

  /**
   * The rows of a read that only reads (a SELECT whose rows depend on nothing but its placeholders'
   * values and the tables), with `params`. Batched once PostgreSQL has told its placeholders' types;
   * with no placeholder, or no way to ask, it runs alone.
   */
  rows(reader: Queryable, text: string, params: readonly Param[], signal?: CancelSignal): Promise<Row[]> {
    const lane = params.length === 0 ? undefined : this.describedLane(text, params.length);
    return this.enqueue(reader, text, lane, params, signal);
  }

  /**
   * The answer row of a lone insert (sql/mutation.ts `lone`) with `params`, the last the bytes its
   * answer may have: with the same insert of other requests of this turn, as its `batch`, when the
   * requests in flight are more than the writer's connections. The batch commits every request's
   * rows or none: when it fails, each request runs its own statement, where its error (a refusal, a
   * key another row holds) is its own; but not after a lost connection, which may have committed it.
   */
  change(
    writer: Queryable,
    statement: { text: string; batch?: BatchedChange },
    params: readonly Param[],
    signal?: CancelSignal,
  ): Promise<Row> {
    const batch = statement.batch;
    const lane = batch && this.changeLane(statement.text, batch);
    if (!lane?.multiplexed || this.roomBeside(writer))
      return this.runStatement(writer, statement.text, params, signal).then(firstRow);
    return this.batched(writer, statement.text, lane, params, signal).then(firstRow);
  }

  private changeLane(text: string, batch: BatchedChange): Lane {
    const lane = this.lanes.get(text);
    if (lane) return lane;
    const made: Lane = {
      multiplexed: batch,
      budgetMs: 0,
      usual: 0,
      usualRows: 0,
      size: CHANGE_BATCH,
      retryAt: 0,
      // Its requests are answered when the statement has ended, not each at its row.
      one: false,
      change: true,
    };
    this.lanes.set(text, made);
    return made;
  }

  private enqueue(
    reader: Queryable,
    text: string,
    lane: Lane | undefined,
    params: readonly Param[],
    signal?: CancelSignal,
  ): Promise<Row[]> {
    if (!lane?.multiplexed || this.runsAlone(reader, text, lane) || this.roomBeside(reader))
      return this.runRead(reader, text, params, signal);
    return this.batched(reader, text, lane, params, signal);
  }

  /**
   * Whether a lane too costly to batch runs a read alone: until its retry is due, and then but for one
   * trial batch, this turn's, until that batch is measured (note). Without that, every request that
   * came while the trial ran was batched too.
   */
  private runsAlone(reader: Queryable, text: string, lane: Lane): boolean {
    if (lane.size >= 2 || this.open.get(reader)?.has(text)) return false;
    const now = performance.now();
    if (now < lane.retryAt) return true;
    // The trial's wait is the last one's; should it prove too costly again, the next is twice as long.
    const wait = lane.retryMs ?? this.retryMs;
    lane.retryAt = now + wait;
    lane.retryMs = Math.min(2 * wait, RETRY_MOST_MS);
    return false;
  }

  /**
   * Whether a read may run alone, beside the others: the most requests in flight of late are no more
   * than `reader`'s connections, so each has one, and runs on a core of the database's own, where a
   * batch would run their cohorts one after the other on one connection and one core. Measured on the
   * bench's machine (`npm run bench -- v2`, scale 5, 4 clients): the one-row groupings at 0.43-0.58
   * of their floors batched, 0.73-0.85 alone. Past that, every read is batched: requests wait for a
   * connection anyway, and a batch costs less CPU than its reads alone.
   *
   * The most of late (`recentPeak`), not the count now: under load the count ebbs to one as each batch
   * is answered, and climbs again as the next requests come in one by one. At 32 clients it was spread
   * evenly between 1 and 32, and a rule on it let a third of the reads alone, which cost by_pk a third
   * of its speed (1.12 of its floor to 0.80). With one connection (PGlite), nothing runs beside: reads
   * at once are always batched.
   */
  private roomBeside(reader: Queryable): boolean {
    const size = (reader as Partial<Database>).poolStats?.().size;
    if (typeof size !== 'number' || size < 2) return false;
    const requests = this.recentPeak();
    return requests !== undefined && requests <= size;
  }

  /** The most requests in flight seen this window and the one before (LOAD_WINDOW_MS each). */
  private recentPeak(): number | undefined {
    const requests = this.requestsInFlight?.();
    if (requests === undefined) return undefined;
    const load = this.load;
    const now = performance.now();
    if (now - load.since >= LOAD_WINDOW_MS) {
      load.before = now - load.since < 2 * LOAD_WINDOW_MS ? load.peak : 0;
      load.peak = 0;
      load.since = now;
    }
    if (requests > load.peak) load.peak = requests;
    return Math.max(load.peak, load.before);
  }

  private batched(
    reader: Queryable,
    text: string,
    lane: Lane,
    params: readonly Param[],
    signal?: CancelSignal,
  ): Promise<Row[]> {
    return new Promise<Row[]>((resolve, reject) => {
      const waiting: Waiting = { params, signal, resolve, reject };
      let batches = this.open.get(reader);
      if (!batches) this.open.set(reader, (batches = new Map()));
      let batch = batches.get(text);
      if (!batch) batches.set(text, (batch = { reader, lane, text, waiting: [] }));
      batch.waiting.push(waiting);
      if (batch.waiting.length >= Math.max(lane.size, 2)) {
        // Full: it runs now, and the next request of this turn starts another.
        batches.delete(text);
        this.runTurn(batch);
      }
      if (!this.scheduled) {
        this.scheduled = true;
        // After the poll phase: every request whose bytes arrived in this turn has asked by then.
        setImmediate(() => this.flush());
      }
    });
  }

  private laneOf(text: string, multiplexed: () => Multiplexed): Lane {
    const lane = this.lanes.get(text);
    if (lane) return lane;
    // Unmeasured: a batch of two finds out what a cohort costs before a bigger one may be run.
    const budgetMs = this.budgets.row;
    const made: Lane = { multiplexed: multiplexed(), budgetMs, usual: 0, usualRows: 0, size: 2, retryAt: 0, one: true };
    this.lanes.set(text, made);
    return made;
  }

  /** A read's lane: unbatched until the database has told its placeholders' types, and for good if it cannot. */
  private describedLane(text: string, placeholders: number): Lane | undefined {
    if (!this.describe) return undefined;
    const lane = this.lanes.get(text);
    if (lane) return lane;
    const made: Lane = { budgetMs: this.budgets.rows, usual: 0, usualRows: 0, size: 2, retryAt: 0, one: false };
    this.lanes.set(text, made);
    this.describe(text).then(
      (types) => {
        if (types.length !== placeholders) return;
        made.multiplexed = multiplexedStatement(text, placeholders, {
          bytesPerCohort: true,
          timed: true,
          cohortTypes: types,
        });
      },
      // Not preparable alone (it would fail alone too): its requests run alone and say so.
      () => undefined,
    );
    return made;
  }

  private flush(): void {
    this.scheduled = false;
    const open = this.open;
    this.open = new Map();
    for (const batches of open.values()) for (const batch of batches.values()) this.runTurn(batch);
  }

  /** A turn's batch: alone, as one statement, or split into `parts` statements that run side by side. */
  private runTurn(batch: Batch): void {
    const { waiting } = batch;
    const parts = this.parts(batch);
    const size = Math.ceil(waiting.length / parts);
    for (let at = 0; at < waiting.length; at += size) {
      const part = at === 0 && size >= waiting.length ? waiting : waiting.slice(at, at + size);
      if (part.length === 1) this.runAlone(batch.reader, batch.text, part[0], batch.lane);
      else void this.runBatch({ ...batch, waiting: part });
    }
  }

  /**
   * How many statements a turn's batch runs as: as many as its cohorts' usual time takes SPLIT_MS
   * (ROWS_SPLIT_MS for reads of many rows), so that the database's cores share a long batch, at most
   * one per connection of its reader and each of two requests or more (what a statement saves is paid
   * once per part).
   */
  private parts(batch: Batch): number {
    const n = batch.waiting.length;
    const connections = (batch.reader as Partial<Database>).poolStats?.().size ?? 1;
    if (n < 4 || connections < 2 || batch.lane.usual === 0) return 1;
    const split = batch.lane.one ? SPLIT_MS : ROWS_SPLIT_MS;
    return Math.min(connections, Math.floor(n / 2), Math.ceil((n * batch.lane.usual) / split));
  }

  /** A request's own statement: a read (run again on a lost connection), or a change (never twice). */
  private runAlone(reader: Queryable, text: string, w: Waiting, lane?: Lane): void {
    const run = lane?.change
      ? this.runStatement(reader, text, w.params, w.signal)
      : this.runRead(reader, text, w.params, w.signal);
    run.then(w.resolve, w.reject);
  }

  /**
   * A batch of inserts failed, so none of its rows is written: each request runs its own statement,
   * and a text PostgreSQL refuses is not batched again. The failure is every request's after a lost
   * connection (the batch may have committed: run again, its rows could be written twice), a cancel
   * (every request's deadline passed) and the engine's own errors.
   */
  private changesFailed(batch: Batch, err: unknown, cohorts: CohortRows): void {
    const code = (err as { code?: unknown }).code;
    const left = cohorts.unanswered();
    const fromDatabase = typeof code === 'string' && !(err instanceof RequestError);
    if (!fromDatabase || code === QUERY_CANCELED || isConnectionFailure(err)) {
      for (const w of left) w.reject(err);
      return;
    }
    if (TEXT_ERROR.test(code) && !VALUE_ERROR.test(code)) batch.lane.multiplexed = undefined;
    for (const w of left) this.runAlone(batch.reader, batch.text, w, batch.lane);
  }

  /**
   * A read (alone, or a batch's), run again when its connection had died while idle (faults.ts). A
   * batch's rows go to its `cohorts` as they arrive, each run starting them anew.
   */
  private runRead(
    reader: Queryable,
    text: string,
    params: readonly Param[],
    signal?: CancelSignal,
    cohorts?: CohortRows,
  ) {
    return readAgainOnFailure(
      () => {
        cohorts?.restart();
        return this.runStatement(reader, text, params, signal, cohorts?.onRow);
      },
      () => signal?.aborted === true,
    );
  }

  private async runBatch(batch: Batch): Promise<void> {
    const { waiting, lane } = batch;
    const multiplexed = lane.multiplexed!;
    const params = cohortArrays(waiting, multiplexed.cohortParams);
    const change = lane.change === true;
    const signal = batchSignal(waiting, change);
    this.batches++;
    this.coalesced += waiting.length;
    this.counted(waiting.length);
    // A batch of inserts answers its requests once it has ended (committed): it is not measured.
    const cohorts = new CohortRows(waiting, lane.one, change ? undefined : () => this.note(lane, cohorts));
    batch.waiting = [];
    try {
      // A connection that died while idle fails the statement sent on it: one request's alone, but a
      // batch's every request. A batch of reads is a read too, run again on another connection; a
      // batch of inserts runs once.
      const rows = change
        ? await this.runOnce(batch.reader, multiplexed.text, params, signal, cohorts)
        : await this.runRead(batch.reader, multiplexed.text, params, signal, cohorts);
      // A reader that does not give rows one by one gives them all at the end.
      for (const row of rows) cohorts.onRow(row);
    } catch (err) {
      if (change) this.changesFailed(batch, err, cohorts);
      else this.failed(batch, err, cohorts);
      return;
    }
    cohorts.finish();
  }

  private runOnce(
    reader: Queryable,
    text: string,
    params: readonly Param[],
    signal: CancelSignal | undefined,
    cohorts: CohortRows,
  ) {
    cohorts.restart();
    return this.runStatement(reader, text, params, signal, cohorts.onRow);
  }

  /**
   * A batch's failure: each request's own when a value or the batch's text caused it, else every
   * request's. The requests whose rows came before it have their answers.
   */
  private failed(batch: Batch, err: unknown, cohorts: CohortRows): void {
    const code = (err as { code?: unknown }).code;
    const fromDatabase = typeof code === 'string' && !(err instanceof RequestError);
    const left = cohorts.unanswered();
    if (fromDatabase && TEXT_ERROR.test(code) && !VALUE_ERROR.test(code)) {
      batch.lane.multiplexed = undefined;
    } else if (!fromDatabase || !VALUE_ERROR.test(code)) {
      for (const w of left) w.reject(err);
      return;
    }
    for (const w of left) this.runAlone(batch.reader, batch.text, w);
  }

  /**
   * A batch's cost to the database per cohort, from the times of its cohorts' first rows (the first
   * cohort's start-up left out). A cohort without rows tells nothing: the cohorts around it do.
   */
  private note(lane: Lane, cohorts: CohortRows): void {
    const firsts = cohorts.firstAt;
    const i = firsts.findIndex((at) => at !== undefined);
    let j = firsts.length - 1;
    while (j > i && firsts[j] === undefined) j--;
    if (i < 0 || j <= i) return;
    const perCohort = ((firsts[j]! - firsts[i]!) * 1000) / (j - i);
    // A cohort counts at most a batch's time: one that waited on a lock moves a lane only so far.
    const ms = Math.min(Math.max(perCohort, 0), lane.budgetMs);
    lane.usual = lane.usual === 0 ? ms : lane.usual + USUAL_WEIGHT * (ms - lane.usual);
    const rows = cohorts.counts.reduce((sum, n) => sum + n, 0) / cohorts.counts.length;
    lane.usualRows = lane.usualRows === 0 ? rows : lane.usualRows + USUAL_WEIGHT * (rows - lane.usualRows);
    const byTime = lane.usual > 0 ? Math.floor(lane.budgetMs / lane.usual) : MAX_BATCH;
    const byRows = lane.usualRows > 1 ? Math.floor(BATCH_ROWS / lane.usualRows) : MAX_BATCH;
    lane.size = Math.min(MAX_BATCH, byTime, byRows);
    if (lane.size >= 2) lane.retryMs = undefined;
    else lane.retryAt = performance.now() + (lane.retryMs ?? this.retryMs);
  }
}

/**
 * A batch's rows by cohort (`__cohort`), as they arrive. The cohort of a one-row read is answered at
 * its row, while PostgreSQL still runs the cohorts after it: its request need not wait for theirs,
 * and its answer's text is not held the while. Held for the whole batch, the answers of a batch of
 * twenty lived long enough for V8 to move them to its old generation, whose collections then took
 * a tenth of the engine's CPU (ex_GetRecommendations, perf). The reads of many rows a cohort get
 * theirs when the statement ends, as before.
 */
class CohortRows {
  private readonly answered: boolean[];
  /** Each cohort's first row's `__at` (the database's clock, seconds), and its rows, for Coalescer.note. */
  readonly firstAt: (number | undefined)[];
  readonly counts: number[];
  private rows: Row[][] = [];
  private left: number;

  constructor(
    /** The batch's requests (Batch.waiting, which it hands over): each answered one's place is emptied (`answer`). */
    private readonly waiting: (Waiting | undefined)[],
    private readonly one: boolean,
    /** Measures the batch: once, before its last request is answered, so that the next batch is of the measured size. */
    private measure: (() => void) | undefined,
  ) {
    this.left = waiting.length;
    this.answered = waiting.map(() => false);
    this.firstAt = waiting.map(() => undefined);
    this.counts = waiting.map(() => 0);
  }

  /** Before each run of the statement: what an earlier run gave the cohorts not answered yet is dropped. */
  restart(): void {
    if (!this.one) this.rows = this.waiting.map(() => []);
    for (let i = 0; i < this.counts.length; i++)
      if (!this.answered[i]) {
        this.counts[i] = 0;
        this.firstAt[i] = undefined;
      }
  }

  readonly onRow = (row: Row): void => {
    const i = Number(row.__cohort) - 1;
    if (!(i >= 0 && i < this.waiting.length) || this.answered[i]) return;
    if (this.counts[i]++ === 0) this.firstAt[i] = row.__at == null ? undefined : Number(row.__at);
    if (!this.one) {
      this.rows[i].push(row);
      return;
    }
    this.answer(i, [row]);
  };

  /** The requests not answered yet. */
  unanswered(): Waiting[] {
    return this.waiting.filter((w): w is Waiting => w !== undefined);
  }

  /**
   * The statement has ended: each cohort not answered yet gets its rows (none, for a one-row read
   * without), and the batch lets them go. postgres.js's Query keeps `onRow`, so this object, as long as
   * the Query lives, which can be past the statement's end (core/db/postgres.ts statementRunner): rows
   * kept here then lived into the old generation (after logs_selector, v2_security's batches: 3-8% of
   * what its stretch allocated promoted, 0.3-0.7% with them let go).
   */
  finish(): void {
    this.waiting.forEach((_, i) => {
      if (!this.answered[i]) this.answer(i, this.rows[i]);
    });
    this.rows = [];
  }

  private answer(i: number, rows: Row[]): void {
    this.answered[i] = true;
    if (--this.left === 0) {
      this.measure?.();
      this.measure = undefined;
    }
    // Once answered, the request is untied from the batch: its signal loses the batch's listener, and
    // the batch forgets it. A scavenge keeps whatever an old object points at, dead or not until a
    // mark-compact. With these ties left, most of what the engine allocated lived through two
    // scavenges: object_rel, engine.run in a loop 32 at once, 70% of it, against 3-15% with them cut
    // and 5-10% without batches. Which chain of pointers carried it was not traced.
    const w = this.waiting[i]!;
    if (w.gone) w.signal?.removeEventListener('abort', w.gone);
    this.waiting[i] = undefined;
    w.resolve(rows);
  }
}

/** The statement a batch runs: `statement` multiplexed, each request's values a cohort, each row timed. */
export function coalescedStatement({ text, bytesParam, params }: QueryStatement): Multiplexed {
  // Each placeholder's type, the bytes' last; unknown when the slots do not cover every placeholder.
  const cohortTypes = params?.length === bytesParam - 1 ? [...params.map(cohortType), 'bigint'] : undefined;
  return multiplexedStatement(text, bytesParam, { bytesPerCohort: true, timed: true, cohortTypes });
}

/** A batch's parameters: each of the first `count` placeholders as an array of the requests' values. */
function cohortArrays(waiting: Waiting[], count: number): Param[] {
  const params: Param[] = [];
  for (let p = 0; p < count; p++) params.push(arrayLiteral(waiting.map((w) => w.params[p])));
  return params;
}

/**
 * The cancel signal of a batch's statement: aborted once every request of the batch was. A request
 * cancelled before stops waiting at once (its deadline's answer is the engine's, request-budget.ts);
 * but not a request of a batch of inserts (`waits`): its rows are written with the others', and its
 * answer is then given, as a lone insert's is once committed. Undefined when a request has no
 * signal: it keeps the statement going.
 */
function batchSignal(waiting: Waiting[], waits = false): CancelSignal | undefined {
  if (waiting.some((w) => !w.signal)) return undefined;
  const batch = new Cancellation();
  let left = waiting.length;
  for (const w of waiting) {
    const gone = () => {
      if (!waits) w.reject(new RequestError('timeout', 'the request was cancelled', '$'));
      if (--left === 0) batch.abort();
    };
    if (w.signal!.aborted) gone();
    else {
      w.gone = gone;
      w.signal!.addEventListener('abort', gone, { once: true });
    }
  }
  return batch;
}
