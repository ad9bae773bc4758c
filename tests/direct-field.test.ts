import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * An action field alone in a query runs without graphql-js's execute (engine/compile/execute/
 * direct-field.ts); with a second root field (`__typename`) graphql-js runs it. Both must answer the
 * same: the same JSON text for the field (values, key order, aliases, __typename), or the same error
 * (message, code, path).
 */
const acme = DEMO.tenants.acme;
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);
const globex = DEMO.tenants.globex;
const globexReadonly = as('tenant_admin_readonly', globex.id, globex.users.readonly.id);

const CASES: [name: string, query: string, variables?: Record<string, unknown>][] = [
  [
    'an analytic operation, filtered, ordered and limited',
    `{ spends_v2(where: {cloud_account: {_eq: "${acme.cloudAccounts.aws}"}, date: {_gte: "2026-01-01"}}, order_by: [{column: "date", order: desc}], limit: 7) { rows { id date amount resource_service_name } } }`,
  ],
  [
    'aliases and __typename at every level',
    `{ s: spends_v2(limit: 3, order_by: [{column: "amount", order: desc}]) { __typename r: rows { __typename a: amount amount u: unit } } }`,
  ],
  [
    'variables, coerced as graphql-js coerces them',
    `query ($w: SpendGroupingsWhereRequest, $l: Int) { spend_groupings_v2(where: $w, limit: $l, group_by: ["resource_type"], order_by: [{column: "spend_amount", order: desc}]) { rows { resource_type spend_amount spend_count } } }`,
    { w: { spend_date: { _gte: '2026-01-01T00:00:00Z' } }, l: 4 },
  ],
  ['an empty answer', `{ spends_v2(where: {amount: {_lt: -1000000}}) { rows { id amount } } }`],
  [
    'nested lists of objects (a handler other than an analytic one)',
    `query ($r: EventFilterValuesRequest!) { event_get_filter_values(request: $r) { account_id filters { filter_type total values { value count } } } }`,
    { r: { filter_types: ['priority', 'namespace'], limit: 3 } },
  ],
  ['a fragment (graphql-js in both)', `{ spends_v2(limit: 2) { ...F } } fragment F on SpendsResponse { rows { id } }`],
  ['a bad value: the handler refuses', `{ spends_v2(where: {date: {_gte: "yesterday"}}) { rows { id } } }`],
  ['an unknown column', `{ spends_v2(columns: ["price"]) { rows { id } } }`],
  ['a limit past the maximum', `{ spends_v2(limit: 20000) { rows { id } } }`],
  ['a variable of the wrong type', `query ($l: Int) { spends_v2(limit: $l) { rows { id } } }`, { l: 'ten' }],
];

/** The query with `__typename` beside its root field: graphql-js runs it. */
function throughGraphqlJs(query: string): string {
  const start = query.indexOf('{');
  return `${query.slice(0, start + 1)} __typename ${query.slice(start + 1)}`;
}

describe(`action fields run directly on ${backendName}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  // Every row of three, or jest takes a third argument for its `done` callback.
  const rows = CASES.map(([name, query, variables]) => [name, query, variables ?? {}] as const);
  test.each(rows)('%s: the same answer as graphql-js gives', async (_name, query, variables) => {
    const direct = await server.gql(query, variables, readonly);
    const graphqlJs = await server.gql(throughGraphqlJs(query), variables, readonly);
    expect(direct.status).toBe(graphqlJs.status);
    if (graphqlJs.body.errors) {
      expect(direct.body.errors).toEqual(graphqlJs.body.errors);
      return;
    }
    expect(direct.body.errors).toBeUndefined();
    const [key] = Object.keys(direct.body.data as object);
    expect(JSON.stringify(direct.body.data[key])).toBe(JSON.stringify(graphqlJs.body.data[key]));
    expect(graphqlJs.body.data.__typename).toBe('query_root');
  });

  test("arguments without variables are read once per document; each request still gets its own tenant's rows", async () => {
    const query = `{ spend_groupings_v2(group_by: ["account_id"], order_by: [{column: "spend_amount", order: desc}], limit: 5) { rows { account_id spend_amount spend_count } } }`;
    const seen: Record<string, string> = {};
    for (let round = 0; round < 3; round++)
      for (const [name, headers] of [
        ['acme', readonly],
        ['globex', globexReadonly],
      ] as const) {
        const direct = await server.gql(query, {}, headers);
        const graphqlJs = await server.gql(throughGraphqlJs(query), {}, headers);
        expect(direct.body.errors).toBeUndefined();
        const text = JSON.stringify(direct.body.data.spend_groupings_v2);
        expect(text).toBe(JSON.stringify(graphqlJs.body.data.spend_groupings_v2));
        expect(direct.body.data.spend_groupings_v2.rows.length).toBeGreaterThan(0);
        seen[name] ??= text;
        expect(text).toBe(seen[name]);
      }
    // Each tenant's own accounts: the answers differ.
    expect(seen.acme).not.toBe(seen.globex);
    expect(seen.acme).toContain(acme.cloudAccounts.aws);
  });

  test('the analytic answers are not empty', async () => {
    const res = await server.gql(CASES[0][1], {}, readonly);
    expect(res.body.data.spends_v2.rows.length).toBe(7);
  });
});
