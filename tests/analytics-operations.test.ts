import { DEMO } from '../demo/demo-data';
import { getNamedType, GraphQLString, isObjectType, type GraphQLObjectType } from 'graphql';
import { JsonRows } from '../engine/core/json-rows';
import type { Dataset } from '../actions/analytics/dataset';
import * as anomalyActions from '../actions/anomalies';
import * as automationActions from '../actions/automation';
import * as cloudActions from '../actions/cloud';
import * as costActions from '../actions/cost';
import * as eventActions from '../actions/events';
import * as kubernetesActions from '../actions/kubernetes';
import * as recommendationActions from '../actions/recommendations';
import { backendName } from './support/database';
import { spacesOutsideStrings } from './support/json-text';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * The analytic operations through HTTP, as a tenant's users: answers checked against SQL written
 * here by hand, and never a row of another tenant.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const acmeAccounts = new Set(Object.values(acme.cloudAccounts));
const globexAccounts = new Set<string>(Object.values(globex.cloudAccounts));

type Row = Record<string, unknown>;

describe(`analytic operations on ${backendName}`, () => {
  let server: TestServer;
  /** The rows of one operation, asked as `headers`; fails on any error. */
  const rows = async (field: string, args: string, selection: string, headers = readonly): Promise<Row[]> => {
    const res = await server.gql(`{ ${field}${args ? `(${args})` : ''} { rows { ${selection} } } }`, {}, headers);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data[field].rows as Row[];
  };
  const sql = (text: string, params: string[] = [acme.id]) => server.started.db.query(text, params);
  const close = (a: unknown, b: unknown) => expect(Number(a)).toBeCloseTo(Number(b), 6);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  describe('Cost Management', () => {
    test('spend_groupings_v2 by resource type matches SQL, for both tenant roles', async () => {
      const expected =
        await sql(`SELECT r.type, sum(s.amount)::float8 AS amount, count(*)::int AS n, count(DISTINCT s.cloud_resource_id)::int AS resources
        FROM spends s JOIN cloud_resourses r ON r.id = s.cloud_resource_id WHERE s.tenant = $1 GROUP BY r.type ORDER BY amount DESC`);
      for (const headers of [readonly, admin]) {
        const got = await rows(
          'spend_groupings_v2',
          'group_by: ["resource_type"], order_by: [{column: "spend_amount", order: desc}]',
          'resource_type spend_amount spend_count resource_count',
        );
        expect(got.map((r) => r.resource_type)).toEqual(expected.map((e) => e.type));
        got.forEach((g, i) => {
          close(g.spend_amount, expected[i].amount);
          expect(g.spend_count).toBe(expected[i].n);
          expect(g.resource_count).toBe(expected[i].resources);
        });
        void headers;
      }
    });

    test('spend_groupings_v2 by month (a date_trunc transformation) in one account, with a date range', async () => {
      const expected = await sql(
        `SELECT to_char(date_trunc('month', date), 'YYYY-MM-DD"T"HH24:MI:SS') AS month, sum(amount)::float8 AS amount, count(DISTINCT cloud_resource_id)::int AS resources
        FROM spends WHERE tenant = $1 AND cloud_account = $2 AND date >= '2026-01-10' AND date < '2026-02-20' GROUP BY 1 ORDER BY 1`,
        [acme.id, acme.cloudAccounts.aws],
      );
      const got = await rows(
        'spend_groupings_v2',
        `column_transformations: [{name: "spend_date", expr: "date_trunc", args: ["month", "spend_date"]}],
        group_by: ["spend_date"], order_by: [{column: "spend_date"}],
        where: {account_id: {_eq: "${acme.cloudAccounts.aws}"}, spend_date: {_between: {_gte: "2026-01-10", _lt: "2026-02-20T00:00:00Z"}}}`,
        'spend_date spend_amount resource_count account_count',
      );
      expect(got.map((g) => g.spend_date)).toEqual(expected.map((e) => e.month));
      got.forEach((g, i) => {
        close(g.spend_amount, expected[i].amount);
        expect(g.resource_count).toBe(expected[i].resources);
        expect(g.account_count).toBe(1);
      });
    });

    test('spend_groupings_v2 never sees another tenant, even when asked for it', async () => {
      const got = await rows(
        'spend_groupings_v2',
        `group_by: ["tenant_id", "account_id"], where: {_or: [{tenant_id: {_eq: "${globex.id}"}}, {account_id: {_in: ${JSON.stringify([...globexAccounts, acme.cloudAccounts.gcp])}}}]}`,
        'tenant_id account_id spend_count',
      );
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ tenant_id: acme.id, account_id: acme.cloudAccounts.gcp });
      const all = await rows('spend_groupings_v2', '', 'spend_count');
      const [{ n }] = await sql('SELECT count(*)::int AS n FROM spends WHERE tenant = $1');
      expect(all).toEqual([{ spend_count: n }]);
    });

    test('spends_v2: filtered, sorted and paged lines match SQL', async () => {
      const expected =
        await sql(`SELECT s.id::text AS id, s.amount, r.type FROM spends s JOIN cloud_resourses r ON r.id = s.cloud_resource_id
        WHERE s.tenant = $1 AND s.amount > 100 AND r.type ILIKE '%instance%' ORDER BY s.amount DESC, s.id LIMIT 5 OFFSET 3`);
      const got = await rows(
        'spends_v2',
        `where: {amount: {_gt: 100}, resource_type: {_ilike: "%INSTANCE%"}}, order_by: [{column: "amount", order: desc}, {column: "id"}], limit: 5, offset: 3`,
        'id amount resource_type tenant cloud_account date tags',
      );
      expect(got.map((g) => g.id)).toEqual(expected.map((e) => e.id));
      expect(got.every((g) => g.tenant === acme.id && acmeAccounts.has(g.cloud_account as string))).toBe(true);
    });

    test('the rows as PostgreSQL wrote them where the selection is the columns in order; alike by value for any other', async () => {
      const args = 'where: {amount: {_gt: 100}}, order_by: [{column: "amount", order: desc}, {column: "id"}], limit: 4';
      const fields = 'id amount date exclude_aggregate tags cloud_account';
      const asWritten = await server.gql(`{ spends_v2(${args}) { rows { ${fields} } } }`, {}, readonly);
      // Each row's JSON object as the engine writes it from the columns' texts, byte-compact. That the text is
      // not parsed and written again, logs-query.test.ts shows by its labels' jsonb spacing.
      expect(asWritten.text).toMatch(/"rows":\[\{"id":"/);
      expect(spacesOutsideStrings(asWritten.text)).toEqual([]);
      const want = asWritten.body.data.spends_v2.rows as Row[];
      expect(want).toHaveLength(4);
      expect(Object.keys(want[0])).toEqual(fields.split(' '));
      expect(typeof want[0].amount).toBe('number');
      // A subset, another order, an alias, __typename: read from the same rows, the same values.
      const other = [
        `amount id`,
        `cloud_account tags exclude_aggregate date amount id`,
        `id cost: amount date exclude_aggregate tags cloud_account`,
        `__typename ${fields}`,
      ];
      for (const selection of other) {
        const got = await rows('spends_v2', args, selection);
        const named = (r: Row) => ({ ...r, ...(r.cost !== undefined ? { amount: r.cost } : {}) });
        got.forEach((g, i) => {
          for (const [k, v] of Object.entries(named(g)))
            if (k !== '__typename' && k !== 'cost') expect([k, v]).toEqual([k, want[i][k]]);
        });
        expect(Object.keys(got[0])).toEqual(selection.replace('cost: amount', 'cost').split(' '));
      }
    });

    test('spends_v2 with columns returns only those columns', async () => {
      const got = await rows('spends_v2', `columns: ["id"], limit: 2, order_by: [{column: "date"}]`, 'id amount');
      expect(got).toHaveLength(2);
      expect(got.every((g) => typeof g.id === 'string' && g.amount === null)).toBe(true);
    });
  });

  describe('rows as PostgreSQL wrote them, with non-null fields', () => {
    const fields = 'id name anomaly_type namespace evaluated_at updated_at';
    const query = (selection: string) =>
      `{ anomaly_v2(order_by: [{column: "evaluated_at", order: desc}, {column: "id"}], limit: 5) { rows { ${selection} } } }`;

    test('kept as written when no row holds null in a non-null field; the same values as read and completed', async () => {
      const iterate = jest.spyOn(JsonRows.prototype, Symbol.iterator);
      try {
        const asWritten = await server.gql(query(fields), {}, admin);
        // id, name, anomaly_type, namespace and updated_at are String! in the API, the dataset's
        // columns may be null: no row holds null, so the text is the answer, not read into objects.
        expect(iterate).not.toHaveBeenCalled();
        const read = await server.gql(query(`__typename ${fields}`), {}, admin);
        expect(iterate).toHaveBeenCalled();
        const want = asWritten.body.data.anomaly_v2.rows as Row[];
        expect(want.length).toBeGreaterThan(1);
        expect(read.body.data.anomaly_v2.rows.map(({ __typename: _, ...r }: Row) => r)).toEqual(want);
      } finally {
        iterate.mockRestore();
      }
    });

    test('an int or a boolean the API types as String is returned as its text, and kept as written', async () => {
      const selection = 'name is_active ready_pods total_pods';
      const query = (fields: string) =>
        `{ k8s_workloads_v2(order_by: [{column: "name"}, {column: "namespace"}], limit: 3) { rows { ${fields} } } }`;
      const iterate = jest.spyOn(JsonRows.prototype, Symbol.iterator);
      try {
        const asWritten = await server.gql(query(selection), {}, admin);
        expect(iterate).not.toHaveBeenCalled();
        const want = asWritten.body.data.k8s_workloads_v2.rows as Row[];
        expect(want.length).toBeGreaterThan(0);
        for (const r of want) {
          expect(r.is_active).toMatch(/^(true|false)$/);
          expect(r.total_pods).toMatch(/^\d+$/);
        }
        const read = await server.gql(query(`__typename ${selection}`), {}, admin);
        expect(read.body.data.k8s_workloads_v2.rows.map(({ __typename: _, ...r }: Row) => r)).toEqual(want);
      } finally {
        iterate.mockRestore();
      }
    });

    test('every analytic operation’s int and boolean fields typed String by the API are returned as text', () => {
      const modules = [
        anomalyActions,
        automationActions,
        cloudActions,
        costActions,
        eventActions,
        kubernetesActions,
        recommendationActions,
      ];
      const datasets = modules.flatMap((m) =>
        Object.values(m).filter(
          (d): d is Dataset => typeof d === 'object' && d !== null && 'fields' in d && 'from' in d,
        ),
      );
      const root = server.started.engine.schemaFor('tenant_admin').schema.getQueryType()!.getFields();
      const untold: string[] = [];
      let checked = 0;
      for (const ds of datasets) {
        const op = root[ds.name];
        const rowsField = op && (getNamedType(op.type) as GraphQLObjectType).getFields().rows;
        const item = rowsField && getNamedType(rowsField.type);
        if (!item || !isObjectType(item)) continue;
        const api = item.getFields();
        for (const [name, field] of Object.entries(ds.fields)) {
          if (!api[name] || (field.type !== 'int' && field.type !== 'boolean')) continue;
          checked++;
          if ((getNamedType(api[name].type) === GraphQLString) !== !!field.text) untold.push(`${ds.name}.${name}`);
        }
      }
      expect(checked).toBeGreaterThan(10);
      expect(untold).toEqual([]);
    });

    test('a null in a non-null field is the error graphql-js gives, as before', async () => {
      const [newest] = await sql(
        `SELECT id::text AS id FROM anomaly WHERE tenant = $1 ORDER BY evaluated_at DESC, id::text LIMIT 1`,
      );
      await server.started.db.exec('ALTER TABLE anomaly ALTER COLUMN updated_at DROP NOT NULL');
      const kept = await sql(`SELECT updated_at::text AS t FROM anomaly WHERE id = $1`, [String(newest.id)]);
      await sql(`UPDATE anomaly SET updated_at = NULL WHERE id = $1`, [String(newest.id)]);
      try {
        const res = await server.gql(query(fields), {}, admin);
        expect(res.body.errors[0].message).toBe(
          'Cannot return null for non-nullable field AnomalyResponse.updated_at.',
        );
        expect(res.body.data?.anomaly_v2 ?? null).toBeNull();
      } finally {
        await sql(`UPDATE anomaly SET updated_at = $2::timestamp WHERE id = $1`, [
          String(newest.id),
          String(kept[0].t),
        ]);
        await server.started.db.exec('ALTER TABLE anomaly ALTER COLUMN updated_at SET NOT NULL');
      }
    });
  });

  describe('Events', () => {
    test('event_groupings_v2 by priority matches SQL (counts, new and recurring issues, latest)', async () => {
      const expected =
        await sql(`WITH e AS (SELECT *, min(created_at) OVER (PARTITION BY fingerprint) AS first FROM events WHERE tenant = $1)
        SELECT priority, count(*)::int AS n, count(*) FILTER (WHERE created_at = first)::int AS new, count(*) FILTER (WHERE created_at > first)::int AS recurring,
          max(created_at) AS latest_at, count(DISTINCT subject_name)::int AS subjects
        FROM e GROUP BY priority ORDER BY priority`);
      const got = await rows(
        'event_groupings_v2',
        'group_by: ["priority"], order_by: [{column: "priority"}]',
        'priority event_count count_new_issues count_recurring_issues count_subject_name latest_title max_created_at distinct_status',
      );
      expect(got.map((g) => g.priority)).toEqual(expected.map((e) => e.priority));
      for (const [i, g] of got.entries()) {
        expect([g.event_count, g.count_new_issues, g.count_recurring_issues, g.count_subject_name]).toEqual([
          expected[i].n,
          expected[i].new,
          expected[i].recurring,
          expected[i].subjects,
        ]);
        const [latest] = await sql(
          `SELECT title FROM events WHERE tenant = $1 AND priority = $2 ORDER BY created_at DESC, id DESC LIMIT 1`,
          [acme.id, g.priority as string],
        );
        expect(g.latest_title).toBe(latest.title);
        expect(Array.isArray(g.distinct_status)).toBe(true);
      }
    });

    test("events_v2 with a label filter and a created_at range matches SQL, and only the caller's events", async () => {
      const expected =
        await sql(`SELECT id::text AS id FROM events WHERE tenant = $1 AND labels @> '{"namespace":"production"}' AND created_at >= '2026-01-15'
        ORDER BY created_at DESC, id`);
      const got = await rows(
        'events_v2',
        `where: {labels: {_contains: "{\\"namespace\\":\\"production\\"}"}, created_at: {_gte: "2026-01-15"}}, order_by: [{column: "created_at", order: desc}, {column: "id"}]`,
        'id tenant_id account_id labels',
      );
      expect(got.map((g) => g.id)).toEqual(expected.map((e) => e.id));
      expect(got.length).toBeGreaterThan(0);
      expect(got.every((g) => g.tenant_id === acme.id && acmeAccounts.has(g.account_id as string))).toBe(true);
      const other = await rows(
        'events_v2',
        `where: {tenant_id: {_eq: "${globex.id}"}}`,
        'id',
        as('tenant_admin', globex.id),
      );
      const [{ n }] = await sql('SELECT count(*)::int AS n FROM events WHERE tenant = $1', [globex.id]);
      expect(other).toHaveLength(n);
    });
  });

  describe('Recommendations', () => {
    test('recommendation_groupings_v2 by category and status matches SQL', async () => {
      const expected =
        await sql(`SELECT category, status, count(*)::int AS n, coalesce(sum(estimated_savings), 0)::float8 AS savings FROM recommendation
        WHERE tenant_id = $1 AND status IN ('Open', 'Assigned') GROUP BY 1, 2 ORDER BY savings DESC, 1, 2`);
      const got = await rows(
        'recommendation_groupings_v2',
        `group_by: ["category", "status"], where: {status: {_in: ["Open", "Assigned"]}}, order_by: [{column: "sum_estimated_savings", order: desc}, {column: "category"}, {column: "status"}]`,
        'category status count sum_estimated_savings tenant_id',
      );
      expect(got.map((g) => [g.category, g.status, g.count])).toEqual(expected.map((e) => [e.category, e.status, e.n]));
      got.forEach((g, i) => close(g.sum_estimated_savings, expected[i].savings));
      expect(got.reduce((a, g) => a + (g.count as number), 0)).toBe(DEMO.perTenant.openOrAssignedRecommendations);
    });
  });

  describe('Recommendations: misconfigurations', () => {
    test('recommendation_missconfig_groupings_v2 counts the Configuration recommendations only', async () => {
      const expected =
        await sql(`SELECT rule_name, count(*)::int AS n, coalesce(sum(estimated_savings), 0)::float8 AS savings FROM recommendation
        WHERE tenant_id = $1 AND category = 'Configuration' GROUP BY 1 ORDER BY 1`);
      expect(expected.length).toBeGreaterThan(0);
      const got = await rows(
        'recommendation_missconfig_groupings_v2',
        'group_by: ["rule_name"], order_by: [{column: "rule_name"}]',
        'rule_name count sum_estimated_savings tenant_id',
      );
      expect(got.map((g) => [g.rule_name, g.count])).toEqual(expected.map((e) => [e.rule_name, e.n]));
      got.forEach((g, i) => close(g.sum_estimated_savings, expected[i].savings));
    });

    test('recommendation_missconfig_v2 lists them, with their message, and groups to distinct rows', async () => {
      const expected =
        await sql(`SELECT rule_name, status, recommendation ->> 'description' AS message, estimated_savings FROM recommendation
        WHERE tenant_id = $1 AND category = 'Configuration' ORDER BY created_at`);
      const got = await rows(
        'recommendation_missconfig_v2',
        'order_by: [{column: "created_at"}]',
        'rule_name status missconfig_message estimated_savings category',
      );
      expect(got.map((g) => [g.rule_name, g.status, g.missconfig_message, g.category])).toEqual(
        expected.map((e) => [e.rule_name, e.status, e.message, 'Configuration']),
      );
      expect(got.every((g) => typeof g.estimated_savings === 'string')).toBe(true);
      const distinct = await rows('recommendation_missconfig_v2', 'group_by: ["category"]', 'category');
      expect(distinct).toEqual([{ category: 'Configuration' }]);
    });
  });

  describe('Recommendations: security (image vulnerabilities)', () => {
    const VULNS: [string, string, string, string, string, string, string][] = [
      // tenant, namespace, workload, image, package, vulnerability, severity
      ['acme', 'production', 'api-server', 'shop/api:1.4', 'openssl', 'CVE-2024-0001', 'Critical'],
      ['acme', 'production', 'api-server', 'shop/api:1.4', 'zlib', 'CVE-2024-0002', 'High'],
      ['acme', 'production', 'payments-worker', 'shop/payments:2.0', 'openssl', 'CVE-2024-0001', 'Critical'],
      ['acme', 'staging', 'api-gateway', 'shop/gateway:0.9', 'glibc', 'CVE-2024-0003', 'Medium'],
      ['acme', 'staging', 'api-gateway', 'shop/gateway:0.9', 'busybox', 'CVE-2024-0004', 'Low'],
      ['globex', 'production', 'billing', 'globex/billing:3', 'openssl', 'CVE-2024-0001', 'Critical'],
      ['globex', 'production', 'billing', 'globex/billing:3', 'log4j', 'CVE-2021-44228', 'Critical'],
    ];
    beforeAll(async () => {
      for (const [t, ns, wl, image, pkg, vuln, severity] of VULNS) {
        const d = DEMO.tenants[t as 'acme' | 'globex'];
        await sql(
          `INSERT INTO recommendation_vulnerabilities (tenant_id, cloud_account_id, namespace, workload_name, workload_type, image, package_id, vulnerability_id, severity, recommendation)
          VALUES ($1, $2, $3, $4, 'Deployment', $5, $6, $7, $8, $9)`,
          [
            d.id,
            d.cloudAccounts.aws,
            ns,
            wl,
            image,
            pkg,
            vuln,
            severity,
            JSON.stringify({ title: `${vuln} in ${pkg}` }),
          ],
        );
      }
    });

    test('recommendation_security_groupings_v2 by namespace matches SQL', async () => {
      const expected =
        await sql(`SELECT namespace, count(*)::int AS n, count(*) FILTER (WHERE severity = 'Critical')::int AS critical, count(DISTINCT image)::int AS images,
          count(DISTINCT vulnerability_id)::int AS vulns, count(DISTINCT workload_name)::int AS workloads, max(severity_weight) AS top
        FROM recommendation_vulnerabilities WHERE tenant_id = $1 GROUP BY 1 ORDER BY 1`);
      const got = await rows(
        'recommendation_security_groupings_v2',
        'group_by: ["namespace"], order_by: [{column: "namespace"}]',
        'namespace tenant_id count count_severity_critical count_image count_vulnerability_id count_workload_name',
      );
      expect(
        got.map((g) => [
          g.namespace,
          g.count,
          g.count_severity_critical,
          g.count_image,
          g.count_vulnerability_id,
          g.count_workload_name,
        ]),
      ).toEqual(expected.map((e) => [e.namespace, e.n, e.critical, e.images, e.vulns, e.workloads]));
      expect(got.every((g) => g.tenant_id === acme.id)).toBe(true);
      const [{ n }] = await sql('SELECT count(*)::int AS n FROM recommendation_vulnerabilities WHERE tenant_id = $1');
      expect(got.reduce((a, g) => a + (g.count as number), 0)).toBe(n);
      expect(n).toBeGreaterThanOrEqual(VULNS.filter((v) => v[0] === 'acme').length);
    });

    test("recommendation_security_v2 by severity weight matches SQL and shows only the caller's findings", async () => {
      const expected =
        await sql(`SELECT vulnerability_id, workload_name, severity_weight FROM recommendation_vulnerabilities WHERE tenant_id = $1 AND severity_weight >= 4
        ORDER BY severity_weight DESC, workload_name, vulnerability_id`);
      const got = await rows(
        'recommendation_security_v2',
        'where: {severity_weight: {_gte: 4}}, order_by: [{column: "severity_weight", order: desc}, {column: "workload_name"}, {column: "vulnerability_id"}]',
        'vulnerability_id workload_name severity_weight recommendation tenant_id',
      );
      expect(got.map((g) => [g.vulnerability_id, g.workload_name, g.severity_weight])).toEqual(
        expected.map((e) => [e.vulnerability_id, e.workload_name, e.severity_weight]),
      );
      expect(got.some((g) => g.vulnerability_id === 'CVE-2021-44228')).toBe(false);
      expect(
        got.every((g) => g.tenant_id === acme.id && typeof (g.recommendation as { title: string }).title === 'string'),
      ).toBe(true);
      const other = await rows(
        'recommendation_security_v2',
        '',
        'vulnerability_id',
        as('tenant_admin_readonly', globex.id),
      );
      const globexVulns = await sql(
        'SELECT vulnerability_id FROM recommendation_vulnerabilities WHERE tenant_id = $1 ORDER BY 1',
        [globex.id],
      );
      expect(other.map((g) => g.vulnerability_id).sort()).toEqual(globexVulns.map((v) => v.vulnerability_id).sort());
      expect(other.map((g) => g.vulnerability_id)).toEqual(expect.arrayContaining(['CVE-2021-44228', 'CVE-2024-0001']));
    });
  });

  describe('Recommendations: CIS benchmark results', () => {
    beforeAll(async () => {
      const rules: [string, string, string, string, string][] = [
        ['acme', '1.1', 'Avoid the root account', 'Critical', 'Open'],
        ['acme', '1.4', 'Rotate access keys every 90 days', 'High', 'Open'],
        ['acme', '2.1', 'Encrypt S3 buckets', 'High', 'Closed'],
        ['acme', '3.1', 'Enable CloudTrail in all regions', 'Medium', 'Open'],
        ['globex', '1.1', 'Avoid the root account', 'Critical', 'Open'],
      ];
      for (const [t, ruleId, name, severity, status] of rules) {
        const d = DEMO.tenants[t as 'acme' | 'globex'];
        await sql(
          `INSERT INTO recommendation_security_cis (tenant_id, cloud_account_id, rule_id, rule_name, rule_description, severity, status)
          VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [d.id, d.cloudAccounts.aws, ruleId, name, `${name} (CIS ${ruleId})`, severity, status],
        );
      }
    });

    test('recommendation_security_cis_groupings_v2 by severity and status matches SQL', async () => {
      const expected =
        await sql(`SELECT severity, status, severity_weight, count(*)::int AS n FROM recommendation_security_cis WHERE tenant_id = $1
        GROUP BY 1, 2, 3 ORDER BY severity_weight DESC, status`);
      const got = await rows(
        'recommendation_security_cis_groupings_v2',
        'group_by: ["severity", "status", "severity_weight"], order_by: [{column: "severity_weight", order: desc}, {column: "status"}]',
        'severity status severity_weight count tenant_id',
      );
      expect(got.map((g) => [g.severity, g.status, g.severity_weight, g.count])).toEqual(
        expected.map((e) => [e.severity, e.status, e.severity_weight, e.n]),
      );
      const [{ n }] = await sql('SELECT count(*)::int AS n FROM recommendation_security_cis WHERE tenant_id = $1');
      expect(got.reduce((a, g) => a + (g.count as number), 0)).toBe(n);
      const failing = await rows(
        'recommendation_security_cis_groupings_v2',
        'where: {status: {_eq: "Open"}, rule_id: {_like: "1.%"}}',
        'count',
        as('tenant_admin', globex.id),
      );
      const [open] = await sql(
        `SELECT count(*)::int AS count FROM recommendation_security_cis WHERE tenant_id = $1 AND status = 'Open' AND rule_id LIKE '1.%'`,
        [globex.id],
      );
      expect(failing).toEqual([{ count: open.count }]);
    });
  });

  describe('Cloud', () => {
    test('cloud_metric_groupings_v2 per resource and day matches SQL', async () => {
      const expected =
        await sql(`SELECT cloud_resource_id::text AS resource, to_char(date_trunc('day', "timestamp"), 'YYYY-MM-DD"T"HH24:MI:SS') AS day,
          avg(value) AS avg, min(value) AS min, max(value) AS max, sum(value) AS sum, count(*)::int AS n
        FROM cloud_resource_metrics WHERE tenant_id = $1 AND metric = 'cpu_utilization' GROUP BY 1, 2 ORDER BY 1, 2`);
      expect(expected.length).toBeGreaterThan(0);
      const got = await rows(
        'cloud_metric_groupings_v2',
        `column_transformations: [{name: "timestamp", expr: "date_trunc", args: ["day", "timestamp"]}],
        group_by: ["resource_id", "timestamp"], where: {metric: {_eq: "cpu_utilization"}}, order_by: [{column: "resource_id"}, {column: "timestamp"}]`,
        'resource_id timestamp avg_value min_value max_value sum_value count_value tenant_id',
      );
      expect(got.map((g) => [g.resource_id, g.timestamp, g.count_value])).toEqual(
        expected.map((e) => [e.resource, e.day, e.n]),
      );
      got.forEach((g, i) => {
        close(g.avg_value, expected[i].avg);
        close(g.min_value, expected[i].min);
        close(g.max_value, expected[i].max);
        close(g.sum_value, expected[i].sum);
        expect(g.tenant_id).toBe(acme.id);
      });
    });
  });

  describe('Kubernetes', () => {
    test('k8s_workload_groupings_v2 by account and namespace matches SQL', async () => {
      const expected = await sql(`SELECT cloud_account_id::text AS account, namespace, count(*)::int AS n,
          count(*) FILTER (WHERE kind = 'Deployment')::int AS deployments, count(*) FILTER (WHERE kind = 'StatefulSet')::int AS statefulsets
        FROM k8s_workloads WHERE tenant_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`);
      const got = await rows(
        'k8s_workload_groupings_v2',
        'group_by: ["account_id", "namespace"], order_by: [{column: "account_id"}, {column: "namespace"}]',
        'account_id namespace count deployment_count statefulset_count',
      );
      expect(got.map((g) => [g.account_id, g.namespace, g.count, g.deployment_count, g.statefulset_count])).toEqual(
        expected.map((e) => [e.account, e.namespace, e.n, e.deployments, e.statefulsets]),
      );
      expect(got.every((g) => acmeAccounts.has(g.account_id as string))).toBe(true);
    });

    test('k8s_workloads_v2 filtered by kind and pods, with lists as strings where the API says String', async () => {
      const expected =
        await sql(`SELECT name, ready_pods, total_pods FROM k8s_workloads WHERE tenant_id = $1 AND kind IN ('Deployment', 'StatefulSet') AND total_pods >= 2
        ORDER BY total_pods DESC, name, cloud_account_id`);
      const got = await rows(
        'k8s_workloads_v2',
        `where: {kind: {_in: ["Deployment", "StatefulSet"]}, total_pods: {_gte: 2}}, order_by: [{column: "total_pods", order: desc}, {column: "name"}, {column: "account_id"}]`,
        'name ready_pods total_pods is_active workload_fqdn labels tenant_id',
      );
      expect(got.map((g) => [g.name, g.ready_pods, g.total_pods])).toEqual(
        expected.map((e) => [e.name, String(e.ready_pods), String(e.total_pods)]),
      );
      expect(got.every((g) => g.is_active === 'true' && g.tenant_id === acme.id)).toBe(true);
    });

    test('k8s_pod_groupings_v2 and k8s_pods_v2 match SQL', async () => {
      const expected = await sql(
        `SELECT status, count(*)::int AS n FROM k8s_pods WHERE tenant_id = $1 GROUP BY 1 ORDER BY 1`,
      );
      const groups = await rows(
        'k8s_pod_groupings_v2',
        'group_by: ["status"], order_by: [{column: "status"}]',
        'status count',
      );
      expect(groups.map((g) => [g.status, g.count])).toEqual(expected.map((e) => [e.status, e.n]));
      const restarted = await sql(`SELECT name FROM k8s_pods p WHERE tenant_id = $1
        AND (SELECT sum(value::text::int) FROM jsonb_each(p.restart_count)) > 5 ORDER BY name`);
      expect(restarted.length).toBeGreaterThan(0);
      const pods = await rows(
        'k8s_pods_v2',
        'where: {restart_count: {_gt: 5}}, order_by: [{column: "name"}]',
        'name restart_count pod_fqdn namespace',
      );
      expect(pods.map((p) => p.name)).toEqual(restarted.map((r) => r.name));
      expect(pods.every((p) => p.pod_fqdn === `${p.namespace}/${p.name}` && typeof p.restart_count === 'object')).toBe(
        true,
      );
    });

    test('k8s_namespace_groupings_v2 and k8s_namespaces_v2 match SQL (text tenant keys)', async () => {
      const expected = await sql(
        `SELECT cloud_account_id AS account, count(*)::int AS n FROM k8s_namespaces WHERE tenant_id = $1 GROUP BY 1 ORDER BY 1`,
      );
      const groups = await rows(
        'k8s_namespace_groupings_v2',
        'group_by: ["account_id"], order_by: [{column: "account_id"}]',
        'account_id count',
      );
      expect(groups.map((g) => [g.account_id, g.count])).toEqual(expected.map((e) => [e.account, e.n]));
      const list = await sql(
        `SELECT name, pod_count FROM k8s_namespaces WHERE tenant_id = $1 AND workload_count >= 2 ORDER BY name, cloud_account_id`,
      );
      const got = await rows(
        'k8s_namespaces_v2',
        'where: {workload_count: {_gte: 2}}, order_by: [{column: "name"}, {column: "account_id"}]',
        'name pod_count tenant_id',
      );
      expect(got.map((g) => [g.name, g.pod_count])).toEqual(list.map((e) => [e.name, e.pod_count]));
      expect(got.every((g) => g.tenant_id === acme.id)).toBe(true);
    });

    test('k8s_cluster_groupings_v2 per account matches SQL', async () => {
      const expected =
        await sql(`SELECT cloud_account_id::text AS account, count(*)::int AS nodes, sum(cpu_capacity)::float8 AS cpu, sum(memory_allocatable)::float8 AS mem,
          count(*) FILTER (WHERE node_type = 'spot')::int AS spot FROM k8s_nodes WHERE tenant_id = $1 GROUP BY 1 ORDER BY 1`);
      const got = await rows(
        'k8s_cluster_groupings_v2',
        'group_by: ["account_id"], order_by: [{column: "account_id"}]',
        'account_id node_count node_cpu_capacity node_memory_allocatable node_spot_count pod_status_counts workload_type_counts',
      );
      expect(got.map((g) => [g.account_id, g.node_count, g.node_spot_count])).toEqual(
        expected.map((e) => [e.account, e.nodes, e.spot]),
      );
      for (const [i, g] of got.entries()) {
        close(g.node_cpu_capacity, expected[i].cpu);
        close(g.node_memory_allocatable, expected[i].mem);
        const pods = await sql(
          `SELECT status, count(*)::int AS n FROM k8s_pods WHERE tenant_id = $1 AND cloud_account_id = $2 GROUP BY 1`,
          [acme.id, g.account_id as string],
        );
        expect(JSON.parse(g.pod_status_counts as string)).toEqual(Object.fromEntries(pods.map((p) => [p.status, p.n])));
        const kinds = await sql(
          `SELECT kind, count(*)::int AS n FROM k8s_workloads WHERE tenant_id = $1 AND cloud_account_id = $2 GROUP BY 1`,
          [acme.id, g.account_id as string],
        );
        expect(JSON.parse(g.workload_type_counts as string)).toEqual(
          Object.fromEntries(kinds.map((k) => [k.kind, k.n])),
        );
      }
    });
  });

  describe('refusals through HTTP', () => {
    test.each([
      [
        'an unknown column',
        '{ spends_v2(columns: ["price"]) { rows { id } } }',
        /unknown column of spends_v2 "price"; allowed: amount/,
        '$.columns[0]',
      ],
      [
        'an unknown transformation',
        '{ spend_groupings_v2(column_transformations: [{name: "x", expr: "sqrt", args: ["spend_date"]}]) { rows { spend_amount } } }',
        /unknown column transformation expr "sqrt"/,
        '$.column_transformations[0].expr',
      ],
      [
        'a bad date-time',
        '{ events_v2(where: {created_at: {_gt: "last tuesday"}}) { rows { id } } }',
        /expected an ISO 8601 date-time/,
        '$.where.created_at._gt',
      ],
      [
        'a field not in group_by',
        '{ k8s_pod_groupings_v2(group_by: ["status"]) { rows { status namespace count } } }',
        /column namespace is neither in group_by \(status\) nor an aggregate/,
        '$.group_by',
      ],
    ])('%s is validation-failed', async (_name, query, message, path) => {
      const res = await server.gql(query, {}, readonly);
      expect(res.body.errors[0].extensions).toEqual({ code: 'validation-failed', path });
      expect(res.body.errors[0].message).toMatch(message);
    });

    test('an operator the where type does not have, or a value of the wrong type, is refused by the schema', async () => {
      for (const q of [
        '{ spends_v2(where: {amount: {_like: "1%"}}) { rows { id } } }',
        '{ spends_v2(where: {amount: {_gt: "ten"}}) { rows { id } } }',
      ]) {
        const res = await server.gql(q, {}, readonly);
        expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      }
    });

    test('without a tenant in the session the operations are refused', async () => {
      const res = await server.gql('{ spends_v2 { rows { id } } }', {}, { 'x-hasura-role': 'tenant_admin' });
      expect(res.body.errors).toBeDefined();
      expect(res.body.data?.spends_v2 ?? null).toBeNull();
    });
  });
});
