/**
 * WebSocket on the GraphQL endpoints of a Node HTTP server. The subprotocol the client asks for picks
 * the handler: `graphql-transport-ws` (graphql-ws), or the older `graphql-ws` of
 * subscriptions-transport-ws; any other is accepted and closed with 4406, as graphql-ws says. A
 * message larger than WS_MAX_MESSAGE_BYTES closes the connection with 1009 (ws's maxPayload).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { SubscriptionConfig } from '../../core/config';
import { serveLegacyConnection } from './legacy-ws';
import type { SubscriptionHub } from './subscription-hub';
import { serveTransportWs } from './transport-ws';

const PATHS = new Set(['/api/graphql', '/v1/graphql']);

const protocolsOf = (request: IncomingMessage) =>
  (request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

export function attachWebSockets(
  server: Server,
  hub: SubscriptionHub,
  config: SubscriptionConfig,
): { close(): Promise<void> } {
  const maxPayload = config.maxMessageBytes;
  const modern = new WebSocketServer({ noServer: true, maxPayload });
  const legacy = new WebSocketServer({
    noServer: true,
    maxPayload,
    handleProtocols: (protocols) => (protocols.has('graphql-ws') ? 'graphql-ws' : false),
  });
  const queues = { initTimeoutMs: config.initTimeoutMs, maxQueuedBytes: config.maxQueuedBytes };
  const served = serveTransportWs(modern, hub, queues);
  legacy.on('connection', (socket, request) => serveLegacyConnection(socket, request, hub, queues));
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    if (!PATHS.has(path)) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const protocols = protocolsOf(request);
    const wss = !protocols.includes('graphql-transport-ws') && protocols.includes('graphql-ws') ? legacy : modern;
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  server.on('upgrade', onUpgrade);
  return {
    async close() {
      server.off('upgrade', onUpgrade);
      for (const c of legacy.clients) c.close(1001, 'Going away');
      await new Promise<void>((resolve) => legacy.close(() => resolve()));
      await served.dispose();
    },
  };
}
