import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { KeptCounter, KeptHistogram } from './kept-metrics';
import type { ReadReplicas } from './db/database';

/** Connections of a pool in use and callers waiting for one (core/db/gate.ts). */
export interface PoolStats {
  inUse: number;
  waiting: number;
  size: number;
}

/** Seconds: from a cached query's milliseconds to a slow batch's tens of seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** How often the event loop's delay is sampled for nodejs_eventloop_lag_* (prom-client's default: 10). */
const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * The engine's Prometheus metrics (served at /metrics, serve/http/metrics-route.ts), in a registry of
 * each engine's own: two engines in one process (the tests) count apart. Labels take few values
 * (operation types, error codes, routes), never an operation's name, a user or a tenant.
 */
export class Metrics {
  readonly registry = new Registry();
  // Counted on every request: kept by the engine (kept-metrics.ts).
  private readonly requests: KeptCounter;
  private readonly graphqlSeconds: KeptHistogram;
  private readonly httpSeconds: KeptHistogram;
  private readonly planCache: KeptCounter;
  private readonly dbErrors: Counter<'code'>;
  private readonly authFailures: Counter<'reason'>;
  private readonly coalescedStatements: Counter;
  private readonly coalescedRequests: Counter;

  constructor(pools: () => Record<string, PoolStats | undefined> = () => ({})) {
    const registers = [this.registry];
    // The event loop's delay sampled every EVENT_LOOP_SAMPLE_MS instead of prom-client's 10 ms, whose
    // timer woke an idle process 100 times a second: 9.8 ms of CPU a second against 3.6 at 100 ms
    // (prom-client alone, idle, 10 s each). Ten samples a second still give nodejs_eventloop_lag_*.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    this.requests = new KeptCounter(
      {
        name: 'graphql_requests_total',
        help: 'GraphQL requests by operation type and outcome (ok, or the error code answered)',
      },
      this.registry,
    );
    this.graphqlSeconds = new KeptHistogram(
      {
        name: 'graphql_request_duration_seconds',
        help: 'Time to answer a GraphQL request, by operation type',
        buckets: LATENCY_BUCKETS,
      },
      this.registry,
    );
    this.httpSeconds = new KeptHistogram(
      {
        name: 'http_request_duration_seconds',
        help: 'Time to answer an HTTP request, by route, method and status',
        buckets: LATENCY_BUCKETS,
      },
      this.registry,
    );
    this.planCache = new KeptCounter(
      {
        name: 'graphql_plan_cache_total',
        help: 'Plan cache look-ups: hit (a plan compiled before) or miss (parsed, validated and compiled)',
      },
      this.registry,
    );
    this.dbErrors = new Counter({
      name: 'database_errors_total',
      help: 'Database errors by SQLSTATE (constraint and data errors included), and database-unavailable and busy',
      labelNames: ['code'],
      registers,
    });
    this.authFailures = new Counter({
      name: 'auth_failures_total',
      help: 'Refused credentials: failed sign-ins and token exchanges, lockouts, invalid JWTs and cookies',
      labelNames: ['reason'],
      registers,
    });
    // Counted per batch, not per request: prom-client's own counters are cheap enough at that rate.
    this.coalescedStatements = new Counter({
      name: 'database_coalesced_statements_total',
      help: 'Statements that answered several requests at once (concurrent requests of one query, coalesced)',
      registers,
    });
    this.coalescedRequests = new Counter({
      name: 'database_coalesced_requests_total',
      help: 'Requests answered by a coalesced statement',
      registers,
    });
    poolGauges(this.registry, pools);
  }

  request(operationType: string, outcome: string, seconds: number): void {
    const labels = () => ({ operation_type: operationType, outcome });
    this.requests.series(`${operationType} ${outcome}`, labels).inc();
    this.graphqlSeconds.series(operationType, () => ({ operation_type: operationType })).observe(seconds);
  }
  http(route: string, method: string, status: number, seconds: number): void {
    const labels = () => ({ route, method, status: String(status) });
    this.httpSeconds.series(`${route} ${method} ${status}`, labels).observe(seconds);
  }
  planCacheLookup(hit: boolean): void {
    const result = hit ? 'hit' : 'miss';
    this.planCache.series(result, () => ({ result })).inc();
  }
  databaseError(code: string): void {
    this.dbErrors.inc({ code });
  }
  authFailure(reason: string): void {
    this.authFailures.inc({ reason });
  }
  /** A coalesced statement ran for `requests` requests (compile/execute/coalesce.ts). */
  coalescedBatch(requests: number): void {
    this.coalescedStatements.inc();
    this.coalescedRequests.inc(requests);
  }

  /** Subscriptions' gauges and statements, read from the live queries at each scrape. */
  watchSubscriptions(read: () => LiveQueryStats): void {
    const registers = [this.registry];
    const gauge = (name: string, help: string, pick: (s: LiveQueryStats) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(pick(read()));
        },
      });
    gauge('subscriptions_active', 'Subscriptions running (live queries and streams)', (s) => s.subscribers);
    gauge('live_query_cohorts', 'Sets of variables and session values that subscribers share', (s) => s.cohorts);
    gauge('live_query_pollers', 'Subscriptions compiled to one statement, each refetched on its own', (s) => s.pollers);
    let counted = 0;
    new Counter({
      name: 'live_query_statements_total',
      help: 'Multiplexed statements run for live queries and streams (one per batch of cohorts per refetch)',
      registers,
      collect() {
        const now = read().statements;
        this.inc(now - counted);
        counted = now;
      },
    });
  }
}

/**
 * Each read replica's state and lag, as its last periodic check found them (core/db/replicas.ts), and
 * where reads went: read at each scrape, nothing counted per statement here.
 */
export function watchReplicas(registry: Registry, replicas: ReadReplicas): void {
  const registers = [registry];
  const gauge = (
    name: string,
    help: string,
    pick: (s: ReturnType<ReadReplicas['states']>[number]) => number | undefined,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['replica'],
      registers,
      collect() {
        this.reset();
        for (const s of replicas.states()) {
          const v = pick(s);
          if (v !== undefined) this.set({ replica: s.replica }, v);
        }
      },
    });
  gauge('database_replica_up', 'Read replica reachable (1) or left out after a connection failure (0)', (s) =>
    s.up ? 1 : 0,
  );
  gauge(
    'database_replica_lag_seconds',
    'Seconds a read replica replays behind (0: all it received)',
    (s) => s.lagSeconds,
  );
  gauge('database_replica_lag_bytes', "Bytes of the primary's WAL a read replica has not replayed", (s) => s.lagBytes);
  let counted: Record<string, number> = {};
  new Counter({
    name: 'database_reads_total',
    help: 'Statements sent to the read replicas, by where they ran: a replica, or the primary when none answered',
    labelNames: ['target'],
    registers,
    collect() {
      const now = replicas.reads();
      for (const [target, n] of Object.entries(now)) this.inc({ target }, n - (counted[target] ?? 0));
      counted = now;
    },
  });
}

/** What the live queries report (compile/execute/live-queries.ts). */
export interface LiveQueryStats {
  pollers: number;
  cohorts: number;
  subscribers: number;
  statements: number;
}

/** Pool gauges, read at each scrape: nothing is counted per statement. */
function poolGauges(registry: Registry, pools: () => Record<string, PoolStats | undefined>): void {
  const gauge = (name: string, help: string, pick: (s: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers: [registry],
      collect() {
        for (const [pool, stats] of Object.entries(pools())) if (stats) this.set({ pool }, pick(stats));
      },
    });
  gauge('database_pool_connections_in_use', 'Connections running a statement or transaction', (s) => s.inUse);
  gauge('database_pool_waiting', 'Callers waiting for a free connection', (s) => s.waiting);
  gauge('database_pool_size', 'Connections the pool may open', (s) => s.size);
}
