import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * knowledge_graph_relationship_types (a view, sql/0028): one row per relationship type and pair of
 * node types of a tenant's knowledge graph, with the edge count. Checked against SQL written here over
 * the edge and node tables, and never counting another tenant's edges.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);

type Row = Record<string, unknown>;
const FIELDS = 'tenant_id cloud_account_id relationship_type source_node_type destination_node_type edge_count';
const ORDER = 'order_by: [{relationship_type: asc}, {source_node_type: asc}, {destination_node_type: asc}]';

describe(`knowledge_graph_relationship_types on ${backendName}`, () => {
  let server: TestServer;
  const sql = (text: string, params: string[]) => server.started.db.query(text, params);
  const data = async (doc: string, headers: Record<string, string>) => {
    const res = await server.gql(doc, {}, headers);
    expect(res.body.errors).toBeUndefined();
    return res.body.data as Record<string, Row[] & Row>;
  };
  /** The same rows, counted by hand from the edges and their nodes. */
  const expected = async (tenant: string) =>
    (
      await sql(
        `SELECT e.tenant_id::text AS tenant_id, e.cloud_account_id::text AS cloud_account_id, e.relationship_type, s.node_type AS source_node_type,
              d.node_type AS destination_node_type, count(*)::int AS edge_count
         FROM knowledge_graph_edge e JOIN knowledge_graph_node s ON s.id = e.source_node_id JOIN knowledge_graph_node d ON d.id = e.destination_node_id
        WHERE e.tenant_id = $1::uuid
        GROUP BY 1, 2, 3, 4, 5 ORDER BY 3, 4 NULLS LAST, 5 NULLS LAST`,
        [tenant],
      )
    ).map((r) => ({ ...r }));

  beforeAll(async () => {
    server = await startTestServer();
    // A Globex edge of a type Acme does not have: it must never show up in Acme's answer.
    await sql(
      `INSERT INTO knowledge_graph_edge (tenant_id, cloud_account_id, source_node_id, destination_node_id, relationship_type, level)
       SELECT n.tenant_id, n.cloud_account_id, n.id, n.id, 'only_at_globex', 'cluster' FROM knowledge_graph_node n WHERE n.tenant_id = $1::uuid LIMIT 1`,
      [globex.id],
    );
  });
  afterAll(() => server.close());

  test('each tenant sees the relationship types of its own graph, counted as SQL counts them', async () => {
    for (const [tenant, headers] of [
      [acme.id, readonly],
      [globex.id, as('tenant_admin', globex.id, globex.users.admin.id)],
    ] as const) {
      const want = await expected(tenant);
      expect(want.length).toBeGreaterThan(0);
      const got = await data(`{ knowledge_graph_relationship_types(${ORDER}) { ${FIELDS} } }`, headers);
      expect(got.knowledge_graph_relationship_types).toEqual(want);
    }
    const acmeTypes = (await data(`{ knowledge_graph_relationship_types { relationship_type } }`, readonly))
      .knowledge_graph_relationship_types;
    expect(acmeTypes.map((r) => r.relationship_type)).not.toContain('only_at_globex');
  });

  test('aggregate, where and the account relationship work as on a table', async () => {
    const want = await expected(acme.id);
    const [top] = [...want].sort((a, b) => (b.edge_count as number) - (a.edge_count as number));
    const got = await data(
      `{ knowledge_graph_relationship_types_aggregate { aggregate { count sum { edge_count } } }
         filtered: knowledge_graph_relationship_types(where: {relationship_type: {_eq: "${top.relationship_type}"}}) { edge_count cloud_account { id } } }`,
      readonly,
    );
    const agg = got.knowledge_graph_relationship_types_aggregate as unknown as {
      aggregate: { count: number; sum: { edge_count: number } };
    };
    expect(agg.aggregate.count).toBe(want.length);
    const [{ edges }] = await sql(
      'SELECT count(*)::int AS edges FROM knowledge_graph_edge WHERE tenant_id = $1::uuid',
      [acme.id],
    );
    expect(agg.aggregate.sum.edge_count).toBe(edges);
    const filtered = got.filtered as Row[];
    expect(filtered.reduce((n, r) => n + (r.edge_count as number), 0)).toBe(
      want
        .filter((r) => r.relationship_type === top.relationship_type)
        .reduce((n, r) => n + (r.edge_count as number), 0),
    );
    expect(filtered.every((r) => (r.cloud_account as Row).id === acme.cloudAccounts.aws)).toBe(true);
  });

  test('it is read-only: no mutations and no _by_pk', async () => {
    const res = await server.gql(
      '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }',
      {},
      as('tenant_admin', acme.id),
    );
    const names = [...res.body.data.__schema.queryType.fields, ...res.body.data.__schema.mutationType.fields].map(
      (f: { name: string }) => f.name,
    );
    expect(names).toEqual(
      expect.arrayContaining(['knowledge_graph_relationship_types', 'knowledge_graph_relationship_types_aggregate']),
    );
    expect(names.filter((n: string) => n.includes('knowledge_graph_relationship_types'))).toHaveLength(2);
  });
});
