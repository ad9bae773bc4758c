import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * Kubernetes usage samples, workload monitoring and auto-optimize operations through HTTP, as a
 * tenant's users: k8s_metrics_groupings_v2, k8s_workloads_cloud_account_monitoring_v2,
 * k8s_workloads_cloud_account_monitoring_recommendations_v2, auto_optimize_recommendation and
 * auto_optimize_workload. Answers are checked against SQL written here by hand and against what the
 * fixture below was built to produce; another tenant's rows (including Globex rows that carry an
 * Acme account id) never appear.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const globexAdmin = as('tenant_admin', globex.id, globex.users.admin.id);
const AWS = acme.cloudAccounts.aws;
const GCP = acme.cloudAccounts.gcp;
const acmeAccounts = new Set<string>(Object.values(acme.cloudAccounts));
const globexAccounts: string[] = Object.values(globex.cloudAccounts);
/** The demo workload resource of Acme's aws api-server (demo/demo-data.ts, workloadSection). */
const API_SERVER_RESOURCE = '11111111-0007-4000-8000-000000000001';

type Row = Record<string, unknown>;

/** Fixture ids: kind 0fff is used by no demo table. */
const fx = (tenant: 'acme' | 'globex', n: number) =>
  `${tenant === 'acme' ? '11111111' : '22222222'}-0fff-4000-8000-${n.toString(16).padStart(12, '0')}`;
const REC = {
  onResource: fx('acme', 1), // aws, on api-server's own resource, Open
  byBody: fx('acme', 2), // aws, body names production/api-server, InProgress
  closed: fx('acme', 3), // aws, body names production/api-server, Closed: settled
  noStatus: fx('acme', 4), // aws, body names production/payments-worker, no status (Open)
  otherAccount: fx('acme', 5), // gcp, body names production/api-server: not aws's api-server
  otherNamespace: fx('acme', 6), // aws, body names staging/api-server: no such workload
  mlInference: fx('acme', 7), // gcp, body names production/ml-inference, Open
  inactive: fx('acme', 8), // aws, body names production/legacy-batch (an inactive workload)
  globexTrap: fx('globex', 1), // Globex tenant row carrying Acme's aws account, naming api-server
};

/** Efficiency helpers written here, independently of actions/kubernetes.ts: a request of 0 or null has no efficiency. */
const CPU_E = 'CASE WHEN cpu_request > 0 THEN cpu_used / cpu_request END';
const RAM_E = 'CASE WHEN memory_request > 0 THEN memory_used / memory_request END';
const EFF = `CASE WHEN (${CPU_E}) IS NOT NULL AND (${RAM_E}) IS NOT NULL THEN ((${CPU_E}) + (${RAM_E})) / 2 ELSE coalesce(${CPU_E}, ${RAM_E}) END`;
const METRIC_AGGREGATES: [string, string][] = [
  ['avg_cpu_efficiency', `avg(${CPU_E})`],
  ['max_cpu_efficiency', `max(${CPU_E})`],
  ['avg_cpu_request', 'avg(cpu_request)'],
  ['max_cpu_request', 'max(cpu_request)'],
  ['avg_cpu_used', 'avg(cpu_used)'],
  ['max_cpu_used', 'max(cpu_used)'],
  ['avg_efficiency', `avg(${EFF})`],
  ['max_efficiency', `max(${EFF})`],
  ['avg_memory_request', 'avg(memory_request)'],
  ['max_memory_request', 'max(memory_request)'],
  ['avg_memory_used', 'avg(memory_used)'],
  ['max_memory_used', 'max(memory_used)'],
  ['avg_ram_efficiency', `avg(${RAM_E})`],
  ['max_ram_efficiency', `max(${RAM_E})`],
  ['cost', 'sum(cost)'],
  ['sum_egress', 'sum(egress)'],
  ['sum_ingress', 'sum(ingress)'],
];
const METRIC_SELECT = METRIC_AGGREGATES.map(([name, expr]) => `(${expr})::float8 AS ${name}`).join(', ');
const METRIC_NAMES = METRIC_AGGREGATES.map(([name]) => name).join(' ');

const WORKLOAD_KINDS = `('cronjob', 'daemonset', 'deployment', 'job', 'replicaset', 'rollout', 'statefulset')`;

describe(`Kubernetes metrics, workload monitoring and auto-optimize operations on ${backendName}`, () => {
  let server: TestServer;
  const gql = (doc: string, headers = readonly) => server.gql(doc, {}, headers);
  const query = async (doc: string, headers = readonly): Promise<Record<string, unknown>> => {
    const res = await gql(doc, headers);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const rows = async (field: string, args: string, selection: string, headers = readonly): Promise<Row[]> => {
    const data = await query(`{ ${field}${args ? `(${args})` : ''} { rows { ${selection} } } }`, headers);
    return (data[field] as { rows: Row[] }).rows;
  };
  /** The error of a refused request: exactly one, with no data for the field. */
  const refused = async (doc: string, headers = readonly) => {
    const res = await gql(doc, headers);
    expect(res.body.errors).toHaveLength(1);
    return res.body.errors[0] as { message: string; extensions: { code: string; path?: string } };
  };
  const sql = (text: string, params: (string | null)[] = [acme.id]) => server.started.db.query(text, params);
  /** Equal numbers within a relative 1e-9 (sums of large byte counts differ in the last bits by summation order), or both null. */
  const near = (got: unknown, want: unknown, what = '') => {
    if (want === null || want === undefined) return expect([what, got]).toEqual([what, null]);
    expect(typeof got).toBe('number');
    const diff = Math.abs(Number(got) - Number(want));
    expect([what, diff <= 1e-9 * Math.max(1, Math.abs(Number(want)))]).toEqual([what, true]);
  };

  beforeAll(async () => {
    server = await startTestServer();

    // Workloads: an inactive one (history, never monitored nor optimized) and a gcp one whose app
    // label differs from its name (its logs are found by the label).
    await sql(
      `INSERT INTO k8s_workloads (tenant_id, cloud_account_id, cloud_resource_id, external_id, name, namespace, kind, workload_type, status,
        ready_pods, total_pods, labels, is_active, creation_time, last_seen)
      VALUES ($1, $2, $3, 'legacy', 'legacy-batch', 'production', 'Deployment', 'Deployment', 'Running', 0, 0, '{"app": "legacy-batch"}', false, '2024-11-02 10:00:00', '2025-12-01 00:00:00'),
             ($1, $4, $5, 'checkout', 'checkout', 'production', 'Deployment', 'Deployment', 'Running', 2, 2, '{"app": "shop-checkout"}', true, '2026-01-20 08:30:00', '2026-02-28 23:00:00')`,
      [acme.id, AWS, fx('acme', 0x101), GCP, fx('acme', 0x102)],
    );

    // Pods of aws api-server: failing now, restarted, pending, and failed but gone.
    const pod = (
      n: number,
      name: string,
      status: string,
      restarts: Record<string, number>,
      active: boolean,
      tenant: string = acme.id,
      account: string = AWS,
    ) =>
      sql(
        `INSERT INTO k8s_pods (tenant_id, cloud_account_id, cloud_resource_id, external_id, name, namespace, workload_name, workload_type, status, restart_count, is_active)
        VALUES ($1, $2, $3, $4, $4, 'production', 'api-server', 'Deployment', $5, $6::jsonb, $7::boolean)`,
        [
          tenant,
          account,
          fx(tenant === acme.id ? 'acme' : 'globex', 0x200 + n),
          name,
          status,
          JSON.stringify(restarts),
          String(active),
        ],
      );
    await pod(1, 'api-server-crash', 'CrashLoopBackOff', { api: 0 }, true);
    await pod(2, 'api-server-restarted', 'Running', { api: 0, sidecar: 2 }, true);
    await pod(3, 'api-server-pending', 'Pending', { api: 0 }, true);
    await pod(4, 'api-server-old', 'Failed', { api: 7 }, false);
    await pod(5, 'api-server-trap', 'Failed', { api: 1 }, true, globex.id); // Globex tenant, Acme account

    // Events about aws api-server: one on a pod it owns, three SLOs (one recovered, two still
    // firing, one known by its aggregation key only), one in another account, one of Globex.
    const event = (
      tenant: string,
      account: string,
      e: {
        source: string;
        status: string;
        key: string;
        fingerprint: string | null;
        subject: string;
        type: string;
        owner: string | null;
        at: string;
      },
    ) =>
      sql(
        `INSERT INTO events (tenant, cloud_account_id, title, severity, priority, urgency, source, status, aggregation_key, fingerprint, finding_id, finding_type,
          cluster, subject_name, subject_namespace, subject_owner, subject_type, created_at)
        VALUES ($1, $2, $3, 'HIGH', 'HIGH', 'HIGH', $4, $5, $6, $7, $6, 'issue', 'fixture', $8, 'production', $9, $10, $11::timestamp)`,
        [
          tenant,
          account,
          `fixture ${e.key} ${e.at}`,
          e.source,
          e.status,
          e.key,
          e.fingerprint,
          e.subject,
          e.owner,
          e.type,
          e.at,
        ],
      );
    const apiSlo = (key: string, fingerprint: string | null, status: string, at: string) =>
      event(acme.id, AWS, {
        source: 'slo',
        status,
        key,
        fingerprint,
        subject: 'api-server',
        type: 'deployment',
        owner: null,
        at,
      });
    await event(acme.id, AWS, {
      source: 'kubernetes_api_server',
      status: 'FIRING',
      key: 'crash:api',
      fingerprint: 'fx-crash-api',
      subject: 'api-server-crash',
      type: 'pod',
      owner: 'api-server',
      at: '2026-02-26 10:00:00',
    });
    // A pod event whose owner is the ReplicaSet: api-server's through the pod row; one whose pod is unknown stays its owner's.
    await event(acme.id, AWS, {
      source: 'kubernetes_api_server',
      status: 'FIRING',
      key: 'oom:api',
      fingerprint: 'fx-oom-api',
      subject: 'api-server-restarted',
      type: 'pod',
      owner: 'api-server-7c9f8b6d4',
      at: '2026-02-26 11:00:00',
    });
    await event(acme.id, AWS, {
      source: 'kubernetes_api_server',
      status: 'FIRING',
      key: 'oom:ghost',
      fingerprint: 'fx-oom-ghost',
      subject: 'api-server-ghost-x1',
      type: 'pod',
      owner: 'api-server-7c9f8b6d4',
      at: '2026-02-26 12:00:00',
    });
    await apiSlo('slo:latency-api', 'fx-slo-latency-api', 'FIRING', '2026-02-20 10:00:00');
    await apiSlo('slo:latency-api', 'fx-slo-latency-api', 'RESOLVED', '2026-02-21 10:00:00');
    await apiSlo('slo:errors-api', 'fx-slo-errors-api', 'RESOLVED', '2026-02-20 11:00:00');
    await apiSlo('slo:errors-api', 'fx-slo-errors-api', 'FIRING', '2026-02-22 11:00:00');
    await apiSlo('slo:availability-api', null, 'FIRING', '2026-02-23 12:00:00');
    await event(acme.id, GCP, {
      source: 'slo',
      status: 'FIRING',
      key: 'slo:gcp-api',
      fingerprint: 'fx-slo-gcp-api',
      subject: 'api-server',
      type: 'deployment',
      owner: null,
      at: '2026-02-23 12:00:00',
    });
    await event(globex.id, AWS, {
      source: 'slo',
      status: 'FIRING',
      key: 'slo:trap',
      fingerprint: 'fx-slo-trap',
      subject: 'api-server',
      type: 'deployment',
      owner: null,
      at: '2026-02-24 12:00:00',
    });

    // Logs: error-like lines of api-server (any case), lines that are not errors, lines of another
    // account and of Globex, and checkout's lines, found by its app label and not by its name.
    const log = (tenant: string, account: string, app: string, severity: string) =>
      sql(
        `INSERT INTO logs (tenant_id, cloud_account_id, ts, severity, message, labels) VALUES ($1, $2, '2026-02-27 09:00:00+00', $3, 'fixture line', $4::jsonb)`,
        [tenant, account, severity, JSON.stringify({ namespace: 'production', app, pod: `${app}-fx` })],
      );
    for (const severity of ['error', 'ERROR', 'critical', 'Fatal', 'warn', 'info'])
      await log(acme.id, AWS, 'api-server', severity);
    await log(acme.id, GCP, 'api-server', 'error');
    await log(globex.id, AWS, 'api-server', 'error');
    for (const severity of ['error', 'critical', 'debug']) await log(acme.id, GCP, 'shop-checkout', severity);
    await log(acme.id, GCP, 'checkout', 'error');

    // Recommendations on workloads: api-server's resource needs a cloud resource row for the key.
    await sql(
      `INSERT INTO cloud_resourses (id, tenant, account, cloud_provider, name, type, region) VALUES ($1, $2, $3, 'AWS', 'api-server', 'k8s_workload', 'us-east-1')`,
      [API_SERVER_RESOURCE, acme.id, AWS],
    );
    const rec = (
      id: string,
      tenant: string,
      account: string,
      resource: string | null,
      status: string | null,
      rule: string,
      category: string,
      body: Record<string, unknown>,
      at: string,
    ) =>
      sql(
        `INSERT INTO recommendation (id, tenant_id, cloud_account_id, resource_id, rule_name, category, recommendation_action, severity, status, recommendation, estimated_savings, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, 'Modify', 'Medium', $7, $8::jsonb, 12.5, $9::timestamp)`,
        [id, tenant, account, resource, rule, category, status, JSON.stringify(body), at],
      );
    const names = (namespace: string, workload: string) => ({
      title: 'Right-size the workload',
      namespace,
      workload_name: workload,
    });
    await rec(
      REC.onResource,
      acme.id,
      AWS,
      API_SERVER_RESOURCE,
      'Open',
      'k8s_workload_rightsizing',
      'RightSizing',
      { title: 'Right-size api-server' },
      '2026-02-01 09:00:00',
    );
    await rec(
      REC.byBody,
      acme.id,
      AWS,
      null,
      'InProgress',
      'k8s_workload_rightsizing',
      'RightSizing',
      names('production', 'api-server'),
      '2026-02-02 09:00:00',
    );
    await rec(
      REC.closed,
      acme.id,
      AWS,
      null,
      'Closed',
      'k8s_workload_rightsizing',
      'RightSizing',
      names('production', 'api-server'),
      '2026-02-03 09:00:00',
    );
    await rec(
      REC.noStatus,
      acme.id,
      AWS,
      null,
      null,
      'k8s_memory_limit',
      'Configuration',
      names('production', 'payments-worker'),
      '2026-02-04 09:00:00',
    );
    await rec(
      REC.otherAccount,
      acme.id,
      GCP,
      null,
      'Open',
      'k8s_workload_rightsizing',
      'RightSizing',
      names('production', 'api-server'),
      '2026-02-05 09:00:00',
    );
    await rec(
      REC.otherNamespace,
      acme.id,
      AWS,
      null,
      'Open',
      'k8s_workload_rightsizing',
      'RightSizing',
      names('staging', 'api-server'),
      '2026-02-06 09:00:00',
    );
    await rec(
      REC.mlInference,
      acme.id,
      GCP,
      null,
      'Open',
      'k8s_workload_rightsizing',
      'RightSizing',
      names('production', 'ml-inference'),
      '2026-02-07 09:00:00',
    );
    await rec(
      REC.inactive,
      acme.id,
      AWS,
      null,
      'Open',
      'k8s_workload_rightsizing',
      'RightSizing',
      names('production', 'legacy-batch'),
      '2026-02-08 09:00:00',
    );
    await rec(
      REC.globexTrap,
      globex.id,
      AWS,
      null,
      'Open',
      'k8s_workload_rightsizing',
      'RightSizing',
      names('production', 'api-server'),
      '2026-02-09 09:00:00',
    );

    // Usage samples of a probe pod whose efficiencies are known by hand (requests missing or 0),
    // and a Globex sample filed under Acme's account that must count nowhere for Acme.
    const sample = (
      tenant: string,
      at: string,
      cpuRequest: number | null,
      cpuUsed: number,
      memRequest: number | null,
      memUsed: number,
    ) =>
      sql(
        `INSERT INTO k8s_metrics (tenant_id, cloud_account_id, "timestamp", node_name, namespace, pod_name, workload_name, workload_type,
          cpu_request, cpu_used, memory_request, memory_used, ingress, egress, cost)
        VALUES ($1, $2, $3::timestamp, 'probe-node', 'probe', 'probe-0', 'probe', 'Deployment', $4::float8, $5::float8, $6::float8, $7::float8, 1000, 10, 0.25)`,
        [
          tenant,
          AWS,
          at,
          cpuRequest === null ? null : String(cpuRequest),
          String(cpuUsed),
          memRequest === null ? null : String(memRequest),
          String(memUsed),
        ],
      );
    await sample(acme.id, '2026-02-22 01:00:00', 0.5, 0.25, null, 100); // cpu 0.5, ram unknown: 0.5
    await sample(acme.id, '2026-02-22 02:00:00', 0, 0.1, 1000, 250); // cpu unknown (0 requested), ram 0.25: 0.25
    await sample(acme.id, '2026-02-22 03:00:00', 1, 0.9, 1000, 500); // cpu 0.9, ram 0.5: 0.7
    await sample(acme.id, '2026-02-22 04:00:00', null, 0.3, null, 300); // nothing requested: no efficiency
    await sample(globex.id, '2026-02-22 05:00:00', 0.1, 5, 10, 500); // efficiency 50: would show in max_* if it leaked
  });
  afterAll(() => server.close());

  // -------------------------------------------------------------------------------------------
  describe('k8s_metrics_groupings_v2', () => {
    test('grouped by account and workload: every aggregate matches SQL, for both tenant roles', async () => {
      const expected = await sql(`SELECT cloud_account_id::text AS account_id, workload_name, ${METRIC_SELECT}
        FROM k8s_metrics WHERE tenant_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`);
      expect(expected.length).toBe(12); // 11 demo pods with samples (redis is Pending) and the probe
      for (const headers of [readonly, admin]) {
        const got = await rows(
          'k8s_metrics_groupings_v2',
          'group_by: ["account_id", "workload_name"], order_by: [{column: "account_id"}, {column: "workload_name"}]',
          `account_id workload_name tenant_id ${METRIC_NAMES}`,
          headers,
        );
        expect(got.map((g) => [g.account_id, g.workload_name])).toEqual(
          expected.map((e) => [e.account_id, e.workload_name]),
        );
        got.forEach((g, i) => {
          expect(g.tenant_id).toBe(acme.id);
          for (const [name] of METRIC_AGGREGATES) near(g[name], expected[i][name], `${g.workload_name}.${name}`);
        });
      }
      // The totals add up to the tenant's samples.
      const [total] = await sql(
        'SELECT sum(cost)::float8 AS cost, sum(ingress)::float8 AS ingress FROM k8s_metrics WHERE tenant_id = $1',
      );
      const all = await rows('k8s_metrics_groupings_v2', '', 'cost sum_ingress tenant_id');
      expect(all).toHaveLength(1);
      near(all[0].cost, total.cost);
      near(all[0].sum_ingress, total.ingress);
    });

    test('efficiencies are use / request per sample; a missing or zero request has none (probe pod, values known by hand)', async () => {
      const [probe] = await rows(
        'k8s_metrics_groupings_v2',
        'where: {namespace_name: {_eq: "probe"}}, group_by: ["pod_fqdn", "workload_fqdn"]',
        `pod_fqdn workload_fqdn ${METRIC_NAMES}`,
      );
      expect(probe).toMatchObject({ pod_fqdn: 'probe/probe-0', workload_fqdn: 'probe/Deployment/probe' });
      near(probe.avg_cpu_efficiency, (0.5 + 0.9) / 2);
      near(probe.max_cpu_efficiency, 0.9);
      near(probe.avg_ram_efficiency, (0.25 + 0.5) / 2);
      near(probe.max_ram_efficiency, 0.5);
      near(probe.avg_efficiency, (0.5 + 0.25 + 0.7) / 3);
      near(probe.max_efficiency, 0.7);
      near(probe.avg_cpu_request, (0.5 + 0 + 1) / 3);
      near(probe.max_memory_request, 1000);
      near(probe.avg_memory_used, (100 + 250 + 500 + 300) / 4);
      near(probe.avg_cpu_used, (0.25 + 0.1 + 0.9 + 0.3) / 4);
      near(probe.cost, 4 * 0.25);
      near(probe.sum_ingress, 4000);
      near(probe.sum_egress, 40);
    });

    test('by day (a date_trunc transformation) in one account and namespace, within a time range', async () => {
      const expected = await sql(
        `SELECT to_char(date_trunc('day', "timestamp"), 'YYYY-MM-DD"T"HH24:MI:SS') AS day, ${METRIC_SELECT}
        FROM k8s_metrics WHERE tenant_id = $1 AND cloud_account_id = $2 AND namespace = 'production'
          AND "timestamp" >= '2026-02-23 18:00:00' AND "timestamp" < '2026-02-26 00:00:00' GROUP BY 1 ORDER BY 1`,
        [acme.id, AWS],
      );
      // The production pods of aws started on the 23rd; the range starts within that day.
      expect(expected.map((e) => e.day)).toEqual(['2026-02-23T00:00:00', '2026-02-24T00:00:00', '2026-02-25T00:00:00']);
      const got = await rows(
        'k8s_metrics_groupings_v2',
        `column_transformations: [{name: "timestamp", expr: "date_trunc", args: ["day", "timestamp"]}],
        group_by: ["timestamp"], order_by: [{column: "timestamp"}],
        where: {account_id: {_eq: "${AWS}"}, namespace_name: {_eq: "production"}, timestamp: {_between: {_gte: "2026-02-23T18:00:00", _lt: "2026-02-26T00:00:00Z"}}}`,
        `timestamp ${METRIC_NAMES}`,
        admin,
      );
      expect(got.map((g) => g.timestamp)).toEqual(expected.map((e) => e.day));
      got.forEach((g, i) => {
        for (const [name] of METRIC_AGGREGATES) near(g[name], expected[i][name], `${g.timestamp}.${name}`);
      });
    });

    test('columns without group_by group by the plain columns; order_by an aggregate, with limit and offset', async () => {
      const expected =
        await sql(`SELECT namespace, sum(cost)::float8 AS cost, max(memory_used)::float8 AS mem FROM k8s_metrics WHERE tenant_id = $1
        GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 2 OFFSET 1`);
      expect(expected).toHaveLength(2);
      const got = await rows(
        'k8s_metrics_groupings_v2',
        'columns: ["namespace_name", "cost", "max_memory_used"], order_by: [{column: "cost", order: desc}], limit: 2, offset: 1',
        'namespace_name cost max_memory_used avg_cpu_used workload_name',
      );
      expect(got.map((g) => g.namespace_name)).toEqual(expected.map((e) => e.namespace));
      got.forEach((g, i) => {
        near(g.cost, expected[i].cost);
        near(g.max_memory_used, expected[i].mem);
        // Only the columns asked for are computed.
        expect([g.avg_cpu_used, g.workload_name]).toEqual([null, null]);
      });
    });

    test('where with _or, _not, _like and _in on workload fields matches SQL', async () => {
      const expected =
        await sql(`SELECT workload_name, workload_type, sum(cost)::float8 AS cost, avg(${EFF})::float8 AS eff FROM k8s_metrics
        WHERE tenant_id = $1 AND (workload_type = 'StatefulSet' OR pod_name LIKE 'api-%') AND NOT coalesce(node_name LIKE 'gke-%', false)
          AND workload_type IN ('Deployment', 'StatefulSet') GROUP BY 1, 2 ORDER BY 3 DESC, 1`);
      expect(expected.map((e) => e.workload_name).sort()).toEqual(['api-server', 'postgres', 'prometheus-server']);
      const got = await rows(
        'k8s_metrics_groupings_v2',
        `group_by: ["workload_name", "workload_type"],
        where: {_or: [{workload_type: {_eq: "StatefulSet"}}, {pod_name: {_like: "api-%"}}], _not: {node_name: {_like: "gke-%"}}, workload_type: {_in: ["Deployment", "StatefulSet"]}},
        order_by: [{column: "cost", order: desc}, {column: "workload_name"}]`,
        'workload_name workload_type cost avg_efficiency',
      );
      expect(got.map((g) => [g.workload_name, g.workload_type])).toEqual(
        expected.map((e) => [e.workload_name, e.workload_type]),
      );
      got.forEach((g, i) => {
        near(g.cost, expected[i].cost);
        near(g.avg_efficiency, expected[i].eff);
      });
    });

    test("samples are of the tenant's real pods and workloads: their FQDNs are those of k8s_pods_v2 and k8s_workloads_v2", async () => {
      const got = await rows(
        'k8s_metrics_groupings_v2',
        `group_by: ["account_id", "pod_fqdn", "pod_name", "namespace_name", "node_name", "workload_fqdn", "workload_name", "workload_type"],
        where: {namespace_name: {_neq: "probe"}}, order_by: [{column: "pod_fqdn"}]`,
        'account_id pod_fqdn pod_name namespace_name node_name workload_fqdn workload_name workload_type cost',
      );
      const pods = await rows(
        'k8s_pods_v2',
        'where: {status: {_neq: "Pending"}, external_id: {_like: "%/pod/%"}}',
        'account_id pod_fqdn name node_name workload_name workload_type',
      );
      const workloads = await rows('k8s_workloads_v2', '', 'account_id namespace name kind workload_fqdn');
      // Every demo pod that runs (not Pending) has samples, and nothing else has.
      expect(got.map((g) => `${g.account_id} ${g.pod_fqdn}`).sort()).toEqual(
        pods.map((p) => `${p.account_id} ${p.pod_fqdn}`).sort(),
      );
      expect(got).toHaveLength(11);
      for (const g of got) {
        expect(g.pod_fqdn).toBe(`${g.namespace_name}/${g.pod_name}`);
        const p = pods.find((x) => x.account_id === g.account_id && x.pod_fqdn === g.pod_fqdn)!;
        expect([g.node_name, g.workload_name, g.workload_type]).toEqual([
          p.node_name,
          p.workload_name,
          p.workload_type,
        ]);
        const w = workloads.filter(
          (x) => x.account_id === g.account_id && x.namespace === g.namespace_name && x.name === g.workload_name,
        );
        expect(w).toHaveLength(1);
        expect(g.workload_fqdn).toBe(w[0].workload_fqdn);
        expect(g.workload_type).toBe(w[0].kind);
        expect(Number(g.cost)).toBeGreaterThan(0);
      }
    });

    test("never sees another tenant's samples, even when asked for them or filed under the caller's account", async () => {
      const got = await rows(
        'k8s_metrics_groupings_v2',
        `group_by: ["tenant_id", "account_id"], where: {_or: [{tenant_id: {_eq: "${globex.id}"}}, {account_id: {_in: ${JSON.stringify([...globexAccounts, GCP])}}}]}`,
        'tenant_id account_id cost',
      );
      expect(got.map((g) => [g.tenant_id, g.account_id])).toEqual([[acme.id, GCP]]);
      expect(
        await rows(
          'k8s_metrics_groupings_v2',
          `group_by: ["account_id"], where: {tenant_id: {_eq: "${globex.id}"}}`,
          'account_id cost',
        ),
      ).toEqual([]);
      // The Globex sample in Acme's aws account (efficiency 50) shows in neither the maxima nor the sums.
      const [max] = await rows('k8s_metrics_groupings_v2', '', 'max_cpu_efficiency max_ram_efficiency max_cpu_used');
      const [{ cpu, ram, used }] = await sql(
        `SELECT max(${CPU_E})::float8 AS cpu, max(${RAM_E})::float8 AS ram, max(cpu_used)::float8 AS used FROM k8s_metrics WHERE tenant_id = $1`,
      );
      near(max.max_cpu_efficiency, cpu);
      near(max.max_ram_efficiency, ram);
      near(max.max_cpu_used, used);
      expect(Number(max.max_cpu_efficiency)).toBeLessThan(5);
      // Globex sees its own samples, in its own accounts only.
      const theirs = await rows(
        'k8s_metrics_groupings_v2',
        'group_by: ["account_id"], order_by: [{column: "account_id"}]',
        'account_id tenant_id cost',
        globexAdmin,
      );
      const expected = await sql(
        'SELECT cloud_account_id::text AS account, sum(cost)::float8 AS cost FROM k8s_metrics WHERE tenant_id = $1 GROUP BY 1 ORDER BY 1',
        [globex.id],
      );
      expect(theirs.map((t) => t.account_id)).toEqual(expected.map((e) => e.account));
      theirs.forEach((t, i) => near(t.cost, expected[i].cost));
      expect(theirs.every((t) => t.tenant_id === globex.id)).toBe(true);
      // The trap sample is Globex's (its tenant), though under Acme's account id: it shows for Globex.
      expect(theirs.filter((t) => acmeAccounts.has(t.account_id as string)).map((t) => t.account_id)).toEqual([AWS]);
    });

    test.each([
      [
        'an unknown column',
        'columns: ["cpu_usage"]',
        /unknown column of k8s_metrics_groupings_v2 "cpu_usage"; allowed: .*avg_cpu_efficiency/,
        '$.columns[0]',
      ],
      [
        'an unknown group_by column',
        'group_by: ["cluster"]',
        /unknown group_by column of k8s_metrics_groupings_v2 "cluster"/,
        '$.group_by[0]',
      ],
      ['grouping by an aggregate', 'group_by: ["cost"]', /cannot group by the aggregate cost/, '$.group_by[0]'],
      [
        'a column neither grouped nor aggregated',
        'group_by: ["namespace_name"], columns: ["namespace_name", "pod_name", "cost"]',
        /column pod_name is neither in group_by \(namespace_name\) nor an aggregate/,
        '$.columns[1]',
      ],
      [
        'an order_by column that is not a group',
        'group_by: ["namespace_name"], columns: ["namespace_name", "cost"], order_by: [{column: "pod_name"}]',
        /cannot order by pod_name/,
        '$.order_by[0].column',
      ],
      [
        'offset without order_by',
        'group_by: ["namespace_name"], offset: 1',
        /"offset" can only be used together with "order_by"/,
        '$.offset',
      ],
    ])('%s is validation-failed', async (_name, args, message, path) => {
      const error = await refused(`{ k8s_metrics_groupings_v2(${args}) { rows { namespace_name cost } } }`);
      expect(error.extensions).toEqual({ code: 'validation-failed', path });
      expect(error.message).toMatch(message);
    });

    test('a where field or operator the request type does not have is refused by the schema', async () => {
      for (const args of ['where: {cpu_used: {_gt: 1}}', 'where: {timestamp: {_like: "2026%"}}']) {
        const error = await refused(`{ k8s_metrics_groupings_v2(${args}) { rows { cost } } }`);
        expect(error.extensions.code).toBe('validation-failed');
      }
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('k8s_workloads_cloud_account_monitoring_v2', () => {
    const FIELDS =
      'workload_id account_id account_name name namespace creation_time ready_pods total_pods pod_error_count application_error_count event_count total_slo_count failed_slo_count';
    /** Hand-written: one row per active workload, each count by a correlated subquery. */
    /**
     * Whether event `e` is about workload `w`: a pod event by the workload its pod row names (its owner
     * is usually a ReplicaSet), else by its owner; other events by their owner, or themselves when they
     * are a workload.
     */
    const aboutWorkload = (e: string) => `(CASE WHEN lower(${e}.subject_type) = 'pod'
        THEN coalesce((SELECT max(p.workload_name) FROM k8s_pods p WHERE p.tenant_id = ${e}.tenant AND p.cloud_account_id = ${e}.cloud_account_id
                         AND p.namespace = ${e}.subject_namespace AND p.name = ${e}.subject_name), ${e}.subject_owner) = w.name
        ELSE (${e}.subject_owner = w.name OR (${e}.subject_owner IS NULL AND ${e}.subject_name = w.name AND lower(${e}.subject_type) IN ${WORKLOAD_KINDS})) END)`;
    const monitoring = (extra = '', params: (string | null)[] = [acme.id]) =>
      sql(
        `
      SELECT w.id::text AS workload_id, w.cloud_account_id::text AS account_id, a.account_name, w.name, w.namespace,
        to_char(w.creation_time, 'YYYY-MM-DD"T"HH24:MI:SS') AS creation_time, w.ready_pods, w.total_pods,
        (SELECT count(*)::int FROM k8s_pods p WHERE p.tenant_id = w.tenant_id AND p.cloud_account_id = w.cloud_account_id AND p.namespace = w.namespace
           AND p.workload_name = w.name AND p.is_active
           AND (p.status NOT IN ('Running', 'Succeeded', 'Pending')
             OR coalesce((SELECT sum(r.value::int) FROM jsonb_each_text(p.restart_count) r), 0) > 0)) AS pod_error_count,
        (SELECT count(*)::int FROM logs l WHERE l.tenant_id = w.tenant_id AND l.cloud_account_id = w.cloud_account_id
           AND l.labels ->> 'namespace' = w.namespace AND l.labels ->> 'app' = coalesce(w.labels ->> 'app', w.name)
           AND lower(l.severity) IN ('error', 'critical', 'fatal')) AS application_error_count,
        (SELECT count(*)::int FROM events e WHERE e.tenant = w.tenant_id AND e.cloud_account_id = w.cloud_account_id AND e.subject_namespace = w.namespace
           AND ${aboutWorkload('e')}) AS event_count,
        (SELECT count(DISTINCT coalesce(e.fingerprint, e.aggregation_key))::int FROM events e WHERE e.tenant = w.tenant_id AND e.cloud_account_id = w.cloud_account_id
           AND e.subject_namespace = w.namespace AND e.source = 'slo'
           AND ${aboutWorkload('e')}) AS total_slo_count,
        (SELECT count(*)::int FROM events e WHERE e.tenant = w.tenant_id AND e.cloud_account_id = w.cloud_account_id AND e.subject_namespace = w.namespace
           AND e.source = 'slo' AND e.status = 'FIRING'
           AND ${aboutWorkload('e')}
           AND NOT EXISTS (SELECT 1 FROM events later WHERE later.tenant = w.tenant_id AND later.cloud_account_id = w.cloud_account_id AND later.source = 'slo'
             AND later.subject_namespace = w.namespace
             AND ${aboutWorkload('later')}
             AND coalesce(later.fingerprint, later.aggregation_key) = coalesce(e.fingerprint, e.aggregation_key)
             AND (later.created_at, later.id) > (e.created_at, e.id))) AS failed_slo_count
      FROM k8s_workloads w JOIN cloud_accounts a ON a.id = w.cloud_account_id
      WHERE w.tenant_id = $1 AND w.is_active ${extra}`,
        params,
      );

    test('every active workload with its pods, errors, events and SLOs matches SQL, for both tenant roles', async () => {
      const expected = await monitoring('ORDER BY w.cloud_account_id, w.namespace, w.name');
      expect(expected).toHaveLength(13); // 12 demo workloads and checkout; legacy-batch is inactive
      for (const headers of [readonly, admin]) {
        const got = await rows(
          'k8s_workloads_cloud_account_monitoring_v2',
          'order_by: [{column: "account_id"}, {column: "namespace"}, {column: "name"}]',
          FIELDS,
          headers,
        );
        expect(got).toEqual(expected);
      }
    });

    test('the counts mean what they say (fixture workloads, values known by hand)', async () => {
      const got = await rows(
        'k8s_workloads_cloud_account_monitoring_v2',
        `where: {name: {_in: ["api-server", "checkout", "payments-worker", "legacy-batch"]}}`,
        FIELDS,
        admin,
      );
      const byKey = new Map(got.map((g) => [`${g.account_id} ${g.name}`, g]));
      expect([...byKey.keys()].sort()).toEqual(
        [`${AWS} api-server`, `${AWS} payments-worker`, `${GCP} checkout`].sort(),
      );
      // api-server: a crash-looping pod and a restarted one (not the pending one, not the failed pod
      // that is gone, not Globex's); error, ERROR, critical and Fatal lines (not warn/info, not those of
      // another account or tenant); two pod events (one owned by its ReplicaSet, found through its pod row) and five SLO events; SLOs latency (recovered), errors
      // and availability (firing), not the gcp or Globex ones.
      // The demo set's own error lines of api-server count too: counted here from its labels.
      const [demo] = await sql(
        `SELECT count(*)::int AS n FROM logs WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid
        AND labels @> '{"namespace": "production", "app": "api-server"}' AND lower(severity) IN ('error', 'critical', 'fatal') AND message <> 'fixture line'`,
        [acme.id, AWS],
      );
      expect(byKey.get(`${AWS} api-server`)).toMatchObject({
        account_name: 'acme-aws-production',
        namespace: 'production',
        ready_pods: 4,
        total_pods: 4,
        pod_error_count: 2,
        application_error_count: 4 + Number(demo.n),
        event_count: 7,
        total_slo_count: 3,
        failed_slo_count: 2,
      });
      // payments-worker: its demo pod restarted.
      expect(byKey.get(`${AWS} payments-worker`)).toMatchObject({ pod_error_count: 1, failed_slo_count: 0 });
      // checkout: its logs are found by its app label (shop-checkout), not its name.
      expect(byKey.get(`${GCP} checkout`)).toMatchObject({
        account_name: 'acme-gcp-analytics',
        creation_time: '2026-01-20T08:30:00',
        application_error_count: 2,
        pod_error_count: 0,
        event_count: 0,
      });
    });

    test('where on namespace, name and creation time (ISO text), ordered by counts, matches SQL', async () => {
      const expected = await monitoring(
        `AND w.namespace = 'production' AND w.name ILIKE '%e%' AND to_char(w.creation_time, 'YYYY-MM-DD"T"HH24:MI:SS') LIKE '2025-0%'
        AND w.cloud_account_id = $2 ORDER BY event_count DESC, w.name`,
        [acme.id, AWS],
      );
      expect(expected.length).toBeGreaterThan(1);
      const got = await rows(
        'k8s_workloads_cloud_account_monitoring_v2',
        `where: {namespace: {_eq: "production"}, name: {_ilike: "%E%"}, creation_time: {_like: "2025-0%"}, account_id: {_eq: "${AWS}"}},
        order_by: [{column: "event_count", order: desc}, {column: "name"}]`,
        FIELDS,
      );
      expect(got).toEqual(expected);
      const recent = await rows(
        'k8s_workloads_cloud_account_monitoring_v2',
        'where: {creation_time: {_like: "2026-01-%"}}',
        'name creation_time',
      );
      expect(recent).toEqual([{ name: 'checkout', creation_time: '2026-01-20T08:30:00' }]);
    });

    test("never sees another tenant's workloads, and Globex sees its own only", async () => {
      expect(
        await rows('k8s_workloads_cloud_account_monitoring_v2', `where: {tenant_id: {_eq: "${globex.id}"}}`, 'name'),
      ).toEqual([]);
      expect(
        await rows(
          'k8s_workloads_cloud_account_monitoring_v2',
          `where: {account_id: {_in: ${JSON.stringify(globexAccounts)}}}`,
          'name',
        ),
      ).toEqual([]);
      const all = await rows('k8s_workloads_cloud_account_monitoring_v2', '', 'account_id workload_id');
      expect(all.every((r) => acmeAccounts.has(r.account_id as string))).toBe(true);
      const theirs = await rows(
        'k8s_workloads_cloud_account_monitoring_v2',
        'order_by: [{column: "account_id"}, {column: "namespace"}, {column: "name"}]',
        FIELDS,
        globexAdmin,
      );
      expect(theirs).toEqual(await monitoring('ORDER BY w.cloud_account_id, w.namespace, w.name', [globex.id]));
      expect(theirs.length).toBe(12);
      const ids = new Set(all.map((r) => r.workload_id));
      expect(theirs.some((t) => ids.has(t.workload_id))).toBe(false);
      // Globex's rows filed under Acme's aws account (a pod, a log line, an SLO event) attach to no
      // workload of either tenant: Globex has no workload in that account, and Acme's counts are Acme's.
      expect(theirs.every((t) => !acmeAccounts.has(t.account_id as string))).toBe(true);
    });

    test('application errors: lines are counted per label set, for every workload whose labels they hold', async () => {
      // A second workload of checkout's account with checkout's app label: both count the same lines
      // (the lines are grouped by label set once, each workload sums the sets its labels are in); a
      // label set repeated counts each line; a line with a label beyond namespace and app counts.
      await sql(
        `INSERT INTO k8s_workloads (tenant_id, cloud_account_id, cloud_resource_id, external_id, name, namespace, kind, workload_type, status,
          ready_pods, total_pods, labels, is_active, creation_time, last_seen)
        VALUES ($1, $2, $3, 'canary', 'checkout-canary', 'production', 'Deployment', 'Deployment', 'Running', 1, 1, '{"app": "shop-checkout"}', true, '2026-01-21 08:30:00', '2026-02-28 23:00:00')`,
        [acme.id, GCP, fx('acme', 0x103)],
      );
      const line = (labels: object) =>
        sql(
          `INSERT INTO logs (tenant_id, cloud_account_id, ts, severity, message, labels) VALUES ($1, $2, '2026-02-27 10:00:00+00', 'error', 'label set line', $3::jsonb)`,
          [acme.id, GCP, JSON.stringify(labels)],
        );
      try {
        for (let i = 0; i < 3; i++) await line({ namespace: 'production', app: 'shop-checkout' });
        await line({ namespace: 'production', app: 'shop-checkout', pod: 'x', zone: 'b' });
        await line({ namespace: 'staging', app: 'shop-checkout' });
        const got = await rows(
          'k8s_workloads_cloud_account_monitoring_v2',
          `where: {account_id: {_eq: "${GCP}"}}, order_by: [{column: "namespace"}, {column: "name"}]`,
          FIELDS,
        );
        expect(got).toEqual(
          await monitoring('AND w.cloud_account_id = $2 ORDER BY w.namespace, w.name', [acme.id, GCP]),
        );
        const errors = new Map(got.map((g) => [g.name, g.application_error_count]));
        // checkout's 2 fixture lines and the 4 lines here, for both.
        expect([errors.get('checkout'), errors.get('checkout-canary')]).toEqual([6, 6]);
      } finally {
        await sql(`DELETE FROM logs WHERE message = 'label set line'`, []);
        await sql(`DELETE FROM k8s_workloads WHERE external_id = 'canary'`, []);
      }
    });

    test('an unknown order_by column is validation-failed; an unknown where field is refused by the schema', async () => {
      const error = await refused(
        '{ k8s_workloads_cloud_account_monitoring_v2(order_by: [{column: "priority"}]) { rows { name } } }',
      );
      expect(error.extensions).toEqual({ code: 'validation-failed', path: '$.order_by[0].column' });
      expect(error.message).toMatch(
        /unknown order_by column of k8s_workloads_cloud_account_monitoring_v2 "priority"; allowed: .*event_count/,
      );
      const schema = await refused(
        '{ k8s_workloads_cloud_account_monitoring_v2(where: {kind: {_eq: "Deployment"}}) { rows { name } } }',
      );
      expect(schema.extensions.code).toBe('validation-failed');
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('k8s_workloads_cloud_account_monitoring_recommendations_v2', () => {
    /** Hand-written: the ids of the actionable recommendations of each active workload (its resource, or a body naming it, in its account). */
    const onWorkloads = (tenant: string = acme.id) =>
      sql(
        `
      SELECT w.cloud_account_id::text AS account_id, w.namespace, w.name AS workload_name,
        coalesce(array_agg(r.id::text ORDER BY r.id) FILTER (WHERE r.id IS NOT NULL), '{}') AS ids
      FROM k8s_workloads w
      LEFT JOIN recommendation r ON r.tenant_id = w.tenant_id AND r.cloud_account_id = w.cloud_account_id
        AND (r.status IS NULL OR r.status IN ('Open', 'Assigned', 'InProgress'))
        AND (r.resource_id = w.cloud_resource_id OR (r.recommendation ->> 'namespace' = w.namespace AND r.recommendation ->> 'workload_name' = w.name))
      WHERE w.tenant_id = $1 AND w.is_active
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
        [tenant],
      );
    const sorted = (list: Row[]) =>
      [...list].sort((a, b) =>
        `${a.account_id} ${a.namespace} ${a.workload_name}`.localeCompare(
          `${b.account_id} ${b.namespace} ${b.workload_name}`,
        ),
      );

    test("each active workload's count of recommendations still to act on matches SQL, for both tenant roles", async () => {
      const expected = await onWorkloads();
      expect(expected).toHaveLength(13);
      for (const headers of [readonly, admin]) {
        const got = await rows(
          'k8s_workloads_cloud_account_monitoring_recommendations_v2',
          '',
          'account_id namespace workload_name recommendation_count tenant_id',
          headers,
        );
        expect(sorted(got)).toEqual(
          sorted(
            expected.map((e) => ({
              account_id: e.account_id,
              namespace: e.namespace,
              workload_name: e.workload_name,
              recommendation_count: (e.ids as string[]).length,
              tenant_id: acme.id,
            })),
          ),
        );
      }
    });

    test('the counted recommendations are the ones about the workload: its resource, or a body naming it in its account', async () => {
      const expected = await onWorkloads();
      const idsOf = (account: string, name: string) =>
        expected.find((e) => e.account_id === account && e.workload_name === name)!.ids as string[];
      // Not the Closed one, not the one of gcp's account, of staging, of the inactive workload, nor Globex's.
      expect(idsOf(AWS, 'api-server')).toEqual([REC.onResource, REC.byBody].sort());
      expect(idsOf(AWS, 'payments-worker')).toEqual([REC.noStatus]);
      expect(idsOf(GCP, 'ml-inference')).toEqual([REC.mlInference]);
      const got = await rows(
        'k8s_workloads_cloud_account_monitoring_recommendations_v2',
        '',
        'account_id workload_name recommendation_count',
      );
      const count = (account: string, name: string) =>
        got.find((g) => g.account_id === account && g.workload_name === name)?.recommendation_count;
      expect([
        count(AWS, 'api-server'),
        count(AWS, 'payments-worker'),
        count(GCP, 'ml-inference'),
        count(GCP, 'checkout'),
        count(AWS, 'postgres'),
      ]).toEqual([2, 1, 1, 0, 0]);
      expect(got.some((g) => g.workload_name === 'legacy-batch')).toBe(false);
      // Every counted recommendation is one of the fixture's, on a workload: the demo set has none on workloads.
      const counted = expected.flatMap((e) => e.ids as string[]);
      expect(counted.sort()).toEqual([REC.onResource, REC.byBody, REC.noStatus, REC.mlInference].sort());
    });

    test('where on account, namespace and name matches SQL', async () => {
      const got = await rows(
        'k8s_workloads_cloud_account_monitoring_recommendations_v2',
        `where: {account_id: {_eq: "${AWS}"}, namespace: {_eq: "production"}, name: {_like: "p%"}}`,
        'workload_name recommendation_count',
        admin,
      );
      expect(got).toEqual([
        { workload_name: 'payments-worker', recommendation_count: 1 },
        { workload_name: 'postgres', recommendation_count: 0 },
      ]);
      const staging = await rows(
        'k8s_workloads_cloud_account_monitoring_recommendations_v2',
        'where: {namespace: {_eq: "staging"}}',
        'account_id workload_name',
      );
      const [{ n }] = await sql(
        `SELECT count(*)::int AS n FROM k8s_workloads WHERE tenant_id = $1 AND is_active AND namespace = 'staging'`,
      );
      expect(staging).toHaveLength(Number(n));
      expect(staging.every((s) => s.account_id === GCP)).toBe(true);
    });

    test("never sees another tenant: Globex's own counts are Globex's", async () => {
      expect(
        await rows(
          'k8s_workloads_cloud_account_monitoring_recommendations_v2',
          `where: {tenant_id: {_eq: "${globex.id}"}}`,
          'workload_name',
        ),
      ).toEqual([]);
      const theirs = await rows(
        'k8s_workloads_cloud_account_monitoring_recommendations_v2',
        '',
        'account_id namespace workload_name recommendation_count tenant_id',
        globexAdmin,
      );
      const expected = await onWorkloads(globex.id);
      expect(sorted(theirs)).toEqual(
        sorted(
          expected.map((e) => ({
            account_id: e.account_id,
            namespace: e.namespace,
            workload_name: e.workload_name,
            recommendation_count: (e.ids as string[]).length,
            tenant_id: globex.id,
          })),
        ),
      );
      // The Globex recommendation filed under Acme's account counts for nobody.
      expect(theirs.every((t) => t.recommendation_count === 0 && !acmeAccounts.has(t.account_id as string))).toBe(true);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('auto_optimize_recommendation', () => {
    const recommendations = async (args: string, headers = readonly): Promise<string[]> => {
      const data = await query(`{ auto_optimize_recommendation(${args}) { recommendation } }`, headers);
      return (data.auto_optimize_recommendation as { recommendation: string[] }).recommendation;
    };
    const ids = async (where: string, params: (string | null)[]) =>
      (await sql(`SELECT id::text AS id FROM recommendation WHERE ${where} ORDER BY created_at, id`, params)).map((r) =>
        String(r.id),
      );

    test("by default the account's recommendations still to act on, oldest first, for both tenant roles", async () => {
      const expected = await ids(
        `tenant_id = $1 AND cloud_account_id = $2 AND coalesce(status, 'Open') IN ('Open', 'Assigned', 'InProgress')`,
        [acme.id, AWS],
      );
      expect(expected).toEqual(
        expect.arrayContaining([REC.onResource, REC.byBody, REC.noStatus, REC.otherNamespace, REC.inactive]),
      );
      for (const headers of [readonly, admin])
        expect(await recommendations(`account_id: "${AWS}"`, headers)).toEqual(expected);
      const got = await recommendations(`account_id: "${AWS}"`);
      expect(got).not.toContain(REC.closed);
      expect(got).not.toContain(REC.globexTrap); // Globex's, though filed under Acme's account
      expect(got).not.toContain(REC.otherAccount);
    });

    test('status, categories and rule_name narrow it, as SQL does', async () => {
      const settled = await recommendations(`account_id: "${AWS}", status: ["Closed", "Dismissed"]`);
      expect(settled).toEqual(
        await ids(`tenant_id = $1 AND cloud_account_id = $2 AND status IN ('Closed', 'Dismissed')`, [acme.id, AWS]),
      );
      expect(settled).toContain(REC.closed);
      const rightSizing = await recommendations(
        `account_id: "${AWS}", auto_optimize_categories: ["RightSizing"], rule_name: "k8s_workload_rightsizing"`,
      );
      expect(rightSizing).toEqual([REC.onResource, REC.byBody, REC.otherNamespace, REC.inactive]);
      const inProgress = await recommendations(
        `account_id: "${AWS}", status: ["InProgress"], auto_optimize_categories: ["RightSizing", "Cost"]`,
      );
      expect(inProgress).toEqual([REC.byBody]);
      expect(await recommendations(`account_id: "${AWS}", auto_optimize_categories: []`)).toEqual([]);
      const cost = await recommendations(`account_id: "${GCP}", auto_optimize_categories: ["Cost"]`);
      expect(cost).toEqual(
        await ids(
          `tenant_id = $1 AND cloud_account_id = $2 AND category = 'Cost' AND status IN ('Open', 'Assigned', 'InProgress')`,
          [acme.id, GCP],
        ),
      );
      expect(cost.length).toBeGreaterThan(0);
    });

    test("auto_optimize_id: only recommendations on the resources of the policy's resource map", async () => {
      const policies =
        await sql(`SELECT p.id::text AS id, p.account_id::text AS account, m.auto_optimize_type AS type, m.resource_identifier AS ident
        FROM auto_pilot p JOIN auto_optimize_resource_map m ON m.auto_optimize_id = p.id WHERE p.tenant_id = $1 ORDER BY p.created_at`);
      const resourcePolicy = policies.find((p) => p.type === 'resource')!;
      const workloadPolicy = policies.find((p) => p.type === 'workload')!;
      expect((workloadPolicy.ident as { name: string }).name).toBe('ml-inference');
      // A cloud resource: the recommendations raised on it.
      const onResource = await ids(
        `tenant_id = $1 AND resource_id = $2::uuid AND coalesce(status, 'Open') IN ('Open', 'Assigned', 'InProgress')`,
        [acme.id, (resourcePolicy.ident as { resource_id: string }).resource_id],
      );
      expect(onResource).toHaveLength(1);
      expect(
        await recommendations(`account_id: "${resourcePolicy.account}", auto_optimize_id: "${resourcePolicy.id}"`),
      ).toEqual(onResource);
      // A workload: the ones about it (its body names it), not the other gcp recommendations.
      expect(
        await recommendations(
          `account_id: "${workloadPolicy.account}", auto_optimize_id: "${workloadPolicy.id}"`,
          admin,
        ),
      ).toEqual([REC.mlInference]);
      expect(
        await recommendations(
          `account_id: "${workloadPolicy.account}", auto_optimize_id: "${workloadPolicy.id}", status: ["Closed"]`,
        ),
      ).toEqual([]);
    });

    test("refusals: unknown status or category, another tenant's account or policy, a policy of another account", async () => {
      const [globexPolicy] = await sql(
        'SELECT id::text AS id, account_id::text AS account FROM auto_pilot WHERE tenant_id = $1 ORDER BY created_at LIMIT 1',
        [globex.id],
      );
      const [acmePolicy] = await sql(
        'SELECT id::text AS id FROM auto_pilot WHERE tenant_id = $1 AND account_id = $2 ORDER BY created_at LIMIT 1',
        [acme.id, AWS],
      );
      const cases: [string, string, RegExp][] = [
        [
          `account_id: "${AWS}", status: ["Open", "Pending"]`,
          '$.status[1]',
          /unknown recommendation status "Pending"; allowed: Archive, Assigned, Closed, Dismissed, InProgress, Open/,
        ],
        [
          `account_id: "${AWS}", auto_optimize_categories: ["Rightsizing"]`,
          '$.auto_optimize_categories[0]',
          /unknown recommendation category "Rightsizing"/,
        ],
        [`account_id: "${globexAccounts[0]}"`, '$.account_id', /not found in your tenant/],
        [
          `account_id: "${AWS}", auto_optimize_id: "${globexPolicy.id}"`,
          '$.auto_optimize_id',
          /not found in your tenant/,
        ],
        [
          `account_id: "${GCP}", auto_optimize_id: "${acmePolicy.id}"`,
          '$.auto_optimize_id',
          new RegExp(`belongs to account ${AWS}, not to account_id ${GCP}`),
        ],
      ];
      for (const [args, path, message] of cases) {
        const error = await refused(`{ auto_optimize_recommendation(${args}) { recommendation } }`);
        expect([args, error.extensions]).toEqual([args, { code: 'validation-failed', path }]);
        expect(error.message).toMatch(message);
      }
      // Globex, on its own account, never gets Acme's rows (nor its own trap filed under Acme's account).
      const theirs = await recommendations(`account_id: "${globex.cloudAccounts.aws}"`, globexAdmin);
      expect(theirs).toEqual(
        await ids(
          `tenant_id = $1 AND cloud_account_id = $2 AND coalesce(status, 'Open') IN ('Open', 'Assigned', 'InProgress')`,
          [globex.id, globex.cloudAccounts.aws],
        ),
      );
      expect(theirs.some((id) => id.startsWith('11111111-'))).toBe(false);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('auto_optimize_workload', () => {
    const create = (input: string, headers = admin) =>
      gql(`{ auto_optimize_workload(arg1: ${input}) { id } }`, headers);
    const policyCount = async (tenant: string = acme.id) =>
      Number((await sql('SELECT count(*)::int AS n FROM auto_pilot WHERE tenant_id = $1', [tenant]))[0].n);
    const mapped = async (policy: string) =>
      await sql(
        `SELECT m.tenant_id::text AS tenant, m.account_id::text AS account, m.auto_optimize_type AS type,
        m.resource_identifier ->> 'workload_id' AS workload_id, m.resource_identifier ->> 'namespace' AS namespace, m.resource_identifier ->> 'name' AS name,
        m.resource_identifier ->> 'kind' AS kind
      FROM auto_optimize_resource_map m WHERE m.auto_optimize_id = $1::uuid ORDER BY name`,
        [policy],
      );

    test('creates a right-sizing policy mapped to the matching active workloads; its recommendations are those about them', async () => {
      const before = await policyCount();
      const res = await create(
        `{account_id: "${AWS}", resource_filter: [{namespace: "production", type: "deployment"}]}`,
      );
      expect(res.body.errors).toBeUndefined();
      const id = res.body.data.auto_optimize_workload.id as string;
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(await policyCount()).toBe(before + 1);
      const [policy] = await sql(
        `SELECT tenant_id::text AS tenant, account_id::text AS account, status, category, trigger_type, created_by::text AS created_by,
          rule -> 'resource_filter' AS filter FROM auto_pilot WHERE id = $1::uuid`,
        [id],
      );
      expect(policy).toMatchObject({
        tenant: acme.id,
        account: AWS,
        status: 'Active',
        category: 'RightSizing',
        trigger_type: 'recommendation',
        created_by: acme.users.admin.id,
      });
      expect(policy.filter).toEqual([{ namespace: 'production', name: null, type: 'deployment' }]);
      // The map: the aws account's active Deployments of production (not the inactive legacy-batch).
      const expected = await sql(
        `SELECT id::text AS workload_id, name, kind FROM k8s_workloads
        WHERE tenant_id = $1 AND cloud_account_id = $2 AND namespace = 'production' AND lower(kind) = 'deployment' AND is_active ORDER BY name`,
        [acme.id, AWS],
      );
      expect(expected.map((e) => e.name)).toEqual(['api-server', 'payments-worker', 'web-frontend']);
      expect(await mapped(id)).toEqual(
        expected.map((e) => ({
          tenant: acme.id,
          account: AWS,
          type: 'workload',
          workload_id: e.workload_id,
          namespace: 'production',
          name: e.name,
          kind: e.kind,
        })),
      );
      // What the policy would act on: the recommendations about those workloads, as monitoring counts them.
      const data = await query(
        `{ auto_optimize_recommendation(account_id: "${AWS}", auto_optimize_id: "${id}") { recommendation } }`,
      );
      const acted = (data.auto_optimize_recommendation as { recommendation: string[] }).recommendation;
      expect(acted).toEqual([REC.onResource, REC.byBody, REC.noStatus]);
      const counts = await rows(
        'k8s_workloads_cloud_account_monitoring_recommendations_v2',
        `where: {account_id: {_eq: "${AWS}"}, name: {_in: ["api-server", "payments-worker", "web-frontend"]}}`,
        'recommendation_count',
      );
      expect(counts.reduce((a, c) => a + (c.recommendation_count as number), 0)).toBe(acted.length);
    });

    test('several filters, a name, any-case kind and an explicit status', async () => {
      const res = await create(
        `{account_id: "${AWS}", status: "Dryrun", resource_filter: [{namespace: "production", name: "postgres", type: "STATEFULSET"}, {namespace: "monitoring", name: ""}, {namespace: "production", name: "postgres"}]}`,
      );
      expect(res.body.errors).toBeUndefined();
      const id = res.body.data.auto_optimize_workload.id as string;
      expect((await mapped(id)).map((m) => [m.namespace, m.name, m.kind])).toEqual([
        ['production', 'postgres', 'StatefulSet'],
        ['monitoring', 'prometheus-server', 'StatefulSet'],
      ]);
      const [{ status }] = await sql('SELECT status FROM auto_pilot WHERE id = $1::uuid', [id]);
      expect(status).toBe('Dryrun');
    });

    test("refusals write nothing: no matching workload, another tenant's account, an unknown status, no filter, no user, the read-only role", async () => {
      const before = await policyCount();
      const globexBefore = await policyCount(globex.id);
      const cases: [string, Record<string, string>, string, string, RegExp][] = [
        [
          `{account_id: "${AWS}", resource_filter: [{namespace: "production", name: "legacy-batch"}]}`,
          admin,
          'validation-failed',
          '$.arg1.resource_filter',
          /matches no active workload/,
        ],
        [
          `{account_id: "${GCP}", resource_filter: [{namespace: "production", name: "api-server"}]}`,
          admin,
          'validation-failed',
          '$.arg1.resource_filter',
          /matches no active workload/,
        ],
        [
          `{account_id: "${globex.cloudAccounts.aws}", resource_filter: [{namespace: "production"}]}`,
          admin,
          'validation-failed',
          '$.arg1.account_id',
          /not found in your tenant/,
        ],
        [
          `{account_id: "${AWS}", status: "Paused", resource_filter: [{namespace: "production"}]}`,
          admin,
          'validation-failed',
          '$.arg1.status',
          /unknown auto-pilot status "Paused"; allowed: Active, DRAFT, Disabled, Dryrun/,
        ],
        [
          `{account_id: "${AWS}", resource_filter: []}`,
          admin,
          'validation-failed',
          '$.arg1.resource_filter',
          /at least one filter/,
        ],
        [
          `{account_id: "${AWS}", resource_filter: [{namespace: "production"}]}`,
          as('tenant_admin', acme.id),
          'access-denied',
          '$',
          /x-hasura-user-id/,
        ],
      ];
      for (const [input, headers, code, path, message] of cases) {
        const error = await refused(`{ auto_optimize_workload(arg1: ${input}) { id } }`, headers);
        expect([input, error.extensions.code, error.extensions.path ?? '']).toEqual([input, code, path]);
        expect(error.message).toMatch(message);
      }
      const ro = await refused(
        `{ auto_optimize_workload(arg1: {account_id: "${AWS}", resource_filter: [{namespace: "production"}]}) { id } }`,
        readonly,
      );
      expect(ro.extensions.code).toBe('validation-failed');
      expect(ro.message).toMatch(/auto_optimize_workload/);
      expect(await policyCount()).toBe(before);
      expect(await policyCount(globex.id)).toBe(globexBefore);
    });

    test("a Globex policy is Globex's: mapped to Globex workloads, invisible to Acme", async () => {
      const res = await create(
        `{account_id: "${globex.cloudAccounts.aws}", resource_filter: [{namespace: "production", name: "api-server"}]}`,
        globexAdmin,
      );
      expect(res.body.errors).toBeUndefined();
      const id = res.body.data.auto_optimize_workload.id as string;
      const map = await mapped(id);
      expect(map).toHaveLength(1);
      const [workload] = await sql(
        'SELECT tenant_id::text AS tenant, cloud_account_id::text AS account FROM k8s_workloads WHERE id = $1::uuid',
        [map[0].workload_id as string],
      );
      expect(workload).toEqual({ tenant: globex.id, account: globex.cloudAccounts.aws });
      expect(map[0]).toMatchObject({ tenant: globex.id, account: globex.cloudAccounts.aws });
      const error = await refused(
        `{ auto_optimize_recommendation(account_id: "${AWS}", auto_optimize_id: "${id}") { recommendation } }`,
      );
      expect(error.extensions).toEqual({ code: 'validation-failed', path: '$.auto_optimize_id' });
      // Globex's policy acts on Globex's recommendations only: the trap filed under Acme's account is not in its account.
      const data = await query(
        `{ auto_optimize_recommendation(account_id: "${globex.cloudAccounts.aws}", auto_optimize_id: "${id}") { recommendation } }`,
        globexAdmin,
      );
      expect((data.auto_optimize_recommendation as { recommendation: string[] }).recommendation).toEqual([]);
    });
  });

  test('without a tenant in the session the operations are refused', async () => {
    for (const doc of [
      '{ k8s_metrics_groupings_v2 { rows { cost } } }',
      '{ k8s_workloads_cloud_account_monitoring_v2 { rows { name } } }',
      '{ k8s_workloads_cloud_account_monitoring_recommendations_v2 { rows { workload_name } } }',
      `{ auto_optimize_recommendation(account_id: "${AWS}") { recommendation } }`,
    ]) {
      const res = await gql(doc, { 'x-hasura-role': 'tenant_admin_readonly' });
      expect(res.body.errors).toBeDefined();
      expect(res.body.data ? Object.values(res.body.data).every((v) => v === null) : true).toBe(true);
    }
  });
});
