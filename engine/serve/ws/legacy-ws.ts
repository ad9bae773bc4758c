/**
 * The older `graphql-ws` subprotocol of subscriptions-transport-ws, which Apollo clients and many
 * Hasura clients still speak. Client: connection_init, start, stop, connection_terminate. Server:
 * connection_ack, connection_error, ka (keep-alive), data, error, complete. A bad message is answered
 * with an error and the connection goes on, with its other subscriptions.
 */
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { SubscriptionHub, WireError, WsClient } from './subscription-hub';

/** How often `ka` is sent, so that proxies keep an idle connection open. */
const KEEP_ALIVE_MS = 10_000;

interface Message {
  type?: unknown;
  id?: unknown;
  payload?: unknown;
}

export interface LegacyOptions {
  initTimeoutMs: number;
  /** Bytes queued unsent past which live results wait (the newest replacing the older). */
  maxQueuedBytes: number;
}

/** One connection of the legacy protocol. */
class LegacyConnection {
  private client?: WsClient;
  private initializing?: Promise<void>;
  private readonly initTimer: NodeJS.Timeout;
  private readonly kaTimer: NodeJS.Timeout;
  /** Live results held back while the socket's queue is full: the newest per subscription. */
  private readonly held = new Map<string, string>();
  private flushTimer?: NodeJS.Timeout;

  constructor(
    private readonly socket: WebSocket,
    private readonly request: IncomingMessage,
    private readonly hub: SubscriptionHub,
    private readonly options: LegacyOptions,
  ) {
    this.initTimer = setTimeout(() => {
      if (!this.client) socket.close(4408, 'Connection initialisation timeout');
    }, options.initTimeoutMs);
    this.kaTimer = setInterval(() => this.send({ type: 'ka' }), KEEP_ALIVE_MS);
    socket.on('message', (data) => void this.onMessage(String(data)));
    socket.on('close', () => this.closed());
    // A message past WS_MAX_MESSAGE_BYTES (or a broken frame): ws closes the connection with its code.
    socket.on('error', () => undefined);
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }

  /** `{"type":"data","id":...,"payload":<body>}` with the engine's JSON text as it is. */
  private sendData(id: string, body: string, live: boolean): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (live && (this.held.size > 0 || this.socket.bufferedAmount > this.options.maxQueuedBytes)) {
      this.held.set(id, body);
      this.flushTimer ??= setTimeout(() => this.flush(), 50);
      return;
    }
    this.socket.send(`{"type":"data","id":${JSON.stringify(id)},"payload":${body}}`);
  }

  /** A stream's batch: each must arrive; a client whose queue is full ends the stream. */
  private sendBatch(client: WsClient, id: string, body: string): void {
    if (this.socket.bufferedAmount <= this.options.maxQueuedBytes) return this.sendData(id, body, false);
    client.stop(id);
    this.sendError(id, [wire('busy', 'the stream ended: the client did not read its batches as fast as they came')]);
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (this.socket.bufferedAmount > this.options.maxQueuedBytes) {
      this.flushTimer = setTimeout(() => this.flush(), 50);
      return;
    }
    const held = [...this.held];
    this.held.clear();
    for (const [id, body] of held) if (this.client?.has(id)) this.sendData(id, body, false);
  }

  private sendError(id: string | undefined, errors: WireError[]): void {
    this.send({ type: 'error', ...(id !== undefined ? { id } : {}), payload: errors });
  }

  private async onMessage(text: string): Promise<void> {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
      if (!message || typeof message !== 'object') throw new Error('not an object');
    } catch {
      this.send({ type: 'connection_error', payload: { message: 'the message is not a JSON object' } });
      return;
    }
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? String(message.id) : undefined;
    switch (message.type) {
      case 'connection_init':
        return this.init(message.payload);
      case 'start':
        return this.start(id, message.payload);
      case 'stop':
        if (id !== undefined && this.client?.has(id)) {
          this.client.stop(id);
          this.held.delete(id);
          this.send({ type: 'complete', id });
        }
        return;
      case 'connection_terminate':
        this.socket.close(1000, 'Normal Closure');
        return;
      default:
        this.sendError(id, [wire('bad-request', `unknown message type: ${JSON.stringify(message.type)}`)]);
    }
  }

  private init(payload: unknown): Promise<void> {
    if (this.initializing) {
      this.send({ type: 'connection_error', payload: { message: 'connection_init was already received' } });
      return Promise.resolve();
    }
    // Clients send their first start without waiting for the ack: starts wait for the session.
    this.initializing = this.connect(payload);
    return this.initializing;
  }

  private async connect(payload: unknown): Promise<void> {
    try {
      this.client = await this.hub.connect(this.request, payload, (ids, errors) => this.revoked(ids, errors));
    } catch (err) {
      const [e] = this.hub.errorsOf(err);
      this.send({ type: 'connection_error', payload: e });
      setTimeout(() => this.socket.close(4403, 'Forbidden'), 10);
      return;
    }
    clearTimeout(this.initTimer);
    this.send({ type: 'connection_ack' });
    this.send({ type: 'ka' });
  }

  private async start(id: string | undefined, payload: unknown): Promise<void> {
    if (id === undefined) return this.sendError(undefined, [wire('bad-request', 'a start message needs an id')]);
    await this.initializing;
    const client = this.client;
    if (!client) return this.sendError(id, [wire('bad-request', 'connection_init was not received')]);
    if (client.has(id)) return this.sendError(id, [wire('bad-request', `a subscription with id ${id} already runs`)]);
    let prepared;
    try {
      prepared = client.prepare(id, payload);
    } catch (err) {
      return this.sendError(id, client.errorsOf(err));
    }
    if (prepared.kind === 'once') {
      this.sendData(id, await client.runOnce(prepared), false);
      this.send({ type: 'complete', id });
      return;
    }
    const stream = prepared.live.stream !== undefined;
    client.follow(id, prepared.live, {
      next: (body) => (stream ? this.sendBatch(client, id, body) : this.sendData(id, body, true)),
      error: (err) => this.sendError(id, client.errorsOf(err)),
    });
  }

  private revoked(ids: string[], errors: WireError[]): void {
    for (const id of ids) this.sendError(id, errors);
    setTimeout(() => this.socket.close(4403, 'Forbidden'), 100);
  }

  private closed(): void {
    clearTimeout(this.initTimer);
    clearInterval(this.kaTimer);
    clearTimeout(this.flushTimer);
    this.client?.close();
  }
}

const wire = (code: string, message: string): WireError => ({ message, extensions: { code, path: '$' } });

export function serveLegacyConnection(
  socket: WebSocket,
  request: IncomingMessage,
  hub: SubscriptionHub,
  options: LegacyOptions,
): void {
  new LegacyConnection(socket, request, hub, options);
}
