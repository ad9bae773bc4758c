import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * `cloud_resources_v2`, the platform's native query (metadata/databases/default/native_queries.yaml),
 * through HTTP as a tenant's users: values checked against SQL written here by hand, the list
 * arguments, and never a row of another tenant.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const FROM = '2026-01-01';
const TO = '2026-01-31';
const ARGS = `args: {spend_from: "${FROM}", spend_to: "${TO}"}`;
const FIELDS =
  'account id name recommendations region resourse_created_on resourse_id service_name spend_amount status tenant type';

type Row = Record<string, unknown>;

/** The rows as the test computes them: every field, spend in [from, to], open recommendations. */
const EXPECTED = `
SELECT r.account::text AS account, r.id::text AS id, r.name, r.region, to_json(r.resourse_created_on) #>> '{}' AS resourse_created_on,
  r.resourse_id, r.service_name, r.status, r.tenant::text AS tenant, r.type,
  (SELECT coalesce(sum(s.amount), 0)::float8 FROM spends s WHERE s.cloud_resource_id = r.id AND s.date BETWEEN $2::timestamp AND $3::timestamp) AS spend_amount,
  (SELECT coalesce(json_agg(json_build_object('id', x.id, 'rule_name', x.rule_name, 'category', x.category, 'severity', x.severity,
            'estimated_savings', x.estimated_savings) ORDER BY x.id), '[]')::text
     FROM recommendation x WHERE x.resource_id = r.id AND NOT x.is_dismissed AND coalesce(x.status, 'Open') NOT IN ('Closed', 'Dismissed', 'Archive')) AS recommendations
FROM cloud_resourses r WHERE r.tenant = $1::uuid`;

describe(`cloud_resources_v2 on ${backendName}`, () => {
  let server: TestServer;
  const sql = (text: string, params: string[]) => server.started.db.query(text, params);
  const expected = (tenant: string, from = FROM, to = TO, tail = 'ORDER BY r.id') =>
    sql(`${EXPECTED} ${tail}`, [tenant, from, to]);
  const rows = async (args: string, selection = FIELDS, headers = readonly): Promise<Row[]> => {
    const res = await server.gql(`{ cloud_resources_v2(${args}) { ${selection} } }`, {}, headers);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data.cloud_resources_v2 as Row[];
  };
  const errorOf = async (query: string) => (await server.gql(query, {}, readonly)).body.errors?.[0];
  /** Recommendations sorted by id, as the expected SQL lists them. */
  const normal = (r: Row) => ({
    ...r,
    recommendations: [...(r.recommendations as { id: string }[])].sort((a, b) => (a.id < b.id ? -1 : 1)),
  });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('every field of every resource of the tenant matches SQL, for both tenant roles', async () => {
    const want = (await expected(acme.id)).map((r) => ({
      ...r,
      recommendations: JSON.parse(String(r.recommendations)),
    }));
    expect(want.length).toBeGreaterThan(2);
    expect(want.some((r) => Number(r.spend_amount) > 0)).toBe(true);
    expect(want.some((r) => (r.recommendations as unknown[]).length > 0)).toBe(true);
    for (const headers of [readonly, admin]) {
      const got = await rows(`${ARGS}, order_by: {id: asc}`, FIELDS, headers);
      expect(got.length).toBe(want.length);
      got.forEach((g, i) => {
        const w = want[i];
        expect({ ...normal(g), spend_amount: undefined }).toEqual({ ...w, spend_amount: undefined });
        expect(Number(g.spend_amount)).toBeCloseTo(Number(w.spend_amount), 6);
      });
    }
  });

  test('the period includes both ends; a resource without spend in it has 0', async () => {
    const [line] = await sql(
      `SELECT s.cloud_resource_id::text AS id, to_char(s.date, 'YYYY-MM-DD"T"HH24:MI:SS') AS day
      FROM spends s WHERE s.tenant = $1 AND s.cloud_resource_id IS NOT NULL ORDER BY s.date, s.id LIMIT 1`,
      [acme.id],
    );
    const got = await rows(
      `args: {spend_from: "${line.day}", spend_to: "${line.day}"}, where: {id: {_eq: "${line.id}"}}`,
      'spend_amount',
    );
    const [want] = await sql(
      'SELECT sum(amount)::float8 AS amount FROM spends WHERE cloud_resource_id = $1 AND date = $2::timestamp',
      [String(line.id), String(line.day)],
    );
    expect(Number(got[0].spend_amount)).toBeCloseTo(Number(want.amount), 6);
    const none = await rows('args: {spend_from: "1990-01-01", spend_to: "1990-12-31"}', 'spend_amount');
    expect(none.length).toBeGreaterThan(0);
    expect(new Set(none.map((r) => r.spend_amount))).toEqual(new Set([0]));
  });

  test('where, order_by, limit and offset', async () => {
    const got = await rows(
      `${ARGS}, where: {spend_amount: {_gt: 0}, service_name: {_is_null: false}}, order_by: [{spend_amount: desc}, {id: asc}], limit: 3, offset: 1`,
      'id spend_amount',
    );
    const want = await sql(
      `SELECT * FROM (${EXPECTED}) e WHERE e.spend_amount > 0 AND e.service_name IS NOT NULL ORDER BY e.spend_amount DESC, e.id LIMIT 3 OFFSET 1`,
      [acme.id, FROM, TO],
    );
    expect(got.map((r) => r.id)).toEqual(want.map((r) => r.id));
    expect(got.length).toBe(3);
  });

  test('distinct_on: the most expensive resource of each account', async () => {
    const got = await rows(
      `${ARGS}, distinct_on: [account], order_by: [{account: asc}, {spend_amount: desc}, {id: asc}]`,
      'account id',
    );
    const want = await sql(
      `SELECT DISTINCT ON (e.account) e.account, e.id FROM (${EXPECTED}) e ORDER BY e.account, e.spend_amount DESC, e.id`,
      [acme.id, FROM, TO],
    );
    expect(got).toEqual(want);
    expect(got.length).toBeGreaterThan(1);
  });

  test("another tenant's rows never appear", async () => {
    const globexIds = new Set((await expected(globex.id)).map((r) => r.id));
    expect(globexIds.size).toBeGreaterThan(0);
    for (const headers of [readonly, admin]) {
      const got = await rows(ARGS, 'id tenant', headers);
      expect(new Set(got.map((r) => r.tenant))).toEqual(new Set([acme.id]));
      expect(got.some((r) => globexIds.has(r.id))).toBe(false);
      expect(await rows(`${ARGS}, where: {tenant: {_eq: "${globex.id}"}}`, 'id', headers)).toEqual([]);
      expect(
        await rows(
          `${ARGS}, where: {_or: [{tenant: {_eq: "${globex.id}"}}, {id: {_in: ${JSON.stringify([...globexIds])}}}]}`,
          'id',
          headers,
        ),
      ).toEqual([]);
    }
    const theirs = await rows(ARGS, 'tenant', as('tenant_admin_readonly', globex.id, globex.users.readonly.id));
    expect(new Set(theirs.map((r) => r.tenant))).toEqual(new Set([globex.id]));
  });

  test('args is required, with both timestamps', async () => {
    for (const query of [
      '{ cloud_resources_v2 { id } }',
      `{ cloud_resources_v2(args: {spend_from: "${FROM}"}) { id } }`,
      '{ cloud_resources_v2(args: {spend_from: "yesterday", spend_to: "today"}) { id } }',
    ]) {
      const err = await errorOf(query);
      expect(err.extensions.code).toBe('validation-failed');
    }
  });

  test('argument values travel as variables too', async () => {
    const res = await server.gql(
      'query ($a: cloud_resources_v2_arguments!) { cloud_resources_v2(args: $a, order_by: {id: asc}) { id spend_amount } }',
      { a: { spend_from: FROM, spend_to: TO } },
      readonly,
    );
    const want = await expected(acme.id);
    expect(res.body.data.cloud_resources_v2.map((r: Row) => r.id)).toEqual(want.map((r) => r.id));
  });

  test("introspection matches the reference's signature and types", async () => {
    const res = await server.gql(
      `{
      __schema { queryType { fields { name type { ...T } args { name type { ...T } } } } }
      o: __type(name: "cloud_resource_v2") { fields { name type { ...T } } }
      e: __type(name: "cloud_resource_v2_enum_name") { enumValues { name } }
      a: __type(name: "cloud_resources_v2_arguments") { inputFields { name type { ...T } } }
    }
    fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { name } } } }`,
      {},
      readonly,
    );
    type T = { kind: string; name: string | null; ofType: T | null };
    const render = (t: T): string =>
      t.kind === 'NON_NULL' ? `${render(t.ofType!)}!` : t.kind === 'LIST' ? `[${render(t.ofType!)}]` : t.name!;
    const data = res.body.data;
    const field = data.__schema.queryType.fields.find((f: { name: string }) => f.name === 'cloud_resources_v2');
    expect(render(field.type)).toBe('[cloud_resource_v2!]!');
    expect(Object.fromEntries(field.args.map((a: { name: string; type: T }) => [a.name, render(a.type)]))).toEqual({
      args: 'cloud_resources_v2_arguments!',
      distinct_on: '[cloud_resource_v2_enum_name!]',
      limit: 'Int',
      offset: 'Int',
      order_by: '[cloud_resource_v2_order_by!]',
      where: 'cloud_resource_v2_bool_exp_bool_exp',
    });
    expect(Object.fromEntries(data.o.fields.map((f: { name: string; type: T }) => [f.name, render(f.type)]))).toEqual({
      account: 'uuid!',
      id: 'uuid!',
      name: 'String',
      recommendations: 'json',
      region: 'String',
      resourse_created_on: 'timestamp',
      resourse_id: 'String',
      service_name: 'String',
      spend_amount: 'float8',
      status: 'String',
      tenant: 'uuid!',
      type: 'String',
    });
    expect(data.e.enumValues.map((v: { name: string }) => v.name)).toEqual(FIELDS.split(' '));
    expect(
      Object.fromEntries(data.a.inputFields.map((f: { name: string; type: T }) => [f.name, render(f.type)])),
    ).toEqual({ spend_from: 'timestamp!', spend_to: 'timestamp!' });
  });
});
