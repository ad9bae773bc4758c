import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/** Request headers by lower-case name, as Node gives them. */
export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

export const header = (headers: HeaderBag, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

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

/** The body as text, or `{ok: false}` when it is larger than `maxBytes` (then the rest is not read). */
export function readBody(c: Context, maxBytes: number): Promise<ReadBody> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) {
    return c.req.text().then((text) => (Buffer.byteLength(text) > maxBytes ? { ok: false } : { ok: true, text }));
  }
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
    incoming.on('data', onData);
    incoming.once('end', () => resolve({ ok: true, text: Buffer.concat(chunks, size).toString('utf8') }));
    incoming.once('error', reject);
  });
}
