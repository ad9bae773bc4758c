import { randomUUID } from 'node:crypto';
import type { Span } from '@opentelemetry/api';
import type { Context, Hono } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from '../../core/logger';
import type { Metrics } from '../../core/metrics';
import { withRequest, type RequestRecord } from '../../core/request-context';
import { NO_TRACING, type Tracing } from '../../core/tracing';

export interface ObserveOptions {
  log: Logger;
  metrics?: Metrics;
  tracing?: Tracing;
}

/** A client's request id is echoed only when it is a plain token: a header may carry anything. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const GRAPHQL_ROUTES = new Set(['/api/graphql', '/v1/graphql']);
/** Probes and scrapes come every few seconds: their lines are debug, so that they do not drown the rest. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Before every route: gives the request its id (the client's `x-request-id`, or a new one, echoed in
 * the answer), its record (core/request-context.ts, which the engine fills in: operation, role, tenant,
 * rows, error code), its span when tracing is on; after it, one access line, the request metrics and
 * the span's end. The line holds names, counts and codes only: no header, variable or body.
 */
export function mountObserve(app: Hono, opts: ObserveOptions): void {
  const tracing = opts.tracing ?? NO_TRACING;
  app.use('*', async (c, next) => {
    const start = performance.now();
    const sent = c.req.header('x-request-id');
    const record: RequestRecord = { id: sent && REQUEST_ID.test(sent) ? sent : randomUUID(), rows: 0 };
    record.audit = (event) => auditLine(opts, event);
    if (tracing.on)
      record.span = tracing.startRequest(`${c.req.method} ${c.req.path}`, {}, c.req.header('traceparent'));
    // Set before the answer exists: Hono adds it to whatever answer the route gives, without turning the
    // node server's plain header object into a Headers instance afterwards.
    c.header('x-request-id', record.id);
    try {
      await withRequest(record, () => next());
    } finally {
      finish(c, record, (performance.now() - start) / 1000, opts);
    }
  });
}

/** An audit event's log line (the event is stored by core/audit.ts); a failure counts as an auth failure. */
function auditLine(opts: ObserveOptions, event: Record<string, unknown>): void {
  const { type, outcome, requestId, userId, tenantId, tokenId, clientAddress, ...rest } = event;
  opts.log({
    level: outcome === 'failure' ? 'warn' : 'info',
    msg: 'audit',
    event: type,
    outcome,
    request_id: requestId,
    user_id: userId,
    tenant_id: tenantId,
    token_id: tokenId,
    client_address: clientAddress,
    ...rest,
  });
  if (outcome === 'failure') opts.metrics?.authFailure(String(type));
}

/** The route a request matched (a pattern, never the raw path: metrics labels stay few), or `unmatched`. */
function routeOf(c: Context): string {
  // The GraphQL paths are most requests: known without walking the matched routes.
  if (GRAPHQL_ROUTES.has(c.req.path)) return c.req.path;
  const route = routePath(c);
  return route === '*' || route === '/*' ? 'unmatched' : route;
}

function finish(c: Context, record: RequestRecord, seconds: number, opts: ObserveOptions): void {
  const route = routeOf(c);
  const status = c.res.status;
  const graphql = GRAPHQL_ROUTES.has(route);
  const outcome = record.errorCode ?? (status >= 400 ? `http-${status}` : 'ok');
  const bytes = record.bytes ?? numberOr(c.res.headers.get('content-length'));
  opts.log({
    level: QUIET_ROUTES.has(route) ? 'debug' : 'info',
    msg: 'request',
    request_id: record.id,
    method: c.req.method,
    route,
    status,
    ms: Math.round(seconds * 10000) / 10,
    ...(graphql
      ? {
          operation_name: record.operationName,
          operation_type: record.operationType,
          plan_cache: record.planCache,
          rows: record.rows,
        }
      : {}),
    role: record.role,
    tenant: record.tenant,
    bytes,
    code: record.errorCode,
  });
  if (opts.metrics) {
    opts.metrics.http(route, c.req.method, status, seconds);
    if (graphql && c.req.method !== 'OPTIONS') {
      opts.metrics.request(record.operationType ?? 'none', outcome, seconds);
      if (status === 401) opts.metrics.authFailure(record.errorCode ?? 'http-401');
    }
  }
  const span = record.span as Span | undefined;
  if (span) {
    span.setAttributes({
      'http.request.method': c.req.method,
      'http.route': route,
      'http.response.status_code': status,
      ...(record.operationType ? { 'graphql.operation.type': record.operationType } : {}),
      ...(record.operationName ? { 'graphql.operation.name': record.operationName } : {}),
      ...(record.errorCode ? { 'error.type': record.errorCode } : {}),
    });
    if (status >= 500) span.setStatus({ code: 2 });
    span.end();
  }
}

function numberOr(text: string | null): number | undefined {
  const n = Number(text);
  return text !== null && Number.isFinite(n) ? n : undefined;
}
