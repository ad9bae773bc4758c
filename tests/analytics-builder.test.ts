import { buildQuery, roundedLimit, rowsAnswer, rowsOf, type AnalyticRequest } from '../actions/analytics/builder';
import { eventGroupings } from '../actions/events';
import { JsonRows } from '../actions/api';
import type { Dataset } from '../actions/analytics/dataset';
import { analyticStatement } from '../actions/analytics/statements';
import { spendGroupings, spends } from '../actions/cost';
import { k8sWorkloads } from '../actions/kubernetes';
import { recommendationGroupings } from '../actions/recommendations';
import { RequestError } from '../engine/core/errors';
import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { spacesOutsideStrings } from './support/json-text';
import { startTestServer, type TestServer } from './support/server';

/**
 * The analytic query builder against an oracle: random requests (seeded) over several datasets,
 * each answered by the builder and by SQL that this test writes its own way (a derived table of
 * named row fields, literals instead of parameters, its own transformation and aggregate SQL).
 */
const acme = DEMO.tenants.acme.id;

type T = 'string' | 'float' | 'int' | 'boolean' | 'datetime' | 'json';
interface Oracle {
  ds: Dataset;
  /** The row fields as named columns of one tenant's rows (plus raw columns the aggregates use). */
  base: (tenant: string) => string;
  fields: Record<string, T>;
  /** Where fields: their column in `base` (same name unless said) and type. */
  where: Record<string, { col?: string; type: T }>;
  aggregates?: Record<string, string>;
}

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

const ORACLES: Oracle[] = [
  {
    ds: spendGroupings,
    base: (
      t,
    ) => `SELECT s.cloud_account::text AS account_id, s.unit AS currency_type, s.cloud_resource_id::text AS resource_id,
        r.region AS resource_region, r.service_name AS resource_service_name, r.type AS resource_type, s.date AS spend_date,
        s.tenant::text AS tenant_id, s.amount AS raw_amount, coalesce(s.exclude_aggregate, false) AS raw_exclude
      FROM spends s LEFT JOIN cloud_resourses r ON r.id = s.cloud_resource_id WHERE s.tenant = ${lit(t)}::uuid`,
    fields: {
      account_id: 'string',
      currency_type: 'string',
      resource_id: 'string',
      resource_region: 'string',
      resource_service_name: 'string',
      resource_type: 'string',
      spend_date: 'datetime',
      tenant_id: 'string',
    },
    where: {
      account_id: { type: 'string' },
      resource_id: { type: 'string' },
      resource_region: { type: 'string' },
      resource_service_name: { type: 'string' },
      resource_type: { type: 'string' },
      spend_date: { type: 'datetime' },
      exclude_aggregate: { col: 'raw_exclude', type: 'boolean' },
    },
    aggregates: {
      spend_amount: 'coalesce(sum(b.raw_amount), 0)',
      spend_count: 'count(*)',
      resource_count: 'count(DISTINCT b.resource_id)',
      account_count: 'count(DISTINCT b.account_id)',
    },
  },
  {
    ds: spends,
    base: (
      t,
    ) => `SELECT s.amount, s.business_unit::text AS business_unit, s.cloud_account::text AS cloud_account, s.cloud_resource_id::text AS cloud_resource_id,
        s.date, coalesce(s.exclude_aggregate, false) AS exclude_aggregate, s.id::text AS id, r.region AS resource_region,
        r.service_name AS resource_service_name, r.type AS resource_type, s.tags, s.tenant::text AS tenant, s.unit
      FROM spends s LEFT JOIN cloud_resourses r ON r.id = s.cloud_resource_id WHERE s.tenant = ${lit(t)}::uuid`,
    fields: {
      amount: 'float',
      business_unit: 'string',
      cloud_account: 'string',
      cloud_resource_id: 'string',
      date: 'datetime',
      exclude_aggregate: 'boolean',
      id: 'string',
      resource_region: 'string',
      resource_service_name: 'string',
      resource_type: 'string',
      tags: 'json',
      tenant: 'string',
      unit: 'string',
    },
    where: {
      amount: { type: 'float' },
      cloud_account: { type: 'string' },
      cloud_resource_id: { type: 'string' },
      date: { type: 'datetime' },
      resource_region: { type: 'string' },
      resource_service_name: { type: 'string' },
      resource_type: { type: 'string' },
      unit: { type: 'string' },
    },
  },
  {
    ds: k8sWorkloads,
    base: (
      t,
    ) => `SELECT cloud_account_id::text AS account_id, creation_time, external_id, is_active, kind, labels, last_seen, meta, name, namespace,
        ready_pods, cloud_resource_id::text AS resource_id, tenant_id::text AS tenant_id, total_pods, updated_at,
        namespace || '/' || kind || '/' || name AS workload_fqdn
      FROM k8s_workloads WHERE tenant_id = ${lit(t)}::uuid`,
    fields: {
      account_id: 'string',
      creation_time: 'datetime',
      external_id: 'string',
      is_active: 'boolean',
      kind: 'string',
      labels: 'json',
      last_seen: 'datetime',
      meta: 'json',
      name: 'string',
      namespace: 'string',
      ready_pods: 'int',
      resource_id: 'string',
      tenant_id: 'string',
      total_pods: 'int',
      updated_at: 'datetime',
      workload_fqdn: 'string',
    },
    where: {
      account_id: { type: 'string' },
      creation_time: { type: 'datetime' },
      is_active: { type: 'boolean' },
      kind: { type: 'string' },
      labels: { type: 'json' },
      name: { type: 'string' },
      namespace: { type: 'string' },
      ready_pods: { type: 'int' },
      total_pods: { type: 'int' },
      workload_fqdn: { type: 'string' },
    },
  },
  {
    ds: recommendationGroupings,
    base: (
      t,
    ) => `SELECT rc.cloud_account_id::text AS account_id, rc.account_object_id, rc.category, r.service_name AS resource_cloud_service,
        rc.resource_id::text AS resource_id, rc.recommendation ->> 'namespace' AS resource_k8s_namespace, r.name AS resource_name, r.type AS resource_type,
        rc.rule_name, rc.severity, rc.status, rc.tenant_id::text AS tenant_id, rc.created_at AS "timestamp", rc.estimated_savings AS raw_savings
      FROM recommendation rc LEFT JOIN cloud_resourses r ON r.id = rc.resource_id WHERE rc.tenant_id = ${lit(t)}::uuid`,
    fields: {
      account_id: 'string',
      account_object_id: 'string',
      category: 'string',
      resource_cloud_service: 'string',
      resource_id: 'string',
      resource_k8s_namespace: 'string',
      resource_name: 'string',
      resource_type: 'string',
      rule_name: 'string',
      severity: 'string',
      status: 'string',
      tenant_id: 'string',
      timestamp: 'datetime',
    },
    where: {
      account_id: { type: 'string' },
      category: { type: 'string' },
      resource_name: { type: 'string' },
      rule_name: { type: 'string' },
      severity: { type: 'string' },
      status: { type: 'string' },
      timestamp: { type: 'datetime' },
      estimated_savings: { col: 'raw_savings', type: 'float' },
    },
    aggregates: { count: 'count(*)::int', sum_estimated_savings: 'coalesce(sum(b.raw_savings), 0)' },
  },
];

/** mulberry32: a small seeded generator, so that a failure can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <X>(xs: readonly X[]): X => xs[Math.floor(next() * xs.length)]!,
    chance: (p: number) => next() < p,
    some: <X>(xs: readonly X[], max: number): X[] => {
      const copy = [...xs];
      const out: X[] = [];
      const n = Math.floor(next() * (max + 1));
      while (out.length < n && copy.length) out.push(copy.splice(Math.floor(next() * copy.length), 1)[0]!);
      return out;
    },
  };
}
type Rng = ReturnType<typeof rng>;

/** A random request and the oracle's SQL for it. */
function draw(o: Oracle, r: Rng, samples: Record<string, unknown[]>): { req: AnalyticRequest; sql: string } {
  const fieldNames = Object.keys(o.fields).filter((n) => o.fields[n] !== 'json' || !o.aggregates);
  const transforms: { name: string; expr: string; args: string[] }[] = [];
  const tsql: Record<string, string> = {};
  const ttype: Record<string, T> = {};
  for (const f of r.some(fieldNames, 2)) {
    const type = o.fields[f];
    const name = r.chance(0.5) ? f : `t_${f}`;
    if (type === 'datetime') {
      const unit = r.pick(['hour', 'day', 'week', 'month', 'quarter', 'year']);
      transforms.push({ name, expr: 'date_trunc', args: [unit, f] });
      tsql[name] = `date_trunc(${lit(unit)}, b.${q(f)})`;
      ttype[name] = 'datetime';
    } else if (type === 'string') {
      const expr = r.pick(['lower', 'upper', 'coalesce']);
      transforms.push({ name, expr, args: expr === 'coalesce' ? [f, 'none'] : [f] });
      tsql[name] = expr === 'coalesce' ? `coalesce(b.${q(f)}, 'none')` : `${expr}(b.${q(f)})`;
      ttype[name] = 'string';
    } else if (type === 'json') {
      transforms.push({ name, expr: 'json_key', args: [f, 'app'] });
      tsql[name] = `(b.${q(f)} ->> 'app')`;
      ttype[name] = 'string';
    } else if (type === 'float' || type === 'int') {
      transforms.push({ name, expr: 'coalesce', args: [f, '0'] });
      tsql[name] = `coalesce(b.${q(f)}, 0)`;
      ttype[name] = type;
    }
  }
  const colSql = (name: string) => tsql[name] ?? (o.aggregates?.[name] ? o.aggregates[name] : `b.${q(name)}`);
  const nonAgg = [...new Set([...fieldNames, ...Object.keys(tsql)])];
  let columns: string[];
  let groupBy: string[] | undefined;
  if (o.aggregates) {
    const groups = r.some(nonAgg, 2);
    const aggs = r.some(Object.keys(o.aggregates), 3);
    if (!aggs.length) aggs.push(Object.keys(o.aggregates)[0]!);
    groupBy = groups;
    columns = [...r.some(groups, groups.length), ...aggs];
  } else {
    columns = r.some(nonAgg, 5);
    if (!columns.length) columns = [r.pick(nonAgg)];
  }
  // order_by: returned columns, groups, or (plain) any row field.
  const orderable = o.aggregates ? [...(groupBy ?? []), ...Object.keys(o.aggregates)] : nonAgg;
  const orders = r.some(orderable, 2).map((column) => ({
    column,
    order: r.pick(['asc', 'desc', 'asc_nulls_first', 'asc_nulls_last', 'desc_nulls_first', 'desc_nulls_last']),
  }));
  const dir: Record<string, string> = {
    asc: 'ASC',
    desc: 'DESC',
    asc_nulls_first: 'ASC NULLS FIRST',
    asc_nulls_last: 'ASC NULLS LAST',
    desc_nulls_first: 'DESC NULLS FIRST',
    desc_nulls_last: 'DESC NULLS LAST',
  };
  const { where, sql: whereText } = drawWhere(o, r, samples, 0);
  const limit = r.chance(0.5) ? 1 + r.int(20) : undefined;
  const offset = orders.length && r.chance(0.4) ? r.int(10) : undefined;

  const req: AnalyticRequest = { columns, column_transformations: transforms, where, order_by: orders, limit, offset };
  if (o.aggregates) req.group_by = groupBy;
  const select = columns.map((c) => `to_json(${colSql(c)})::text AS ${q(c)}`).join(', ');
  let sql = `SELECT ${select} FROM (${o.base(acme)}) b WHERE ${whereText}`;
  if (groupBy?.length) sql += ` GROUP BY ${groupBy.map(colSql).join(', ')}`;
  const order = [
    ...orders.map((x) => `${colSql(x.column)} ${dir[x.order]}`),
    ...columns.map((c) => `${colSql(c)} ASC NULLS LAST`),
  ];
  sql += ` ORDER BY ${order.join(', ')}`;
  if (limit !== undefined) sql += ` LIMIT ${limit}`;
  if (offset) sql += ` OFFSET ${offset}`;
  return { req, sql };
}

const q = (name: string) => `"${name}"`;

function drawWhere(
  o: Oracle,
  r: Rng,
  samples: Record<string, unknown[]>,
  depth: number,
): { where: Record<string, unknown>; sql: string } {
  const where: Record<string, unknown> = {};
  const parts: string[] = [];
  if (depth < 2 && r.chance(0.25)) {
    const subs = [0, 1].map(() => drawWhere(o, r, samples, depth + 1));
    const op = r.pick(['_and', '_or'] as const);
    where[op] = subs.map((s) => s.where);
    parts.push(`(${subs.map((s) => s.sql).join(op === '_and' ? ' AND ' : ' OR ')})`);
  }
  if (depth < 2 && r.chance(0.15)) {
    const sub = drawWhere(o, r, samples, depth + 1);
    where._not = sub.where;
    parts.push(`NOT coalesce(${sub.sql}, false)`);
  }
  for (const name of r.some(Object.keys(o.where), 2)) {
    const { type, col } = o.where[name];
    const c = `b.${q(col ?? name)}`;
    const vals = (samples[name] ?? []).filter((v) => v !== null);
    const sample = () => (vals.length ? r.pick(vals) : null);
    const ops: Record<string, unknown> = {};
    const cond: string[] = [];
    const op = r.pick(OPS[type]);
    const v = sample();
    if (v === null && op !== '_is_null' && op !== '_eq_f') continue;
    switch (op) {
      case '_eq':
      case '_neq':
      case '_gt':
      case '_gte':
      case '_lt':
      case '_lte': {
        ops[op] = v;
        cond.push(
          `${c} ${{ _eq: '=', _neq: '<>', _gt: '>', _gte: '>=', _lt: '<', _lte: '<=' }[op]} ${sqlLit(type, v)}`,
        );
        break;
      }
      case '_in':
      case '_not_in': {
        const list = r.some(vals, 3);
        ops[op] = list;
        cond.push(
          list.length
            ? `${c} ${op === '_in' ? 'IN' : 'NOT IN'} (${list.map((x) => sqlLit(type, x)).join(', ')})`
            : op === '_in'
              ? 'false'
              : 'true',
        );
        break;
      }
      case '_is_null': {
        const b = r.chance(0.5);
        ops[op] = b;
        cond.push(`${c} IS ${b ? '' : 'NOT '}NULL`);
        break;
      }
      case '_like':
      case '_ilike':
      case '_nlike': {
        const s = String(v);
        const start = r.int(Math.max(1, s.length - 2));
        const pattern = `%${(op === '_ilike' ? s.toUpperCase() : s).slice(start, start + 3)}%`;
        ops[op] = pattern;
        cond.push(`${c} ${{ _like: 'LIKE', _ilike: 'ILIKE', _nlike: 'NOT LIKE' }[op]} ${lit(pattern)}`);
        break;
      }
      case '_contains': {
        if (type === 'json') {
          const app = (v as Record<string, unknown>).app;
          ops[op] = JSON.stringify({ app });
          cond.push(`${c} @> ${lit(JSON.stringify({ app }))}::jsonb`);
        } else {
          const s = String(v).slice(1, 4);
          ops[op] = s;
          cond.push(`position(${lit(s)} in ${c}) > 0`);
        }
        break;
      }
      case '_has_key': {
        const key = r.pick(['app', 'team', 'app.kubernetes.io/part-of']);
        ops[op] = key;
        cond.push(`${c} ? ${lit(key)}`);
        break;
      }
      case '_between': {
        const w = sample();
        const [lo, hi] = [v, w].sort((x, y) => (String(x) < String(y) ? -1 : 1));
        ops[op] = { _gte: lo, _lt: hi };
        cond.push(`${c} >= ${sqlLit(type, lo)} AND ${c} < ${sqlLit(type, hi)}`);
        break;
      }
      case '_eq_f': {
        const same = Object.keys(o.where).filter((n) => o.where[n].type === type);
        const other = r.pick(same);
        ops[op] = other;
        cond.push(`${c} = b.${q(o.where[other].col ?? other)}`);
        break;
      }
    }
    where[name] = ops;
    parts.push(...cond);
  }
  return { where, sql: parts.length ? `(${parts.join(' AND ')})` : 'true' };
}

const OPS: Record<T, string[]> = {
  string: ['_eq', '_neq', '_in', '_not_in', '_is_null', '_like', '_ilike', '_nlike', '_contains', '_eq_f'],
  float: ['_eq', '_gt', '_gte', '_lt', '_lte', '_in', '_between', '_eq_f'],
  int: ['_eq', '_neq', '_gt', '_lte', '_in', '_between'],
  datetime: ['_eq', '_gt', '_gte', '_lt', '_lte', '_between', '_is_null', '_neq'],
  boolean: ['_eq', '_neq'],
  json: ['_contains', '_has_key'],
};

function sqlLit(type: T, v: unknown): string {
  if (type === 'datetime') return `${lit(String(v))}::timestamp`;
  if (type === 'float' || type === 'int') return String(v);
  if (type === 'boolean') return String(v);
  return lit(String(v));
}

/** Values equal as the API returns them: numbers to 1e-9 relative (sums may add up in another order). */
function expectSameRows(actual: Record<string, unknown>[], expected: Record<string, unknown>[], context: string) {
  const norm = (rows: Record<string, unknown>[]) =>
    rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([k, v]) => [k, typeof v === 'number' ? Number(v.toPrecision(10)) : v]),
      ),
    );
  if (JSON.stringify(norm(actual)) !== JSON.stringify(norm(expected))) {
    throw new Error(
      `${context}\nbuilder: ${JSON.stringify(actual).slice(0, 2000)}\noracle:  ${JSON.stringify(expected).slice(0, 2000)}`,
    );
  }
}

describe(`analytic query builder on ${backendName}`, () => {
  let server: TestServer;
  const samples = new Map<Oracle, Record<string, unknown[]>>();

  beforeAll(async () => {
    server = await startTestServer();
    for (const o of ORACLES) {
      const s: Record<string, unknown[]> = {};
      for (const [name, { col, type }] of Object.entries(o.where)) {
        const c = `b.${q(col ?? name)}`;
        const rows = await server.started.db.query(
          `SELECT DISTINCT to_json(${c})::text AS v FROM (${o.base(acme)}) b LIMIT 50`,
        );
        s[name] = rows
          .map((row) => JSON.parse(String(row.v)))
          .map((v) => (type === 'datetime' && typeof v === 'string' ? `${v}` : v));
      }
      samples.set(o, s);
    }
  });
  afterAll(() => server.close());

  test.each(ORACLES.map((o, i) => [o.ds.name, i] as const))(
    '%s: random requests agree with the oracle',
    async (_name, index) => {
      const o = ORACLES[index]!;
      const r = rng(20260 + index);
      let nonEmpty = 0;
      for (let i = 0; i < 60; i++) {
        const { req, sql } = draw(o, r, samples.get(o)!);
        const built = buildQuery(o.ds, req, acme);
        expectCachedAsBuilt(o.ds, req);
        const actual = rowsOf(built, await server.started.db.query(built.text, built.params));
        const oracleRows = await server.started.db.query(sql);
        // A field the API answers as a String is returned as its text (Field.text); a transformation
        // of the same name is a value of its own type.
        const transformed = new Set((req.column_transformations ?? []).map((t) => t.name));
        const asText = (k: string, v: unknown) =>
          v !== null && o.ds.fields[k]?.text && !transformed.has(k) ? String(v) : v;
        const expected = oracleRows.map((row) =>
          Object.fromEntries(
            Object.entries(row).map(([k, v]) => [k, asText(k, v === null ? null : JSON.parse(String(v)))]),
          ),
        );
        expectSameRows(actual, expected, `case ${i}: ${JSON.stringify(req)}\n${sql}`);
        if (actual.length) nonEmpty++;
      }
      // The draws must exercise the data, not only empty answers.
      expect(nonEmpty).toBeGreaterThan(15);
    },
  );

  test('the tenant comes from the caller, never from where', async () => {
    const globex = DEMO.tenants.globex.id;
    const built = buildQuery(
      spends,
      { columns: ['tenant'], where: { _or: [{ tenant: { _eq: globex } }, { tenant: { _neq: globex } }] } },
      acme,
    );
    const rows = rowsOf(built, await server.started.db.query(built.text, built.params));
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((row) => row.tenant))).toEqual(new Set([acme]));
    expect(built.params[0]).toBe(acme);
    expect(built.text).toContain('s.tenant = $1::uuid');
  });

  test('rows are byte-compact JSON objects by name (JsonRows), at any width', async () => {
    const names = [...Object.keys(eventGroupings.fields), ...Object.keys(eventGroupings.aggregates ?? {})];
    // More than json_build_object's 100 arguments would take.
    expect(names.length).toBeGreaterThan(50);
    const built = buildQuery(eventGroupings, { limit: 5 }, acme, names);
    const rows = await server.started.db.query(built.text, built.params);
    const text = rowsAnswer(built, rows);
    expect(text).toBeInstanceOf(JsonRows);
    const parsed = [...(text as JsonRows)];
    expect(parsed.length).toBeGreaterThan(0);
    // The same rows and values as read from each row's object, keys in the order asked.
    expect(parsed).toEqual(rowsOf(built, rows));
    expect(Object.keys(parsed[0] as object)).toEqual(names);
    expect(spacesOutsideStrings((text as JsonRows).text)).toEqual([]);
  });

  test('groups are ordered by no more keys than make their order whole; aggregates alone are one row, neither ordered nor cut', async () => {
    const run = async (req: AnalyticRequest) => {
      const built = buildQuery(recommendationGroupings, req, acme);
      return { text: built.text, rows: rowsOf(built, await server.started.db.query(built.text, built.params)) };
    };
    // Grouped by category: the category orders the groups whole; count and sum break no tie.
    const grouped = await run({ group_by: ['category'], columns: ['category', 'count', 'sum_estimated_savings'] });
    expect(grouped.text).toMatch(/GROUP BY rc\.category ORDER BY rc\.category ASC NULLS LAST LIMIT \d+\)/);
    expect(grouped.text).toMatch(/ORDER BY q\.c0 ASC NULLS LAST$/);
    expect(grouped.rows.length).toBeGreaterThan(1);
    // Ordered by count first: the category still follows, as the tie breaker that makes it whole.
    const byCount = await run({
      group_by: ['category'],
      columns: ['category', 'count'],
      order_by: [{ column: 'count', order: 'desc' }],
    });
    expect(byCount.text).toContain('ORDER BY count(*)::int DESC, rc.category ASC NULLS LAST LIMIT');
    // No groups: one row, and no ORDER BY nor LIMIT; an offset or a limit of 0 still cuts it.
    const total = await run({ columns: ['count'] });
    expect(total.text).not.toMatch(/ORDER BY|LIMIT/);
    expect(total.rows).toEqual([{ count: grouped.rows.reduce((n, r) => n + Number(r.count), 0) }]);
    expect((await run({ columns: ['count'], limit: 0 })).rows).toEqual([]);
    const offset = await run({ columns: ['count'], order_by: [{ column: 'count' }], offset: 1 });
    expect(offset.text).toMatch(/LIMIT \d+ OFFSET \$\d+::bigint/);
    expect(offset.rows).toEqual([]);
  });

  test('values travel only as parameters', () => {
    const evil = "x'; DROP TABLE spends; --";
    const built = buildQuery(
      spends,
      {
        columns: ['id'],
        column_transformations: [{ name: 'u', expr: 'coalesce', args: ['unit', evil] }],
        where: { unit: { _eq: evil, _in: [evil], _like: evil }, date: { _gte: '2026-01-01' } },
        order_by: [{ column: 'u', order: 'desc' }],
      },
      acme,
    );
    expect(built.text).not.toContain('DROP');
    expect(built.params.filter((p) => p === evil)).toHaveLength(4);
  });

  describe('refusals are validation-failed errors that name what is allowed', () => {
    const refuse = (ds: Dataset, req: AnalyticRequest, message: RegExp, path: string) => {
      let err: unknown;
      try {
        buildQuery(ds, req, acme);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RequestError);
      expect((err as RequestError).code).toBe('validation-failed');
      expect((err as RequestError).message).toMatch(message);
      expect((err as RequestError).path).toBe(path);
    };
    test.each([
      [
        'unknown column',
        spendGroupings,
        { columns: ['spend_amount', 'nope'] },
        /unknown column of spend_groupings_v2 "nope"; allowed: .*resource_type.*spend_amount/,
        '$.columns[1]',
      ],
      [
        'unknown group_by',
        spendGroupings,
        { group_by: ['amount'] },
        /unknown group_by column of spend_groupings_v2 "amount"; allowed: .*spend_date/,
        '$.group_by[0]',
      ],
      [
        'grouping by an aggregate',
        spendGroupings,
        { group_by: ['spend_amount'] },
        /cannot group by the aggregate spend_amount/,
        '$.group_by[0]',
      ],
      [
        'a column neither grouped nor aggregated',
        spendGroupings,
        { group_by: ['resource_type'], columns: ['resource_region', 'spend_amount'] },
        /column resource_region is neither in group_by \(resource_type\) nor an aggregate/,
        '$.columns[0]',
      ],
      ['group_by on a plain dataset', spends, { group_by: ['unit'] }, /spends_v2 does not group rows/, '$.group_by'],
      [
        'aggregates on a plain dataset',
        spends,
        { columns: ['spend_amount'] },
        /unknown column of spends_v2 "spend_amount"/,
        '$.columns[0]',
      ],
      [
        'unknown order_by column',
        spends,
        { order_by: [{ column: 'price' }] },
        /unknown order_by column of spends_v2 "price"; allowed: amount/,
        '$.order_by[0].column',
      ],
      [
        'ordering by a field that is not a group',
        spendGroupings,
        { group_by: ['resource_type'], order_by: [{ column: 'resource_region' }] },
        /cannot order by resource_region/,
        '$.order_by[0].column',
      ],
      [
        'unknown sort order',
        spends,
        { order_by: [{ column: 'amount', order: 'sideways' }] },
        /unknown sort order "sideways"; allowed: asc, asc_nulls_first/,
        '$.order_by[0].order',
      ],
      [
        'unknown transformation',
        spends,
        { column_transformations: [{ name: 'x', expr: 'md5', args: ['unit'] }] },
        /unknown column transformation expr "md5"; allowed: coalesce, date_trunc, json_key, lower, upper/,
        '$.column_transformations[0].expr',
      ],
      [
        'unknown date_trunc unit',
        spends,
        { column_transformations: [{ name: 'x', expr: 'date_trunc', args: ['fortnight', 'date'] }] },
        /unknown date_trunc unit "fortnight"; allowed: day, hour, month, quarter, week, year/,
        '$.column_transformations[0].args[0]',
      ],
      [
        'transformation of an unknown field',
        spends,
        { column_transformations: [{ name: 'x', expr: 'lower', args: ['colour'] }] },
        /unknown field for lower "colour"; allowed: .*unit/,
        '$.column_transformations[0].args[0]',
      ],
      [
        'transformation of a field of the wrong type',
        spends,
        { column_transformations: [{ name: 'x', expr: 'date_trunc', args: ['month', 'unit'] }] },
        /date_trunc needs a datetime field; unit is string/,
        '$.column_transformations[0].args[1]',
      ],
      [
        'transformation with wrong arity',
        spends,
        { column_transformations: [{ name: 'x', expr: 'lower', args: [] }] },
        /lower takes 1 argument/,
        '$.column_transformations[0].args',
      ],
      [
        'transformation with a bad name',
        spends,
        { column_transformations: [{ name: 'x y', expr: 'lower', args: ['unit'] }] },
        /must be an identifier/,
        '$.column_transformations[0].name',
      ],
      [
        'bad coalesce fallback',
        spends,
        { column_transformations: [{ name: 'x', expr: 'coalesce', args: ['amount', 'lots'] }] },
        /expected a number/,
        '$.column_transformations[0].args[1]',
      ],
      [
        'unknown where field',
        spends,
        { where: { colour: { _eq: 'red' } } },
        /unknown where field of spends_v2 "colour"; allowed: _and, _not, _or, amount/,
        '$.where.colour',
      ],
      [
        'unknown operator',
        spends,
        { where: { amount: { _like: '1%' } } },
        /unknown operator for amount \(float\) "_like"; allowed: _between, _eq, _eq_f/,
        '$.where.amount._like',
      ],
      [
        'operator of another type',
        spendGroupings,
        { where: { exclude_aggregate: { _gt: true } } },
        /unknown operator for exclude_aggregate \(boolean\) "_gt"; allowed: _eq, _is_null, _neq/,
        '$.where.exclude_aggregate._gt',
      ],
      [
        'wrong value type (number for a string)',
        spends,
        { where: { unit: { _eq: 5 } } },
        /expected a string at \$\.where\.unit\._eq, got 5/,
        '$.where.unit._eq',
      ],
      [
        'wrong value type (string for a number)',
        spends,
        { where: { amount: { _gt: 'ten' } } },
        /expected a number/,
        '$.where.amount._gt',
      ],
      [
        'wrong value type (bad date-time)',
        spends,
        { where: { date: { _gte: 'yesterday' } } },
        /expected an ISO 8601 date-time/,
        '$.where.date._gte',
      ],
      [
        'wrong value type in a list',
        spends,
        { where: { unit: { _in: ['USD', 3] } } },
        /expected a string/,
        '$.where.unit._in[1]',
      ],
      [
        'wrong value type nested in _or',
        spends,
        { where: { _or: [{ amount: { _eq: 1 } }, { amount: { _eq: true } }] } },
        /expected a number/,
        '$.where._or[1].amount._eq',
      ],
      [
        '_f naming an unknown field',
        spends,
        { where: { amount: { _eq_f: 'price' } } },
        /unknown where field to compare amount with "price"; allowed: amount/,
        '$.where.amount._eq_f',
      ],
      [
        '_f naming a field of another type',
        spends,
        { where: { amount: { _eq_f: 'unit' } } },
        /cannot compare amount \(float\) with unit \(string\)/,
        '$.where.amount._eq_f',
      ],
      [
        '_has_key on a plain string',
        spends,
        { where: { unit: { _has_key: 'a' } } },
        /_has_key applies to JSON fields only/,
        '$.where.unit._has_key',
      ],
      [
        'bad _between bound',
        spends,
        { where: { amount: { _between: { _from: 1 } } } },
        /unknown _between bound "_from"/,
        '$.where.amount._between._from',
      ],
      ['limit too large', spends, { limit: 1_000_000 }, /limit must be an integer from 0 to 10000/, '$.limit'],
      [
        'offset without order_by',
        spends,
        { offset: 5 },
        /"offset" can only be used together with "order_by"/,
        '$.offset',
      ],
    ] as [string, Dataset, AnalyticRequest, RegExp, string][])('%s', (_name, ds, req, message, path) =>
      refuse(ds, req, message, path),
    );
  });
});

/**
 * The statements cache (actions/analytics/statements.ts) against the builder: the request, then
 * the request with other values in the same places (its shape, so bound from the cache), each
 * through the cache and built afresh: the same text and parameters, or the same error.
 */
function expectCachedAsBuilt(ds: Dataset, req: AnalyticRequest) {
  const other: AnalyticRequest = { ...req, where: otherValues(req.where) };
  if (typeof req.limit === 'number' && req.limit > 2 && req.limit !== roundedLimit(req.limit)) {
    const below = req.limit - 1;
    if (below !== roundedLimit(below)) other.limit = below;
  }
  if (req.offset) other.offset = req.offset + 1;
  for (const [r, tenant] of [
    [req, acme],
    [other, DEMO.tenants.globex.id],
    [req, acme],
  ] as const) {
    const outcome = (f: () => { text: string; params: unknown[] }) => {
      try {
        const s = f();
        return { text: s.text, params: s.params };
      } catch (err) {
        return { error: (err as Error).message };
      }
    };
    expect(outcome(() => analyticStatement(ds, r, tenant))).toEqual(outcome(() => buildQuery(ds, r, tenant)));
  }
}

/** A where value with other values of the same kinds (booleans, where field names and uuids' kinds kept). */
function otherValues(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(otherValues);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k.endsWith('_f') ? x : otherValues(x)]));
  if (typeof v === 'number') return Number.isInteger(v) ? v + 1 : v * 1.5;
  if (typeof v !== 'string') return v;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v))
    return `${v.slice(0, 35)}${v[35] === '0' ? '1' : '0'}`;
  if (/^\d{4}-\d{2}-\d{2}/.test(v)) return `2025${v.slice(4)}`;
  if (v.startsWith('{')) return v;
  return `${v}x`;
}
