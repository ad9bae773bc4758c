import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * Requests sent at once whose query statements have the same text run as one statement, each
 * request's values a cohort of it (engine/compile/execute/coalesce.ts). Each must get the answer it
 * gets alone: its own tenant's rows, its own variables, its own error.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const acmeAdmin = as('tenant_admin', acme.id, acme.users.admin.id);
const globexAdmin = as('tenant_admin', globex.id, globex.users.admin.id);

const BY_PK = 'query ($id: uuid!) { cloud_accounts_by_pk(id: $id) { id account_name tenant } }';
const LIST = `query ($p: String!, $n: Int) {
  cloud_accounts(where: {account_name: {_like: $p}}, order_by: [{account_name: asc}], limit: $n) { account_name tenant }
  cloud_accounts_aggregate(where: {account_name: {_like: $p}}) { aggregate { count } }
}`;

interface Sent {
  query: string;
  variables: Record<string, unknown>;
  headers: Record<string, string>;
}

describe(`statements of concurrent requests, coalesced, on ${backendName}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const coalescer = () => server.started.engine.coalescer;
  const send = (r: Sent) => server.gql(r.query, r.variables, r.headers);

  /**
   * Each request's answer alone (which also makes the plans), and then sent at once with the others,
   * twice: the first time opens the client's connections, one per request, which connect one by one.
   */
  async function atOnceAndAlone(requests: Sent[]) {
    const alone = [];
    for (const r of requests) alone.push(await send(r));
    await Promise.all(requests.map(send));
    const batches = coalescer().batches;
    const coalesced = coalescer().coalesced;
    const together = await Promise.all(requests.map(send));
    const ran = { batches: coalescer().batches - batches, requests: coalescer().coalesced - coalesced };
    return { together, alone, ran };
  }

  test('by primary key: each request its own row, the other tenant’s none; fewer statements than requests', async () => {
    const accounts = [...Object.values(acme.cloudAccounts), ...Object.values(globex.cloudAccounts)];
    const requests = accounts.flatMap((id) =>
      [acmeAdmin, globexAdmin].map((headers) => ({ query: BY_PK, variables: { id }, headers })),
    );
    const { together, alone, ran } = await atOnceAndAlone(requests);
    expect(together.map((r) => r.body)).toEqual(alone.map((r) => r.body));
    // The rows a request gets are its tenant's: null for an account of the other.
    const found = together.filter((r) => r.body.data.cloud_accounts_by_pk !== null);
    expect(found).toHaveLength(accounts.length);
    requests.forEach((r, i) => {
      const row = together[i].body.data.cloud_accounts_by_pk;
      if (row) expect(row).toMatchObject({ id: r.variables.id, tenant: r.headers['x-hasura-tenant-id'] });
    });
    expect(ran.batches).toBeGreaterThan(0);
    expect(ran.requests).toBeGreaterThan(ran.batches);
  });

  test('several root fields in one statement, with their row counts and limits, per request', async () => {
    const requests: Sent[] = [
      { query: LIST, variables: { p: '%', n: 2 }, headers: acmeAdmin },
      { query: LIST, variables: { p: '%' }, headers: globexAdmin },
      { query: LIST, variables: { p: '%a%', n: 1 }, headers: acmeAdmin },
      { query: LIST, variables: { p: 'no such%' }, headers: globexAdmin },
    ];
    const { together, alone, ran } = await atOnceAndAlone(requests);
    expect(together.map((r) => r.body)).toEqual(alone.map((r) => r.body));
    expect(together[0].body.data.cloud_accounts).toHaveLength(2);
    expect(together[2].body.data.cloud_accounts).toHaveLength(1);
    expect(together[3].body.data).toEqual({
      cloud_accounts: [],
      cloud_accounts_aggregate: { aggregate: { count: 0 } },
    });
    for (const [i, r] of requests.entries())
      for (const row of together[i].body.data.cloud_accounts) expect(row.tenant).toBe(r.headers['x-hasura-tenant-id']);
    expect(ran.requests).toBeGreaterThanOrEqual(2);
  });

  test('a value PostgreSQL refuses fails its own request only', async () => {
    // A LIKE pattern ending in a backslash is an invalid escape sequence (22025): bad-request.
    const query = 'query ($p: String!) { cloud_accounts(where: {account_name: {_like: $p}}) { id } }';
    const requests: Sent[] = [
      { query, variables: { p: '%' }, headers: acmeAdmin },
      { query, variables: { p: '%\\' }, headers: acmeAdmin },
      { query, variables: { p: '%' }, headers: globexAdmin },
    ];
    const { together, alone, ran } = await atOnceAndAlone(requests);
    expect(ran.batches).toBeGreaterThan(0);
    expect(together.map((r) => r.body)).toEqual(alone.map((r) => r.body));
    expect(together[1].body.errors[0].extensions.code).toBe('bad-request');
    expect(together[0].body.data.cloud_accounts.length).toBeGreaterThan(0);
    expect(together[2].body.data.cloud_accounts.length).toBeGreaterThan(0);
  });

  test('a request alone runs its own statement, not a batch', async () => {
    const batches = coalescer().batches;
    const r = await send({ query: BY_PK, variables: { id: acme.cloudAccounts.aws }, headers: acmeAdmin });
    expect(r.body.data.cloud_accounts_by_pk.id).toBe(acme.cloudAccounts.aws);
    expect(coalescer().batches).toBe(batches);
  });
});
