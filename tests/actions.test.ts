import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/** The action framework end to end: logs_query and tickets_insert_one through HTTP. */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const admin = as('tenant_admin', acme.id, acme.users.admin.id);

const LOGS = `mutation Logs($request: LogsQueryInput!) { logs_query(request: $request) { timestamp severity message labels } }`;
const day = { start: '2026-02-15T00:00:00Z', end: '2026-02-15T23:59:59Z' };

describe(`actions on ${backendName}`, () => {
  let server: TestServer;
  const logs = (query: string, extra: Record<string, unknown> = {}, headers = admin) =>
    server.gql(
      LOGS,
      { request: { account_id: acme.cloudAccounts.aws, query, ...day, limit: 1000, ...extra } },
      headers,
    );
  /** Hand-written SQL count of the acme aws account's log lines that day matching `where`. */
  const count = async (where: string) => {
    const [row] = await server.started.db.query(
      `SELECT count(*)::int AS n FROM logs WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid AND ts BETWEEN $3::timestamptz AND $4::timestamptz AND ${where}`,
      [acme.id, acme.cloudAccounts.aws, day.start, day.end],
    );
    return Number(row.n);
  };

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  describe('logs_query selectors', () => {
    test.each([
      ['{namespace="production"}', `labels->>'namespace' = 'production'`],
      ['{namespace="production", level="error"}', `labels->>'namespace' = 'production' AND labels->>'level' = 'error'`],
      ['{namespace=~".+", namespace!="production"}', `coalesce(labels->>'namespace', '') <> 'production'`],
      ['{namespace=~"(?i)PROD.*"}', `labels->>'namespace' ~* '^(?:prod.*)$'`],
      ['{namespace=~"prod.*"}', `labels->>'namespace' ~ '^(?:prod.*)$'`],
      ['{namespace=~"prod"}', `labels->>'namespace' = 'prod'`],
      ['{namespace=~".+", level!~"info|debug"}', `coalesce(labels->>'level', '') !~ '^(?:info|debug)$'`],
      [
        '{namespace="production"} |= "timeout"',
        `labels->>'namespace' = 'production' AND strpos(message, 'timeout') > 0`,
      ],
      [
        '{namespace="production"} != "timeout"',
        `labels->>'namespace' = 'production' AND strpos(message, 'timeout') = 0`,
      ],
      ['{namespace=~".+"} |~ "(?i)TIMEOUT"', `message ~* 'timeout'`],
    ])('%s matches what SQL finds', async (selector, where) => {
      const res = await logs(selector);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.logs_query).toHaveLength(await count(where));
    });

    test('results are newest first and carry labels as JSON', async () => {
      const res = await logs('{namespace="production"}', { limit: 5 });
      const rows = res.body.data.logs_query as { timestamp: string; labels: Record<string, string> }[];
      expect(rows).toHaveLength(5);
      const times = rows.map((r) => Date.parse(r.timestamp));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      expect(rows.every((r) => r.labels.namespace === 'production')).toBe(true);
    });

    test.each([
      ['namespace="production"', 'expected { to open the label selector'],
      ['{namespace="production"', 'expected , or }'],
      ['{namespace=production}', 'expected a quoted string'],
      ['{namespace=="x"}', 'expected a quoted string'],
      ['{namespace!="x"}', 'at least one matcher that does not match an empty value'],
      ['{app=~"("}', 'invalid regular expression'],
      ['{app="x"} |= timeout', 'expected a quoted string'],
      ['{app="x"} | "x"', 'only line filters (|= != |~ !~) may follow the selector'],
    ])('malformed %s is a clear validation error', async (selector, message) => {
      const res = await logs(selector);
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      expect(res.body.errors[0].message).toContain(message);
    });

    test('another tenant’s account is refused, and none of its lines are shown', async () => {
      const res = await server.gql(
        LOGS,
        { request: { account_id: globex.cloudAccounts.aws, query: '{namespace=~".+"}', ...day } },
        admin,
      );
      expect(res.body.errors).toEqual([
        {
          message: 'request.account_id is not an account of your tenant',
          extensions: { code: 'validation-failed', path: '$.request.account_id' },
        },
      ]);
      expect(res.body.data ?? null).toBeNull();
    });

    test('a bad limit or account id is refused', async () => {
      expect((await logs('{namespace="production"}', { limit: -1 })).body.errors[0].extensions.code).toBe(
        'validation-failed',
      );
      expect((await logs('{namespace="production"}', { account_id: 'nope' })).body.errors[0].message).toContain(
        'request.account_id',
      );
    });

    test('a read-only role has no logs_query (it is a mutation)', async () => {
      const res = await logs('{namespace="production"}', {}, as('tenant_admin_readonly', acme.id));
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
    });
  });

  describe('tickets_insert_one', () => {
    const TICKET = `mutation T($input: TicketsInsertOneInput!) { tickets_insert_one(object: $input) { data { insert_tickets_one { id ticket_id url message } } } }`;
    const input = {
      title: 'Disk full',
      project_key: 'OPS',
      integration_id: acme.integrationId,
      account_id: acme.cloudAccounts.gcp,
      severity: 'High',
    };

    test('numbers tickets per project and stores them in the caller’s tenant', async () => {
      const a = (await server.gql(TICKET, { input }, admin)).body.data.tickets_insert_one.data.insert_tickets_one;
      const b = (await server.gql(TICKET, { input }, admin)).body.data.tickets_insert_one.data.insert_tickets_one;
      const n = (id: string) => Number(id.split('-')[1]);
      expect(n(b.ticket_id)).toBe(n(a.ticket_id) + 1);
      const rows = await server.started.db.query(
        'SELECT tenant::text AS tenant FROM tickets WHERE id = ANY($1::uuid[])',
        [`{${a.id},${b.id}}`],
      );
      expect(rows.map((r) => r.tenant)).toEqual([acme.id, acme.id]);
    });

    test('an account of another tenant is refused', async () => {
      const res = await server.gql(TICKET, { input: { ...input, account_id: globex.cloudAccounts.aws } }, admin);
      expect(res.body.errors[0]).toMatchObject({
        extensions: { code: 'validation-failed', path: '$.object.account_id' },
      });
    });

    test('a missing title is refused', async () => {
      const res = await server.gql(TICKET, { input: { ...input, title: null } }, admin);
      expect(res.body.errors[0].message).toContain('object.title is required');
    });

    test('an action and a table mutation in one request run in order, in one transaction', async () => {
      const doc = `mutation M($input: TicketsInsertOneInput!) {
        first: tickets_insert_one(object: $input) { data { insert_tickets_one { ticket_id } } }
        update_cloud_accounts(where: {id: {_eq: "${acme.cloudAccounts.gcp}"}}, _set: {budget: 4321}) { affected_rows returning { budget } }
      }`;
      const res = await server.gql(doc, { input }, admin);
      expect(res.body.data.update_cloud_accounts).toEqual({ affected_rows: 1, returning: [{ budget: 4321 }] });
      expect(Object.keys(res.body.data)).toEqual(['first', 'update_cloud_accounts']);

      // A failing table mutation after the action rolls the action's insert back too.
      const before = await server.started.db.query('SELECT count(*)::int AS n FROM tickets');
      const failing = `mutation M($input: TicketsInsertOneInput!) {
        tickets_insert_one(object: $input) { data { insert_tickets_one { ticket_id } } }
        insert_cloud_accounts_one(object: {id: "${acme.cloudAccounts.gcp}", account_name: "dup", account_type: "x", account_env: "prod", status: "active", created_by: "${acme.users.admin.id}", updated_by: "${acme.users.admin.id}"}) { id }
      }`;
      const bad = await server.gql(failing, { input }, admin);
      expect(bad.body.errors[0].extensions.code).toBe('constraint-violation');
      const after = await server.started.db.query('SELECT count(*)::int AS n FROM tickets');
      expect(Number(after[0].n)).toBe(Number(before[0].n));
    });
  });

  test('a query may mix table fields and introspection; order follows the document', async () => {
    const res = await server.gql(
      `{ __typename a: cloud_accounts_aggregate { aggregate { count } } __type(name: "cloud_accounts") { name } }`,
      {},
      admin,
    );
    expect(res.body).toEqual({
      data: { __typename: 'query_root', a: { aggregate: { count: 3 } }, __type: { name: 'cloud_accounts' } },
    });
    expect(Object.keys(res.body.data)).toEqual(['__typename', 'a', '__type']);
  });
});
