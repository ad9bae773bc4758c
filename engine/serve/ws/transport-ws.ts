/**
 * The `graphql-transport-ws` protocol (the graphql-ws library's), served by graphql-ws itself: it
 * keeps the protocol (connection_init and its timeout, ack, ping/pong, subscribe, next, error,
 * complete, the close codes). The engine does the rest: the session at connection_init, each
 * operation's validation and plan (errors as `error` messages with Hasura's codes), live queries
 * through the hub, queries and mutations answered once.
 */
import type { IncomingMessage } from 'node:http';
import { GraphQLError, parse, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { WebSocket, WebSocketServer } from 'ws';
import { Feed } from './feed';
import type { LiveQuery } from '../../compile/execute/engine';
import type { Prepared, SubscriptionHub, WireError, WsClient } from './subscription-hub';

/** What the engine needs per connection: its client (after connection_init) and its live feeds. */
interface ConnectionState {
  client?: WsClient;
  feeds: Map<string, Feed<ExecutionResult>>;
}

interface OperationContext {
  client: WsClient;
  id: string;
  prepared: Prepared;
  feeds: ConnectionState['feeds'];
}

/** graphql-ws runs `subscribe` for a subscription document and `execute` for any other: these say which. */
const LIVE_DOCUMENT = parse('subscription { __typename }');
const ONCE_DOCUMENT = parse('query { __typename }');

const SLOW_STREAM: WireError = {
  message: 'the stream ended: the client did not read its batches as fast as they came',
  extensions: { code: 'busy', path: '$' },
};

/** A close frame's reason is at most 123 bytes. */
const reason = (text: string) => (Buffer.byteLength(text) <= 123 ? text : `${text.slice(0, 100)}...`);

const asGraphqlErrors = (errors: WireError[]) =>
  errors.map((e) => new GraphQLError(e.message, { extensions: e.extensions }));

/** An error the feed throws: graphql-ws sends its message and extensions as an `error` message. */
function feedError(errors: WireError[]): Error {
  const err = new Error(errors[0]?.message ?? 'subscription ended') as Error & { extensions?: unknown };
  err.extensions = errors[0]?.extensions;
  return err;
}

/** The results of one cohort reach all its subscribers as the same text: parsed once. */
function parser(): (body: string) => ExecutionResult {
  let lastBody = '';
  let last: ExecutionResult = {};
  return (body) => {
    if (body !== lastBody) {
      lastBody = body;
      last = JSON.parse(body) as ExecutionResult;
    }
    return last;
  };
}

export interface TransportOptions {
  initTimeoutMs: number;
  /** Bytes of a stream's batches waiting for a client that reads slowly, past which the stream ends. */
  maxQueuedBytes: number;
}

export function serveTransportWs(wss: WebSocketServer, hub: SubscriptionHub, options: TransportOptions) {
  const states = new WeakMap<WebSocket, ConnectionState>();
  const stateOf = (extra: unknown) => {
    const socket = (extra as { socket: WebSocket }).socket;
    let s = states.get(socket);
    if (!s) states.set(socket, (s = { feeds: new Map() }));
    return { socket, state: s };
  };
  const parseBody = parser();
  return useServer(
    {
      connectionInitWaitTimeout: options.initTimeoutMs,
      onConnect: (ctx) => {
        const { socket, state } = stateOf(ctx.extra);
        return connect(hub, socket, (ctx.extra as { request: IncomingMessage }).request, ctx.connectionParams, state);
      },
      onSubscribe: (ctx, id, payload) => {
        const { state } = stateOf(ctx.extra);
        const client = state.client!;
        let prepared: Prepared;
        try {
          prepared = client.prepare(id, payload);
        } catch (err) {
          return asGraphqlErrors(client.errorsOf(err));
        }
        const contextValue: OperationContext = { client, id, prepared, feeds: state.feeds };
        const schema = hub.deps.engine.schemaFor(client.session.role).schema;
        const document = prepared.kind === 'live' ? LIVE_DOCUMENT : ONCE_DOCUMENT;
        return { schema, document, contextValue } as ExecutionArgs;
      },
      execute: async (args) => {
        const { client, prepared } = args.contextValue as OperationContext;
        if (prepared.kind !== 'once') return {};
        return JSON.parse(await client.runOnce(prepared)) as ExecutionResult;
      },
      subscribe: (args) => {
        const op = args.contextValue as OperationContext;
        return op.prepared.kind === 'live' ? liveFeed(op, op.prepared.live, parseBody, options.maxQueuedBytes) : {};
      },
      // Results are Hasura-shaped JSON already (errors with extensions): sent as they are.
      onNext: (_ctx, _id, _payload, _args, result) => result,
      onClose: (ctx) => {
        const { state } = stateOf(ctx.extra);
        state.client?.close();
      },
    },
    wss,
  );
}

/** connection_init: the connection's session, or 4403 Forbidden saying why. */
async function connect(
  hub: SubscriptionHub,
  socket: WebSocket,
  request: IncomingMessage,
  payload: unknown,
  state: ConnectionState,
): Promise<boolean> {
  try {
    state.client = await hub.connect(request, payload, (ids, errors) => {
      for (const id of ids) state.feeds.get(id)?.fail(feedError(errors));
      // The errors go first; then the connection, whose credentials are no longer good, ends.
      setTimeout(() => socket.close(4403, reason(`Forbidden: ${errors[0]?.message ?? ''}`)), 100);
    });
    return true;
  } catch (err) {
    const [e] = hub.errorsOf(err);
    socket.close(4403, reason(`Forbidden: ${e.message}`));
    return false;
  }
}

/**
 * A live query's results as the generator graphql-ws reads; ending it (complete, close) stops it.
 * graphql-ws reads the next result only when the socket took the last one, so a client that stops
 * reading leaves results in the feed: a live query's newest replaces the one waiting, a stream's
 * batches wait up to `maxQueuedBytes`, past which the stream ends.
 */
function liveFeed(
  op: OperationContext,
  live: LiveQuery,
  parseBody: (body: string) => ExecutionResult,
  maxQueuedBytes: number,
) {
  const { client, id, feeds } = op;
  const keep = live.stream ? { maxBytes: maxQueuedBytes, overflow: () => feedError([SLOW_STREAM]) } : undefined;
  const feed = new Feed<ExecutionResult>(() => {
    feeds.delete(id);
    client.stop(id);
  }, keep);
  feeds.set(id, feed);
  client.follow(id, live, {
    next: (body) => feed.push(parseBody(body), body.length),
    error: (err) => {
      feeds.delete(id);
      feed.fail(feedError(client.errorsOf(err)));
    },
  });
  return feed;
}
