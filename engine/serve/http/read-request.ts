import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { AuthConfig } from '../../core/config';
import { header, type HeaderBag } from '../../core/headers';

export type ReadBody = { ok: true; text: string } | { ok: false };

/**
 * Headers and body of a request. Under @hono/node-server they are read straight from Node's
 * IncomingMessage: building the Web Request (headers object, abort signal, body stream) cost more
 * CPU per request than the whole GraphQL engine. Elsewhere (app.request in tests) the Web Request.
 */
export function requestHeaders(c: Context): HeaderBag {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming) return incoming.headers;
  return Object.fromEntries(c.req.raw.headers);
}

/** The parameters of the URL's query string (a GET's GraphQL request). */
export function requestSearch(c: Context): URLSearchParams {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const url = incoming?.url ?? c.req.url;
  const at = url.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
}

/** The body as text, or `{ok: false}` when it is larger than `maxBytes` (then the rest is not read). */
export function readBody(c: Context, maxBytes: number): Promise<ReadBody> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming) return readIncomingBody(incoming, maxBytes);
  return c.req.text().then((text) => (Buffer.byteLength(text) > maxBytes ? { ok: false } : { ok: true, text }));
}

/** The body of Node's request as text, or `{ok: false}` past `maxBytes`. */
export function readIncomingBody(incoming: IncomingMessage, maxBytes: number): Promise<ReadBody> {
  if (Number(incoming.headers['content-length'] ?? 0) > maxBytes) return Promise.resolve({ ok: false });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        // Stop reading; the answer closes the connection, so the unread rest does no harm.
        incoming.off('data', onData);
        incoming.pause();
        resolve({ ok: false });
      } else chunks.push(chunk);
    };
    // `on`, not `once`: each is emitted once per request, and the listeners go with it.
    incoming.on('data', onData);
    incoming.on('end', () => {
      // Most bodies come in one chunk: read as it is, not copied first.
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      resolve({ ok: true, text: body.toString('utf8') });
    });
    incoming.on('error', reject);
  });
}

/**
 * The client's address, for counting failures: the socket's peer, or with TRUST_PROXY the address the
 * load balancer appended last to X-Forwarded-For (earlier entries are the client's to forge).
 */
export function clientAddress(c: Context, auth: AuthConfig): string {
  if (auth.trustProxy) {
    const forwarded = header(requestHeaders(c), 'x-forwarded-for');
    const last = forwarded
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .pop();
    if (last) return last;
  }
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}
