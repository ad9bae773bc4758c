import { buildQuery, roundedLimit, rowsOf, type AnalyticRequest } from '../actions/analytics/builder';
import { spend_groupings_v2, spends } from '../actions/cost';
import { k8sWorkloadMonitoring, k8sWorkloads } from '../actions/kubernetes';
import { recommendation_missconfig_v2, recommendationMissconfig } from '../actions/recommendations';
import { analyticOperation } from '../actions/analytics/operation';
import type { ActionContext } from '../actions/context';
import type { Queryable } from '../engine/core/db/database';
import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * What the analytic builder does for speed, with answers unchanged (issue 20):
 * - equality filters on the text of a uuid column (account_id, cloud_account, ...) compare the bare
 *   column, so its indexes serve them, with the meaning of the text comparison kept for any value,
 *   a malformed one included (no rows, never a database error);
 * - rows are ordered and limited before they become JSON text.
 * Answers are checked through HTTP against SQL written here with the text comparison; plans are read
 * with EXPLAIN (no timing).
 */
const acme = DEMO.tenants.acme;
const AWS = acme.cloudAccounts.aws;
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);

type Row = Record<string, unknown>;

describe(`analytic statements' plans and uuid filters on ${backendName}`, () => {
  let server: TestServer;
  const sql = (text: string, params: (string | null)[] = [acme.id]) => server.started.db.query(text, params);
  /** The ids of spends_v2's rows for a where (GraphQL literal), newest first; fails on any error. */
  const spendIds = async (where: string): Promise<string[]> => {
    const res = await server.gql(
      `{ spends_v2(where: ${where}, order_by: [{column: "date", order: desc}, {column: "id"}]) { rows { id } } }`,
      {},
      readonly,
    );
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return (res.body.data.spends_v2.rows as Row[]).map((r) => String(r.id));
  };
  /** The same rows by the text comparison the builder used to write: `condition` over `t` (the account's text). */
  const textIds = async (condition: string, params: (string | null)[]): Promise<string[]> =>
    (
      await sql(
        `SELECT s.id::text AS id FROM spends s, LATERAL (SELECT s.cloud_account::text AS t) x
          WHERE s.tenant = $1::uuid AND coalesce((${condition}), false) ORDER BY s.date DESC, s.id::text LIMIT 10000`,
        [acme.id, ...params],
      )
    ).map((r) => String(r.id));

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const BAD = 'not-a-uuid';
  /** A spend line's id with hex letters in it, and its uppercase form (the account ids of the demo are all digits). */
  let lettered: string;
  let UPPER: string;
  beforeAll(async () => {
    const [row] = await sql(
      `SELECT s.id::text AS id FROM spends s WHERE s.tenant = $1::uuid AND s.id::text ~ '[a-f]' ORDER BY s.id LIMIT 1`,
    );
    lettered = String(row.id);
    UPPER = lettered.toUpperCase();
  });

  test('_eq on a uuid field: the canonical text matches, uppercase and malformed values match nothing, no error', async () => {
    const aws = await spendIds(`{cloud_account: {_eq: "${AWS}"}}`);
    expect(aws.length).toBeGreaterThan(0);
    expect(aws).toEqual(await textIds('x.t = $2', [AWS]));
    expect(await spendIds(`{id: {_eq: "${lettered}"}}`)).toEqual([lettered]);
    // The text of a uuid is lowercase: the uppercase form never equalled it, and still does not.
    expect(UPPER).not.toBe(lettered);
    expect(await spendIds(`{id: {_eq: "${UPPER}"}}`)).toEqual([]);
    expect(await spendIds(`{cloud_account: {_eq: "${BAD}"}}`)).toEqual([]);
    expect(await spendIds(`{cloud_account: {_eq: "{${AWS}}"}}`)).toEqual([]);
  });

  test('_neq, _in, _not_in and _not with malformed values: the rows of the text comparison', async () => {
    const cases: [string, string, (string | null)[]][] = [
      [`{cloud_account: {_neq: "${BAD}"}}`, 'x.t <> $2', [BAD]],
      [`{cloud_account: {_neq: "${AWS}"}}`, 'x.t <> $2', [AWS]],
      [`{cloud_account: {_in: ["${AWS}", "${BAD}", "${UPPER}"]}}`, 'x.t IN ($2, $3, $4)', [AWS, BAD, UPPER]],
      [`{cloud_account: {_in: ["${BAD}"]}}`, 'x.t IN ($2)', [BAD]],
      [`{cloud_account: {_not_in: ["${AWS}", "${BAD}"]}}`, 'x.t NOT IN ($2, $3)', [AWS, BAD]],
      [`{cloud_account: {_not_in: ["${BAD}"]}}`, 'x.t NOT IN ($2)', [BAD]],
      [`{_not: {cloud_account: {_eq: "${BAD}"}}}`, 'NOT coalesce(x.t = $2, false)', [BAD]],
      [
        `{_or: [{cloud_account: {_eq: "${BAD}"}}, {cloud_account: {_eq: "${AWS}"}}]}`,
        'x.t = $2 OR x.t = $3',
        [BAD, AWS],
      ],
    ];
    for (const [where, condition, params] of cases) {
      const got = await spendIds(where);
      expect({ where, rows: got }).toEqual({ where, rows: await textIds(condition, params) });
    }
  });

  test('other operators on a uuid field keep comparing its text', async () => {
    const prefix = AWS.slice(0, 8);
    expect(await spendIds(`{cloud_account: {_like: "${prefix}%"}}`)).toEqual(
      await textIds('x.t LIKE $2', [`${prefix}%`]),
    );
    expect(await spendIds(`{cloud_account: {_ilike: "${prefix.toUpperCase()}%"}}`)).toEqual(
      await textIds('x.t ILIKE $2', [`${prefix.toUpperCase()}%`]),
    );
  });

  test('a non-string value on a uuid field is still refused as a request error', async () => {
    const res = await server.gql(`{ spends_v2(where: {cloud_account: {_eq: 5}}) { rows { id } } }`, {}, readonly);
    expect(res.body.errors?.[0]?.message).toMatch(/String cannot represent/);
    expect(() => buildQuery(spends, { where: { cloud_account: { _in: [AWS, 5] } } }, acme.id)).toThrow(
      /expected a string at \$\.where\.cloud_account\._in\[1\]/,
    );
  });

  /** The plan of a built statement (values inline), with sequential scans discouraged so that a usable index shows. */
  const planOf = async (req: AnalyticRequest, ds = spends): Promise<string> => {
    const built = buildQuery(ds, req, acme.id);
    return server.started.db.transaction(async (tx) => {
      await tx.exec('SET LOCAL enable_seqscan = off');
      const lines = await tx.query(`EXPLAIN ${built.text}`, built.params, { prepare: false });
      return lines.map((l) => String(l['QUERY PLAN'])).join('\n');
    });
  };

  test("an account filter is answered through the account's index; a malformed value never reaches the database", async () => {
    const plan = await planOf({ where: { cloud_account: { _eq: AWS } }, limit: 20 });
    expect(plan).toMatch(/spends_cloud_account_date_idx/);
    const built = buildQuery(spends, { where: { cloud_account: { _eq: BAD } } }, acme.id);
    expect(built.params).not.toContain(BAD);
  });

  test("workload monitoring reads the tenant's error lines through their partial index, not the whole log table", async () => {
    const plan = await planOf({ where: { account_id: { _eq: AWS } } }, k8sWorkloadMonitoring);
    expect(plan).toMatch(/logs_error_lines_idx/);
    expect(plan).not.toMatch(/Seq Scan on logs/);
  });

  test('ordered, limited rows are the same as ordering all rows; JSON text only for those returned', async () => {
    const req: AnalyticRequest = {
      where: { is_active: { _eq: true } },
      order_by: [{ column: 'kind', order: 'desc' }],
      limit: 7,
      offset: 3,
    };
    const built = buildQuery(k8sWorkloads, req, acme.id, ['name', 'namespace', 'total_pods']);
    const got = rowsOf(built, await server.started.db.query(built.text, built.params));
    const expected = await sql(
      `SELECT name, namespace, total_pods FROM k8s_workloads WHERE tenant_id = $1::uuid AND is_active
        ORDER BY kind DESC, name NULLS LAST, namespace NULLS LAST, total_pods NULLS LAST LIMIT 7 OFFSET 3`,
    );
    // total_pods is a String in the API: returned as its text (Field.text).
    expect(got).toEqual(
      expected.map((e) => ({ ...e, total_pods: e.total_pods === null ? null : String(e.total_pods) })),
    );
    // Each returned column's text is made only in the outer select, over the subquery's (ordered,
    // limited) rows: plain columns, whose JSON the engine writes (no row_to_json per row).
    expect(built.text).toMatch(/^SELECT q\.c0::text AS c0, q\.c1::text AS c1, q\.c2::text AS c2 FROM \(SELECT /);
    const inner = built.text.slice(built.text.indexOf('FROM (SELECT'), built.text.lastIndexOf(' AS q'));
    expect(inner).not.toMatch(/json/);
  });
  test('limits are written into the text rounded up to a power of two or a round limit: few statements, exact answers', async () => {
    const texts = new Set<string>();
    for (const limit of [5, 6, 7, 8]) {
      const req: AnalyticRequest = { order_by: [{ column: 'kind', order: 'desc' }], limit, offset: 2 };
      const built = buildQuery(k8sWorkloads, req, acme.id, ['name']);
      texts.add(built.text);
      const got = rowsOf(built, await server.started.db.query(built.text, built.params));
      const expected = await sql(
        `SELECT name FROM k8s_workloads WHERE tenant_id = $1::uuid ORDER BY kind DESC, name NULLS LAST LIMIT ${limit} OFFSET 2`,
      );
      expect(got).toEqual(expected);
    }
    // Two forms: LIMIT 5 (a round limit), and LIMIT 8 in the text for 6, 7 and 8, whose rows past the
    // exact limit are cut by rowsOf, not by a bound outer LIMIT (whose generic plan guessed 10% of the rows).
    expect(texts.size).toBe(2);
    expect(roundedLimit(0)).toBe(0);
    expect(roundedLimit(1)).toBe(1);
    expect(roundedLimit(50)).toBe(50);
    expect(roundedLimit(60)).toBe(64);
    expect(roundedLimit(100)).toBe(100);
    expect(roundedLimit(101)).toBe(128);
    expect(roundedLimit(9000)).toBe(10000);
  });
  test('an order key that is also returned is read from its column: the rows of ordering by it once, at any limit', async () => {
    const expected = await sql(
      `SELECT name, namespace, kind FROM k8s_workloads WHERE tenant_id = $1::uuid
        ORDER BY kind DESC, name NULLS LAST, namespace NULLS LAST`,
    );
    expect(new Set(expected.map((e) => e.kind)).size).toBeLessThan(expected.length - 2);
    for (const order_by of [
      [{ column: 'kind', order: 'desc' }],
      // A later key on the same column breaks no tie: the same rows.
      [
        { column: 'kind', order: 'desc' },
        { column: 'kind', order: 'asc' },
      ],
    ]) {
      for (const limit of [1, 3, 5, expected.length, expected.length + 1]) {
        const built = buildQuery(k8sWorkloads, { order_by, limit }, acme.id, ['name', 'namespace', 'kind']);
        // kind is returned once (c2) and the statement orders by it, without a copy of it (o0).
        expect(built.text).not.toMatch(/\bo0\b/);
        const got = rowsOf(built, await server.started.db.query(built.text, built.params));
        expect(got).toEqual(expected.slice(0, limit));
      }
    }
  });
  test('a boolean compared is written into the text: the rows of the comparison, each value its own statement', async () => {
    const texts = new Set<string>();
    for (const [op, value, condition] of [
      ['_eq', true, 'is_active = true'],
      ['_eq', false, 'is_active = false'],
      ['_neq', true, 'is_active <> true'],
      ['_neq', false, 'is_active <> false'],
    ] as const) {
      const req: AnalyticRequest = { where: { is_active: { [op]: value } }, order_by: [{ column: 'name' }] };
      const built = buildQuery(k8sWorkloads, req, acme.id, ['name', 'namespace']);
      texts.add(built.text);
      // The tenant is the one bound value: the boolean is in the text.
      expect(built.params).toEqual([acme.id]);
      const got = rowsOf(built, await server.started.db.query(built.text, built.params));
      const expected = await sql(
        `SELECT name, namespace FROM k8s_workloads WHERE tenant_id = $1::uuid AND ${condition}
          ORDER BY name NULLS LAST, namespace NULLS LAST`,
      );
      expect(got).toEqual(expected);
    }
    expect(texts.size).toBe(4);
  });
  test('a dataset whose generic plan was measured slow is planned with its values on every run', async () => {
    // The engine's own database, watched: what each statement was run with.
    const asked: (boolean | undefined)[] = [];
    const real = server.started.db;
    const db: Queryable = {
      query: (text, params, options) => {
        asked.push(options?.prepare);
        return real.query(text, params, options);
      },
      exec: (script) => real.exec(script),
    };
    const session = { role: 'tenant_admin', vars: { 'x-hasura-tenant-id': acme.id }, isAdmin: false, via: 'jwt' };
    const ctx = { db, session } as unknown as ActionContext;
    // spend_groupings_v2 is planned so (its generic plan by day was 1.7x its custom ones).
    await spend_groupings_v2({ group_by: ['spend_date'], limit: 3 }, ctx);
    expect(asked.splice(0)).toEqual([false]);
    // recommendation_missconfig_v2 is not (it was while its statement bound an outer LIMIT): a copy with the flag.
    const handler = analyticOperation({ ...recommendationMissconfig, planEachRun: true });
    const answer = (await handler({ limit: 3 }, ctx)) as { rows: Iterable<Row> };
    expect(asked).toEqual([false]);
    // Without the flag, the statement is prepared (the default).
    await recommendation_missconfig_v2({ limit: 3 }, ctx);
    expect(asked).toEqual([false, undefined]);
    const [count] = await sql(
      `SELECT count(*)::int AS n FROM recommendation WHERE tenant_id = $1::uuid AND category = 'Configuration'`,
    );
    expect([...answer.rows]).toHaveLength(Math.min(3, Number(count.n)));
  });
});
