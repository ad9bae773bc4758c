import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { DEMO } from '../demo/demo-data';
import { startSibling } from './support/auth';
import { backendName } from './support/database';
import { ADMIN_SECRET, as, startTestServer, type GqlResult, type TestServer } from './support/server';
import { freePort } from './support/ports';

/**
 * logs_query with LOKI_URL set: the engine asks Loki's query_range API instead of the built-in store.
 *
 * The Loki here is a stand-in on a loopback port that speaks Loki's HTTP API and evaluates the LogQL it
 * receives (label matchers ANDed, line filters chained, start inclusive, end exclusive, limit over all
 * streams, direction backward) against its own streams, so every answer depends on what the engine
 * sent. Checked: the request (path, the account matcher put first, the caller's selector, start/end in
 * nanoseconds, limit, direction, X-Scope-OrgID, credentials of LOKI_URL as Basic), the lines (merged
 * across streams newest first, Loki's nanosecond timestamps, severity from the labels, the labels),
 * confinement (another tenant's account is refused before Loki is asked), and Loki's failures, which
 * become an `action-error` naming what happened without taking the server down.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const ACCOUNT = acme.cloudAccounts.aws;
const LOKI_TENANT = 'platform-logs';
const TIMEOUT_MS = 1000;

const FETCH = `mutation Q($request: LogsQueryInput!) { logs_query(request: $request) { timestamp severity message labels } }`;

// ---------------------------------------------------------------------------------------------
// The stand-in Loki.

/** 2026-03-01T00:00:00Z in nanoseconds, and a second (plus extra nanoseconds) after it. */
const T0 = BigInt(Date.UTC(2026, 2, 1)) * 1_000_000n;
const at = (sec: number, extraNs = 0n) => T0 + BigInt(sec) * 1_000_000_000n + extraNs;

interface Stream {
  stream: Record<string, string>;
  values: [bigint, string][];
}

/** What the stand-in holds: streams of ACCOUNT, of another account of Acme and of a Globex account. */
const STREAMS: Stream[] = [
  {
    stream: { cloud_account_id: ACCOUNT, namespace: 'prod', app: 'api', level: 'error' },
    values: [
      [at(10), 'upstream timeout after 3000ms'],
      [at(4, 123_456_789n), 'db timeout'],
    ],
  },
  {
    stream: { cloud_account_id: ACCOUNT, namespace: 'prod', app: 'api', level: 'info' },
    values: [
      [at(12), 'GET /orders 200'],
      [at(7), 'GET /health 200'],
      [at(2), 'started'],
    ],
  },
  {
    stream: { cloud_account_id: ACCOUNT, namespace: 'prod', app: 'worker', severity: 'warning' },
    values: [
      [at(9), 'retrying job 42: timeout'],
      [at(5, 500n), 'job 41 done'],
    ],
  },
  { stream: { cloud_account_id: ACCOUNT, namespace: 'staging', app: 'api' }, values: [[at(11), 'staging timeout']] },
  {
    stream: { cloud_account_id: acme.cloudAccounts.gcp, namespace: 'prod', app: 'api', level: 'error' },
    values: [[at(8), 'gcp timeout']],
  },
  {
    stream: { cloud_account_id: globex.cloudAccounts.aws, namespace: 'prod', app: 'api', level: 'error' },
    values: [[at(6), 'globex timeout']],
  },
];

type Matcher = { label: string; op: string; value: string };
type Filter = { op: string; value: string };

/** RE2 as JavaScript, for the few constructs these tests use: a leading (?i) / (?s) becomes a flag. */
function re(source: string, anchored: boolean): RegExp {
  const m = /^\(\?([is]+)\)/.exec(source);
  const body = m ? source.slice(m[0].length) : source;
  return new RegExp(anchored ? `^(?:${body})$` : body, m ? m[1] : '');
}

/** A small LogQL reader: `{label op "value", ...} op "value" ...` with Go/JSON-quoted strings. Throws on anything else. */
function parseLogQL(q: string): { matchers: Matcher[]; filters: Filter[] } {
  const STR = '"(?:[^"\\\\]|\\\\.)*"';
  const open = /^\s*\{/.exec(q);
  if (!open) throw new Error('parse error: expected {');
  let rest = q.slice(open[0].length);
  const matchers: Matcher[] = [];
  for (;;) {
    const m = new RegExp(`^\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*(=~|!~|!=|=)\\s*(${STR})\\s*([,}])`).exec(rest);
    if (!m) throw new Error(`parse error near ${JSON.stringify(rest.slice(0, 20))}`);
    matchers.push({ label: m[1], op: m[2], value: JSON.parse(m[3]) });
    rest = rest.slice(m[0].length);
    if (m[4] === '}') break;
  }
  const filters: Filter[] = [];
  while (rest.trim() !== '') {
    const f = new RegExp(`^\\s*(\\|=|!=|\\|~|!~)\\s*(${STR})`).exec(rest);
    if (!f) throw new Error(`parse error near ${JSON.stringify(rest.slice(0, 20))}`);
    filters.push({ op: f[1], value: JSON.parse(f[2]) });
    rest = rest.slice(f[0].length);
  }
  return { matchers, filters };
}

function streamMatches(labels: Record<string, string>, ms: Matcher[]): boolean {
  return ms.every((m) => {
    const v = labels[m.label] ?? '';
    if (m.op === '=') return v === m.value;
    if (m.op === '!=') return v !== m.value;
    if (m.op === '=~') return re(m.value, true).test(v);
    return !re(m.value, true).test(v);
  });
}

function lineMatches(line: string, fs: Filter[]): boolean {
  return fs.every((f) => {
    if (f.op === '|=') return line.includes(f.value);
    if (f.op === '!=') return !line.includes(f.value);
    if (f.op === '|~') return re(f.value, false).test(line);
    return !re(f.value, false).test(line);
  });
}

interface Received {
  method: string;
  path: string;
  params: Record<string, string>;
  headers: IncomingMessage['headers'];
}

interface StandIn {
  url: string;
  port: number;
  requests: Received[];
  /** When set, answers the next requests instead of the evaluator. */
  override: ((res: ServerResponse) => void) | null;
  close(): Promise<void>;
}

/** Loki's query_range over STREAMS, as Loki does it. */
function answer(params: URLSearchParams): { status: number; body: string } {
  let sel: ReturnType<typeof parseLogQL>;
  try {
    sel = parseLogQL(params.get('query') ?? '');
  } catch (e) {
    return { status: 400, body: `${(e as Error).message}\n` };
  }
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const end = params.has('end') ? BigInt(params.get('end')!) : nowNs;
  const start = params.has('start') ? BigInt(params.get('start')!) : end - 3600n * 1_000_000_000n;
  const limit = Number(params.get('limit') ?? '100');
  const backward = (params.get('direction') ?? 'backward') === 'backward';
  // Every matching entry, [start, end), newest first across streams (backward), cut at limit ...
  const entries = STREAMS.filter((s) => streamMatches(s.stream, sel.matchers))
    .flatMap((s) =>
      s.values
        .filter(([ts, line]) => ts >= start && ts < end && lineMatches(line, sel.filters))
        .map(([ts, line]) => ({ s, ts, line })),
    )
    .sort((a, b) => (a.ts === b.ts ? 0 : a.ts > b.ts === backward ? -1 : 1))
    .slice(0, limit);
  // ... then grouped back into streams, in an order of their own (the engine must merge them).
  const byStream = new Map<Stream, [string, string][]>();
  for (const e of entries) byStream.set(e.s, [...(byStream.get(e.s) ?? []), [e.ts.toString(), e.line]]);
  const result = [...byStream]
    .map(([s, values]) => ({ stream: s.stream, values }))
    .sort((a, b) => JSON.stringify(a.stream).localeCompare(JSON.stringify(b.stream)));
  return {
    status: 200,
    body: JSON.stringify({ status: 'success', data: { resultType: 'streams', result, stats: {} } }),
  };
}

async function startLoki(): Promise<StandIn> {
  const state = { override: null as StandIn['override'] };
  const requests: Received[] = [];
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://loki.invalid');
    requests.push({
      method: req.method ?? '',
      path: u.pathname,
      params: Object.fromEntries(u.searchParams),
      headers: req.headers,
    });
    if (state.override) return state.override(res);
    if (req.method !== 'GET' || !u.pathname.endsWith('/loki/api/v1/query_range')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
      return;
    }
    const a = answer(u.searchParams);
    res
      .writeHead(a.status, { 'content-type': a.status === 200 ? 'application/json' : 'text/plain; charset=utf-8' })
      .end(a.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get override() {
      return state.override;
    },
    set override(fn) {
      state.override = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------

type Line = { timestamp: string; severity: string; message: string; labels: Record<string, string> };

/** The lines of ACCOUNT's streams the predicate keeps, newest first, as the operation answers them. */
function expected(pred: (labels: Record<string, string>, message: string, ts: bigint) => boolean): string[] {
  return STREAMS.filter((s) => s.stream.cloud_account_id === ACCOUNT)
    .flatMap((s) => s.values.filter(([ts, m]) => pred(s.stream, m, ts)).map(([ts, m]) => ({ ts, m })))
    .sort((a, b) => (a.ts > b.ts ? -1 : 1))
    .map((l) => l.m);
}

const DAY = { start: '2026-03-01T00:00:00Z', end: '2026-03-01T23:59:59Z' };
const nsOfIso = (iso: string) => (BigInt(Date.parse(iso)) * 1_000_000n).toString();

describe(`logs_query with a Loki backend on ${backendName}`, () => {
  let loki: StandIn;
  let server: TestServer;

  const query = (request: Record<string, unknown>, headers = admin) =>
    server.gql(FETCH, { request: { account_id: ACCOUNT, ...DAY, ...request } }, headers);
  const lines = async (q: string, extra: Record<string, unknown> = {}): Promise<Line[]> => {
    const res = await query({ query: q, ...extra });
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data.logs_query;
  };
  const last = () => loki.requests[loki.requests.length - 1];
  /** The one error of an answer, checked to be an action-error with no data and HTTP 200. */
  const actionError = (res: GqlResult): string => {
    expect(res.status).toBe(200);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions).toEqual({ code: 'action-error', path: '$.request' });
    return res.body.errors[0].message;
  };

  beforeAll(async () => {
    loki = await startLoki();
    server = await startTestServer({
      env: { LOKI_URL: `${loki.url}/`, LOKI_TENANT, LOKI_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
  });
  afterAll(async () => {
    await server?.close();
    await loki?.close();
  });
  afterEach(() => {
    loki.override = null;
  });

  describe('the request the engine sends', () => {
    test('GET query_range: the account matcher first, then the selector; start/end in ns; limit; backward; X-Scope-OrgID', async () => {
      const before = loki.requests.length;
      await lines('{namespace="prod", app=~"api|worker"} |= "timeout" != "gcp"', { limit: 50 });
      expect(loki.requests.length).toBe(before + 1);
      const r = last();
      expect(r.method).toBe('GET');
      expect(r.path).toBe('/loki/api/v1/query_range');
      expect(r.params.query).toBe(
        `{cloud_account_id="${ACCOUNT}", namespace="prod", app=~"api|worker"} |= "timeout" != "gcp"`,
      );
      expect(r.params.start).toBe(nsOfIso(DAY.start));
      // Loki's end is exclusive; the operation's is inclusive (as on the built-in store): one ns more.
      expect(r.params.end).toBe((BigInt(nsOfIso(DAY.end)) + 1n).toString());
      expect(r.params.limit).toBe('50');
      expect(r.params.direction).toBe('backward');
      expect(Object.keys(r.params).sort()).toEqual(['direction', 'end', 'limit', 'query', 'start']);
      expect(r.headers['x-scope-orgid']).toBe(LOKI_TENANT);
      expect(r.headers.authorization).toBeUndefined();
    });

    test('the default limit is 100; start/end in any zone are sent as UTC nanoseconds; without them none are sent', async () => {
      await lines('{namespace="prod"}', {
        limit: undefined,
        start: '2026-03-01T01:00:02+01:00',
        end: '2026-03-01T00:00:09.5',
      });
      expect(last().params.limit).toBe('100');
      expect(last().params.start).toBe(at(2).toString());
      expect(last().params.end).toBe((at(9, 500_000_000n) + 1n).toString());
      // No range: Loki's defaults (the last hour), which hold none of these 2026-03-01 lines.
      expect(await lines('{namespace="prod"}', { start: null, end: null })).toEqual([]);
      expect(last().params).not.toHaveProperty('start');
      expect(last().params).not.toHaveProperty('end');
    });

    test('strings are re-quoted as LogQL: escapes and raw strings arrive as Loki reads them', async () => {
      const got = await lines('{namespace=`prod`, app=~`api|w.*`} |~ `job \\d+` != "x\\"y"');
      expect(last().params.query).toBe(
        `{cloud_account_id="${ACCOUNT}", namespace="prod", app=~"api|w.*"} |~ "job \\\\d+" != "x\\"y"`,
      );
      expect(got.map((l) => l.message)).toEqual(
        expected((s, m) => s.namespace === 'prod' && /^(api|w.*)$/.test(s.app) && /job \d+/.test(m)),
      );
    });

    test('a malformed query is refused before Loki is asked', async () => {
      const before = loki.requests.length;
      const res = await query({ query: '{namespace="prod"} | json' });
      expect(res.body.errors[0].extensions).toEqual({ code: 'validation-failed', path: '$.request.query' });
      expect(loki.requests.length).toBe(before);
    });
  });

  describe('the answer', () => {
    test('lines of every matching stream, merged newest first, with timestamp, severity, message and labels', async () => {
      const got = await lines('{namespace="prod"}');
      expect(got.map((l) => l.message)).toEqual(expected((s) => s.namespace === 'prod'));
      const times = got.map((l) => l.timestamp);
      expect([...times].sort().reverse()).toEqual(times);
      expect(got[0]).toEqual({
        timestamp: '2026-03-01T00:00:12.000Z',
        severity: 'info',
        message: 'GET /orders 200',
        labels: { cloud_account_id: ACCOUNT, namespace: 'prod', app: 'api', level: 'info' },
      });
      // Nanosecond timestamps keep their digits below the millisecond.
      expect(got.find((l) => l.message === 'db timeout')).toMatchObject({
        timestamp: '2026-03-01T00:00:04.123456789Z',
        severity: 'error',
      });
      // Severity from `severity` when there is no `level`; `unknown` when neither is there.
      expect(got.find((l) => l.message === 'job 41 done')).toMatchObject({
        timestamp: '2026-03-01T00:00:05.0000005Z',
        severity: 'warning',
      });
      expect(await lines('{namespace="staging"}')).toEqual([
        {
          timestamp: '2026-03-01T00:00:11.000Z',
          severity: 'unknown',
          message: 'staging timeout',
          labels: { cloud_account_id: ACCOUNT, namespace: 'staging', app: 'api' },
        },
      ]);
    });

    test('matchers and line filters decide (Loki evaluates what was sent)', async () => {
      expect((await lines('{app="api"} |= "timeout"')).map((l) => l.message)).toEqual(
        expected((s, m) => s.app === 'api' && m.includes('timeout')),
      );
      expect((await lines('{namespace="prod", level!="info"} !~ "(?i)TIMEOUT"')).map((l) => l.message)).toEqual(
        expected((s, m) => s.namespace === 'prod' && s.level !== 'info' && !/timeout/i.test(m)),
      );
      expect(await lines('{namespace="prod", app=~"ap"}')).toEqual([]);
    });

    test('limit: the newest lines over all streams', async () => {
      const got = await lines('{namespace=~"prod|staging"}', { limit: 3 });
      expect(got.map((l) => l.message)).toEqual(expected(() => true).slice(0, 3));
      expect(last().params.limit).toBe('3');
    });

    test('the range is inclusive at both ends, as on the built-in store', async () => {
      const got = await lines('{namespace="prod"}', { start: '2026-03-01T00:00:02Z', end: '2026-03-01T00:00:12Z' });
      expect(got.map((l) => l.timestamp)[0]).toBe('2026-03-01T00:00:12.000Z');
      expect(got.map((l) => l.timestamp).at(-1)).toBe('2026-03-01T00:00:02.000Z');
      expect(got.map((l) => l.message)).toEqual(
        expected((s, _m, ts) => s.namespace === 'prod' && ts >= at(2) && ts <= at(12)),
      );
      const one = await lines('{namespace="prod"}', { start: '2026-03-01T00:00:07Z', end: '2026-03-01T00:00:07Z' });
      expect(one.map((l) => l.message)).toEqual(['GET /health 200']);
    });
  });

  describe('confinement', () => {
    test('only the account’s streams, whatever the selector says about the account label', async () => {
      const mine = await lines('{namespace="prod"} |= "timeout"');
      expect(mine.map((l) => l.message)).not.toContain('gcp timeout');
      expect(mine.map((l) => l.message)).not.toContain('globex timeout');
      expect(mine.every((l) => l.labels.cloud_account_id === ACCOUNT)).toBe(true);
      // Trying to widen or switch the account: ANDed with the engine's matcher, so nothing more.
      const widened = await lines('{namespace="prod", cloud_account_id=~".*"} |= "timeout"');
      expect(last().params.query.startsWith(`{cloud_account_id="${ACCOUNT}", `)).toBe(true);
      expect(widened.map((l) => l.message)).toEqual(mine.map((l) => l.message));
      expect(await lines(`{namespace="prod", cloud_account_id="${globex.cloudAccounts.aws}"}`)).toEqual([]);
      // Another account of the tenant is the tenant's to read.
      expect((await lines('{namespace="prod"}', { account_id: acme.cloudAccounts.gcp })).map((l) => l.message)).toEqual(
        ['gcp timeout'],
      );
      expect(last().params.query).toBe(`{cloud_account_id="${acme.cloudAccounts.gcp}", namespace="prod"}`);
    });

    test('an account of another tenant is refused, and Loki is not asked', async () => {
      const before = loki.requests.length;
      const res = await query({ query: '{namespace="prod"}', account_id: globex.cloudAccounts.aws });
      expect(res.body).toEqual({
        errors: [
          {
            message: 'request.account_id is not an account of your tenant',
            extensions: { code: 'validation-failed', path: '$.request.account_id' },
          },
        ],
      });
      const unknown = await query({ query: '{namespace="prod"}', account_id: '00000000-0000-4000-8000-00000000dead' });
      expect(unknown.body.errors[0].message).toBe('request.account_id is not an account of your tenant');
      expect(loki.requests.length).toBe(before);
      // Globex's own admin gets Globex's line (the same Loki, its account's matcher).
      const theirs = await query(
        { query: '{namespace="prod"}', account_id: globex.cloudAccounts.aws },
        as('tenant_admin', globex.id, globex.users.admin.id),
      );
      expect(theirs.body.data.logs_query.map((l: Line) => l.message)).toEqual(['globex timeout']);
    });

    test('read-only users have no logs_query', async () => {
      const before = loki.requests.length;
      const res = await query(
        { query: '{namespace="prod"}' },
        as('tenant_admin_readonly', acme.id, acme.users.readonly.id),
      );
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      expect(loki.requests.length).toBe(before);
    });
  });

  describe('Loki failing', () => {
    test('HTTP 400: Loki’s message, cut to one line', async () => {
      loki.override = (res) =>
        res
          .writeHead(400, { 'content-type': 'text/plain' })
          .end('parse error at line 1, col 38:\n  syntax error: unexpected IDENTIFIER\n');
      const msg = actionError(await query({ query: '{namespace="prod"}' }));
      expect(msg).toBe('Loki answered HTTP 400: parse error at line 1, col 38: syntax error: unexpected IDENTIFIER');
    });

    test('HTTP 500 and 502 with a proxy’s page: the status, the text cut at 300 characters', async () => {
      loki.override = (res) =>
        res.writeHead(500, { 'content-type': 'text/plain' }).end('too many outstanding requests');
      expect(actionError(await query({ query: '{namespace="prod"}' }))).toBe(
        'Loki answered HTTP 500: too many outstanding requests',
      );
      loki.override = (res) =>
        res
          .writeHead(502, { 'content-type': 'text/html' })
          .end(`<html><body>${'Bad gateway. '.repeat(100)}</body></html>`);
      const msg = actionError(await query({ query: '{namespace="prod"}' }));
      expect(msg.startsWith('Loki answered HTTP 502: <html><body>Bad gateway.')).toBe(true);
      expect(msg.length).toBeLessThanOrEqual('Loki answered HTTP 502: '.length + 300);
      loki.override = (res) => res.writeHead(503).end();
      expect(actionError(await query({ query: '{namespace="prod"}' }))).toBe('Loki answered HTTP 503');
    });

    test('no answer within LOKI_TIMEOUT_MS, before the headers or in the middle of the body', async () => {
      loki.override = () => undefined; // never answers
      let t = Date.now();
      expect(actionError(await query({ query: '{namespace="prod"}' }))).toBe(
        `Loki did not answer within ${TIMEOUT_MS} ms (LOKI_TIMEOUT_MS)`,
      );
      expect(Date.now() - t).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(Date.now() - t).toBeLessThan(TIMEOUT_MS + 5000);
      loki.override = (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"status":"success","data":{"resultType":"streams","result":[');
      };
      t = Date.now();
      expect(actionError(await query({ query: '{namespace="prod"}' }))).toBe(
        `Loki did not answer within ${TIMEOUT_MS} ms (LOKI_TIMEOUT_MS)`,
      );
      expect(Date.now() - t).toBeLessThan(TIMEOUT_MS + 5000);
    });

    test('an answer that is not JSON, not streams, or has a malformed line', async () => {
      loki.override = (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Grafana login</html>');
      expect(actionError(await query({ query: '{namespace="prod"}' }))).toBe('Loki answered something other than JSON');
      loki.override = (res) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [] } }));
      expect(actionError(await query({ query: '{namespace="prod"}' }))).toBe(
        'Loki answered something other than log streams',
      );
      loki.override = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('null');
      expect(actionError(await query({ query: '{namespace="prod"}' }))).toBe(
        'Loki answered something other than log streams',
      );
      loki.override = (res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            status: 'success',
            data: { resultType: 'streams', result: [{ stream: {}, values: [['yesterday', 'x']] }] },
          }),
        );
      expect(actionError(await query({ query: '{namespace="prod"}' }))).toBe('Loki answered a malformed log line');
      loki.override = (res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            status: 'success',
            data: { resultType: 'streams', result: [{ stream: {}, values: [['1', 42]] }] },
          }),
        );
      expect(actionError(await query({ query: '{namespace="prod"}' }))).toBe('Loki answered a malformed log line');
    });

    test('after every failure the server still answers, and the next query works', async () => {
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      expect((await lines('{namespace="staging"}')).map((l) => l.message)).toEqual(['staging timeout']);
    });
  });

  describe('other settings (a second engine on the same database)', () => {
    test('LOKI_URL with credentials and a path: Basic authorization, no X-Scope-OrgID, nothing secret in errors', async () => {
      const password = randomBytes(18).toString('base64url');
      const sibling = await startSibling(server, {
        LOKI_URL: `http://shipper:${password}@127.0.0.1:${loki.port}/gateway`,
        LOKI_TIMEOUT_MS: String(TIMEOUT_MS),
      });
      try {
        const ask = (q: string) =>
          sibling.post(
            '/api/graphql',
            JSON.stringify({ query: FETCH, variables: { request: { account_id: ACCOUNT, ...DAY, query: q } } }),
            { 'x-hasura-admin-secret': ADMIN_SECRET, ...admin },
          );
        const ok = await ask('{namespace="staging"}');
        expect(ok.body).toEqual({ data: { logs_query: [expect.objectContaining({ message: 'staging timeout' })] } });
        const r = last();
        expect(r.path).toBe('/gateway/loki/api/v1/query_range');
        expect(r.headers.authorization).toBe(`Basic ${Buffer.from(`shipper:${password}`).toString('base64')}`);
        expect(r.headers['x-scope-orgid']).toBeUndefined();
        // A proxy that echoes the request in its error page: neither the password nor the header's value come back.
        loki.override = (res) =>
          res
            .writeHead(403, { 'content-type': 'text/plain' })
            .end(`denied: password=${password} authorization=${last().headers.authorization}`);
        const denied = await ask('{namespace="staging"}');
        expect(actionError(denied)).toMatch(/^Loki answered HTTP 403: denied: /);
        expect(denied.text).not.toContain(password);
        expect(denied.text).not.toContain(Buffer.from(`shipper:${password}`).toString('base64'));
        expect(denied.text).not.toContain('127.0.0.1');
        // Nor its first characters when the message is cut (at 300) through it.
        loki.override = (res) =>
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`${'x'.repeat(295)}${password}`);
        const cut = await ask('{namespace="staging"}');
        expect(actionError(cut)).toMatch(/^Loki answered HTTP 500: x{295}\*\*\*$/);
        expect(cut.text).not.toContain(password.slice(0, 5));
      } finally {
        await sibling.stop();
      }
    });

    test('Loki unreachable: a clear error, without the URL', async () => {
      const port = await freePort();
      const sibling = await startSibling(server, {
        LOKI_URL: `http://127.0.0.1:${port}`,
        LOKI_TIMEOUT_MS: String(TIMEOUT_MS),
      });
      try {
        const res = await sibling.post(
          '/api/graphql',
          JSON.stringify({
            query: FETCH,
            variables: { request: { account_id: ACCOUNT, ...DAY, query: '{namespace="prod"}' } },
          }),
          { 'x-hasura-admin-secret': ADMIN_SECRET, ...admin },
        );
        expect(actionError(res)).toBe('Loki could not be reached (ECONNREFUSED)');
        expect(res.text).not.toContain(String(port));
      } finally {
        await sibling.stop();
      }
    });
  });
});
