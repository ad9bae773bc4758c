import type { EngineConfig } from '../../core/config';
import type { Database } from '../../core/db/database';
import type { Logger } from '../../core/logger';
import { Metrics, watchReplicas } from '../../core/metrics';
import { NO_TRACING, startTracing, type Tracing } from '../../core/tracing';
import { serveMetricsPort } from './metrics-route';

/** One engine's metrics and tracing, and the /metrics listener of METRICS_PORT when configured. */
export interface Observability {
  metrics: Metrics;
  tracing: Tracing;
  /** The port /metrics listens on of its own (METRICS_PORT), when it does. */
  metricsPort?: number;
  close(): Promise<void>;
}

/** Starts what the configuration asks for; tracing's SDK is loaded only when an endpoint is set. */
export async function startObservability(config: EngineConfig, db: Database, log: Logger): Promise<Observability> {
  const obs = config.observability;
  if (obs.devModeSet)
    log({
      level: 'warn',
      msg: 'DEV_MODE is no longer read: set LOG_LEVEL=debug for the compiled SQL of each operation',
    });
  // A replica's pool is named by its replica (host:port/database).
  const metrics = new Metrics(() => ({
    main: db.poolStats?.(),
    reserve: db.reserve?.poolStats?.(),
    ...db.replicas?.poolStats(),
  }));
  if (db.replicas) watchReplicas(metrics.registry, db.replicas);
  const tracing = obs.otlpEndpoint
    ? await startTracing({ endpoint: obs.otlpEndpoint, serviceName: obs.serviceName, scheduleDelayMs: obs.spanDelayMs })
    : NO_TRACING;
  if (tracing.on) log({ level: 'info', msg: 'traces are sent to OTEL_EXPORTER_OTLP_ENDPOINT (OTLP/HTTP)' });
  const listener =
    obs.metricsPort === undefined
      ? undefined
      : await serveMetricsPort(metrics, { port: obs.metricsPort, host: obs.metricsHost, token: obs.metricsToken });
  if (listener) log({ level: 'info', msg: `metrics on http://${obs.metricsHost}:${listener.port}/metrics` });
  return {
    metrics,
    tracing,
    metricsPort: listener?.port,
    async close() {
      await listener?.close();
      await tracing.close();
    },
  };
}
