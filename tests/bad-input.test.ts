import * as http from 'node:http';
import type { Session } from '../engine/core/session';
import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { ADMIN_SECRET, as, startTestServer, type GqlResult, type TestServer } from './support/server';

/**
 * Bad requests get Hasura's error shape, `{"errors":[{"message","extensions":{"code","path"}}]}`, with
 * the right HTTP status, a message that names the offending part, and nothing else; and the server
 * keeps serving: after every test a good query is sent and must answer.
 */
const acme = DEMO.tenants.acme;
const session = as('tenant_admin', acme.id, acme.users.admin.id);
const AUTH = { 'x-hasura-admin-secret': ADMIN_SECRET, ...session };

interface Expected {
  status?: number;
  code: string;
  /** The exact path, or a pattern for it. */
  path?: string | RegExp;
  /** Every pattern must match the message. */
  message: (string | RegExp)[];
}

/** Exactly one error in Hasura's shape, no `data`, and no internal details. */
function expectError(res: GqlResult, e: Expected): void {
  expect(res.status).toBe(e.status ?? 200);
  expect(res.body).toEqual({
    errors: [{ message: expect.any(String), extensions: { code: e.code, path: expect.any(String) } }],
  });
  const [err] = res.body.errors;
  if (e.path instanceof RegExp) expect(err.extensions.path).toMatch(e.path);
  else if (e.path !== undefined) expect(err.extensions.path).toBe(e.path);
  for (const m of e.message) {
    if (m instanceof RegExp) expect(err.message).toMatch(m);
    else expect(err.message).toContain(m);
  }
}

/** A query `levels` selection levels deep: cloud_accounts -> tenantByTenant -> cloud_accounts -> ... */
function nestedQuery(levels: number): string {
  let selection = 'id';
  for (let level = levels; level > 1; level--)
    selection = `${level % 2 === 0 ? 'tenantByTenant' : 'cloud_accounts(limit: 1)'} { ${selection} }`;
  return `{ cloud_accounts(limit: 1) { ${selection} } }`;
}

describe(`bad input on ${backendName}`, () => {
  let server: TestServer;
  const gql = (query: string, variables?: Record<string, unknown>) => server.gql(query, variables, session);
  const raw = (body: string) => server.post('/api/graphql', body, AUTH);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  afterEach(async () => {
    // The server still serves, and serves the right answer.
    const res = await gql('{ cloud_accounts_aggregate { aggregate { count } } }');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { cloud_accounts_aggregate: { aggregate: { count: DEMO.perTenant.cloudAccounts } } },
    });
  });

  describe('GraphQL validation names the offending field, argument or variable', () => {
    test('an unknown field', async () => {
      expectError(await gql('{ cloud_accounts { id nope } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.selectionSet.nope',
        message: ['"nope"', 'cloud_accounts'],
      });
    });

    test('an unknown field deep in an aggregate', async () => {
      expectError(await gql('{ cloud_accounts { spends_aggregate { aggregate { sum { nope } } } } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.selectionSet.spends_aggregate.selectionSet.aggregate.selectionSet.sum.selectionSet.nope',
        message: ['"nope"'],
      });
    });

    test('an unknown root field', async () => {
      expectError(await gql('{ cloud_acounts { id } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_acounts',
        message: ['cloud_acounts'],
      });
    });

    test('an unknown argument', async () => {
      expectError(await gql('{ cloud_accounts(bogus: 1) { id } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.args.bogus',
        message: ['"bogus"'],
      });
    });

    test('a variable of the wrong value type', async () => {
      expectError(await gql('query($l: Int) { cloud_accounts(limit: $l) { id } }', { l: 'ten' }), {
        code: 'validation-failed',
        path: /^\$\.variableValues/,
        message: ['$l', '"ten"'],
      });
    });

    test('a variable declared with a type that does not fit where it is used', async () => {
      expectError(await gql('query($l: String) { cloud_accounts(limit: $l) { id } }', { l: '1' }), {
        code: 'validation-failed',
        path: '$.variableDefinitions.l',
        message: ['$l', 'String', 'Int'],
      });
    });

    test('a required variable that is missing', async () => {
      expectError(await gql('query($id: uuid!) { cloud_accounts_by_pk(id: $id) { id } }', {}), {
        code: 'validation-failed',
        path: /^\$\.variableValues/,
        message: ['$id', 'not provided'],
      });
    });

    test('an invalid uuid literal', async () => {
      expectError(await gql('{ cloud_accounts(where: {id: {_eq: "not-a-uuid"}}) { id } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.args.where.id._eq',
        message: ['uuid', '"not-a-uuid"'],
      });
      expectError(await gql('{ cloud_accounts_by_pk(id: "not-a-uuid") { id } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts_by_pk.args.id',
        message: ['uuid', '"not-a-uuid"'],
      });
    });

    test('an invalid uuid variable', async () => {
      expectError(await gql('query($id: uuid!) { cloud_accounts_by_pk(id: $id) { id } }', { id: 'not-a-uuid' }), {
        code: 'validation-failed',
        path: /^\$\.variableValues/,
        message: ['$id', 'uuid', '"not-a-uuid"'],
      });
    });

    test('an invalid value inside a variable that holds a whole where', async () => {
      expectError(
        await gql('query($w: spends_bool_exp) { spends(where: $w) { id } }', { w: { amount: { _gt: 'lots' } } }),
        {
          code: 'validation-failed',
          path: /^\$\.variableValues/,
          message: ['$w', 'float8', '"lots"'],
        },
      );
    });

    test('an unknown lookup value, literal or variable, lists the allowed values', async () => {
      const allowed = (await server.started.db.query('SELECT value FROM cloud_account_status_type ORDER BY value')).map(
        (r) => String(r.value),
      );
      expect(allowed.length).toBeGreaterThan(1);
      expectError(await gql('{ cloud_accounts(where: {status: {_eq: "paused"}}) { id } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.args.where.status._eq',
        message: ['"paused"', ...allowed],
      });
      expectError(
        await gql('query($s: cloud_account_status_type_enum!) { cloud_accounts(where: {status: {_eq: $s}}) { id } }', {
          s: 'paused',
        }),
        {
          code: 'validation-failed',
          path: /^\$\.variableValues/,
          message: ['$s', '"paused"', ...allowed],
        },
      );
    });

    test('an unknown operationName names it', async () => {
      const res = await server.post(
        '/api/graphql',
        JSON.stringify({ query: 'query A { __typename } query B { __typename }', operationName: 'C' }),
        AUTH,
      );
      expectError(res, { code: 'validation-failed', path: '$.operationName', message: ['"C"'] });
    });

    test('two operations and no operationName', async () => {
      expectError(await gql('query A { __typename } query B { __typename }'), {
        code: 'validation-failed',
        message: ['operationName'],
      });
    });

    test('a GraphQL syntax error points at the line and column', async () => {
      expectError(await gql('{ cloud_accounts { id }'), {
        code: 'validation-failed',
        path: /^\$\.query/,
        message: ['Syntax Error'],
      });
    });

    test('a subscription is refused: the HTTP API has none', async () => {
      expectError(await gql('subscription { cloud_accounts { id } }'), {
        code: 'not-supported',
        path: '$',
        message: [/subscriptions are not supported/i],
      });
    });
  });

  describe('list arguments are checked', () => {
    test('a negative limit, literal or variable', async () => {
      expectError(await gql('{ cloud_accounts(limit: -1) { id } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.args.limit',
        message: ['limit', 'non-negative'],
      });
      expectError(await gql('query($l: Int) { cloud_accounts(limit: $l) { id } }', { l: -1 }), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.args.limit',
        message: ['non-negative'],
      });
    });

    test('the same plan with a good limit still answers after a negative one was refused', async () => {
      const res = await gql('query($l: Int) { cloud_accounts(limit: $l) { id } }', { l: 2 });
      expect(res.body.data.cloud_accounts).toHaveLength(2);
    });

    test('a negative offset', async () => {
      expectError(await gql('{ cloud_accounts(offset: -1, order_by: {id: asc}) { id } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.args.offset',
        message: ['offset', 'non-negative'],
      });
    });

    test('offset without order_by, at the root and in a relationship', async () => {
      expectError(await gql('{ cloud_accounts(offset: 1) { id } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.args.offset',
        message: ['"offset"', '"order_by"'],
      });
      expectError(await gql('{ cloud_accounts { spends(offset: 1) { id } } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.selectionSet.spends.args.offset',
        message: ['"offset"', '"order_by"'],
      });
    });

    test('distinct_on that does not lead order_by', async () => {
      expectError(await gql('{ cloud_accounts(distinct_on: [status], order_by: {id: asc}) { id } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.args.distinct_on',
        message: ['"distinct_on"', '"order_by"'],
      });
      expectError(await gql('{ cloud_accounts(distinct_on: [status]) { id } }'), {
        code: 'validation-failed',
        path: '$.selectionSet.cloud_accounts.args.distinct_on',
        message: ['"distinct_on"'],
      });
    });
  });

  describe('query depth is limited (MAX_QUERY_DEPTH, 15 by default)', () => {
    test('15 levels answer, 16 are refused at the field that goes too deep', async () => {
      const ok = await gql(nestedQuery(15));
      expect(ok.body.errors).toBeUndefined();
      expect(ok.body.data.cloud_accounts).toHaveLength(1);
      const res = await gql(nestedQuery(16));
      expectError(res, {
        code: 'validation-failed',
        path: /^\$\.selectionSet\.cloud_accounts\.selectionSet\.tenantByTenant\./,
        message: ['maximum depth of 15'],
      });
      // The path names the 16 fields down to the one that is too deep.
      expect(res.body.errors[0].extensions.path.split('.selectionSet.').slice(1)).toHaveLength(16);
    });

    test('a document nested far too deeply to parse gets a clear message, not a crash', async () => {
      const levels = 20000;
      const query = `{ cloud_accounts { ${'tenantByTenant { '.repeat(levels)}id${' }'.repeat(levels)} } }`;
      expectError(await gql(query), { code: 'validation-failed', message: [/nested too deeply|maximum depth/] });
    });

    test('MAX_QUERY_DEPTH is honoured', async () => {
      const shallow = await startTestServer({ env: { MAX_QUERY_DEPTH: '3' }, seed: false });
      try {
        expect((await shallow.gql(nestedQuery(3), {}, session)).body).toEqual({ data: { cloud_accounts: [] } });
        expectError(await shallow.gql(nestedQuery(4), {}, session), {
          code: 'validation-failed',
          message: ['maximum depth of 3'],
        });
      } finally {
        await shallow.close();
      }
    });
  });

  describe('request bodies that are not a GraphQL request', () => {
    test('malformed JSON: 400 invalid-json', async () => {
      expectError(await raw('{"query": "{ __typename }"'), {
        status: 400,
        code: 'invalid-json',
        path: '$',
        message: ['JSON'],
      });
    });

    test('no query: 400 naming "query"', async () => {
      expectError(await raw('{"variables": {}}'), {
        status: 400,
        code: 'bad-request',
        path: '$.query',
        message: ['"query"'],
      });
      expectError(await raw('{"query": 42}'), {
        status: 400,
        code: 'bad-request',
        path: '$.query',
        message: ['"query"'],
      });
      expectError(await raw('"{ __typename }"'), {
        status: 400,
        code: 'bad-request',
        path: '$.query',
        message: ['"query"'],
      });
    });

    test('variables that are not an object: 400 naming "variables"', async () => {
      for (const variables of [[1, 2], 'x', 5]) {
        expectError(await raw(JSON.stringify({ query: '{ __typename }', variables })), {
          status: 400,
          code: 'bad-request',
          path: '$.variables',
          message: ['"variables"'],
        });
      }
    });

    test('a 2 MB body: 413 request-too-large, and a keep-alive client can send its next request', async () => {
      const body = JSON.stringify({ query: '{ __typename }', variables: { padding: 'x'.repeat(2 * 1024 * 1024) } });
      // One socket, reused: the refusal must not leave the client a connection the server has given up on.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const send = (payload: string) =>
        new Promise<GqlResult>((resolve, reject) => {
          const req = http.request(
            `${server.url}/api/graphql`,
            {
              method: 'POST',
              agent,
              headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...AUTH },
            },
            (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (chunk) => (text += chunk));
              res.on('end', () => resolve({ status: res.statusCode!, text, body: JSON.parse(text) }));
            },
          );
          req.on('error', reject);
          req.end(payload);
        });
      try {
        expectError(await send(body), { status: 413, code: 'request-too-large', path: '$', message: ['larger than'] });
        for (let i = 0; i < 3; i++)
          expect((await send('{"query": "{ __typename }"}')).body).toEqual({ data: { __typename: 'query_root' } });
      } finally {
        agent.destroy();
      }
    });

    test('a batch (a JSON array of requests) answers an array, in order, each on its own', async () => {
      const res = await raw(
        JSON.stringify([
          { query: '{ cloud_accounts_aggregate { aggregate { count } } }' },
          { query: '{ nope }' },
          {
            query: 'query($id: uuid!) { cloud_accounts_by_pk(id: $id) { id } }',
            variables: { id: acme.cloudAccounts.aws },
          },
        ]),
      );
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { data: { cloud_accounts_aggregate: { aggregate: { count: DEMO.perTenant.cloudAccounts } } } },
        {
          errors: [
            {
              message: expect.stringContaining('"nope"'),
              extensions: { code: 'validation-failed', path: '$.selectionSet.nope' },
            },
          ],
        },
        { data: { cloud_accounts_by_pk: { id: acme.cloudAccounts.aws } } },
      ]);
    });
  });

  describe('database errors say what went wrong and show no SQL', () => {
    const noSql = (res: GqlResult) => {
      expect(res.text).not.toMatch(/\b(INSERT INTO|SELECT|RETURNING|json_build_object)\b|\$\d/);
      expect(res.body.errors[0].extensions.internal).toBeUndefined();
    };

    test('a duplicate primary key on insert: constraint-violation naming the constraint', async () => {
      const res = await gql(
        `mutation($id: uuid!, $by: uuid!) { insert_cloud_accounts_one(object: {id: $id, account_name: "dup", account_type: "member",
           account_env: prod, status: active, created_by: $by, updated_by: $by}) { id } }`,
        { id: acme.cloudAccounts.aws, by: acme.users.admin.id },
      );
      expectError(res, { code: 'constraint-violation', message: ['cloud_accounts_pkey'] });
      noSql(res);
      const [n] = await server.started.db.query(
        "SELECT count(*)::int AS n FROM cloud_accounts WHERE account_name = 'dup'",
      );
      expect(n.n).toBe(0);
    });

    test('a foreign key that points nowhere: constraint-violation naming the constraint', async () => {
      const res = await gql(
        'mutation($a: uuid!) { insert_spends_one(object: {cloud_account: $a, date: "2026-01-01", amount: 1}) { id } }',
        {
          a: '11111111-0002-4000-8000-0000000000ff',
        },
      );
      expectError(res, { code: 'constraint-violation', message: ['spends_cloud_account_fkey'] });
      noSql(res);
    });

    test('a batch of inserts rolls back whole when one row fails', async () => {
      const ticket = (
        id: string,
      ) => `{id: "${id}", integration_id: "${acme.integrationId}", platform: jira, ticket_id: "B-1", ticket_type: "Task",
        reference_id: "r", project_key: "BATCH", title: "t"}`;
      const fresh = '11111111-00fe-4000-8000-000000000001';
      const res = await gql(
        `mutation { a: insert_tickets_one(object: ${ticket(fresh)}) { id } b: insert_tickets_one(object: ${ticket(fresh)}) { id } }`,
      );
      expectError(res, { code: 'constraint-violation', message: ['tickets_pkey'] });
      const [n] = await server.started.db.query("SELECT count(*)::int AS n FROM tickets WHERE project_key = 'BATCH'");
      expect(n.n).toBe(0);
    });

    test("an invalid regular expression: data-exception with PostgreSQL's reason", async () => {
      const res = await gql('{ cloud_accounts(where: {account_name: {_regex: "("}}) { id } }');
      expectError(res, { code: 'data-exception', message: [/regular expression/] });
      noSql(res);
    });

    test('other database errors reach a caller without the admin secret as a bare postgres-error', () => {
      const dbError = Object.assign(new Error('relation "secret_table" does not exist'), {
        code: '42P01',
        detail: 'in SELECT ...',
      });
      const caller: Session = { role: 'tenant_admin', vars: { 'x-hasura-tenant-id': acme.id }, isAdmin: false };
      const answer = server.started.engine.failure(dbError, caller);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({
        errors: [{ message: 'database query error', extensions: { code: 'postgres-error', path: '$' } }],
      });
      const admin = JSON.parse(server.started.engine.failure(dbError, { ...caller, isAdmin: true }).body);
      expect(admin.errors[0].message).toContain('secret_table');
      expect(admin.errors[0].extensions.internal).toEqual({ code: '42P01', detail: 'in SELECT ...' });
    });

    test('an unexpected error is a 500 without its message for a caller without the admin secret', () => {
      const caller: Session = { role: 'tenant_admin', vars: {}, isAdmin: false };
      const answer = server.started.engine.failure(new TypeError('cannot read x of undefined'), caller);
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body)).toEqual({
        errors: [{ message: 'unexpected error', extensions: { code: 'unexpected', path: '$' } }],
      });
    });
  });
});
