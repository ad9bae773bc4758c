import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import type { Metrics } from '../../core/metrics';
import { sameSecret } from '../../core/secrets';
import { errorBody } from '../../core/errors';

/** Where /metrics is served: METRICS_TOKEN and METRICS_PORT (README "Logs, audit and metrics"). */
export interface MetricsExposure {
  /** Required as `Authorization: Bearer <token>`; with it /metrics is served on the public port too. */
  token?: string;
  /** A port of its own for /metrics (bound to HOST); without a token anyone reaching that port may read. */
  port?: number;
  host?: string;
}

/** GET /metrics, Prometheus' text format; with a token, a request without it gets 401 and no metric. */
function metricsHandler(metrics: Metrics, token: string | undefined) {
  return async (c: Context) => {
    if (token !== undefined) {
      const m = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '');
      if (!m || !sameSecret(m[1], token)) {
        const body = errorBody([
          { message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', code: 'access-denied', path: '$' },
        ]);
        return c.body(body, 401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      }
    }
    const text = await metrics.registry.metrics();
    return c.body(text, 200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
  };
}

/**
 * /metrics on the public port only when a token protects it: off by default, never open to anyone who
 * reaches the API.
 */
export function mountMetricsRoute(app: Hono, metrics: Metrics, exposure: MetricsExposure): void {
  if (exposure.token !== undefined) app.get('/metrics', metricsHandler(metrics, exposure.token));
}

/** The separate /metrics listener of METRICS_PORT; resolves once it listens, to the port and a stop. */
export async function serveMetricsPort(
  metrics: Metrics,
  exposure: MetricsExposure & { port: number },
): Promise<{ port: number; close(): Promise<void> }> {
  const app = new Hono();
  app.get('/metrics', metricsHandler(metrics, exposure.token));
  const server = serve({ fetch: app.fetch, port: exposure.port, hostname: exposure.host }) as Server;
  await new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
