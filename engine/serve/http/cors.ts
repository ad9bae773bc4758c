import type { Context, Hono, Next } from 'hono';
import { cors } from 'hono/cors';
import { header } from '../../core/headers';
import { requestHeaders } from './read-request';

/** The headers a page of an allowed origin may send: the credentials, the role and the CSRF token. */
const ALLOW_HEADERS = ['content-type', 'authorization', 'x-hasura-role', 'x-hasura-admin-secret', 'x-csrf-token'];
/** How long a browser may remember a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

/**
 * Cross-origin access to the API paths for the origins of CORS_ORIGINS only (none by default). An
 * allowed origin gets hono/cors's answers: the preflight (OPTIONS, 204) with the allowed method and
 * headers, and Access-Control-Allow-Origin on its requests. Any other origin's preflight is answered
 * 204 without a CORS header, so its browser sends nothing; hono/cors alone would still list the
 * allowed methods and headers to it. Credentials (cookies) are not allowed cross-origin: another
 * origin's page calls the API with a Bearer JWT, and the session cookie stays the platform's own.
 */
export function mountCors(app: Hono, paths: readonly string[], origins: readonly string[]): void {
  const allowed = new Set(origins);
  if (allowed.size === 0) {
    // Nothing allowed (the default): only preflights to answer, and no middleware on every request.
    for (const path of paths) app.options(path, (c) => c.body(null, 204));
    return;
  }
  const forAllowed = cors({
    origin: (origin) => (allowed.has(origin) ? origin : null),
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ALLOW_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    credentials: false,
  });
  const middleware = async (c: Context, next: Next) => {
    const origin = header(requestHeaders(c), 'origin');
    if (origin !== undefined && allowed.has(origin)) return forAllowed(c, next);
    if (c.req.method === 'OPTIONS') return c.body(null, 204, { vary: 'Origin' });
    await next();
    // The answer depends on the Origin: caches must keep them apart.
    c.header('vary', 'Origin', { append: true });
  };
  for (const path of paths) app.use(path, middleware);
}
