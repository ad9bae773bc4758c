import type { Context } from 'hono';
import type { Engine, EngineResponse, GraphqlRequest } from '../../compile/execute/engine';
import { errorBody } from '../../core/errors';
import type { Session, SessionResolver } from '../../core/session';
import { readBody, requestHeaders } from './read-request';

const json = (c: Context, r: EngineResponse, extra: Record<string, string> = {}) =>
  c.body(r.body, r.status as 200, { 'content-type': 'application/json; charset=utf-8', ...extra });

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
    try {
      session = await resolveSession(requestHeaders(c));
    } catch (err) {
      return json(c, engine.failure(err));
    }
    let body: unknown;
    try {
      body = JSON.parse(read.text);
    } catch {
      return json(c, {
        status: 400,
        body: errorBody([{ message: 'the request body is not valid JSON', code: 'invalid-json', path: '$' }]),
      });
    }
    if (Array.isArray(body)) {
      const results = await Promise.all(body.map((b) => engine.run(asRequest(b), session)));
      return json(c, { status: 200, body: `[${results.map((r) => r.body).join(',')}]` });
    }
    return json(c, await engine.run(asRequest(body), session));
  };
}

function asRequest(body: unknown): GraphqlRequest {
  if (!body || typeof body !== 'object') return { query: undefined };
  return body as GraphqlRequest;
}
