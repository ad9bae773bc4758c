import type { Context } from 'hono';
import { asRequest, type Engine, type EngineResponse, type GraphqlRequest } from '../../compile/execute/engine';
import { errorBody, type ErrorCode } from '../../core/errors';
import type { Session, SessionResolver } from '../../core/session';
import { header, type HeaderBag } from '../../core/headers';
import { csrfValid } from '../web/csrf';
import { readBody, requestHeaders, requestSearch, type ReadBody } from './read-request';
import { GRAPHQL_RESPONSE, JSON_MEDIA, responseMedia, statusFor, type ResponseMedia } from './media-types';
import { noteBytes, type RequestRecord } from '../../core/request-context';
import { requestOf } from './observe';

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** The answer in the negotiated media type, with the status that media type calls for. */
function answer(c: Context, media: ResponseMedia, r: EngineResponse, extra: Record<string, string> = {}) {
  noteBytes(requestOf(c), r.body);
  return c.body(r.body, statusFor(r, media) as 200, answerHeaders(media, r, extra));
}

/** The headers of an answer in `media`: its content type, the engine's own (Retry-After ...), then `extra`. */
export function answerHeaders(
  media: ResponseMedia,
  r: EngineResponse,
  extra: Record<string, string> = {},
): Record<string, string> {
  return { 'content-type': `${media}; charset=utf-8`, ...r.headers, ...extra };
}

const refusal = (status: number, code: ErrorCode, message: string, path = '$'): EngineResponse => ({
  status,
  code,
  body: errorBody([{ message, code, path }]),
});

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

const CROSS_SITE_REFUSED = refusal(
  415,
  'unsupported-media-type',
  'a request signed in with the session cookie must have content-type application/json (or carry the x-csrf-token header): other content types can be sent by any web site',
);

const NO_CONTENT_TYPE = refusal(
  415,
  'unsupported-media-type',
  'a POST request needs a content-type header: send the body as application/json',
);

/** The Accept header names neither media type: 406, told in JSON all the same (GraphQL over HTTP, "Body"). */
const NOT_ACCEPTABLE = refusal(
  406,
  'not-acceptable',
  `the Accept header names no media type this API answers in: ${GRAPHQL_RESPONSE} or ${JSON_MEDIA}`,
);

function notAcceptable(c: Context) {
  return answer(c, JSON_MEDIA, NOT_ACCEPTABLE);
}

/**
 * `x-hasura-use-primary: true` sends the request's reads to the primary instead of a read replica.
 * Only the admin secret's: others are not refused but read as routed (the header changes no answer's
 * shape, only how fresh it is, and a client shared between roles should not fail for sending it).
 */
const usePrimary = (session: Session, headers: HeaderBag) =>
  session.via === 'admin-secret' && header(headers, 'x-hasura-use-primary')?.trim().toLowerCase() === 'true';

/** The request's session, or the engine's answer to credentials that do not hold. */
async function sessionOf(
  engine: Engine,
  resolveSession: SessionResolver,
  headers: HeaderBag,
  record: RequestRecord | undefined,
): Promise<{ session: Session } | { failed: EngineResponse }> {
  try {
    return { session: await resolveSession(headers) };
  } catch (err) {
    return { failed: engine.failure(err, undefined, record) };
  }
}

/** A GraphQL POST as the transport gives it: Hono's route below, or the GraphQL lane (graphql-lane.ts). */
export interface GraphqlPost {
  headers: HeaderBag;
  readBody(maxBytes: number): Promise<ReadBody>;
  /** Whether a request signed in by the session cookie may run (crossSiteSafe). */
  crossSiteSafe(): boolean;
  /** The request's record (observe.ts), which the engine notes the operation, rows and errors in. */
  record?: RequestRecord;
}

/** The engine's answer to a POST, in the media type the client accepts, with any headers of its own. */
export interface PostAnswer {
  media: ResponseMedia;
  response: EngineResponse;
  extra?: Record<string, string>;
}

/**
 * POST /api/graphql (and /v1/graphql): body `{query, variables?, operationName?, extensions?}` (or a
 * list of them, a batch). The engine's answer is JSON text already; it is written as it is.
 */
export async function answerPost(
  engine: Engine,
  resolveSession: SessionResolver,
  maxBytes: number,
  post: GraphqlPost,
): Promise<PostAnswer> {
  const headers = post.headers;
  const media = responseMedia(header(headers, 'accept'));
  if (!media) return { media: JSON_MEDIA, response: NOT_ACCEPTABLE };
  const read = await post.readBody(maxBytes);
  if (!read.ok) {
    // The unread rest of the body makes the connection unusable: say so, or a keep-alive client reuses it and fails.
    const tooLarge = refusal(413, 'request-too-large', `the request body is larger than ${maxBytes} bytes`);
    return { media, response: tooLarge, extra: { connection: 'close' } };
  }
  // GraphQL over HTTP: a body without a media type is refused; any type named is read as JSON (Hasura's way).
  if (!header(headers, 'content-type')?.trim()) return { media, response: NO_CONTENT_TYPE };
  const record = post.record;
  const s = await sessionOf(engine, resolveSession, headers, record);
  if ('failed' in s) return { media, response: s.failed };
  if (s.session.via === 'cookie' && !post.crossSiteSafe()) return { media, response: CROSS_SITE_REFUSED };
  let body: unknown;
  try {
    body = JSON.parse(read.text);
  } catch {
    return { media, response: refusal(400, 'invalid-json', 'the request body is not valid JSON') };
  }
  // A batch runs its operations in order, each seeing what the ones before it wrote (Engine.runBatch).
  const routing = { usePrimary: usePrimary(s.session, headers), record };
  if (Array.isArray(body)) return { media, response: await engine.runBatch(body, s.session, routing) };
  return { media, response: await engine.run(asRequest(body), s.session, routing) };
}

function postRoute(engine: Engine, resolveSession: SessionResolver, maxBytes: number) {
  return async (c: Context) => {
    const headers = requestHeaders(c);
    const post: GraphqlPost = {
      headers,
      readBody: (max) => readBody(c, max),
      crossSiteSafe: () => crossSiteSafe(c, headers),
      record: requestOf(c),
    };
    const a = await answerPost(engine, resolveSession, maxBytes, post);
    return answer(c, a.media, a.response, a.extra);
  };
}

/** A GET parameter that holds JSON (`variables`, `extensions`): its value, or the refusal naming it. */
function jsonParam(params: URLSearchParams, name: string): { value: unknown } | { failed: EngineResponse } {
  const text = params.get(name);
  if (text === null || text === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { failed: refusal(400, 'bad-request', `the "${name}" parameter must be URL-encoded JSON`, `$.${name}`) };
  }
}

/** The GraphQL request a GET carries in its URL's query string, or the refusal of a malformed one. */
function getRequest(params: URLSearchParams): { request: GraphqlRequest } | { failed: EngineResponse } {
  const variables = jsonParam(params, 'variables');
  if ('failed' in variables) return variables;
  const extensions = jsonParam(params, 'extensions');
  if ('failed' in extensions) return extensions;
  return {
    request: {
      query: params.get('query') ?? undefined,
      // An empty operationName is no operationName (GraphQL over HTTP, "GET").
      operationName: params.get('operationName') || undefined,
      variables: variables.value,
      extensions: extensions.value,
    },
  };
}

/**
 * What a GET's answer depends on besides its URL, for caches between the client and the engine (a
 * CDN): the Accept header and the credentials. An admin-secret session takes any x-hasura-* header
 * as a session variable, which Vary cannot list: its answers are for the caller alone.
 */
function cacheHeaders(session: Session | undefined): Record<string, string> {
  const vary = { vary: 'Accept, Authorization, Cookie' };
  return session?.via === 'admin-secret' ? { ...vary, 'cache-control': 'private' } : vary;
}

/**
 * GET /api/graphql?query=...&operationName=...&variables=<JSON>&extensions=<JSON>: queries only, so
 * that a GET changes nothing (HTTP's safe method, which caches may answer for). A mutation gets 405
 * with Allow: POST before anything runs, and an action that would write refuses the same way. A
 * cross-site page can make a browser send this with the cookie, but it can only read, and reading the
 * answer is what CORS keeps from other origins.
 */
function getRoute(engine: Engine, resolveSession: SessionResolver) {
  return async (c: Context) => {
    const headers = requestHeaders(c);
    const media = responseMedia(header(headers, 'accept'));
    if (!media) return notAcceptable(c);
    const parsed = getRequest(requestSearch(c));
    const record = requestOf(c);
    const s = await sessionOf(engine, resolveSession, headers, record);
    if ('failed' in s) return answer(c, media, s.failed, cacheHeaders(undefined));
    const extra = cacheHeaders(s.session);
    if ('failed' in parsed) return answer(c, media, parsed.failed, extra);
    const r = await engine.run(parsed.request, s.session, {
      safeMethod: true,
      usePrimary: usePrimary(s.session, headers),
      record,
    });
    return answer(c, media, r, r.status === 405 ? { ...extra, allow: 'POST' } : extra);
  };
}

/** The GraphQL endpoint's handlers: POST (queries and mutations) and GET (queries). */
export function graphqlRoutes(engine: Engine, resolveSession: SessionResolver, maxBytes: number) {
  return { post: postRoute(engine, resolveSession, maxBytes), get: getRoute(engine, resolveSession) };
}
