import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * The spec's catalogue of standard table operations ("Standard table operations", families Cost
 * Management through AI and LLM): every table has exactly `T`, `T_aggregate` and `T_by_pk` with the
 * spec's primary-key arguments (k8s_account_resource_usage has no `_by_pk`), for the admin and for
 * both tenant roles; a tenant role's list holds only its tenant's rows; the read-only role has no
 * mutations.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const ADMIN = 'tenant_admin';
const READONLY = 'tenant_admin_readonly';

/** by_pk arguments as the spec writes them: name -> type. */
type PkArgs = Record<string, string>;
interface CatalogueTable {
  family: string;
  name: string;
  /** null: the spec lists no T_by_pk for the table. */
  byPk: PkArgs | null;
  /** The column that holds the owning tenant; absent for lookups and shared catalogues. */
  tenant?: string;
}

const ID: PkArgs = { id: 'uuid!' };
const VALUE: PkArgs = { value: 'String!' };
const NAME: PkArgs = { name: 'String!' };
const K8S_OBJECT: PkArgs = { cloud_account_id: 'uuid!', cloud_resource_id: 'uuid!', tenant_id: 'uuid!' };

/** Tables with the same by_pk arguments, one family at a time, transcribed from the spec. */
function family(name: string, groups: [PkArgs | null, string[]][], tenants: Record<string, string>): CatalogueTable[] {
  return groups.flatMap(([byPk, tables]) =>
    tables.map((t) => ({ family: name, name: t, byPk, ...(tenants[t] ? { tenant: tenants[t] } : {}) })),
  );
}

const CATALOGUE: CatalogueTable[] = [
  ...family(
    'Cost Management',
    [
      [ID, ['billing', 'billing_usage_cost', 'businessunit_funding', 'funding_sources', 'spends']],
      [VALUE, ['spends_resource_group_type']],
    ],
    {
      billing: 'tenant_id',
      billing_usage_cost: 'tenant_id',
      businessunit_funding: 'tenant',
      funding_sources: 'tenant',
      spends: 'tenant',
    },
  ),
  ...family(
    'Anomalies',
    [
      [ID, ['anomaly', 'anomaly_config']],
      [VALUE, ['anomaly_change_operator', 'anomaly_config_type', 'anomaly_type']],
    ],
    { anomaly: 'tenant', anomaly_config: 'tenant_id' },
  ),
  ...family(
    'Events and Incidents',
    [
      [
        ID,
        [
          'event_bulk_operations',
          'event_classification',
          'event_correlations',
          'event_duplicates',
          'event_history',
          'event_incoming_webhooks',
          'event_log_analysis',
          'event_resolution',
          'event_rules',
          'event_triage_rules',
          'events',
          'insight',
        ],
      ],
      [
        VALUE,
        [
          'event_log_analysis_status',
          'event_rule_severity',
          'event_rule_source',
          'event_severity',
          'event_source',
          'event_status',
          'insight_severity',
        ],
      ],
    ],
    {
      event_bulk_operations: 'tenant_id',
      event_classification: 'tenant_id',
      event_correlations: 'tenant_id',
      event_duplicates: 'tenant_id',
      event_history: 'tenant_id',
      event_incoming_webhooks: 'tenant_id',
      event_log_analysis: 'tenant_id',
      event_resolution: 'tenant_id',
      event_rules: 'tenant_id',
      event_triage_rules: 'tenant_id',
      events: 'tenant',
      insight: 'tenant',
    },
  ),
  ...family(
    'Recommendations',
    [
      [ID, ['recommendation', 'recommendation_resolution']],
      [
        VALUE,
        [
          'recommendation_action_type',
          'recommendation_category_type',
          'recommendation_severity_type',
          'recommendation_status_type',
        ],
      ],
    ],
    { recommendation: 'tenant_id', recommendation_resolution: 'tenant_id' },
  ),
  ...family(
    'Cloud Infrastructure',
    [
      [
        ID,
        [
          'cloud_account_attrs',
          'cloud_account_onboarding_errors',
          'cloud_account_score',
          'cloud_accounts',
          'cloud_api_permission_errors',
          'cloud_resource_attributes',
          'cloud_resource_details',
          'cloud_resource_metrics',
          'cloud_resourses',
        ],
      ],
      [
        VALUE,
        [
          'cloud_account_status_type',
          'cloud_account_sync_status_type',
          'cloud_provider_type',
          'cloud_resource_status_type',
        ],
      ],
      [
        { cloud_account_id: 'uuid!', external_resource_id: 'String!', resource_type: 'String!', tenant_id: 'uuid!' },
        ['active_resources'],
      ],
    ],
    {
      cloud_account_attrs: 'tenant_id',
      cloud_account_onboarding_errors: 'tenant_id',
      cloud_account_score: 'tenant',
      cloud_accounts: 'tenant',
      cloud_api_permission_errors: 'tenant_id',
      cloud_resource_attributes: 'tenant_id',
      cloud_resource_metrics: 'tenant_id',
      cloud_resourses: 'tenant',
      active_resources: 'tenant_id',
    },
  ),
  ...family(
    'Kubernetes',
    [
      [null, ['k8s_account_resource_usage']],
      [{ cloud_account_id: 'String!', name: 'String!', tenant_id: 'String!' }, ['k8s_namespaces']],
      [K8S_OBJECT, ['k8s_nodes', 'k8s_pods', 'k8s_workloads']],
    ],
    {
      k8s_account_resource_usage: 'tenant_id',
      k8s_namespaces: 'tenant_id',
      k8s_nodes: 'tenant_id',
      k8s_pods: 'tenant_id',
      k8s_workloads: 'tenant_id',
    },
  ),
  ...family(
    'Automation',
    [
      [
        ID,
        [
          'auto_optimize_resource_map',
          'auto_pilot',
          'auto_pilot_approval_policy',
          'auto_pilot_approvals',
          'auto_pilot_reviewee',
          'auto_pilot_reviewers',
          'auto_pilot_task',
          'auto_playbook',
          'auto_playbook_actions',
          'auto_playbook_executions',
          'auto_playbook_task',
          'autopilot_attributes',
        ],
      ],
      [
        VALUE,
        [
          'auto_pilot_category',
          'auto_pilot_execution_status',
          'auto_pilot_status',
          'auto_pilot_task_status',
          'auto_playbook_status',
          'auto_playbook_task_status',
        ],
      ],
      [{ status: 'String!' }, ['auto_pilot_approval_status']],
      [{ values: 'String!' }, ['auto_playbook_execution_status']],
    ],
    {
      auto_optimize_resource_map: 'tenant_id',
      auto_pilot: 'tenant_id',
      auto_pilot_approval_policy: 'tenant_id',
      auto_pilot_approvals: 'tenant_id',
      auto_pilot_reviewee: 'tenant_id',
      auto_pilot_reviewers: 'tenant_id',
      auto_pilot_task: 'tenant_id',
      auto_playbook: 'tenant_id',
      auto_playbook_executions: 'tenant_id',
      auto_playbook_task: 'tenant_id',
    },
  ),
  ...family(
    'Agents',
    [
      [ID, ['agent', 'agent_audit_log', 'agent_playbook', 'agent_task']],
      [NAME, ['agent_playbook_action', 'agent_playbook_processor', 'agent_playbook_trigger']],
      [VALUE, ['agent_playbook_source']],
    ],
    { agent: 'tenant', agent_audit_log: 'tenant_id', agent_playbook: 'tenant_id', agent_task: 'tenant' },
  ),
  ...family(
    'AI and LLM',
    [[ID, ['knowledge_base', 'knowledge_graph_edge', 'knowledge_graph_metadata', 'knowledge_graph_node']]],
    { knowledge_graph_edge: 'tenant_id', knowledge_graph_metadata: 'tenant_id', knowledge_graph_node: 'tenant_id' },
  ),
];

const TENANT_TABLES = CATALOGUE.filter((t) => t.tenant);
const SHARED_TABLES = CATALOGUE.filter((t) => !t.tenant);
const LIST_ARGS = ['distinct_on', 'limit', 'offset', 'order_by', 'where'];

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface Field {
  name: string;
  args: { name: string; type: TypeRef }[];
  type: TypeRef;
}

const INTROSPECTION = `{ __schema { queryType { fields {
  name
  args { name type { kind name ofType { kind name ofType { name } } } }
  type { kind name ofType { kind name ofType { kind name ofType { name } } } }
} } } }`;

/** `uuid!`, `[T!]!`, `String` ... */
function render(t: TypeRef | null): string {
  if (!t) return '?';
  if (t.kind === 'NON_NULL') return `${render(t.ofType)}!`;
  if (t.kind === 'LIST') return `[${render(t.ofType)}]`;
  return t.name ?? '?';
}

describe(`the spec's table catalogue on ${backendName}`, () => {
  let server: TestServer;
  const sql = (text: string, params: (string | null)[] = []) => server.started.db.query(text, params);
  /** Query root fields by name, for the admin (no role header) and each tenant role. */
  const roots = new Map<string, Map<string, Field>>();

  const gqlOk = async (query: string, headers: Record<string, string> = {}) => {
    const res = await server.gql(query, {}, headers);
    expect(res.body.errors).toBeUndefined();
    expect(res.status).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    server = await startTestServer();
    for (const [role, headers] of [
      ['admin', {}],
      [ADMIN, as(ADMIN, acme.id)],
      [READONLY, as(READONLY, acme.id)],
    ] as const) {
      const data = await gqlOk(INTROSPECTION, headers);
      roots.set(role, new Map((data.__schema.queryType.fields as Field[]).map((f) => [f.name, f])));
    }
  });
  afterAll(() => server.close());

  test('the catalogue lists each table once', () => {
    const names = CATALOGUE.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBe(87);
  });

  describe.each(['admin', ADMIN, READONLY])('query root of %s', (role) => {
    test.each(CATALOGUE.map((t) => [t.name, t]))('%s: exactly T, T_aggregate and the spec’s T_by_pk', (_name, t) => {
      const fields = roots.get(role)!;
      const list = fields.get(t.name);
      const aggregate = fields.get(`${t.name}_aggregate`);
      const byPk = fields.get(`${t.name}_by_pk`);

      expect(list).toBeDefined();
      expect(render(list!.type)).toBe(`[${t.name}!]!`);
      expect(list!.args.map((a) => a.name).sort()).toEqual(LIST_ARGS);
      expect(render(list!.args.find((a) => a.name === 'limit')!.type)).toBe('Int');
      expect(render(list!.args.find((a) => a.name === 'where')!.type)).toBe(`${t.name}_bool_exp`);

      expect(aggregate).toBeDefined();
      expect(render(aggregate!.type)).toBe(`${t.name}_aggregate!`);
      expect(aggregate!.args.map((a) => a.name).sort()).toEqual(LIST_ARGS);

      if (t.byPk === null) {
        expect(byPk).toBeUndefined();
      } else {
        expect(byPk).toBeDefined();
        expect(render(byPk!.type)).toBe(t.name);
        const args = Object.fromEntries(byPk!.args.map((a) => [a.name, render(a.type)]));
        expect(args).toEqual(t.byPk);
      }
    });
  });

  test('the demo data has rows of both tenants in every tenant table', async () => {
    for (const t of TENANT_TABLES) {
      const [row] = await sql(
        `SELECT count(*) FILTER (WHERE "${t.tenant}"::text = $1)::int AS acme, count(*) FILTER (WHERE "${t.tenant}"::text = $2)::int AS globex FROM "${t.name}"`,
        [acme.id, globex.id],
      );
      expect([t.name, Number(row.acme) > 0, Number(row.globex) > 0]).toEqual([t.name, true, true]);
    }
  });

  describe.each([ADMIN, READONLY])('%s of one tenant', (role) => {
    test.each(TENANT_TABLES.map((t) => [t.name, t]))(
      '%s: the list holds only its own tenant’s rows',
      async (_name, t) => {
        for (const [own, other] of [
          [acme, globex],
          [globex, acme],
        ] as const) {
          const data = await gqlOk(
            `{ rows: ${t.name} { ${t.tenant} } agg: ${t.name}_aggregate { aggregate { count } } }`,
            as(role, own.id),
          );
          const tenants = (data.rows as Record<string, string>[]).map((r) => r[t.tenant!]);
          expect(tenants.length).toBeGreaterThan(0);
          expect(tenants).not.toContain(other.id);
          expect(new Set(tenants)).toEqual(new Set([own.id]));
          expect(data.agg.aggregate.count).toBe(tenants.length);
          const [count] = await sql(`SELECT count(*)::int AS n FROM "${t.name}" WHERE "${t.tenant}"::text = $1`, [
            own.id,
          ]);
          expect(tenants.length).toBe(count.n);
        }
      },
    );

    test.each(SHARED_TABLES.map((t) => [t.name, t]))(
      '%s (lookup or shared catalogue): readable, every row',
      async (_name, t) => {
        const column = Object.keys(t.byPk!)[0];
        const data = await gqlOk(`{ rows: ${t.name} { ${column} } }`, as(role, acme.id));
        const [count] = await sql(`SELECT count(*)::int AS n FROM "${t.name}"`);
        expect(Number(count.n)).toBeGreaterThan(0);
        expect(data.rows).toHaveLength(Number(count.n));
      },
    );
  });

  test('a tenant_admin_readonly schema has no mutation type; a tenant_admin one has', async () => {
    for (const tenant of [acme, globex]) {
      const readonly = await gqlOk('{ __schema { mutationType { name } } }', as(READONLY, tenant.id));
      expect(readonly.__schema.mutationType).toBeNull();
      const admin = await gqlOk('{ __schema { mutationType { name } } }', as(ADMIN, tenant.id));
      expect(admin.__schema.mutationType).toEqual({ name: 'mutation_root' });
    }
  });

  test('tenant_admin may write the tenant tables and none of the lookups or shared catalogues', async () => {
    const data = await gqlOk('{ __schema { mutationType { fields { name } } } }', as(ADMIN, acme.id));
    const mutations = new Set((data.__schema.mutationType.fields as { name: string }[]).map((f) => f.name));
    for (const t of TENANT_TABLES) {
      expect([
        t.name,
        mutations.has(`insert_${t.name}`),
        mutations.has(`update_${t.name}`),
        mutations.has(`delete_${t.name}`),
      ]).toEqual([t.name, true, true, true]);
    }
    for (const t of SHARED_TABLES) {
      expect([
        t.name,
        [...mutations].filter((m) => m === `insert_${t.name}` || m === `update_${t.name}` || m === `delete_${t.name}`),
      ]).toEqual([t.name, []]);
    }
  });

  test('an insert by tenant_admin takes the tenant from the session', async () => {
    const data = await gqlOk(
      `mutation { row: insert_k8s_namespaces_one(object: {cloud_account_id: "${acme.cloudAccounts.azure}", name: "catalogue-test", is_active: true}) { tenant_id name } }`,
      as(ADMIN, acme.id),
    );
    expect(data.row).toEqual({ tenant_id: acme.id, name: 'catalogue-test' });
    const other = await gqlOk(
      `{ row: k8s_namespaces_by_pk(cloud_account_id: "${acme.cloudAccounts.azure}", name: "catalogue-test", tenant_id: "${acme.id}") { name } }`,
      as(ADMIN, globex.id),
    );
    expect(other.row).toBeNull();
  });
});
