import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { answerHeaders, answerPost, type PostAnswer } from './graphql-route';
import type { EngineResponse } from '../../compile/execute/engine';
import { statusFor } from './media-types';
import { readIncomingBody } from './read-request';
import { beginRequest, finishRequest, GRAPHQL_ROUTES, type ObserveOptions } from './observe';
import type { AppOptions } from './app';
import { adminSecretSessions } from '../auth/admin-secret';

/**
 * The GraphQL lane: a POST to /api/graphql or /v1/graphql from an API client (no Origin and no Cookie
 * header: a server, a script, curl) is answered straight from Node's request and response, without
 * Hono's Request, Headers and Response objects, its router and middleware chain. Those cost the
 * engine more CPU per request than parsing, planning and binding together (README "GraphQL over
 * HTTP", "The GraphQL lane"). The answer is the one the Hono route gives, by the same code
 * (graphql-route.ts answerPost, answerHeaders), with the same request id, access line, metrics and
 * span (observe.ts). Everything else, browsers' requests
 * included (their cookie needs the CSRF check, their origin CORS), goes on to Hono.
 */
export function graphqlLane(opts: AppOptions, next: RequestListener): RequestListener {
  const resolveSession = opts.resolveSession ?? adminSecretSessions(opts.adminSecret);
  const observe: ObserveOptions = opts.observe ?? { log: () => undefined };
  // With CORS_ORIGINS the Hono route's answers vary by Origin (cors.ts); the lane's do alike.
  const vary = (opts.corsOrigins ?? []).length > 0 ? { vary: 'Origin' } : undefined;
  const take = (req: IncomingMessage) =>
    req.method === 'POST' &&
    GRAPHQL_ROUTES.has(req.url ?? '') &&
    req.headers.origin === undefined &&
    req.headers.cookie === undefined;
  return (req, res) => {
    if (!take(req)) return next(req, res);
    const route = req.url!;
    const record = beginRequest(observe, 'POST', route, req.headers);
    const post = {
      headers: req.headers,
      readBody: (max: number) => readIncomingBody(req, max),
      // No cookie, so no cookie session: never asked.
      crossSiteSafe: () => false,
      record,
    };
    const write = (a: PostAnswer) => {
      const pieces = writtenPieces(a.response);
      let bytes = 0;
      for (const p of pieces) bytes += Buffer.byteLength(p);
      const status = statusFor(a.response, a.media);
      const extra = { ...a.extra, ...vary, 'x-request-id': record.id, 'content-length': String(bytes) };
      res.writeHead(status, answerHeaders(a.media, a.response, extra));
      // One write of the socket still (Node corks it until the end of the turn), each piece as it is.
      for (let i = 0; i < pieces.length - 1; i++) res.write(pieces[i]);
      res.end(pieces[pieces.length - 1]);
      finishRequest(observe, record, { route, method: 'POST', status, bytes });
    };
    answerPost(opts.engine, resolveSession, opts.bodyBytes, post)
      .then(write, (err) => write({ media: 'application/json', response: opts.engine.failure(err, undefined, record) }))
      .catch((err: Error) => {
        // Writing the answer failed (the engine's own errors are answers above): the connection goes.
        observe.log({
          level: 'error',
          msg: `answering a GraphQL request failed: ${err.message}`,
          request_id: record.id,
        });
        res.destroy();
      });
  };
}

/**
 * What the lane writes of an answer: its pieces when it is large enough that joining them costs more
 * than a write each (a copy of the answer, and two more where Node measures it and puts the head
 * before it), else its body.
 */
function writtenPieces(r: EngineResponse): readonly string[] {
  const pieces = r.pieces;
  if (!pieces) return [r.body];
  let length = 0;
  for (const p of pieces) length += p.length;
  return length >= PIECES_FROM ? pieces : [r.body];
}

/** Answers of this many characters or more are written in pieces (writtenPieces). */
const PIECES_FROM = 2048;

/**
 * For @hono/node-server's `serve({createServer})`: Node's HTTP server with the GraphQL lane in front
 * of Hono's listener.
 */
export function laneServer(opts: AppOptions): typeof createServer {
  // Typed as Node's createServer (its overloads), though node-server always passes (options, listener).
  const make = (options: ServerOptions, honoListener: RequestListener): Server =>
    createServer(options, graphqlLane(opts, honoListener));
  return make as typeof createServer;
}
