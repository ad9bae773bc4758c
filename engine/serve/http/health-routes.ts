import type { Hono } from 'hono';
import type { Database, ReadReplicas } from '../../core/db/database';
import { UNAVAILABLE_RETRY_SECONDS } from '../../core/db/faults';

/** Readiness answers within a second: a database that takes longer counts as down. */
const READY_TIMEOUT_MS = 800;

/**
 * GET /healthz, liveness: the process serves HTTP. It never touches the database, so that an outage
 * of the database does not get a healthy engine restarted. GET /readyz, readiness: the database
 * answers `SELECT 1` within READY_TIMEOUT_MS and the engine is not shutting down; otherwise 503, and
 * a load balancer sends the traffic elsewhere until it answers 200 again. With read replicas the
 * answer lists each one's state and lag as the last periodic check found them; a replica that is down
 * does not make the engine unready, since its reads go to the others or the primary.
 */
export function mountHealthRoutes(app: Hono, db: Database, draining: () => boolean, replicas?: ReadReplicas): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const headers = { 'cache-control': 'no-store' };
    const states = replicas ? { replicas: replicas.states() } : {};
    if (draining()) return c.json({ status: 'shutting-down', database: db.kind }, 503, headers);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS)));
    const ready = await Promise.race([
      db.query('SELECT 1').then(
        () => true,
        () => false,
      ),
      late,
    ]);
    clearTimeout(timer);
    if (ready) return c.json({ status: 'ok', database: db.kind, ...states }, 200, headers);
    return c.json({ status: 'unavailable', database: db.kind, ...states }, 503, {
      ...headers,
      'retry-after': String(UNAVAILABLE_RETRY_SECONDS),
    });
  });
}
