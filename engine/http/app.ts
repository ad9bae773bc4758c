import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Session } from '../auth/session';
import type { Database } from '../db/database';
import { errorBody, type Engine } from '../execute/engine';
import { adminSecretSessions, graphqlRoute } from './graphql-route';

export interface AppOptions {
  engine: Engine;
  db: Database;
  bodyBytes: number;
  adminSecret?: string;
  resolveSession?: (headers: Headers) => Promise<Session> | Session;
}

/** The HTTP surface: health, and GraphQL at /api/graphql (and Hasura's /v1/graphql). */
export function createApp(opts: AppOptions): Hono {
  const app = new Hono();
  app.get('/healthz', async (c) => {
    try {
      await opts.db.query('SELECT 1');
      return c.json({ status: 'ok', database: opts.db.kind });
    } catch {
      return c.json({ status: 'unavailable', database: opts.db.kind }, 503);
    }
  });
  const limit = bodyLimit({
    maxSize: opts.bodyBytes,
    // The unread rest of the body makes the connection unusable: say so, or a keep-alive client reuses it and fails.
    onError: (c) => c.body(errorBody([{ message: `the request body is larger than ${opts.bodyBytes} bytes`, code: 'request-too-large', path: '$' }]), 413, { 'content-type': 'application/json', connection: 'close' }),
  });
  const handler = graphqlRoute(opts.engine, opts.resolveSession ?? adminSecretSessions(opts.adminSecret));
  for (const path of ['/api/graphql', '/v1/graphql']) app.post(path, limit, handler);
  app.notFound((c) => c.body(errorBody([{ message: `no route for ${c.req.method} ${new URL(c.req.url).pathname}`, code: 'not-found' as never, path: '$' }]), 404, { 'content-type': 'application/json' }));
  app.onError((err, c) => {
    const r = opts.engine.failure(err);
    return c.body(r.body, r.status as 500, { 'content-type': 'application/json' });
  });
  return app;
}
