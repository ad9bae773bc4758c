import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { ADMIN_SECRET, startTestServer, type TestServer } from './support/server';

/**
 * The GraphQL lane (engine/serve/http/graphql-lane.ts): an API client's POST to the GraphQL endpoints
 * is answered without Hono, and the answer is the one Hono's route gives. The server here counts the
 * requests that reach Hono, so each test tells which way a request went.
 */
let t: TestServer;
let server: Server;
let url: string;
let honoCalls = 0;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await startTestServer({ log: (entry) => void lines.push(entry) });
  const fetchCounted = (req: Request, env: unknown) => {
    honoCalls++;
    return t.started.app.fetch(req, env as never);
  };
  server = serve({
    fetch: fetchCounted,
    createServer: t.started.createServer,
    port: 0,
    hostname: '127.0.0.1',
  }) as Server;
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});

interface Answer {
  status: number;
  /** The response headers but those that differ by request (date, request id) or connection. */
  headers: Record<string, string>;
  body: string;
  requestId: string | null;
}

const PER_REQUEST = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

/** POSTs `body` and says whether the request reached Hono. */
async function send(
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ answer: Answer; viaHono: boolean }> {
  const before = honoCalls;
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body });
  const answer = {
    status: res.status,
    headers: Object.fromEntries([...res.headers].filter(([name]) => !PER_REQUEST.has(name))),
    body: await res.text(),
    requestId: res.headers.get('x-request-id'),
  };
  return { answer, viaHono: honoCalls > before };
}

const ADMIN = { 'content-type': 'application/json', 'x-hasura-admin-secret': ADMIN_SECRET };
/** An Origin header makes the request a browser's: it goes to Hono (CORS is Hono's). */
const BROWSER = { origin: 'https://elsewhere.example' };

const CASES: { name: string; body: string; headers: Record<string, string> }[] = [
  {
    name: 'a query',
    body: JSON.stringify({ query: 'query Accounts { cloud_accounts(order_by: {id: asc}, limit: 2) { id status } }' }),
    headers: ADMIN,
  },
  {
    name: 'a query with variables, answered as application/graphql-response+json',
    body: JSON.stringify({
      query: 'query One($id: uuid!) { cloud_accounts_by_pk(id: $id) { id } }',
      variables: { id: '00000000-0000-0000-0000-000000000000' },
    }),
    headers: { ...ADMIN, accept: 'application/graphql-response+json' },
  },
  {
    name: 'a validation error in the GraphQL media type (400)',
    body: JSON.stringify({ query: '{ no_such_field }' }),
    headers: { ...ADMIN, accept: 'application/graphql-response+json' },
  },
  { name: 'a body that is not JSON', body: '{"query": ', headers: ADMIN },
  { name: 'an Accept header naming no media type of the API', body: '{}', headers: { ...ADMIN, accept: 'text/html' } },
  {
    name: 'a batch',
    body: JSON.stringify([{ query: '{ tenant(limit: 1) { id } }' }, { query: '{ cloud_accounts(limit: 1) { id } }' }]),
    headers: ADMIN,
  },
  {
    name: 'no credentials',
    body: JSON.stringify({ query: '{ tenant { id } }' }),
    headers: { 'content-type': 'application/json' },
  },
  {
    name: 'a Bearer token that is not a JWT',
    body: JSON.stringify({ query: '{ tenant { id } }' }),
    headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-jwt' },
  },
];

describe('the GraphQL lane answers as the Hono route does', () => {
  it.each(CASES)('$name: the same status, headers and body on both paths', async ({ body, headers }) => {
    for (const path of ['/api/graphql', '/v1/graphql']) {
      const lane = await send(path, body, headers);
      const hono = await send(path, body, { ...headers, ...BROWSER });
      expect(lane.viaHono).toBe(false);
      expect(hono.viaHono).toBe(true);
      expect({ ...lane.answer, requestId: undefined }).toEqual({ ...hono.answer, requestId: undefined });
      expect(lane.answer.requestId).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe('the GraphQL lane', () => {
  it('echoes the client request id and writes the access line with the operation, role and rows', async () => {
    lines.length = 0;
    const body = JSON.stringify({ query: 'query TwoAccounts { cloud_accounts(limit: 2) { id } }' });
    const { answer, viaHono } = await send('/v1/graphql', body, { ...ADMIN, 'x-request-id': 'lane-test-1' });
    expect(viaHono).toBe(false);
    expect(answer.status).toBe(200);
    expect(answer.requestId).toBe('lane-test-1');
    const line = lines.find((l) => l.msg === 'request' && l.request_id === 'lane-test-1');
    expect(line).toMatchObject({
      method: 'POST',
      route: '/v1/graphql',
      status: 200,
      operation_name: 'TwoAccounts',
      operation_type: 'query',
      role: 'admin',
      rows: 2,
      bytes: Buffer.byteLength(answer.body),
    });
  });

  it('writes a large answer of several fields in pieces: the same bytes as Hono, its length in bytes', async () => {
    // Names of two and three UTF-8 bytes a character: a length counted in characters would cut the answer short.
    const [account] = (await t.gql('{ cloud_accounts(limit: 1) { id tenant } }')).body.data.cloud_accounts;
    const objects = Array.from({ length: 40 }, (_, i) => ({
      tenant_id: account.tenant,
      account_id: account.id,
      name: `lane-pieces-${i} Zürich 東京 ${'é'.repeat(60)}`,
      status: 'DRAFT',
    }));
    const inserted = await t.gql(
      'mutation ($o: [auto_playbook_insert_input!]!) { insert_auto_playbook(objects: $o) { affected_rows } }',
      { o: objects },
    );
    expect(inserted.body).toEqual({ data: { insert_auto_playbook: { affected_rows: 40 } } });
    const body = JSON.stringify({
      query: `query Large { first: auto_playbook(where: {name: {_like: "lane-pieces-%"}}, order_by: {name: asc}) { name status }
        n: auto_playbook_aggregate(where: {name: {_like: "lane-pieces-%"}}) { aggregate { count } }
        __typename
        last: auto_playbook(where: {name: {_like: "lane-pieces-1%"}}, order_by: {name: desc}) { name } }`,
    });
    const lane = await send('/api/graphql', body, ADMIN);
    const hono = await send('/api/graphql', body, { ...ADMIN, ...BROWSER });
    expect(lane.viaHono).toBe(false);
    expect(lane.answer.status).toBe(200);
    expect(lane.answer.body.length).toBeGreaterThan(4096);
    expect(Number(lane.answer.headers['content-length'])).toBe(Buffer.byteLength(lane.answer.body));
    expect({ ...lane.answer, requestId: undefined }).toEqual({ ...hono.answer, requestId: undefined });
    const data = JSON.parse(lane.answer.body).data;
    expect(Object.keys(data)).toEqual(['first', 'n', '__typename', 'last']);
    expect(data.first).toHaveLength(40);
    expect(data.first[0].name).toBe(objects[0].name);
    expect(data.n.aggregate.count).toBe(40);
  });

  it('counts its requests in /metrics as the Hono route does', async () => {
    const before = await t.started.observability.metrics.registry.metrics();
    await send('/api/graphql', JSON.stringify({ query: '{ tenant(limit: 1) { id } }' }), ADMIN);
    const after = await t.started.observability.metrics.registry.metrics();
    const count = (text: string) =>
      Number(/graphql_requests_total\{operation_type="query",outcome="ok"\} (\d+)/.exec(text)?.[1] ?? 0);
    expect(count(after)).toBe(count(before) + 1);
  });

  it('refuses a body over the limit with 413 and closes the connection', async () => {
    const big = JSON.stringify({ query: `{ tenant { id } } #${'x'.repeat(2_000_000)}` });
    const { answer, viaHono } = await send('/api/graphql', big, ADMIN);
    expect(viaHono).toBe(false);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).errors[0].extensions.code).toBe('request-too-large');
  });

  it('leaves requests with a cookie, a query string or another method to Hono', async () => {
    const body = JSON.stringify({ query: '{ tenant(limit: 1) { id } }' });
    expect((await send('/api/graphql', body, { ...ADMIN, cookie: 'a=b' })).viaHono).toBe(true);
    expect((await send('/api/graphql?x=1', body, ADMIN)).viaHono).toBe(true);
    const before = honoCalls;
    const res = await fetch(`${url}/api/graphql?query=${encodeURIComponent('{ tenant(limit: 1) { id } }')}`, {
      headers: { 'x-hasura-admin-secret': ADMIN_SECRET },
    });
    expect(res.status).toBe(200);
    expect(honoCalls).toBe(before + 1);
  });
});
