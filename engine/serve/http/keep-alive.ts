import type { Server } from 'node:http';

/**
 * Idle keep-alive connections stay open `seconds` (HTTP_KEEP_ALIVE_SECONDS; Node's default is 5 s).
 * A client or load balancer that reuses a connection at the moment the server closes it as idle gets
 * a reset for a request that was never read; keeping connections longer than the client's own idle
 * limit lets the client close first. Node wants the headers' timeout longer than the keep-alive one.
 */
export function keepConnections(server: Server, seconds: number): void {
  server.keepAliveTimeout = seconds * 1000;
  server.headersTimeout = Math.max(server.headersTimeout, (seconds + 1) * 1000);
}
