import type { Context } from 'hono';
import { asRequest, type Engine, type EngineResponse } from '../../compile/execute/engine';
import { errorBody } from '../../core/errors';
import type { Session, SessionResolver } from '../../core/session';
import { header, type HeaderBag } from '../../core/headers';
import { csrfValid } from '../web/csrf';
import { readBody, requestHeaders } from './read-request';
import { noteBytes } from '../../core/request-context';

const json = (c: Context, r: EngineResponse, extra: Record<string, string> = {}) => {
  noteBytes(r.body);
  return c.body(r.body, r.status as 200, { 'content-type': 'application/json; charset=utf-8', ...r.headers, ...extra });
};

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Whether a request signed in by the session cookie may be run. A page of any other site can make the
 * browser POST with the cookie, but only as a form or text/plain (a "simple" request, which needs no
 * preflight); application/json or a custom header needs the preflight that CORS refuses. So such a
 * request must be application/json, or carry x-csrf-token equal to the CSRF cookie (csrf.ts).
 * SameSite=Lax alone is not relied on: it lets same-site pages through and old browsers ignore it.
 */
function crossSiteSafe(c: Context, headers: HeaderBag): boolean {
  if (JSON_TYPE.test((header(headers, 'content-type') ?? '').trim())) return true;
  return csrfValid(c, header(headers, 'x-csrf-token'));
}

const CROSS_SITE_REFUSED = errorBody([
  {
    message:
      'a request signed in with the session cookie must have content-type application/json (or carry the x-csrf-token header): other content types can be sent by any web site',
    code: 'unsupported-media-type',
    path: '$',
  },
]);

/**
 * POST /api/graphql: body `{query, variables?, operationName?}` (or a list of them, a batch). The
 * engine's answer is JSON text already; it is written as it is.
 */
export function graphqlRoute(engine: Engine, resolveSession: SessionResolver, maxBytes: number) {
  return async (c: Context) => {
    const read = await readBody(c, maxBytes);
    if (!read.ok) {
      // The unread rest of the body makes the connection unusable: say so, or a keep-alive client reuses it and fails.
      const body = errorBody([
        { message: `the request body is larger than ${maxBytes} bytes`, code: 'request-too-large', path: '$' },
      ]);
      return json(c, { status: 413, body }, { connection: 'close' });
    }
    let session: Session;
    const headers = requestHeaders(c);
    try {
      session = await resolveSession(headers);
    } catch (err) {
      return json(c, engine.failure(err));
    }
    if (session.via === 'cookie' && !crossSiteSafe(c, headers))
      return json(c, { status: 415, body: CROSS_SITE_REFUSED });
    let body: unknown;
    try {
      body = JSON.parse(read.text);
    } catch {
      return json(c, {
        status: 400,
        body: errorBody([{ message: 'the request body is not valid JSON', code: 'invalid-json', path: '$' }]),
      });
    }
    // A batch runs its operations in order, each seeing what the ones before it wrote (Engine.runBatch).
    if (Array.isArray(body)) return json(c, await engine.runBatch(body, session));
    return json(c, await engine.run(asRequest(body), session));
  };
}
