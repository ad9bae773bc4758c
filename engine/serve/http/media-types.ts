import type { EngineResponse } from '../../compile/execute/engine';

/**
 * The media types of GraphQL over HTTP. A client that accepts application/graphql-response+json gets
 * the status codes that say what happened (400 for a document that does not parse or validate, 403
 * for a refused permission ...); one that accepts application/json, or sends no Accept, keeps
 * Hasura's answers: 200 with `errors` for whatever went wrong once the request was read.
 */
export const GRAPHQL_RESPONSE = 'application/graphql-response+json';
export const JSON_MEDIA = 'application/json';
export type ResponseMedia = typeof GRAPHQL_RESPONSE | typeof JSON_MEDIA;

/** What a range of the Accept header gives, among the two types answered. */
function mediaOf(range: string): ResponseMedia | undefined {
  if (range === GRAPHQL_RESPONSE) return GRAPHQL_RESPONSE;
  // A wildcard gets application/json: the type every client reads (GraphQL over HTTP, "Accept").
  if (range === JSON_MEDIA || range === 'application/*' || range === '*/*') return JSON_MEDIA;
  return undefined;
}

/**
 * The media type of the answer: the acceptable one of highest quality, the first listed among equals.
 * No Accept header: application/json, as Hasura answers. Undefined: none is acceptable (406).
 */
export function responseMedia(accept: string | undefined): ResponseMedia | undefined {
  if (accept === undefined) return JSON_MEDIA;
  // A client sends the same Accept on every request: read once. A few hundred short ones are kept.
  if (chosen.has(accept)) return chosen.get(accept);
  const media = chooseMedia(accept);
  if (accept.length > ACCEPT_KEPT_LENGTH) return media;
  if (chosen.size >= ACCEPTS_KEPT) chosen.clear();
  chosen.set(accept, media);
  return media;
}

const ACCEPTS_KEPT = 256;
const ACCEPT_KEPT_LENGTH = 256;
const chosen = new Map<string, ResponseMedia | undefined>();

function chooseMedia(accept: string): ResponseMedia | undefined {
  if (accept.trim() === '') return JSON_MEDIA;
  let best: { media: ResponseMedia; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = Number(params.find((p) => p.startsWith('q='))?.slice(2) ?? 1);
    const media = mediaOf(range);
    // q=0 means "not this one"; a q that is not a number counts as 0 too.
    if (media && q > 0 && (!best || q > best.q)) best = { media, q };
  }
  return best?.media;
}

/**
 * The HTTP status of an error answer (no `data`) under application/graphql-response+json, by its code:
 * that media type promises a 4xx or 5xx whenever there is no data. Answers whose status is not 200
 * already (401, 413, 503 ...) keep it.
 */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  'validation-failed': 400,
  'bad-request': 400,
  'invalid-json': 400,
  'data-exception': 400,
  'not-supported': 400,
  'too-many-rows': 400,
  'response-too-large': 400,
  'access-denied': 403,
  'permission-error': 403,
  'not-found': 404,
  'constraint-violation': 409,
  'action-error': 502,
  timeout: 504,
};

export function statusFor(r: EngineResponse, media: ResponseMedia): number {
  if (media !== GRAPHQL_RESPONSE || r.status !== 200 || r.code === undefined) return r.status;
  return STATUS_BY_CODE[r.code] ?? 500;
}
