/*
 * engine/serve/ws: GraphQL over WebSocket (subscriptions, and queries and mutations too) on the
 * GraphQL endpoints. This file: the headers a connection's session is resolved from, the same way as
 * an HTTP request's (serve/auth/resolve-session.ts): the upgrade request's, overlaid with those of
 * `connection_init`'s payload.
 */
import type { IncomingMessage } from 'node:http';
import type { HeaderBag } from '../../core/headers';
import type { Session } from '../../core/session';
import { RequestError } from '../../core/errors';

/** A payload header worth taking: credentials and session variables. */
const TAKEN = (name: string) => name === 'authorization' || name === 'cookie' || name.startsWith('x-hasura-');

function takeStrings(from: unknown, into: Record<string, string>): void {
  if (!from || typeof from !== 'object' || Array.isArray(from)) return;
  for (const [k, v] of Object.entries(from as Record<string, unknown>)) {
    const name = k.toLowerCase();
    if (typeof v === 'string' && TAKEN(name)) into[name] = v;
  }
}

/**
 * The connection's headers: the upgrade request's (a browser sends the session cookie there), then
 * the payload's `headers` object (Hasura's clients: `{headers: {Authorization: "Bearer ..."}}`), then
 * credentials given at the top of the payload (`{Authorization: ...}`, `{"x-hasura-admin-secret": ...}`).
 */
export function connectionHeaders(request: IncomingMessage, payload: unknown): HeaderBag {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(request.headers)) if (TAKEN(k)) out[k] = v;
  const fromPayload: Record<string, string> = {};
  takeStrings(payload, fromPayload);
  takeStrings((payload as { headers?: unknown } | undefined)?.headers, fromPayload);
  return { ...out, ...fromPayload };
}

/**
 * A browser opens a WebSocket to any site with that site's cookies and no CORS check: a session from
 * the cookie is taken only from a page of this origin (its Host) or of CORS_ORIGINS, so that another
 * site's page cannot subscribe as the signed-in user.
 */
export function checkCookieOrigin(session: Session, request: IncomingMessage, corsOrigins: string[]): void {
  if (session.via !== 'cookie') return;
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== undefined && host === request.headers.host) return;
  if (corsOrigins.includes(origin)) return;
  throw new RequestError(
    'access-denied',
    'a WebSocket signed in with the session cookie must come from a page of this site',
    '$',
    401,
  );
}
