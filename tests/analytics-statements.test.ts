import { buildQuery, rowsOf, type AnalyticRequest } from '../actions/analytics/builder';
import type { Dataset } from '../actions/analytics/dataset';
import { analyticStatement, cachedStatements, STATEMENTS_CACHED } from '../actions/analytics/statements';
import { spendGroupings, spends } from '../actions/cost';
import { k8sWorkloads } from '../actions/kubernetes';
import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * The analytic statements cache (actions/analytics/statements.ts): a request of a shape built before
 * is only bound, and must get what a fresh build gives: the same text, the same parameters, the same
 * rows, the same errors.
 */
const acme = DEMO.tenants.acme.id;
const globex = DEMO.tenants.globex.id;
const aws = DEMO.tenants.acme.cloudAccounts.aws;
const gcp = DEMO.tenants.acme.cloudAccounts.gcp;

/** What the cache gives and what a fresh build gives: equal, or the same error. */
function compare(ds: Dataset, req: AnalyticRequest, tenant = acme, selected?: readonly string[]) {
  let fresh: { text: string; params: unknown[] } | Error;
  let cached: { text: string; params: unknown[] } | Error;
  try {
    fresh = buildQuery(ds, req, tenant, selected);
  } catch (err) {
    fresh = err as Error;
  }
  try {
    cached = analyticStatement(ds, req, tenant, selected);
  } catch (err) {
    cached = err as Error;
  }
  if (fresh instanceof Error) {
    expect(cached).toBeInstanceOf(Error);
    expect((cached as Error).message).toBe(fresh.message);
    return undefined;
  }
  expect(cached).not.toBeInstanceOf(Error);
  const c = cached as { text: string; params: unknown[] };
  expect(c.text).toBe(fresh.text);
  expect(c.params).toEqual(fresh.params);
  return c;
}

/** Requests of one shape each (after the first, only values differ), over a plain dataset with uuid fields. */
const SPENDS_FAMILIES: AnalyticRequest[][] = [
  [
    { where: { cloud_account: { _eq: aws }, date: { _gte: '2026-02-01T00:00:00', _lt: '2026-03-01' } }, limit: 100 },
    { where: { cloud_account: { _eq: gcp }, date: { _gte: '2026-01-01T00:00:00Z', _lt: '2026-02-01' } }, limit: 99 },
    { where: { cloud_account: { _eq: aws }, date: { _gte: '2025-12-01', _lt: '2026-01-01+02:00' } }, limit: 65 },
  ],
  [
    { where: { cloud_account: { _in: [aws, gcp] }, amount: { _gt: 1 } }, order_by: [{ column: 'date' }], offset: 3 },
    { where: { cloud_account: { _in: [gcp, aws] }, amount: { _gt: 2.5 } }, order_by: [{ column: 'date' }], offset: 7 },
  ],
  [
    // A value that is not a uuid's text makes another statement: these two are of two shapes.
    { where: { cloud_account: { _eq: 'not-a-uuid' } } },
    { where: { cloud_account: { _eq: aws } } },
    { where: { cloud_account: { _eq: 'AWS' } } },
  ],
  [
    { where: { unit: { _is_null: true } }, limit: 5 },
    { where: { unit: { _is_null: false } }, limit: 6 },
    { where: { unit: { _is_null: true, _eq: null } }, limit: 7 },
    { where: { unit: { _is_null: true, _eq: 'USD' } }, limit: 8 },
  ],
  [
    {
      where: { _or: [{ resource_region: { _like: 'us-%' } }, { amount: { _lte: 3 } }] },
      order_by: [{ column: 'amount', order: 'desc' }],
    },
    {
      where: { _or: [{ resource_region: { _like: 'eu-%' } }, { amount: { _lte: 30 } }] },
      order_by: [{ column: 'amount', order: 'desc' }],
    },
    { where: { _or: [{ resource_region: { _like: 'eu-%' } }] }, order_by: [{ column: 'amount', order: 'desc' }] },
    { where: { _not: { resource_region: { _eq_f: 'resource_type' } } } },
    { where: { _not: { resource_region: { _eq_f: 'unit' } } } },
  ],
  [
    // Bad values fail as a fresh build fails them, also when the shape is cached.
    { where: { date: { _gte: '2026-02-01' } }, limit: 10 },
    { where: { date: { _gte: 'yesterday' } }, limit: 10 },
    { where: { date: { _gte: '2026-02-01' } }, limit: 9000 },
    { where: { date: { _gte: '2026-02-01' } }, limit: 10001 },
    { where: { date: { _gte: '2026-02-01' } }, limit: 2.5 },
    { where: { date: { _gte: '2026-02-01' } }, order_by: [{ column: 'date' }], offset: 2 },
    { where: { date: { _gte: '2026-02-01' } }, order_by: [{ column: 'date' }], offset: -1 },
    { where: { date: { _gte: '2026-02-01' } }, order_by: [{ column: 'date' }], offset: 1.5 },
    { where: { amount: { _eq: 1 } }, offset: 4 },
    { where: { amount: { _eq: 2 } }, offset: 0 },
    { where: { amount: { _eq: 2 } }, limit: 0 },
    { where: { amount: { _eq: 2 } }, limit: 1 },
  ],
];

/** Over a grouping dataset with transformations (whose values are part of the shape). */
const GROUPING_FAMILIES: AnalyticRequest[][] = [
  [
    {
      group_by: ['month'],
      column_transformations: [{ name: 'month', expr: 'date_trunc', args: ['month', 'spend_date'] }],
      where: { spend_date: { _gte: '2026-01-01' } },
      order_by: [{ column: 'spend_amount', order: 'desc' }],
      limit: 3,
    },
    {
      group_by: ['month'],
      column_transformations: [{ name: 'month', expr: 'date_trunc', args: ['day', 'spend_date'] }],
      where: { spend_date: { _gte: '2026-02-01' } },
      order_by: [{ column: 'spend_amount', order: 'desc' }],
      limit: 4,
    },
    {
      group_by: ['region'],
      column_transformations: [{ name: 'region', expr: 'coalesce', args: ['resource_region', 'none'] }],
      where: { exclude_aggregate: { _eq: false } },
    },
    {
      group_by: ['region'],
      column_transformations: [{ name: 'region', expr: 'coalesce', args: ['resource_region', 'nowhere'] }],
      where: { exclude_aggregate: { _eq: true } },
    },
  ],
];

describe(`analytic statements cache on ${backendName}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('each request of a shape gets the text, parameters and rows of a fresh build', async () => {
    const families: [Dataset, AnalyticRequest[]][] = [
      ...SPENDS_FAMILIES.map((f) => [spends, f] as [Dataset, AnalyticRequest[]]),
      ...GROUPING_FAMILIES.map((f) => [spendGroupings, f] as [Dataset, AnalyticRequest[]]),
    ];
    let nonEmpty = 0;
    for (const [ds, family] of families) {
      // Twice over, so that every request also meets its own shape in the cache.
      for (const req of [...family, ...family]) {
        for (const [tenant, selected] of [
          [acme, undefined],
          [globex, ['id', 'date', 'amount', 'spend_amount', 'month']],
        ] as const) {
          const s = compare(ds, req, tenant, selected);
          if (!s) continue;
          const fresh = buildQuery(ds, req, tenant, selected);
          const rows = rowsOf(s, await server.started.db.query(s.text, s.params as string[]));
          expect(rows).toEqual(rowsOf(fresh, await server.started.db.query(fresh.text, fresh.params)));
          if (rows.length) nonEmpty++;
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(20);
  });

  test('filters given or absent, limits and selections are shapes of their own', () => {
    const base: AnalyticRequest = { where: { name: { _eq: 'api' } }, order_by: [{ column: 'name' }], limit: 10 };
    const variants: AnalyticRequest[] = [
      base,
      { ...base, where: undefined },
      { ...base, where: { name: { _eq: null } } },
      { ...base, where: { name: { _eq: 'api' }, namespace: { _in: ['a', 'b'] } } },
      { ...base, where: { name: { _eq: 'api' }, namespace: { _in: ['a'] } } },
      { ...base, where: { name: { _eq: 'api' }, namespace: { _in: [] } } },
      { ...base, limit: 16 },
      { ...base, limit: 9 },
      { ...base, limit: undefined },
      { ...base, offset: 2 },
      { ...base, columns: ['name', 'namespace'] },
    ];
    const texts = new Set<string>();
    for (const req of [...variants, ...variants]) {
      for (const selected of [undefined, ['name'], ['name', 'kind']]) {
        const s = compare(k8sWorkloads, req, acme, selected);
        texts.add(s!.text);
        // Another value of the same shape: the same text.
        const other = JSON.parse(
          JSON.stringify(req).replace('"api"', '"web"').replace('"a"', '"z"'),
        ) as AnalyticRequest;
        const shapes = cachedStatements();
        expect(compare(k8sWorkloads, other, globex, selected)!.text).toBe(s!.text);
        expect(cachedStatements()).toBe(shapes);
      }
    }
    // limits 9, 10 and 16 share a rounded form (16): 10 and 9 bind the exact limit, 16 does not.
    expect(texts.size).toBeGreaterThan(15);
  });

  test('the cache holds at most STATEMENTS_CACHED shapes, however many clients send', () => {
    for (let i = 0; i < STATEMENTS_CACHED * 3; i++) {
      const req: AnalyticRequest = {
        column_transformations: [{ name: 'app', expr: 'json_key', args: ['labels', `key${i}`] }],
        columns: ['name', 'app'],
      };
      compare(k8sWorkloads, req);
      expect(cachedStatements()).toBeLessThanOrEqual(STATEMENTS_CACHED);
    }
    expect(cachedStatements()).toBeGreaterThan(STATEMENTS_CACHED / 4);
  });
});
