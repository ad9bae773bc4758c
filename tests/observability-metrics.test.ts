import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { ADMIN_SECRET, as, startTestServer, type TestServer } from './support/server';
import { follow, transportClient, until } from './support/ws';

/** Issue 17: /metrics (prom-client) behind a token or on a port of its own; OTLP/HTTP traces. */
const acme = DEMO.tenants.acme;
const AUTH = { 'x-hasura-admin-secret': ADMIN_SECRET, ...as('tenant_admin', acme.id, acme.users.admin.id) };
const TOKEN = 'metrics-token-for-the-test-0123456789abcdef';
const NEEDLE = 'needle-value-5b1e02';

/** The value of one sample (`name{labels} value`), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && line.split(' ')[0] !== name) continue;
    const set = line.slice(name.length, line.lastIndexOf(' '));
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`))) return Number(line.split(' ').pop());
  }
  return 0;
}

describe(`/metrics with METRICS_TOKEN on ${backendName}`, () => {
  let server: TestServer;
  const gql = (query: string, headers: Record<string, string> = AUTH) =>
    server.post('/api/graphql', JSON.stringify({ query }), headers);
  const scrape = async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  beforeAll(async () => {
    // One connection: reads of requests at once are batched however few (coalesce.ts), as on PGlite.
    server = await startTestServer({ env: { METRICS_TOKEN: TOKEN, DATABASE_POOL_SIZE: '1' } });
  });
  afterAll(() => server?.close());

  test('without the token, or with another, 401 and no metric', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: TOKEN }] as Record<
      string,
      string
    >[]) {
      const res = await fetch(`${server.url}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain('graphql_requests_total');
    }
  });

  test('subscriptions running, their cohorts and the multiplexed statements', async () => {
    const client = transportClient(server.url, { headers: AUTH });
    try {
      const subs = [0, 1].map(() => follow(client, 'subscription { cloud_accounts(order_by: {id: asc}) { id } }'));
      await until(5000, () => subs.every((s) => s.results.length > 0), 'first results');
      const during = await scrape();
      expect(sample(during, 'subscriptions_active', {})).toBe(2);
      // The same document and values: one cohort, one poller.
      expect(sample(during, 'live_query_cohorts', {})).toBe(1);
      expect(sample(during, 'live_query_pollers', {})).toBe(1);
      expect(sample(during, 'live_query_statements_total', {})).toBeGreaterThan(0);
      subs.forEach((s) => s.stop());
      let active = -1;
      for (let i = 0; i < 50 && active !== 0; i++) {
        active = sample(await scrape(), 'subscriptions_active', {});
        if (active !== 0) await new Promise((r) => setTimeout(r, 50));
      }
      expect(active).toBe(0);
    } finally {
      await client.dispose();
    }
  });

  test('requests by operation type and outcome, latency, plan cache hits and misses', async () => {
    const before = await scrape();
    const q = `{ cloud_accounts(where: {account_name: {_eq: "${NEEDLE}"}}) { id } }`;
    for (let i = 0; i < 3; i++) expect((await gql(q)).status).toBe(200);
    await gql('mutation { delete_cloud_accounts(where: {id: {_is_null: true}}) { affected_rows } }');
    await gql('{ no_such_field }');
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(delta('graphql_requests_total', { operation_type: 'query', outcome: 'ok' })).toBe(3);
    expect(delta('graphql_requests_total', { operation_type: 'mutation', outcome: 'ok' })).toBe(1);
    expect(delta('graphql_requests_total', { operation_type: 'none', outcome: 'validation-failed' })).toBe(1);
    expect(delta('graphql_request_duration_seconds_count', { operation_type: 'query' })).toBe(3);
    expect(delta('graphql_plan_cache_total', { result: 'miss' })).toBe(2);
    expect(delta('graphql_plan_cache_total', { result: 'hit' })).toBe(2);
    expect(after).toMatch(
      /http_request_duration_seconds_bucket\{le="0.5",route="\/api\/graphql",method="POST",status="200"\} \d+/,
    );
    // Labels carry names and codes, never a value the request sent.
    expect(after).not.toContain(NEEDLE);
  });

  test('coalesced statements and the requests they answered', async () => {
    const query = 'query Coalesced($n: String!) { cloud_accounts(where: {account_name: {_eq: $n}}) { id } }';
    const q = (i: number) => server.gql(query, { n: `${NEEDLE}-${i}` }, AUTH);
    // Sent twice: the first time opens the client's connections, one per request, one by one.
    await Promise.all([0, 1, 2, 3].map(q));
    const before = await scrape();
    const answers = await Promise.all([0, 1, 2, 3].map(q));
    for (const a of answers) expect(a.status).toBe(200);
    const after = await scrape();
    const delta = (name: string) => sample(after, name, {}) - sample(before, name, {});
    // Each coalesced statement answered two requests or more (a request alone runs no batch).
    const statements = delta('database_coalesced_statements_total');
    expect(statements).toBeGreaterThan(0);
    expect(delta('database_coalesced_requests_total')).toBeGreaterThanOrEqual(2 * statements);
  });

  test('pool gauges, database errors and auth failures', async () => {
    const before = await scrape();
    // An invalid regular expression: PostgreSQL refuses it (SQLSTATE 2201B).
    const bad = await gql('{ cloud_accounts(where: {account_name: {_regex: "("}}) { id } }');
    expect(bad.body.errors[0].extensions.code).toBe('data-exception');
    const denied = await gql('{ cloud_accounts { id } }', { authorization: 'Bearer not-a-jwt' });
    expect(denied.status).toBe(401);
    const after = await scrape();
    expect(
      sample(after, 'database_errors_total', { code: '2201B' }) -
        sample(before, 'database_errors_total', { code: '2201B' }),
    ).toBe(1);
    expect(
      sample(after, 'auth_failures_total', { reason: 'invalid-jwt' }) -
        sample(before, 'auth_failures_total', { reason: 'invalid-jwt' }),
    ).toBe(1);
    expect(after).toMatch(/database_pool_connections_in_use\{pool="main"\} 0/);
    expect(after).toMatch(/database_pool_waiting\{pool="main"\} 0/);
    expect(after).toMatch(/database_pool_size\{pool="main"\} \d+/);
    expect(after).toContain('process_resident_memory_bytes');
  });

  test("the event loop's delay, sampled every 100 ms: percentiles from the samples of a second", async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const text = await scrape();
    const p99 = sample(text, 'nodejs_eventloop_lag_p99_seconds', {});
    // Sampled at all (a histogram without samples reports 0), and in seconds, not milliseconds.
    expect(p99).toBeGreaterThan(0);
    expect(p99).toBeLessThan(5);
  });
});

describe(`/metrics is off by default, or on a port of its own (${backendName})`, () => {
  test('no METRICS_TOKEN and no METRICS_PORT: 404 on the public port', async () => {
    const server = await startTestServer({ seed: false });
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      expect(server.started.observability.metricsPort).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  test('METRICS_PORT: /metrics there (no token needed), not on the public port', async () => {
    const server = await startTestServer({ seed: false, env: { METRICS_PORT: '0', HOST: '127.0.0.1' } });
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      const port = server.started.observability.metricsPort!;
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('# TYPE graphql_requests_total counter');
    } finally {
      await server.close();
    }
  });

  test('METRICS_PORT with METRICS_TOKEN: the token is needed there too', async () => {
    const server = await startTestServer({
      seed: false,
      env: { METRICS_PORT: '0', HOST: '127.0.0.1', METRICS_TOKEN: TOKEN },
    });
    try {
      const port = server.started.observability.metricsPort!;
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
      const ok = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('a METRICS_TOKEN shorter than 32 characters stops start-up', async () => {
    await expect(startTestServer({ seed: false, env: { METRICS_TOKEN: 'short' } })).rejects.toThrow(
      /METRICS_TOKEN must be at least 32/,
    );
  });
});

/** A stand-in OTLP/HTTP collector: keeps the JSON bodies posted to /v1/traces. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
async function standInCollector(): Promise<{ url: string; bodies: Json[]; close(): Promise<void> }> {
  const bodies: Json[] = [];
  const http: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && /json/.test(req.headers['content-type'] ?? '')) bodies.push(JSON.parse(text));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { url, bodies, close: () => new Promise((resolve) => http.close(() => resolve())) };
}

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

describe(`OpenTelemetry traces to OTEL_EXPORTER_OTLP_ENDPOINT (${backendName})`, () => {
  let collector: Awaited<ReturnType<typeof standInCollector>>;
  let server: TestServer;
  beforeAll(async () => {
    collector = await standInCollector();
    server = await startTestServer({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_SERVICE_NAME: 'engine-under-test',
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await collector?.close();
  });

  const spans = (): OtlpSpan[] =>
    collector.bodies.flatMap((b) => b.resourceSpans.flatMap((r: Json) => r.scopeSpans.flatMap((s: Json) => s.spans)));

  test('the HTTP request, planning, each SQL statement and each action, in one trace under the caller’s traceparent', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await server.post(
      '/api/graphql',
      JSON.stringify({
        query: `query Traced { cloud_accounts(where: {account_name: {_eq: "${NEEDLE}"}}) { id } api_tokens { id } }`,
      }),
      { ...AUTH, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    let mine: OtlpSpan[] = [];
    for (let i = 0; i < 50 && !mine.some((s) => s.name.startsWith('POST')); i++) {
      await new Promise((r) => setTimeout(r, 100));
      mine = spans().filter((s) => s.traceId === traceId);
    }
    const names = mine.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(['POST /api/graphql', 'graphql.parse', 'graphql.plan', 'db.query', 'action api_tokens']),
    );
    const root = mine.find((s) => s.name === 'POST /api/graphql')!;
    expect(root.parentSpanId).toBe('00f067aa0ba902b7');
    for (const s of mine.filter((x) => x !== root)) expect(s.parentSpanId).toBe(root.spanId);
    const attrs = Object.fromEntries(root.attributes.map((a) => [a.key, Object.values(a.value)[0]]));
    expect(attrs).toMatchObject({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'Traced',
      'http.response.status_code': 200,
    });
    const resource = collector.bodies[0].resourceSpans[0].resource.attributes;
    expect(resource).toContainEqual({ key: 'service.name', value: { stringValue: 'engine-under-test' } });
    // The SQL text has $n slots: the value sent is in no span.
    expect(JSON.stringify(collector.bodies)).not.toContain(NEEDLE);
  });
});
