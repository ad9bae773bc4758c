import type { Context } from 'hono';
import { asRequest, type Engine, type EngineResponse } from '../../compile/execute/engine';
import { errorBody } from '../../core/errors';
import type { Session, SessionResolver } from '../../core/session';
import { readBody, requestHeaders } from './read-request';

const json = (c: Context, r: EngineResponse, extra: Record<string, string> = {}) =>
  c.body(r.body, r.status as 200, { 'content-type': 'application/json; charset=utf-8', ...r.headers, ...extra });

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
    // A batch runs its operations in order, each seeing what the ones before it wrote (Engine.runBatch).
    if (Array.isArray(body)) return json(c, await engine.runBatch(body, session));
    return json(c, await engine.run(asRequest(body), session));
  };
}
