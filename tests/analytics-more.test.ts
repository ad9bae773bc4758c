import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * Anomaly, automation, event filter value and Kubernetes version operations through HTTP, as a
 * tenant's users: answers checked against SQL written here by hand, and never a row of another tenant.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const globexAdmin = as('tenant_admin', globex.id, globex.users.admin.id);

type Row = Record<string, unknown>;

describe(`anomaly, automation, event filter and Kubernetes version operations on ${backendName}`, () => {
  let server: TestServer;
  const query = async (doc: string, headers = readonly): Promise<Record<string, unknown>> => {
    const res = await server.gql(doc, {}, headers);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const rows = async (field: string, args: string, selection: string, headers = readonly): Promise<Row[]> => {
    const data = await query(`{ ${field}${args ? `(${args})` : ''} { rows { ${selection} } } }`, headers);
    return (data[field] as { rows: Row[] }).rows;
  };
  const sql = (text: string, params: (string | null)[] = [acme.id]) => server.started.db.query(text, params);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  describe('Anomalies', () => {
    test('anomaly_v2: filtered, sorted and paged evaluations match SQL, for both tenant roles', async () => {
      const expected =
        await sql(`SELECT id::text AS id, account_id::text AS account_id, anomaly_type, config_id::text AS config_id, current_value::text AS current_value,
          is_anomaly, name, coalesce(namespace, '') AS namespace, reference_value::text AS reference_value,
          to_char(evaluated_at, 'YYYY-MM-DD"T"HH24:MI:SS') AS evaluated_at
        FROM anomaly WHERE tenant = $1 ORDER BY anomaly.current_value DESC, id`);
      expect(expected.length).toBeGreaterThan(2);
      for (const headers of [readonly, admin]) {
        const got = await rows(
          'anomaly_v2',
          'order_by: [{column: "current_value", order: desc}, {column: "id"}]',
          'id account_id anomaly_type config_id current_value is_anomaly name namespace reference_value evaluated_at updated_at',
          headers,
        );
        expect(got.map((g) => g.id)).toEqual(expected.map((e) => e.id));
        for (const g of got) {
          const e = expected.find((x) => x.id === g.id)!;
          expect(g).toMatchObject({
            account_id: e.account_id,
            anomaly_type: e.anomaly_type,
            config_id: e.config_id,
            is_anomaly: e.is_anomaly,
            name: e.name,
            namespace: e.namespace,
          });
          expect(Number(g.current_value)).toBeCloseTo(Number(e.current_value), 6);
          expect(JSON.parse(String(g.reference_value))).toEqual(JSON.parse(String(e.reference_value)));
          expect(String(g.evaluated_at).slice(0, 19)).toBe(e.evaluated_at);
        }
      }
      const paged = await rows(
        'anomaly_v2',
        'where: {is_anomaly: {_eq: true}}, order_by: [{column: "evaluated_at", order: desc}], limit: 2, offset: 1',
        'id evaluated_at',
      );
      const byDate = await sql(
        `SELECT id::text AS id FROM anomaly WHERE tenant = $1 AND is_anomaly ORDER BY evaluated_at DESC, id LIMIT 2 OFFSET 1`,
      );
      expect(paged.map((p) => p.id)).toEqual(byDate.map((e) => e.id));
    });

    test('anomaly_v2 with filters on type, namespace and account', async () => {
      const expected = await sql(
        `SELECT id::text AS id FROM anomaly WHERE tenant = $1 AND anomaly_type IN ('CPU', 'Memory') AND namespace = 'production' AND account_id = $2 ORDER BY name, id`,
        [acme.id, acme.cloudAccounts.aws],
      );
      const got = await rows(
        'anomaly_v2',
        `where: {anomaly_type: {_in: ["CPU", "Memory"]}, namespace: {_eq: "production"}, account_id: {_eq: "${acme.cloudAccounts.aws}"}}, order_by: [{column: "name"}, {column: "id"}]`,
        'id',
      );
      expect(got.map((g) => g.id)).toEqual(expected.map((e) => e.id));
      expect(got.length).toBeGreaterThan(0);
    });

    test('anomaly_grouping_v2 counts what SQL counts', async () => {
      const [{ all, anomalous }] = await sql(
        `SELECT count(*)::int AS all, count(*) FILTER (WHERE is_anomaly)::int AS anomalous FROM anomaly WHERE tenant = $1`,
      );
      expect(await rows('anomaly_grouping_v2', '', 'count')).toEqual([{ count: all }]);
      expect(await rows('anomaly_grouping_v2', 'where: {is_anomaly: {_eq: true}}', 'count', admin)).toEqual([
        { count: anomalous },
      ]);
    });

    test('anomaly_v3: per type, workload and namespace, latest evaluation first', async () => {
      const expected =
        await sql(`SELECT anomaly_type, name, coalesce(namespace, '') AS namespace, count(*)::int AS count, count(*) FILTER (WHERE is_anomaly)::int AS anomaly_count,
          to_char(max(evaluated_at), 'YYYY-MM-DD"T"HH24:MI:SS') AS evaluated_at
        FROM anomaly WHERE tenant = $1 GROUP BY 1, 2, 3 ORDER BY max(evaluated_at) DESC, 1, 2, 3`);
      const got = await rows('anomaly_v3', '', 'anomaly_type name namespace count anomaly_count evaluated_at');
      expect(got.map((g) => ({ ...g, evaluated_at: String(g.evaluated_at).slice(0, 19) }))).toEqual(expected);
      const paged = await rows(
        'anomaly_v3',
        'where: {anomaly_type: {_neq: "ErrorRate"}}, limit: 1, offset: 1',
        'name',
        admin,
      );
      const names = expected.filter((e) => e.anomaly_type !== 'ErrorRate').map((e) => ({ name: e.name }));
      expect(paged).toEqual(names.slice(1, 2));
    });

    test('anomaly operations never see another tenant, even when asked for it', async () => {
      const globexAccounts = Object.values(globex.cloudAccounts);
      const got = await rows('anomaly_v2', `where: {account_id: {_in: ${JSON.stringify(globexAccounts)}}}`, 'id');
      expect(got).toEqual([]);
      const all = await rows('anomaly_v2', '', 'id account_id');
      const acmeAccounts = new Set<string>(Object.values(acme.cloudAccounts));
      expect(all.every((r) => acmeAccounts.has(r.account_id as string))).toBe(true);
      const [{ n }] = await sql('SELECT count(*)::int AS n FROM anomaly WHERE tenant = $1', [globex.id]);
      expect(await rows('anomaly_grouping_v2', '', 'count', globexAdmin)).toEqual([{ count: n }]);
      const ids = new Set(
        (await sql('SELECT id::text AS id FROM anomaly WHERE tenant = $1', [globex.id])).map((r) => r.id),
      );
      expect(all.some((r) => ids.has(r.id as string))).toBe(false);
    });
  });

  describe('Automation', () => {
    test('auto_playbook_v2 matches SQL (with creator and editor names), for both tenant roles', async () => {
      const expected =
        await sql(`SELECT p.id::text AS id, p.name, p.status, p.account_id::text AS account_id, p.trigger::text AS trigger, p.tasks::text AS tasks,
          cu.username, cu.display_name, uu.username AS updated_username, uu.display_name AS updated_user_displayname
        FROM auto_playbook p LEFT JOIN users cu ON cu.id = p.created_by LEFT JOIN users uu ON uu.id = p.updated_by
        WHERE p.tenant_id = $1 ORDER BY p.created_at DESC, p.id`);
      expect(expected.length).toBeGreaterThan(0);
      for (const headers of [readonly, admin]) {
        const got = await rows(
          'auto_playbook_v2',
          'order_by: [{column: "created_at", order: desc}, {column: "id"}]',
          'id name status account_id trigger tasks username display_name updated_username updated_user_displayname tenant_id',
          headers,
        );
        expect(got.map((g) => g.id)).toEqual(expected.map((e) => e.id));
        got.forEach((g, i) => {
          const e = expected[i];
          expect(g).toMatchObject({
            name: e.name,
            status: e.status,
            account_id: e.account_id,
            username: e.username,
            display_name: e.display_name,
            updated_username: e.updated_username,
            updated_user_displayname: e.updated_user_displayname,
            tenant_id: acme.id,
          });
          expect(JSON.parse(String(g.trigger))).toEqual(JSON.parse(String(e.trigger)));
          expect(JSON.parse(String(g.tasks))).toEqual(JSON.parse(String(e.tasks)));
        });
      }
      const byMonth =
        await sql(`SELECT to_char(date_trunc('month', created_at), 'YYYY-MM-DD"T"HH24:MI:SS') AS month, id::text AS id FROM auto_playbook
        WHERE tenant_id = $1 AND resource_filter ? 'namespaces' AND trigger @> '{"event": "Container OOMKilled"}' ORDER BY 1, 2`);
      expect(byMonth.length).toBeGreaterThan(0);
      const months = await rows(
        'auto_playbook_v2',
        `column_transformations: [{name: "created_at", expr: "date_trunc", args: ["month", "created_at"]}],
        where: {resource_filter: {_has_key: "namespaces"}, trigger: {_contains: "{\\"event\\": \\"Container OOMKilled\\"}"}}, order_by: [{column: "created_at"}, {column: "id"}]`,
        'created_at id',
        admin,
      );
      expect(months).toEqual(byMonth.map((m) => ({ created_at: m.month, id: m.id })));
      const active = await sql(
        `SELECT id::text AS id FROM auto_playbook WHERE tenant_id = $1 AND status = 'ACTIVE' ORDER BY name`,
      );
      const got = await rows(
        'auto_playbook_v2',
        'where: {status: {_eq: "ACTIVE"}}, order_by: [{column: "name"}], columns: ["id"]',
        'id',
      );
      expect(got.map((g) => g.id)).toEqual(active.map((e) => e.id));
    });

    test('auto_playbook_grouping_v2 counts what SQL counts; another tenant never appears', async () => {
      const [{ all, active }] = await sql(
        `SELECT count(*)::int AS all, count(*) FILTER (WHERE status = 'ACTIVE')::int AS active FROM auto_playbook WHERE tenant_id = $1`,
      );
      expect(await rows('auto_playbook_grouping_v2', '', 'count')).toEqual([{ count: all }]);
      expect(await rows('auto_playbook_grouping_v2', 'where: {status: {_eq: "ACTIVE"}}', 'count', admin)).toEqual([
        { count: active },
      ]);
      expect(await rows('auto_playbook_grouping_v2', `where: {tenant_id: {_eq: "${globex.id}"}}`, 'count')).toEqual([
        { count: 0 },
      ]);
      const globexIds = new Set(
        (await sql('SELECT id::text AS id FROM auto_playbook WHERE tenant_id = $1', [globex.id])).map((r) => r.id),
      );
      expect(globexIds.size).toBeGreaterThan(0);
      const got = await rows('auto_playbook_v2', `where: {id: {_in: ${JSON.stringify([...globexIds])}}}`, 'id');
      expect(got).toEqual([]);
    });
  });

  describe('Events', () => {
    const FILTER_VALUES = `query ($r: EventFilterValuesRequest!) { event_get_filter_values(request: $r) { account_id filters { filter_type total values { value count } } } }`;
    const filterValues = async (request: Record<string, unknown>, headers = readonly) => {
      const res = await server.gql(FILTER_VALUES, { r: request }, headers);
      if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
      return res.body.data.event_get_filter_values as {
        account_id: string | null;
        filters: { filter_type: string; total: number; values: { value: string; count: number }[] }[];
      };
    };
    /** Hand-written: the values of one column with counts, most frequent first. */
    const expectedValues = async (column: string, extra: string, params: (string | null)[]) => {
      const rows = await sql(
        `SELECT ${column} AS value, count(*)::int AS count FROM events WHERE tenant = $1 ${extra} AND ${column} IS NOT NULL AND ${column} <> ''
        GROUP BY 1 ORDER BY 2 DESC, 1`,
        params,
      );
      return rows.map((r) => ({ value: String(r.value), count: Number(r.count) }));
    };

    test('event_get_filter_values: namespace, workload, source and a label in a time range match SQL, for both tenant roles', async () => {
      const [{ lo, hi }] = await sql(
        `SELECT to_char(min(created_at), 'YYYY-MM-DD"T"HH24:MI:SS') AS lo, to_char(max(created_at), 'YYYY-MM-DD"T"HH24:MI:SS') AS hi FROM events WHERE tenant = $1`,
      );
      const [{ mid }] = await sql(
        `SELECT to_char(created_at, 'YYYY-MM-DD"T"HH24:MI:SS') AS mid FROM events WHERE tenant = $1 ORDER BY created_at OFFSET (SELECT count(*) / 2 FROM events WHERE tenant = $1) LIMIT 1`,
      );
      expect(lo < mid && mid <= hi).toBe(true);
      const range = `AND created_at >= $2::timestamp AND created_at <= $3::timestamp`;
      const params = [acme.id, String(mid), String(hi)];
      for (const headers of [readonly, admin]) {
        const got = await filterValues(
          {
            filter_types: ['namespace', 'workload', 'source', 'label'],
            label_key: 'alertname',
            start_time: `${mid}Z`,
            end_time: `${hi}Z`,
          },
          headers,
        );
        expect(got.account_id).toBeNull();
        expect(got.filters.map((f) => f.filter_type)).toEqual(['namespace', 'workload', 'source', 'label']);
        const workload = `coalesce(subject_owner, CASE WHEN subject_type IN ('deployment', 'statefulset', 'daemonset', 'job', 'cronjob', 'replicaset', 'rollout') THEN subject_name END)`;
        const columns = ['subject_namespace', workload, 'source', `(labels ->> 'alertname')`];
        for (const [i, column] of columns.entries()) {
          const expected = await expectedValues(column, range, params);
          expect(expected.length).toBeGreaterThan(0);
          expect(got.filters[i].values).toEqual(expected);
          expect(got.filters[i].total).toBe(expected.length);
        }
      }
    });

    test('event_get_filter_values in one account with a limit: total counts every value', async () => {
      const account = acme.cloudAccounts.aws;
      const got = await filterValues({ account_id: account, filter_types: ['priority', 'label_key'], limit: 2 });
      expect(got.account_id).toBe(account);
      const priority = await expectedValues('priority', 'AND cloud_account_id = $2', [acme.id, account]);
      expect(got.filters[0]).toEqual({ filter_type: 'priority', total: priority.length, values: priority.slice(0, 2) });
      const keys = (
        await sql(
          `SELECT k AS value, count(*)::int AS count FROM events, jsonb_object_keys(labels) AS k WHERE tenant = $1 AND cloud_account_id = $2 AND jsonb_typeof(labels) = 'object'
        GROUP BY 1 ORDER BY 2 DESC, 1`,
          [acme.id, account],
        )
      ).map((r) => ({ value: String(r.value), count: Number(r.count) }));
      expect(got.filters[1]).toEqual({ filter_type: 'label_key', total: keys.length, values: keys.slice(0, 2) });
    });

    test('event_get_filter_values never sees another tenant, and refuses unknown filter types', async () => {
      const globexAccount = Object.values(globex.cloudAccounts)[0];
      const got = await filterValues({ account_id: globexAccount, filter_types: ['namespace', 'account_id'] });
      expect(got.filters).toEqual([
        { filter_type: 'namespace', total: 0, values: [] },
        { filter_type: 'account_id', total: 0, values: [] },
      ]);
      const accounts = await filterValues({ filter_types: ['account_id'] }, admin);
      const acmeAccounts = new Set<string>(Object.values(acme.cloudAccounts));
      expect(accounts.filters[0].values.length).toBeGreaterThan(0);
      expect(accounts.filters[0].values.every((v) => acmeAccounts.has(v.value))).toBe(true);
      const res = await server.gql(FILTER_VALUES, { r: { filter_types: ['namespace', 'colour'] } }, readonly);
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      expect(res.body.errors[0].message).toContain('colour');
      const noKey = await server.gql(FILTER_VALUES, { r: { filter_types: ['label'] } }, readonly);
      expect(noKey.body.errors[0].message).toContain('label_key');
    });
  });

  describe('Kubernetes', () => {
    test("k8s_versions: newest first, with dates, covering every version the tenant's agents report, for both tenant roles", async () => {
      const reported = (
        await sql(
          `SELECT DISTINCT k8s_version AS v FROM agent WHERE tenant = $1 AND k8s_version IS NOT NULL ORDER BY 1`,
        )
      ).map((r) => String(r.v));
      expect(reported.length).toBeGreaterThan(0);
      for (const headers of [readonly, admin]) {
        const data = await query('{ k8s_versions { version release_date } }', headers);
        const got = data.k8s_versions as { version: string; release_date: string }[];
        expect(got.length).toBeGreaterThan(0);
        for (const v of reported) expect(got.map((g) => g.version)).toContain(v);
        const minor = (v: string) => Number(v.split('.')[1]);
        for (let i = 1; i < got.length; i++) {
          expect(minor(got[i - 1].version)).toBeGreaterThan(minor(got[i].version));
          expect(got[i - 1].release_date > got[i].release_date).toBe(true);
        }
        expect(got.every((g) => /^\d{4}-\d{2}-\d{2}$/.test(g.release_date))).toBe(true);
      }
    });
  });
});
