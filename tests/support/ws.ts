import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * WebSocket clients of the tests: the graphql-ws library's client (`graphql-transport-ws`), and raw
 * messages of the older `graphql-ws` subprotocol (subscriptions-transport-ws), as Apollo clients send.
 */
export const wsUrl = (httpUrl: string, path = '/v1/graphql') => httpUrl.replace(/^http/, 'ws') + path;

/** A graphql-ws client that connects at once and does not retry. */
export function transportClient(url: string, connectionParams: Record<string, unknown>): Client {
  return createClient({
    url: wsUrl(url),
    webSocketImpl: WebSocket,
    connectionParams,
    lazy: false,
    retryAttempts: 0,
    onNonLazyError: () => undefined,
  });
}

/** A subscription's results as they arrive, and how it ended. */
export interface Followed {
  results: any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  errors: unknown[];
  completed: boolean;
  stop(): void;
}

export function follow(client: Client, query: string, variables: Record<string, unknown> = {}): Followed {
  const out: Followed = { results: [], errors: [], completed: false, stop: () => undefined };
  out.stop = client.subscribe(
    { query, variables },
    {
      next: (r) => void out.results.push(r),
      error: (e) => void out.errors.push(e),
      complete: () => void (out.completed = true),
    },
  );
  return out;
}

/** A raw connection of the legacy protocol, with every message received. */
export interface Legacy {
  socket: WebSocket;
  messages: any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  send(message: unknown): void;
  closed: Promise<{ code: number; reason: string }>;
}

/** `protocol` null: the client asks for none. */
export async function legacyClient(
  url: string,
  protocol: string | null = 'graphql-ws',
  headers: Record<string, string> = {},
): Promise<Legacy> {
  const socket = new WebSocket(wsUrl(url, '/api/graphql'), protocol === null ? [] : protocol, { headers });
  const messages: unknown[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, messages, send: (m) => socket.send(typeof m === 'string' ? m : JSON.stringify(m)), closed };
}

/** Waits until `check` holds (every 10 ms) for at most `ms`; the milliseconds it took, or throws. */
export async function until(ms: number, check: () => boolean, what = 'condition'): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (check()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
