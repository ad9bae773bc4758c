import type { Span, Tracer } from '@opentelemetry/api';

/** Span attributes: names and counts only, never a variable's value or a secret. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/**
 * OpenTelemetry traces, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set: a span per HTTP request
 * (opened by serve/http/observe.ts) and, under it, one per planning, SQL statement and action. Off, the
 * engine holds `NO_TRACING`, whose `span` calls the function and nothing else, and the SDK is never loaded.
 */
export interface Tracing {
  readonly on: boolean;
  /** Runs `fn` in a span under `parent`, the request's span (RequestRecord.span); a root span without. */
  span<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T> | T, parent?: unknown): Promise<T>;
  /** The same for work that does not wait (parsing, planning): the caller need not be async. */
  spanSync<T>(name: string, attributes: SpanAttributes, fn: () => T, parent?: unknown): T;
  /** Opens a request's span, child of the caller's when it sent a W3C `traceparent`. */
  startRequest(name: string, attributes: SpanAttributes, traceparent?: string): Span | undefined;
  /** Sends what is buffered and stops (at shutdown). */
  close(): Promise<void>;
}

export const NO_TRACING: Tracing = {
  on: false,
  span: async (_name, _attributes, fn) => fn(),
  spanSync: (_name, _attributes, fn) => fn(),
  startRequest: () => undefined,
  close: async () => undefined,
};

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; traces go to `{endpoint}/v1/traces`, OTLP/HTTP JSON. */
  endpoint: string;
  serviceName: string;
  /** How often buffered spans are sent, in milliseconds (OTEL_BSP_SCHEDULE_DELAY). */
  scheduleDelayMs: number;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Loads the SDK and the OTLP/HTTP exporter (only here: an engine without tracing never loads them). */
export async function startTracing(opts: TracingOptions): Promise<Tracing> {
  const api = await import('@opentelemetry/api');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const exporter = new OTLPTraceExporter({ url: `${opts.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': opts.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: opts.scheduleDelayMs })],
  });
  // The provider is this engine's, not registered globally: two engines in one process keep apart.
  const tracer: Tracer = provider.getTracer('platform-graphql-engine');
  const clean = (a: SpanAttributes) =>
    Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Record<string, string | number>;
  const parentOf = (parent: unknown): ReturnType<typeof api.trace.setSpan> =>
    parent ? api.trace.setSpan(api.ROOT_CONTEXT, parent as Span) : api.ROOT_CONTEXT;
  return {
    on: true,
    async span(name, attributes, fn, parent) {
      const span = tracer.startSpan(name, { attributes: clean(attributes) }, parentOf(parent));
      try {
        return await fn();
      } catch (err) {
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: (err as Error)?.message });
        throw err;
      } finally {
        span.end();
      }
    },
    spanSync(name, attributes, fn, parent) {
      const span = tracer.startSpan(name, { attributes: clean(attributes) }, parentOf(parent));
      try {
        return fn();
      } catch (err) {
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: (err as Error)?.message });
        throw err;
      } finally {
        span.end();
      }
    },
    startRequest(name, attributes, traceparent) {
      const m = TRACEPARENT.exec(traceparent ?? '');
      const ctx = m
        ? api.trace.setSpanContext(api.ROOT_CONTEXT, {
            traceId: m[1],
            spanId: m[2],
            traceFlags: parseInt(m[3], 16),
            isRemote: true,
          })
        : api.ROOT_CONTEXT;
      return tracer.startSpan(name, { kind: api.SpanKind.SERVER, attributes: clean(attributes) }, ctx);
    },
    close: () => provider.shutdown(),
  };
}
