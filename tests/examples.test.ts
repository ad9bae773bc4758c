import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { EXAMPLES, withIds } from './support/examples';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * The reference's example requests, sent verbatim (admin secret acting as a tenant_admin of Acme),
 * answer from the demo data; each answer is checked against SQL written by hand here.
 */
const acme = DEMO.tenants.acme;
const session = as('tenant_admin', acme.id, acme.users.admin.id);
const ids = { account: acme.cloudAccounts.aws, integration: acme.integrationId };

describe(`reference examples on ${backendName}`, () => {
  let server: TestServer;
  /** Hand-written SQL whose single column `j` is JSON text. */
  const sqlJson = async (text: string, params: (string | null)[] = []) => {
    const [row] = await server.started.db.query(text, params);
    return JSON.parse(String(row.j));
  };
  const send = (name: keyof typeof EXAMPLES) => {
    const ex = EXAMPLES[name] as { query: string; variables?: unknown };
    return server.gql(ex.query, withIds(ex.variables, ids), session);
  };

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('ListCloudAccounts: the tenant’s accounts by name', async () => {
    const res = await send('ListCloudAccounts');
    expect(res.status).toBe(200);
    const expected = await sqlJson(
      `SELECT json_agg(json_build_object('id', id, 'account_name', account_name, 'cloud_provider', cloud_provider,
         'account_type', account_type, 'status', status, 'budget', budget, 'created_at', created_at) ORDER BY account_name)::text AS j
       FROM cloud_accounts WHERE tenant = $1::uuid`,
      [acme.id],
    );
    expect(expected).toHaveLength(DEMO.perTenant.cloudAccounts);
    expect(res.body).toEqual({ data: { cloud_accounts: expected } });
  });

  test('SpendByAccount: sum and count of January spends per account', async () => {
    const res = await send('SpendByAccount');
    const rows = res.body.data.cloud_accounts as {
      id: string;
      spends_aggregate: { aggregate: { sum: { amount: number }; count: number } };
    }[];
    const expected = await sqlJson(
      `SELECT json_object_agg(a.id, json_build_object('sum', (SELECT sum(amount) FROM spends s WHERE s.cloud_account = a.id AND s.date BETWEEN '2026-01-01' AND '2026-01-31T23:59:59'),
         'count', (SELECT count(*) FROM spends s WHERE s.cloud_account = a.id AND s.date BETWEEN '2026-01-01' AND '2026-01-31T23:59:59')))::text AS j
       FROM cloud_accounts a WHERE a.tenant = $1::uuid`,
      [acme.id],
    );
    expect(rows.map((r) => r.id).sort()).toEqual(Object.keys(expected).sort());
    for (const r of rows) {
      expect(r.spends_aggregate.aggregate.count).toBe(expected[r.id].count);
      expect(r.spends_aggregate.aggregate.count).toBeGreaterThan(0);
      expect(r.spends_aggregate.aggregate.sum.amount).toBeCloseTo(expected[r.id].sum, 6);
    }
  });

  test('GetRecommendations: Open and Assigned, by severity then savings, with the resource', async () => {
    const res = await send('GetRecommendations');
    const expected = await sqlJson(
      `SELECT json_agg(json_build_object('id', r.id, 'recommendation', r.recommendation, 'rule_name', r.rule_name, 'category', r.category,
         'severity', r.severity, 'status', r.status, 'estimated_savings', r.estimated_savings,
         'cloud_resourse', (SELECT json_build_object('name', c.name, 'region', c.region, 'service_name', c.service_name) FROM cloud_resourses c WHERE c.id = r.resource_id))
         ORDER BY r.severity ASC NULLS LAST, r.estimated_savings DESC NULLS FIRST)::text AS j
       FROM (SELECT * FROM recommendation WHERE tenant_id = $1::uuid AND status IN ('Open', 'Assigned')
             ORDER BY severity ASC NULLS LAST, estimated_savings DESC NULLS FIRST LIMIT 20) r`,
      [acme.id],
    );
    expect(expected.length).toBe(DEMO.perTenant.openOrAssignedRecommendations);
    expect(res.body).toEqual({
      data: { recommendation: expected, recommendation_aggregate: { aggregate: { count: expected.length } } },
    });
    expect(expected.every((r: { cloud_resourse: unknown }) => r.cloud_resourse !== null)).toBe(true);
  });

  test('ListK8sWorkloads: the account’s workloads by name', async () => {
    const res = await send('ListK8sWorkloads');
    const expected = await sqlJson(
      `SELECT json_agg(json_build_object('id', id, 'name', name, 'namespace', namespace, 'workload_type', workload_type, 'replicas', replicas,
         'status', status, 'cpu_request', cpu_request, 'cpu_limit', cpu_limit, 'memory_request', memory_request, 'memory_limit', memory_limit) ORDER BY name)::text AS j
       FROM k8s_workloads WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid`,
      [acme.id, ids.account],
    );
    expect(expected).toHaveLength(DEMO.perTenant.k8sWorkloadsPerAccount);
    expect(res.body).toEqual({ data: { k8s_workloads: expected } });
  });

  test('RecentEvents: newest first with the account name, and the total', async () => {
    const res = await send('RecentEvents');
    const expected = await sqlJson(
      `SELECT json_agg(json_build_object('id', e.id, 'title', e.title, 'severity', e.severity, 'source', e.source, 'status', e.status, 'created_at', e.created_at,
         'cloud_account', (SELECT json_build_object('account_name', a.account_name) FROM cloud_accounts a WHERE a.id = e.cloud_account_id)) ORDER BY e.created_at DESC)::text AS j
       FROM events e WHERE e.tenant = $1::uuid`,
      [acme.id],
    );
    expect(expected).toHaveLength(DEMO.perTenant.events);
    expect(res.body).toEqual({
      data: { events: expected, events_aggregate: { aggregate: { count: DEMO.perTenant.events } } },
    });
  });

  test('CreateTicket: stored in the tenant, answered in the platform’s shape', async () => {
    const res = await send('CreateTicket');
    const out = res.body.data.tickets_insert_one.data.insert_tickets_one;
    expect(out).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      ticket_id: expect.stringMatching(/^OPS-\d+$/),
      url: `http://localhost:8080/tickets/${out.ticket_id}`,
      message: expect.stringContaining(out.ticket_id),
    });
    const stored = await sqlJson(
      `SELECT json_build_object('tenant', tenant, 'title', title, 'severity', severity, 'project_key', project_key, 'source', source, 'account_id', account_id, 'ticket_id', ticket_id)::text AS j FROM tickets WHERE id = $1::uuid`,
      [out.id],
    );
    expect(stored).toEqual({
      tenant: acme.id,
      title: 'High CPU usage on prod-api-server',
      severity: 'High',
      project_key: 'OPS',
      source: 'nudgebee',
      account_id: ids.account,
      ticket_id: out.ticket_id,
    });
  });

  test('FetchLogs: production lines of the day, newest first', async () => {
    const res = await send('FetchLogs');
    const expected = await sqlJson(
      `SELECT coalesce(json_agg(json_build_object('timestamp', to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'severity', severity, 'message', message, 'labels', labels) ORDER BY ts DESC, id DESC), '[]')::text AS j
       FROM (SELECT * FROM logs WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid AND labels->>'namespace' = 'production'
             AND ts BETWEEN '2026-02-15T00:00:00Z' AND '2026-02-15T23:59:59Z' ORDER BY ts DESC, id DESC LIMIT 100) l`,
      [acme.id, ids.account],
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(res.body).toEqual({ data: { logs_query: expected } });
  });

  test('ListAutoPilotPolicies: newest first with the approval policy', async () => {
    const res = await send('ListAutoPilotPolicies');
    const expected = await sqlJson(
      `SELECT json_agg(json_build_object('id', p.id, 'name', p.name, 'description', p.description, 'status', p.status, 'trigger_type', p.trigger_type, 'created_at', p.created_at,
         'auto_pilot_approval_policy', (SELECT json_build_object('approval_type', a.approval_type, 'status', a.status) FROM auto_pilot_approval_policy a WHERE a.id = p.approval_policy_id))
         ORDER BY p.created_at DESC)::text AS j
       FROM auto_pilot p WHERE p.tenant_id = $1::uuid`,
      [acme.id],
    );
    expect(expected).toHaveLength(DEMO.perTenant.autoPilots);
    expect(res.body).toEqual({ data: { auto_pilot: expected } });
  });

  test('ListTenantUsers: the tenant’s users with their roles', async () => {
    const res = await send('ListTenantUsers');
    const users = (
      res.body.data.tenant_users as { user: { id: string; username: string; user_roles: { role: string }[] } }[]
    ).map((t) => t.user);
    expect(users.map((u) => u.id).sort()).toEqual([acme.users.admin.id, acme.users.readonly.id].sort());
    const admin = users.find((u) => u.id === acme.users.admin.id)!;
    expect(admin.username).toBe(acme.users.admin.username);
    expect(admin.user_roles).toContainEqual({ role: 'tenant_admin', entity_type: 'tenant', entity_id: acme.id });
  });

  test('CloudAccounts: three of the tenant’s accounts', async () => {
    const res = await send('CloudAccounts');
    const rows = res.body.data.cloud_accounts as { id: string }[];
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.id).sort()).toEqual(Object.values(acme.cloudAccounts).sort());
  });
});
