import { DEMO } from '../demo/demo-data';
import { MAX_VALUES } from '../actions/ai-catalogue/kg-filters';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * The knowledge-graph filters (actions/ai-catalogue/kg-filters.ts) through HTTP, as a tenant's users:
 * kg_get_filter_options (label keys, attribute keys, node types, accounts, last sync of the tenant's
 * active nodes) and kg_get_filter_values (the distinct values of one of them), checked against SQL
 * written here by hand. Another tenant's nodes and sync records, even on this tenant's account ids,
 * never contribute; bad input is refused with `validation-failed` and the path of the culprit.
 * Demo rows: demo/demo-data.ts (knowledgeGraphSection); more are added below.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const globexAdmin = as('tenant_admin', globex.id, globex.users.admin.id);
const AWS = acme.cloudAccounts.aws;
const GCP = acme.cloudAccounts.gcp;
const GLOBEX_AWS = globex.cloudAccounts.aws;

/** Node ids of the rows added here (kind 0037 is the demo's knowledge-graph node). */
const nodeId = (tenantPrefix: string, n: number) =>
  `${tenantPrefix}-0037-4000-8000-0000000001${String(n).padStart(2, '0')}`;
const BULK = MAX_VALUES + 5;

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const OPTIONS = 'data { account_ids attribute_keys label_keys last_sync_time node_types }';
const VALUES = 'data { filter_key filter_type values }';

describe(`knowledge-graph filters on ${backendName}`, () => {
  let server: TestServer;
  const gql = (doc: string, variables: Record<string, unknown> = {}, headers = readonly) =>
    server.gql(doc, variables, headers);
  const data = async (doc: string, variables: Record<string, unknown> = {}, headers = readonly): Promise<Row> => {
    const res = await gql(doc, variables, headers);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const options = async (request?: unknown, headers = readonly): Promise<Row> =>
    request === undefined
      ? (await data(`{ kg_get_filter_options { ${OPTIONS} } }`, {}, headers)).kg_get_filter_options.data
      : (await data(`query ($r: jsonb) { kg_get_filter_options(request: $r) { ${OPTIONS} } }`, { r: request }, headers))
          .kg_get_filter_options.data;
  const values = async (filter_type: string, filter_key: string, headers = readonly): Promise<Row> =>
    (
      await data(
        `query ($r: kg_get_filter_values_input!) { kg_get_filter_values(request: $r) { ${VALUES} } }`,
        { r: { filter_type, filter_key } },
        headers,
      )
    ).kg_get_filter_values.data;
  /** The first error of a request that must fail, with no data for the field. */
  const failure = async (doc: string, variables: Record<string, unknown> = {}, headers = readonly) => {
    const res = await gql(doc, variables, headers);
    expect(res.body.errors).toBeDefined();
    expect(res.body.data?.kg_get_filter_options ?? res.body.data?.kg_get_filter_values ?? null).toBeNull();
    return res.body.errors[0];
  };
  const sql = (text: string, params: unknown[] = [acme.id]) => server.started.db.query(text, params as string[]);
  /** One text column of hand-written SQL, in order. */
  const column = async (text: string, params: unknown[] = [acme.id]) =>
    (await sql(text, params)).map((r) => r.v as string);

  // Hand-written: the tenant's active nodes, optionally narrowed; keys whose value is not JSON null.
  const ACTIVE = `knowledge_graph_node WHERE tenant_id = $1::uuid AND is_active`;
  const keysSql = (col: string, where = '') =>
    `SELECT DISTINCT e.key COLLATE "C" AS v FROM knowledge_graph_node k
       CROSS JOIN LATERAL jsonb_each(CASE jsonb_typeof(k.${col}) WHEN 'object' THEN k.${col} ELSE '{}' END) e
     WHERE k.tenant_id = $1::uuid AND k.is_active AND e.value <> 'null'::jsonb ${where} ORDER BY 1`;
  const optionsSql = async (where = '', metaWhere = '', params: unknown[] = [acme.id]) => {
    const [last] = await sql(
      `SELECT to_char(max(t) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS v FROM (
        SELECT updated_at AT TIME ZONE 'UTC' AS t FROM ${ACTIVE} ${where}
        UNION ALL SELECT last_sync_at AT TIME ZONE 'UTC' FROM knowledge_graph_metadata WHERE tenant_id = $1::uuid ${metaWhere}) s`,
      params,
    );
    return {
      account_ids: await column(
        `SELECT DISTINCT cloud_account_id::text COLLATE "C" AS v FROM ${ACTIVE} ${where} ORDER BY 1`,
        params,
      ),
      attribute_keys: await column(keysSql('query_attributes', where), params),
      label_keys: await column(keysSql('labels', where), params),
      last_sync: last.v === null ? null : `${last.v}Z`,
      node_types: await column(
        `SELECT DISTINCT node_type COLLATE "C" AS v FROM ${ACTIVE} AND node_type IS NOT NULL ${where} ORDER BY 1`,
        params,
      ),
    };
  };
  /** The answer's last_sync_time as milliseconds ISO text (the API trims trailing zeros of the fraction). */
  const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());
  const asExpected = (got: Row) => ({ ...got, last_sync_time: undefined, last_sync: iso(got.last_sync_time) });
  const valuesSql = (expr: string, params: unknown[] = [acme.id]) =>
    column(
      `SELECT DISTINCT (${expr}) COLLATE "C" AS v FROM ${ACTIVE} AND (${expr}) IS NOT NULL ORDER BY 1 LIMIT ${MAX_VALUES}`,
      params,
    );

  beforeAll(async () => {
    server = await startTestServer();
    const a = (n: number) => nodeId('11111111', n);
    const g = (n: number) => nodeId('22222222', n);
    await server.started.db.exec(`
      INSERT INTO knowledge_graph_node (id, tenant_id, cloud_account_id, unique_key, node_type, level, labels, query_attributes, is_active, updated_at) VALUES
        -- Acme, on its GCP account: a key that is null here, values to sort by code point, non-string attributes.
        ('${a(1)}', '${acme.id}', '${GCP}', 'pod:checkout-1', 'Pod', 'pod',
          '{"app": "checkout", "team": null, "tier": "backend"}', '{"kind": "Pod", "zone": "us-central1-a", "replicas": 3}', true, '2026-03-05 10:11:12.5'),
        ('${a(2)}', '${acme.id}', '${GCP}', 'pod:checkout-2', 'Pod', 'pod',
          '{"app": "checkout", "team": null, "tier": "B"}', '{"kind": "Pod", "zone": "us-central1-b", "replicas": 12, "spec": {"cpu": "2"}}', true, '2026-03-01 00:00:00'),
        ('${a(3)}', '${acme.id}', '${GCP}', 'pod:checkout-3', 'Pod', 'pod',
          '{"tier": "_edge", "Tier": "a", "owner": ""}', '{"kind": "Pod"}', true, '2026-03-01 00:00:00'),
        -- Labels and attributes that are not objects, and no node type.
        ('${a(4)}', '${acme.id}', '${GCP}', 'odd:1', NULL, 'odd', '["app", "tier"]', '"kind"', true, '2026-03-01 00:00:00'),
        -- Inactive: contributes nothing, not even its later updated_at.
        ('${a(5)}', '${acme.id}', '${AWS}', 'retired:1', 'Retired', 'retired', '{"retired": "yes", "app": "old-app"}', '{"legacy": "x"}', false, '2026-04-01 00:00:00'),
        -- Globex nodes put on Acme's account ids: the tenant decides, not the account.
        ('${g(1)}', '${globex.id}', '${AWS}', 'stray:1', 'GlobexOnly', 'stray', '{"globex_secret": "leak", "app": "globex-app"}', '{"globex_attr": "x", "kind": "Stray"}', true, '2026-05-01 00:00:00'),
        ('${g(2)}', '${globex.id}', '${GCP}', 'stray:2', 'Deployment', 'stray', '{"tier": "globex-tier"}', '{"zone": "globex-zone"}', true, '2026-05-02 00:00:00');
      -- Many distinct values of one label (more than MAX_VALUES), on Acme's GCP account.
      INSERT INTO knowledge_graph_node (tenant_id, cloud_account_id, unique_key, node_type, level, labels, updated_at)
        SELECT '${acme.id}', '${GCP}', 'bulk:' || n, 'Bulk', 'bulk', jsonb_build_object('bulk', 'v' || lpad(n::text, 5, '0')), '2026-03-01 00:00:00'
        FROM generate_series(1, ${BULK}) n;
      INSERT INTO knowledge_graph_metadata (tenant_id, cloud_account_id, attribute_key, attribute_type, attribute_value, last_sync_at) VALUES
        ('${acme.id}', '${GCP}', 'zone', 'attribute', '["us-central1-a"]', '2026-03-04 08:00:00'),
        ('${globex.id}', '${AWS}', 'app', 'label', '["globex-app"]', '2026-06-01 00:00:00');`);
  });
  afterAll(() => server.close());

  test('the demo graph is there for both tenants, with the rows added here', async () => {
    const rows = await sql(
      `SELECT tenant_id::text AS t, count(*)::int AS n FROM knowledge_graph_node WHERE is_active GROUP BY 1 ORDER BY 1`,
      [],
    );
    expect(rows).toEqual([
      { t: acme.id, n: 4 + 4 + BULK },
      { t: globex.id, n: 4 + 2 },
    ]);
  });

  test("kg_get_filter_options: keys, node types, accounts and last sync of the tenant's active nodes, as SQL has them, for both roles", async () => {
    const expected = await optionsSql();
    for (const headers of [readonly, admin]) {
      const got = await options(undefined, headers);
      expect(asExpected(got)).toEqual({ ...expected, last_sync: iso(expected.last_sync), last_sync_time: undefined });
      expect(got.last_sync_time).toMatch(/Z$/);
    }
    // The same, spelled out: code-point order ("Tier" before "app", "_x" after "Z"), null-only "team" left out,
    // nothing from the inactive node, non-object labels, or Globex's nodes on Acme's accounts.
    const got = await options();
    expect(got).toEqual({
      account_ids: [AWS, GCP].sort(),
      attribute_keys: ['kind', 'replicas', 'spec', 'zone'],
      label_keys: ['Tier', 'app', 'bulk', 'cluster', 'namespace', 'owner', 'tier'],
      last_sync_time: '2026-03-05T10:11:12.5Z',
      node_types: ['Bulk', 'Cluster', 'Deployment', 'Namespace', 'Pod'],
    });
    // An explicit empty request is the same as none.
    expect(await options({})).toEqual(got);
  });

  test('kg_get_filter_options narrows to accounts and node types', async () => {
    const gcp = await options({ account_ids: [GCP] });
    expect(asExpected(gcp)).toEqual({
      ...(await optionsSql(`AND cloud_account_id = '${GCP}'`, `AND cloud_account_id = '${GCP}'`)),
      last_sync_time: undefined,
    });
    expect(gcp.account_ids).toEqual([GCP]);
    expect(gcp.label_keys).not.toContain('cluster');

    // Upper-case ids are the same accounts.
    expect(await options({ account_ids: [AWS.toUpperCase()] })).toEqual(await options({ account_ids: [AWS] }));
    const aws = await options({ account_ids: [AWS] });
    expect(aws).toEqual({
      account_ids: [AWS],
      attribute_keys: ['kind'],
      label_keys: ['app', 'cluster', 'namespace'],
      last_sync_time: '2026-02-28T04:00:00Z',
      node_types: ['Cluster', 'Deployment', 'Namespace'],
    });

    const pods = await options({ node_types: ['Pod', 'NoSuchType'] });
    const podsSql = await optionsSql(`AND node_type IN ('Pod', 'NoSuchType')`);
    expect(asExpected(pods)).toEqual({ ...podsSql, last_sync_time: undefined });
    expect(pods).toMatchObject({
      node_types: ['Pod'],
      label_keys: ['Tier', 'app', 'owner', 'tier'],
      attribute_keys: ['kind', 'replicas', 'spec', 'zone'],
    });
    expect(pods.last_sync_time).toBe('2026-03-05T10:11:12.5Z');
    // Sync records belong to accounts, not node types: GCP's is later than any Bulk node.
    expect((await options({ node_types: ['Bulk'] })).last_sync_time).toBe('2026-03-04T08:00:00Z');

    const both = await options({ account_ids: [AWS], node_types: ['Pod'] });
    expect(both).toEqual({
      account_ids: [],
      attribute_keys: [],
      label_keys: [],
      last_sync_time: '2026-02-28T04:00:00Z',
      node_types: [],
    });

    // An empty list narrows to nothing.
    expect(await options({ account_ids: [] })).toEqual({
      account_ids: [],
      attribute_keys: [],
      label_keys: [],
      last_sync_time: null,
      node_types: [],
    });
    expect(await options({ node_types: [] })).toMatchObject({ account_ids: [], label_keys: [], node_types: [] });
  });

  test('kg_get_filter_values: the distinct values of each filter type, as SQL has them', async () => {
    const cases: [string, string, string, unknown[]?][] = [
      ['label', 'app', `labels ->> $2`],
      ['label', 'tier', `labels ->> $2`],
      ['label', 'Tier', `labels ->> $2`],
      ['label', 'owner', `labels ->> $2`],
      ['attribute', 'kind', `query_attributes ->> $2`],
      ['attribute', 'replicas', `query_attributes ->> $2`],
      ['attribute', 'spec', `query_attributes ->> $2`],
      ['node_type', 'node_type', 'node_type'],
      ['account', 'account', 'cloud_account_id::text'],
    ];
    for (const [type, key, expr] of cases) {
      const params = expr.includes('$2') ? [acme.id, key] : [acme.id];
      const got = await values(type, key);
      expect([type, key, got]).toEqual([
        type,
        key,
        { filter_key: key, filter_type: type, values: await valuesSql(expr, params) },
      ]);
    }
    // Spelled out: code-point order, numbers and objects as their JSON text, empty strings kept.
    expect((await values('label', 'app')).values).toEqual(['api-server', 'checkout', 'web-frontend']);
    expect((await values('label', 'tier')).values).toEqual(['B', '_edge', 'backend']);
    expect((await values('label', 'owner')).values).toEqual(['']);
    expect((await values('attribute', 'replicas')).values).toEqual(['12', '3']);
    expect((await values('attribute', 'spec')).values).toEqual(['{"cpu": "2"}']);
    expect((await values('node_type', '')).values).toEqual(['Bulk', 'Cluster', 'Deployment', 'Namespace', 'Pod']);
    expect(await values('account', 'anything')).toEqual({
      filter_key: 'anything',
      filter_type: 'account',
      values: [AWS, GCP].sort(),
    });
    // Every key offered has values.
    const offered = await options();
    for (const key of offered.label_keys)
      expect([key, (await values('label', key)).values.length > 0]).toEqual([key, true]);
    for (const key of offered.attribute_keys)
      expect([key, (await values('attribute', key)).values.length > 0]).toEqual([key, true]);
  });

  test('kg_get_filter_values: keys that no active node of the tenant holds a value for answer no values', async () => {
    for (const [type, key] of [
      ['label', 'team'],
      ['label', 'no-such-label'],
      ['label', 'retired'],
      ['label', 'globex_secret'],
      ['attribute', 'legacy'],
      ['attribute', 'globex_attr'],
    ]) {
      expect(await values(type!, key!)).toEqual({ filter_key: key, filter_type: type, values: [] });
    }
  });

  test(`kg_get_filter_values: at most ${MAX_VALUES} values, the first by code point`, async () => {
    const got = (await values('label', 'bulk')).values;
    expect(got.length).toBe(MAX_VALUES);
    expect(got).toEqual(await valuesSql(`labels ->> $2`, [acme.id, 'bulk']));
    expect(got[0]).toBe('v00001');
    expect(got[MAX_VALUES - 1]).toBe(`v${String(MAX_VALUES).padStart(5, '0')}`);
  });

  test("another tenant's nodes and sync records never contribute, either way", async () => {
    const acmeAnswers = JSON.stringify([
      await options(),
      await options({ account_ids: [AWS, GCP] }),
      await values('label', 'app'),
      await values('label', 'tier'),
      await values('attribute', 'kind'),
      await values('attribute', 'zone'),
      await values('node_type', 'x'),
      await values('account', 'x'),
    ]);
    for (const leak of ['globex', 'Globex', 'leak', 'Stray', '2026-05', '2026-06', GLOBEX_AWS])
      expect([leak, acmeAnswers.includes(leak)]).toEqual([leak, false]);

    // Globex sees its own nodes (the demo's and its strays), none of Acme's.
    const gopts = await options(undefined, globexAdmin);
    const gsql = await optionsSql('', '', [globex.id]);
    expect(asExpected(gopts)).toEqual({ ...gsql, last_sync: iso(gsql.last_sync), last_sync_time: undefined });
    expect(gopts.label_keys).toEqual(['app', 'cluster', 'globex_secret', 'namespace', 'tier']);
    expect(gopts.last_sync_time).toBe('2026-06-01T00:00:00Z');
    expect((await values('label', 'app', globexAdmin)).values).toEqual(['api-server', 'globex-app', 'web-frontend']);
    expect((await values('label', 'tier', globexAdmin)).values).toEqual(['globex-tier']);
    const globexAnswers = JSON.stringify([
      gopts,
      await values('attribute', 'replicas', globexAdmin),
      await values('label', 'bulk', globexAdmin),
      await values('node_type', '', globexAdmin),
    ]);
    for (const leak of ['checkout', 'Pod', 'Bulk', 'v00001', 'acme', 'us-central1'])
      expect([leak, globexAnswers.includes(leak)]).toEqual([leak, false]);

    // Naming another tenant's account is refused like naming one that does not exist.
    for (const account of [GLOBEX_AWS, '11111111-00ff-4000-8000-000000000001']) {
      const err = await failure(`query ($r: jsonb) { kg_get_filter_options(request: $r) { ${OPTIONS} } }`, {
        r: { account_ids: [GCP, account] },
      });
      expect(err.extensions).toEqual({ code: 'validation-failed', path: '$.request.account_ids[1]' });
      expect(err.message).toBe('request.account_ids[1] is not a cloud account of your tenant');
    }
    const err = await failure(
      `query ($r: jsonb) { kg_get_filter_options(request: $r) { ${OPTIONS} } }`,
      { r: { account_ids: [AWS] } },
      globexAdmin,
    );
    expect(err.extensions).toEqual({ code: 'validation-failed', path: '$.request.account_ids[0]' });
  });

  test('bad input to kg_get_filter_options is refused with validation-failed and its path', async () => {
    const doc = `query ($r: jsonb) { kg_get_filter_options(request: $r) { ${OPTIONS} } }`;
    const cases: [unknown, string, RegExp][] = [
      [
        { account_id: GCP },
        '$.request.account_id',
        /unknown request field account_id; allowed: account_ids, node_types/,
      ],
      [{ filter_key: 'app' }, '$.request.filter_key', /unknown request field filter_key/],
      ['account_ids', '$.request', /request must be an object/],
      [[GCP], '$.request', /request must be an object/],
      [{ account_ids: GCP }, '$.request.account_ids', /request.account_ids must be a list of strings/],
      [{ account_ids: [1] }, '$.request.account_ids', /request.account_ids must be a list of strings/],
      [{ node_types: 'Pod' }, '$.request.node_types', /request.node_types must be a list of strings/],
      [{ node_types: ['Pod', null] }, '$.request.node_types', /request.node_types must be a list of strings/],
      [
        { account_ids: ['aws-prod'] },
        '$.request.account_ids[0]',
        /expected a uuid for request.account_ids\[0\], got "aws-prod"/,
      ],
    ];
    for (const [request, path, message] of cases) {
      const err = await failure(doc, { r: request });
      expect([request, err.extensions]).toEqual([request, { code: 'validation-failed', path }]);
      expect(err.message).toMatch(message);
    }
    // Written inline in the document, the same.
    const inline = await failure(`{ kg_get_filter_options(request: {node_type: ["Pod"]}) { ${OPTIONS} } }`);
    expect(inline.extensions).toEqual({ code: 'validation-failed', path: '$.request.node_type' });
  });

  test('bad input to kg_get_filter_values is refused with validation-failed and its path', async () => {
    const unknownType = await failure(
      `{ kg_get_filter_values(request: {filter_type: "labels", filter_key: "app"}) { ${VALUES} } }`,
    );
    expect(unknownType.extensions).toEqual({ code: 'validation-failed', path: '$.request.filter_type' });
    expect(unknownType.message).toBe('unknown filter_type "labels"; allowed: label, attribute, node_type, account');
    for (const type of ['', 'LABEL', 'constructor', 'toString']) {
      const err = await failure(
        `query ($r: kg_get_filter_values_input!) { kg_get_filter_values(request: $r) { ${VALUES} } }`,
        { r: { filter_type: type, filter_key: 'app' } },
      );
      expect([type, err.extensions]).toEqual([type, { code: 'validation-failed', path: '$.request.filter_type' }]);
    }
    for (const type of ['label', 'attribute']) {
      const err = await failure(
        `{ kg_get_filter_values(request: {filter_type: "${type}", filter_key: ""}) { ${VALUES} } }`,
      );
      expect(err.extensions).toEqual({ code: 'validation-failed', path: '$.request.filter_key' });
      expect(err.message).toBe(`request.filter_key must name the ${type} key`);
    }
    // Checked by the GraphQL input type: wrong types, missing and unknown fields, a missing request.
    const schemaCases: [string, Record<string, unknown>, string, RegExp][] = [
      [
        `{ kg_get_filter_values(request: {filter_type: 5, filter_key: "app"}) { ${VALUES} } }`,
        {},
        '$.selectionSet.kg_get_filter_values.args.request.filter_type',
        /String cannot represent a non string value: 5/,
      ],
      [
        `{ kg_get_filter_values(request: {filter_type: "label", filter_key: ["app"]}) { ${VALUES} } }`,
        {},
        '$.selectionSet.kg_get_filter_values.args.request.filter_key',
        /String cannot represent a non string value/,
      ],
      [
        `{ kg_get_filter_values(request: {filter_type: "label"}) { ${VALUES} } }`,
        {},
        '$.selectionSet.kg_get_filter_values.args.request',
        /filter_key.*was not provided/,
      ],
      [
        `{ kg_get_filter_values(request: {filter_type: "label", filter_key: "app", account_id: "x"}) { ${VALUES} } }`,
        {},
        '$.selectionSet.kg_get_filter_values.args.request.account_id',
        /Field "account_id" is not defined by type "kg_get_filter_values_input"/,
      ],
      [`{ kg_get_filter_values { ${VALUES} } }`, {}, '$.selectionSet.kg_get_filter_values', /request/],
      [
        `query ($r: kg_get_filter_values_input!) { kg_get_filter_values(request: $r) { ${VALUES} } }`,
        { r: { filter_type: 'label', filter_key: 3 } },
        '$.variableValues',
        /String cannot represent a non string value: 3/,
      ],
      [
        `query ($r: kg_get_filter_values_input!) { kg_get_filter_values(request: $r) { ${VALUES} } }`,
        { r: { filter_type: 'label', filter_key: null } },
        '$.variableValues',
        /filter_key/,
      ],
    ];
    for (const [doc, variables, path, message] of schemaCases) {
      const err = await failure(doc, variables);
      expect([doc, err.extensions]).toEqual([doc, { code: 'validation-failed', path }]);
      expect(err.message).toMatch(message);
    }
  });

  test('a session without a tenant is refused', async () => {
    const err = await failure(`{ kg_get_filter_options { ${OPTIONS} } }`, {}, { 'x-hasura-role': 'tenant_admin' });
    expect(err.extensions.code).toBe('access-denied');
  });
});
