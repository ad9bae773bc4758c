import { randomUUID } from 'node:crypto';
import type { Span } from '@opentelemetry/api';
import type { Context, Hono } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from '../../core/logger';
import type { Metrics } from '../../core/metrics';
import { withRequest, type RequestRecord } from '../../core/request-context';
import { header, type HeaderBag } from '../../core/headers';
import { requestHeaders } from './read-request';
import { NO_TRACING, type Tracing } from '../../core/tracing';

export interface ObserveOptions {
  log: Logger;
  metrics?: Metrics;
  tracing?: Tracing;
}

/** A client's request id is echoed only when it is a plain token: a header may carry anything. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request's record, with the moment it arrived. */
export interface ObservedRequest extends RequestRecord {
  readonly began: number;
}

declare module 'hono' {
  interface ContextVariableMap {
    /** The request's record (beginRequest), for the routes that note what they did in it. */
    observedRequest: ObservedRequest;
  }
}

/** The record of the request a route serves (mountObserve sets it before every route). */
export const requestOf = (c: Context): RequestRecord | undefined => c.get('observedRequest');

export const GRAPHQL_ROUTES = new Set(['/api/graphql', '/v1/graphql']);
/** Probes and scrapes come every few seconds: their lines are debug, so that they do not drown the rest. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Before every route: gives the request its id (the client's `x-request-id`, or a new one, echoed in
 * the answer), its record (core/request-context.ts, which the engine fills in: operation, role, tenant,
 * rows, error code), its span when tracing is on; after it, one access line, the request metrics and
 * the span's end. The line holds names, counts and codes only: no header, variable or body.
 */
export function mountObserve(app: Hono, opts: ObserveOptions): void {
  app.use('*', async (c, next) => {
    const record = beginRequest(opts, c.req.method, c.req.path, requestHeaders(c));
    // Set before the answer exists: Hono adds it to whatever answer the route gives.
    c.header('x-request-id', record.id);
    c.set('observedRequest', record);
    try {
      // The GraphQL routes hand the record to the engine; the others' audit events find it through
      // request-context, which costs every request while one is inside (request-context.ts).
      await (GRAPHQL_ROUTES.has(c.req.path) ? next() : withRequest(record, () => next()));
    } finally {
      const status = c.res.status;
      const bytes = record.bytes ?? numberOr(c.res.headers.get('content-length'));
      finishRequest(opts, record, { route: routeOf(c), method: c.req.method, status, bytes });
    }
  });
}

/** A request's record as it arrives: its id, its start, its span when tracing is on. */
export function beginRequest(opts: ObserveOptions, method: string, path: string, headers: HeaderBag): ObservedRequest {
  const sent = header(headers, 'x-request-id');
  const record: ObservedRequest = {
    id: sent && REQUEST_ID.test(sent) ? sent : randomUUID(),
    rows: 0,
    began: performance.now(),
    audit: (event) => auditLine(opts, event),
  };
  const tracing = opts.tracing ?? NO_TRACING;
  if (tracing.on) record.span = tracing.startRequest(`${method} ${path}`, {}, header(headers, 'traceparent'));
  return record;
}

/** What the answer was, for the access line and the metrics. */
export interface Outcome {
  /** The matched route's pattern (never the raw path), or `unmatched`. */
  route: string;
  method: string;
  status: number;
  bytes?: number;
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

/** The request's access line, metrics and span's end. */
export function finishRequest(opts: ObserveOptions, record: ObservedRequest, outcome: Outcome): void {
  const { route, method, status, bytes } = outcome;
  const seconds = (performance.now() - record.began) / 1000;
  const graphql = GRAPHQL_ROUTES.has(route);
  const result = record.errorCode ?? (status >= 400 ? `http-${status}` : 'ok');
  opts.log({
    level: QUIET_ROUTES.has(route) ? 'debug' : 'info',
    msg: 'request',
    request_id: record.id,
    method,
    route,
    status,
    ms: Math.round(seconds * 10000) / 10,
    // Undefined fields are left out of the line: these are the GraphQL routes' own.
    operation_name: graphql ? record.operationName : undefined,
    operation_type: graphql ? record.operationType : undefined,
    plan_cache: graphql ? record.planCache : undefined,
    rows: graphql ? record.rows : undefined,
    role: record.role,
    tenant: record.tenant,
    bytes,
    code: record.errorCode,
  });
  if (opts.metrics) {
    opts.metrics.http(route, method, status, seconds);
    if (graphql && method !== 'OPTIONS') {
      opts.metrics.request(record.operationType ?? 'none', result, seconds);
      if (status === 401) opts.metrics.authFailure(record.errorCode ?? 'http-401');
    }
  }
  const span = record.span as Span | undefined;
  if (span) {
    span.setAttributes({
      'http.request.method': method,
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
