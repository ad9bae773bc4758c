import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { serve } from '@hono/node-server';
import { decodeJwt } from 'jose';
import { createTokenFor, setPassword } from '../../engine/cli/admin';
import { loadConfig } from '../../engine/core/config';
import { keepConnections } from '../../engine/serve/http/keep-alive';
import type { Database } from '../../engine/core/db/database';
import { startEngine, type Started } from '../../engine/main';
import { ADMIN_SECRET, poster, type GqlResult, type TestServer } from './server';

/**
 * Helpers of the sign-in tests. Secrets are made here, per test run: nothing secret is in the sources.
 */
export const newSecret = () => randomBytes(32).toString('base64url');

/** Engine environment for sign-in: fresh secrets; JWT_SECRET set so that tests can forge JWTs with the real key. */
export function authEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    NEXTAUTH_SECRET: newSecret(),
    NEXTAUTH_URL: 'http://platform.test',
    JWT_SECRET: newSecret(),
    ...extra,
  };
}

export const exchange = (
  server: { post: TestServer['post'] },
  email: string,
  secret: string,
  headers: Record<string, string> = {},
) => server.post('/api/auth/token', JSON.stringify({ email, secret }), headers);

export const bearer = (jwt: string): Record<string, string> => ({ authorization: `Bearer ${jwt}` });

/**
 * The token exchange at the start of a second, and when its JWT expires (ms since the epoch). A JWT's
 * times are whole seconds: minted late in one, a JWT of JWT_EXPIRY_SECONDS=1 had almost nothing to
 * live; minted at the start of one, it lives its whole lifetime.
 */
export async function exchangeAtSecond(server: { post: TestServer['post'] }, email: string, secret: string) {
  await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000)));
  const res = await exchange(server, email, secret);
  const expiresAt = typeof res.body.token === 'string' ? decodeJwt(res.body.token).exp! * 1000 : NaN;
  return { res, expiresAt };
}

/** POST /api/graphql with only the given headers (no admin secret). */
export const gqlWith = (
  server: { post: TestServer['post'] },
  headers: Record<string, string>,
  query: string,
  variables?: Record<string, unknown>,
): Promise<GqlResult> => server.post('/api/graphql', JSON.stringify({ query, variables }), headers);

/** A new API token of the user (as `npm run admin -- create-token` makes it); its secret. */
export async function tokenFor(
  db: Database,
  email: string,
  name = 'test token',
): Promise<{ id: string; secret: string }> {
  const t = await createTokenFor(db, { email, name });
  return { id: t.id, secret: t.secret };
}

/** A JWT for a new API token of the user, through the exchange. */
export async function jwtFor(
  server: TestServer,
  email: string,
  name = 'test token',
): Promise<{ jwt: string; tokenId: string; secret: string }> {
  const t = await tokenFor(server.started.db, email, name);
  const res = await exchange(server, email, t.secret);
  if (res.status !== 200) throw new Error(`exchange failed: ${res.status} ${res.text}`);
  return { jwt: res.body.token, tokenId: t.id, secret: t.secret };
}

export const withPassword = (db: Database, email: string, password: string) => setPassword(db, email, password);

/**
 * POST /signin as the sign-in page's form does, with a CSRF token of the test's own in the cookie and
 * the form (double-submit: any token works when both copies agree). The redirect is not followed.
 */
export function signInForm(
  server: { url: string },
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const csrf = newSecret();
  return fetch(`${server.url}/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `platform_csrf=${csrf}`, ...headers },
    body: new URLSearchParams({ csrf, email, password }).toString(),
  });
}

/** The claims of a JWT, unverified (tests look inside). */
export const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));

/** Polls `check` every 20 ms until it is true or `ms` have passed; the milliseconds it took, or -1. */
export async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > ms) return -1;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const ROOT = path.resolve(__dirname, '..', '..');

/** A child `node` process running a TypeScript entry point of the engine (no build needed). */
export function spawnTs(entry: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawn(
    process.execPath,
    ['-r', path.join(ROOT, 'tests', 'support', 'register-ts.js'), path.join(ROOT, entry), ...args],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
}

/** Runs a child to its end: exit code and output. */
export function runTs(
  entry: string,
  args: string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<{ code: number; out: string; err: string }> {
  const child = spawnTs(entry, args, env);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  child.stdin!.end(stdin ?? '');
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code: code ?? -1, out, err })));
}

/** A second engine in its own process (engine/main.ts) on a random port; resolves once it listens. */
export async function spawnEngine(
  env: Record<string, string>,
): Promise<{ url: string; post: TestServer['post']; stop(): Promise<void> }> {
  const child = spawnTs('engine/main.ts', [], { PORT: '0', HOST: '127.0.0.1', ...env });
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the engine process did not start:\n${log}`)), 120_000);
    child.stdout!.on('data', (chunk) => {
      log += chunk;
      const m = /listening on http:\/\/localhost:(\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    });
    child.stderr!.on('data', (chunk) => (log += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the engine process exited with ${code}:\n${log}`));
    });
  });
  const post = poster(url);
  return {
    url,
    post,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Another engine on the same database object, in this process, with its own HTTP server, listener and
 * memory of revocations: on PGlite the only way for two engines to share a database. With `ownPool`,
 * on PostgreSQL it opens connections of its own instead, as an engine in another process would.
 */
export async function startSibling(
  server: TestServer,
  env: Record<string, string>,
  opts: { ownPool?: boolean } = {},
): Promise<{ url: string; post: TestServer['post']; started: Started; stop(): Promise<void> }> {
  const url = opts.ownPool ? server.started.engine.config.databaseUrl : undefined;
  const config = loadConfig({ ADMIN_SECRET, SEED_DEMO_DATA: 'false', ...env, ...(url ? { DATABASE_URL: url } : {}) });
  const started = await startEngine(config, () => undefined, url ? undefined : server.started.db);
  const http = serve({ fetch: started.app.fetch, createServer: started.createServer, port: 0, hostname: '127.0.0.1' });
  keepConnections(http as Server, config.keepAliveSeconds);
  await new Promise<void>((resolve) => (http.listening ? resolve() : http.once('listening', () => resolve())));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const post = poster(base);
  return {
    url: base,
    post,
    started,
    stop: async () => {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await started.close();
    },
  };
}
