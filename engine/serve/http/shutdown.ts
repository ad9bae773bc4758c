import type { Server } from 'node:http';
import * as net from 'node:net';
import type { Logger } from '../../core/logger';

export interface RequestTracker {
  /** Requests received whose response has not been written yet. */
  inFlight(): number;
  /** Open client connections. */
  connections(): number;
  /** When the last request arrived (ms since the epoch). */
  lastArrival(): number;
}

/**
 * Once nothing is in flight, how long no new request must have arrived before the remaining idle
 * connections are closed: a request a client sent just before the signal may still sit unread in a
 * busy event loop, and closing its connection would lose it.
 */
const QUIET_MS = 500;

/**
 * How long connections are still accepted after the signal. A client's connection can be complete in
 * the kernel's accept queue, its request sent, while a busy event loop has not accepted it yet; closing
 * the listener then resets it. A short pause lets the loop take in what is already queued; responses
 * meanwhile ask their clients to close, and readiness already fails.
 */
const ACCEPT_QUEUED_MS = 150;

/**
 * Counts the requests in flight. Once `draining` says so, each response also asks its client to close
 * the connection, so that a keep-alive client does not send its next request to an instance that is
 * going away. Runs before the app's own listener, while headers can still be set.
 */
export function trackRequests(server: Server, draining: () => boolean): RequestTracker {
  let count = 0;
  let open = 0;
  let last = 0;
  // One function for every response's close (emitted once each): no closure or once-wrapper per request.
  const closed = () => count--;
  server.prependListener('request', (_req, res) => {
    count++;
    last = Date.now();
    if (draining()) res.setHeader('connection', 'close');
    res.on('close', closed);
  });
  server.on('connection', (socket) => {
    open++;
    socket.once('close', () => open--);
  });
  return { inFlight: () => count, connections: () => open, lastArrival: () => last };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Graceful shutdown, each step logged: stop accepting connections, let the requests in flight finish
 * (at most `drainMs`; then QUIET_MS without a new one, or no connection left), close what is left of
 * the connections, then `close` (the database pool).
 * The pool is closed only after the requests that use it, so none of them fails for the shutdown.
 */
export async function drainAndClose(
  server: Server,
  tracker: RequestTracker,
  opts: { drainMs: number; log: Logger; close: () => Promise<void> },
): Promise<void> {
  const { log } = opts;
  const start = Date.now();
  await sleep(ACCEPT_QUEUED_MS);
  log({ level: 'info', msg: 'shutting down: no longer accepting connections', inFlight: tracker.inFlight() });
  // net.Server's close only stops listening. http.Server's (Node 19+) also drops idle keep-alive
  // connections at once, losing a request that a client is sending on one at this very moment.
  net.Server.prototype.close.call(server);
  const settled = () =>
    tracker.inFlight() === 0 && (tracker.connections() === 0 || Date.now() - tracker.lastArrival() >= QUIET_MS);
  while (!settled() && Date.now() - start < opts.drainMs) await sleep(20);
  const left = tracker.inFlight();
  if (left > 0)
    log({
      level: 'warn',
      msg: `drain timeout: ${left} requests still running after ${opts.drainMs} ms are cut off (SHUTDOWN_DRAIN_SECONDS)`,
    });
  else log({ level: 'info', msg: 'requests in flight finished', ms: Date.now() - start });
  server.closeAllConnections();
  await opts.close();
  log({ level: 'info', msg: 'database pool closed; exiting' });
}
