import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { loadConfig } from '../../engine/core/config';
import type { Logger } from '../../engine/core/logger';
import { keepConnections } from '../../engine/serve/http/keep-alive';
import { startEngine, type Started } from '../../engine/main';
import { createTestDatabase, type TestDatabase } from './database';

export const ADMIN_SECRET = 'test-admin-secret';

export interface GqlResult {
  status: number;
  /** The parsed body. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The body as the server wrote it. */
  text: string;
}

export interface TestServer {
  url: string;
  started: Started;
  /** POST /api/graphql with the admin secret and the given session headers. */
  gql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GqlResult>;
  post(path: string, body: string, headers?: Record<string, string>): Promise<GqlResult>;
  /** Stops the HTTP server and the engine; the database stays. */
  stop(): Promise<void>;
  /** Stops, then drops the database. */
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Engine environment (METADATA_DIR, MIGRATIONS_DIR, limits ...). */
  env?: Record<string, string>;
  /** Seed the demo data (default true). */
  seed?: boolean;
  /** Reuse a database (for restarts); otherwise a fresh one is made and dropped by close(). */
  database?: TestDatabase;
  /** Receives the engine's log lines (by default they are dropped). */
  log?: Logger;
}

/** POST to a server at `url`: the status, the parsed body (undefined when not JSON) and the raw text. */
export function poster(url: string): TestServer['post'] {
  return async (path, body, headers = {}) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text };
  };
}

/** Settings that change what a new database holds: a server given one starts from an empty database. */
const SHAPING = ['MIGRATIONS_DIR', 'SEED_DEMO_DATA', 'SEED_DEMO_SCALE', 'DATA_DIR', 'DATABASE_URL'];

/**
 * Whether the options name a shaping setting: then the server's new database starts empty; else as a
 * copy of one of the run's templates, migrated and seeded, or (`seed: false`) migrated only.
 */
const shaped = (opts: ServerOptions) => SHAPING.some((k) => opts.env?.[k] !== undefined);

/** The real engine behind a real HTTP server on a loopback port. */
export async function startTestServer(opts: ServerOptions = {}): Promise<TestServer> {
  const fromTemplate = !shaped(opts);
  const database =
    opts.database ??
    (await createTestDatabase({ seeded: fromTemplate && opts.seed !== false, migrated: fromTemplate }));
  const config = loadConfig({
    ADMIN_SECRET,
    SEED_DEMO_DATA: opts.seed === false ? 'false' : 'true',
    ...database.env,
    ...opts.env,
  });
  config.dataDirSnapshot = database.snapshot;
  const started = await startEngine(config, opts.log ?? (() => undefined));
  const server = serve({
    fetch: started.app.fetch,
    createServer: started.createServer,
    port: 0,
    hostname: '127.0.0.1',
  });
  keepConnections(server as Server, config.keepAliveSeconds);
  started.attachWebSockets(server as Server);
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  const port = (server.address() as AddressInfo).port;
  started.listening('127.0.0.1', port);
  const url = `http://127.0.0.1:${port}`;
  const post = poster(url);
  const stop = async () => {
    started.drain();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await started.close();
  };
  return {
    url,
    started,
    post,
    gql: (query, variables, headers = {}) =>
      post('/api/graphql', JSON.stringify({ query, variables }), { 'x-hasura-admin-secret': ADMIN_SECRET, ...headers }),
    stop,
    close: async () => {
      await stop();
      if (!opts.database) await database.drop();
    },
  };
}

/** Session headers of a tenant's role, sent along with the admin secret. */
export const as = (role: string, tenantId: string, userId?: string): Record<string, string> => ({
  'x-hasura-role': role,
  'x-hasura-tenant-id': tenantId,
  ...(userId ? { 'x-hasura-user-id': userId } : {}),
});
