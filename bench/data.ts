import { DEMO } from '../demo/demo-data';

/**
 * A heavier spends table than the demo's 59 days: one more spend line per resource and day for the
 * `days` days before 2026-01-01, for every tenant. Amounts are derived from the row's key, so two
 * runs hold the same data.
 */
export function extraSpendsSql(days: number): string {
  if (!Number.isInteger(days) || days < 0)
    throw new Error(`extra spend days must be a non-negative integer, got ${days}`);
  return `INSERT INTO spends (tenant, cloud_account, cloud_resource_id, date, amount, unit, exclude_aggregate)
SELECT r.tenant, r.account, r.id, d, round((abs(hashtext(r.id::text || d::text)) % 100000) / 100.0, 2)::float8, 'USD', false
FROM cloud_resourses r
CROSS JOIN generate_series(timestamp '2026-01-01' - interval '1 day' * ${days}, timestamp '2025-12-31', interval '1 day') AS d`;
}

/**
 * Generated log lines for the logs_query workloads (BENCH_LOG_LINES): line g of n is at
 * LOG_SPAN.from + g/n of LOG_SPAN.days (so ids follow time, as in a store that is appended to), in one
 * of the demo's four Kubernetes accounts (both tenants), with labels namespace, app, level and pod
 * and a message that depends on the level. Every choice is a hash of g (hashint8extended, a seed per
 * choice), so the data is the same on every run and each batch of lines can be written on its own.
 *
 * Shares: accounts 30/20/30/20 % (Acme aws, Acme gcp, Globex aws, Globex gcp); namespace production
 * 40 %, staging 25 %, kube-system 15 %, monitoring 10 %, data 10 %; apps evenly among their
 * namespace's (LOG_APPS); level error 5 %, warn 15 %, info 60 %, debug 20 %; a message evenly among
 * its level's (LOG_MESSAGES); 24 pods per app.
 */
export const LOG_SPAN = { from: '2026-03-02T00:00:00Z', days: 4 };

export const LOG_ACCOUNTS: { tenant: string; account: string; percent: number }[] = [
  { tenant: DEMO.tenants.acme.id, account: DEMO.tenants.acme.cloudAccounts.aws, percent: 30 },
  { tenant: DEMO.tenants.acme.id, account: DEMO.tenants.acme.cloudAccounts.gcp, percent: 20 },
  { tenant: DEMO.tenants.globex.id, account: DEMO.tenants.globex.cloudAccounts.aws, percent: 30 },
  { tenant: DEMO.tenants.globex.id, account: DEMO.tenants.globex.cloudAccounts.gcp, percent: 20 },
];

export const LOG_APPS: Record<string, string[]> = {
  production: ['api-server', 'api-gateway', 'web-frontend', 'checkout', 'payments-worker'],
  staging: ['api-server', 'web-frontend'],
  'kube-system': ['coredns', 'kube-proxy'],
  monitoring: ['prometheus-server', 'grafana'],
  data: ['kafka', 'postgres'],
};
const NAMESPACE_PERCENT: [string, number][] = [
  ['production', 40],
  ['staging', 25],
  ['kube-system', 15],
  ['monitoring', 10],
  ['data', 10],
];
const LEVEL_PERCENT: [string, number][] = [
  ['error', 5],
  ['warn', 15],
  ['info', 60],
  ['debug', 20],
];

/** Messages per level; {n} becomes a number from 0 to 3999. */
export const LOG_MESSAGES: Record<string, string[]> = {
  error: [
    'upstream timeout after {n}ms',
    'connection refused by payments:{n}',
    'deadlock detected on table orders (pid {n})',
    'request failed: context deadline exceeded',
    'panic: nil pointer dereference at handler.go:{n}',
  ],
  warn: [
    'retrying job {n}: timeout',
    'slow query took {n}ms',
    'memory usage at {n}MiB of 4096MiB',
    'client {n} close to its rate limit',
  ],
  info: [
    'GET /api/v1/orders 200 {n}ms',
    'POST /api/v1/checkout 201 {n}ms',
    'health probe ok',
    'processed batch of {n} messages',
    'config reloaded',
    'health probe: timeout budget {n}ms',
  ],
  debug: [
    'cache hit for key product:{n}',
    'opening connection to redis',
    'span finished in {n}ms',
    'dial timeout set to {n}ms',
  ],
};

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const textArray = (xs: readonly string[]) => `ARRAY[${xs.map(quote).join(', ')}]::text[]`;

/** CASE over cumulative percentages of `h % 100`, the last share taking the rest. */
function byPercent(h: string, shares: readonly (readonly [string, number])[]): string {
  if (shares.reduce((a, [, p]) => a + p, 0) !== 100) throw new Error('shares must add up to 100');
  let upTo = 0;
  return `CASE ${shares
    .map(([v, p], i) => {
      upTo += p;
      return i === shares.length - 1 ? `ELSE ${v}` : `WHEN ${h} % 100 < ${upTo} THEN ${v}`;
    })
    .join(' ')} END`;
}

/** One INSERT ... SELECT generate_series writing lines lo..hi (1-based, inclusive) of n. */
export function logLinesSql(lo: number, hi: number, n: number): string {
  for (const x of [lo, hi, n])
    if (!Number.isInteger(x) || x < 1) throw new Error(`log line numbers must be positive integers, got ${x}`);
  const spanMs = LOG_SPAN.days * 86_400_000;
  const accounts = (field: 'tenant' | 'account') =>
    byPercent(
      'h.a',
      LOG_ACCOUNTS.map((a) => [`${quote(a[field])}::uuid`, a.percent] as const),
    );
  const apps = `CASE c.namespace ${Object.entries(LOG_APPS)
    .map(([ns, xs]) => `WHEN ${quote(ns)} THEN (${textArray(xs)})[1 + h.p % ${xs.length}]`)
    .join(' ')} END`;
  const messages = `CASE c.level ${Object.entries(LOG_MESSAGES)
    .map(([lvl, xs]) => `WHEN ${quote(lvl)} THEN (${textArray(xs)})[1 + h.m % ${xs.length}]`)
    .join(' ')} END`;
  const quoted = (shares: [string, number][]) => shares.map(([v, p]) => [quote(v), p] as const);
  return `INSERT INTO logs (tenant_id, cloud_account_id, ts, severity, message, labels)
SELECT ${accounts('tenant')}, ${accounts('account')}, c.ts, c.level, replace(${messages}, '{n}', (h.m / 7 % 4000)::text),
  jsonb_build_object('namespace', c.namespace, 'app', x.app, 'level', c.level, 'pod', x.app || '-' || to_hex(1048576 + h.p / 11 % 24))
FROM generate_series(${lo}::bigint, ${hi}::bigint) AS g
CROSS JOIN LATERAL (SELECT abs(hashint8extended(g, 1)) AS a, abs(hashint8extended(g, 2)) AS n, abs(hashint8extended(g, 3)) AS p,
  abs(hashint8extended(g, 4)) AS l, abs(hashint8extended(g, 5)) AS m) AS h
CROSS JOIN LATERAL (SELECT timestamptz ${quote(LOG_SPAN.from)} + interval '1 millisecond' * (g * ${spanMs}::bigint / ${n}) AS ts,
  ${byPercent('h.n', quoted(NAMESPACE_PERCENT))} AS namespace, ${byPercent('h.l', quoted(LEVEL_PERCENT))} AS level) AS c
CROSS JOIN LATERAL (SELECT ${apps} AS app) AS x`;
}

/**
 * The generated spends of `npm run bench -- size`: `rows` spend lines replacing the table's, over
 * generated accounts of 40 resources each (accounts alternate between the two demo tenants, the first
 * is Acme's), 250 days back from 2026-02-28, one line per resource and day. The table grows by
 * accounts: 10,000 rows are one account, 10,000,000 are 1,000, and the first account holds the same
 * 10,000 lines at every size. Lines are written day by day over all accounts, as a daily import
 * appends them, so one account's lines are spread over the whole table.
 */
export const SIZE_SHAPE = { resources: 40, days: 250, lastDay: '2026-02-28' };
const sizeAccountId = (a: string) => `('5e5e0000-0000-4000-a000-' || lpad(to_hex(${a}), 12, '0'))::uuid`;
const sizeResourceId = (a: string, r: string) =>
  `('5e5e0001-0000-4000-a000-' || lpad(to_hex(${a}), 6, '0') || lpad(to_hex(${r}), 6, '0'))::uuid`;

/** The first generated account (Acme's), the one the size workload reads. */
export const SIZE_ACCOUNT = '5e5e0000-0000-4000-a000-000000000001';

export function sizeAccounts(rows: number): number {
  if (!Number.isInteger(rows) || rows < 1) throw new Error(`size rows must be a positive integer, got ${rows}`);
  return Math.ceil(rows / (SIZE_SHAPE.resources * SIZE_SHAPE.days));
}

/** The accounts and their resources, copied from the demo's Acme AWS account and its first resource. */
export function sizeAccountsSql(rows: number): string[] {
  const accounts = sizeAccounts(rows);
  const tenant = (a: string) =>
    `CASE WHEN ${a} % 2 = 1 THEN '${DEMO.tenants.acme.id}'::uuid ELSE '${DEMO.tenants.globex.id}'::uuid END`;
  return [
    `INSERT INTO cloud_accounts (id, tenant, account_name, account_type, account_env, cloud_provider, status, budget, created_by, updated_by)
SELECT ${sizeAccountId('a')}, ${tenant('a')}, 'size-' || a, t.account_type, t.account_env, t.cloud_provider, t.status, t.budget, t.created_by, t.updated_by
FROM generate_series(1, ${accounts}) AS a, (SELECT * FROM cloud_accounts WHERE id = '${DEMO.tenants.acme.cloudAccounts.aws}') AS t`,
    `INSERT INTO cloud_resourses (id, tenant, account, cloud_provider, name, type, service_name, region)
SELECT ${sizeResourceId('a', 'r')}, ${tenant('a')}, ${sizeAccountId('a')}, 'AWS', 'size-' || a || '-' || r,
  (ARRAY['instance', 'volume', 'bucket', 'database'])[1 + r % 4], (ARRAY['EC2', 'EBS', 'S3', 'RDS'])[1 + r % 4], 'us-east-1'
FROM generate_series(1, ${accounts}) AS a, generate_series(1, ${SIZE_SHAPE.resources}) AS r`,
  ];
}

/** Spend lines lo..hi (0-based, inclusive) of `rows`: line g is day g / (accounts x 40), then account, then resource. */
export function sizeSpendsSql(lo: number, hi: number, rows: number): string {
  const perDay = sizeAccounts(rows) * SIZE_SHAPE.resources;
  const tenant = `CASE WHEN x.a % 2 = 1 THEN '${DEMO.tenants.acme.id}'::uuid ELSE '${DEMO.tenants.globex.id}'::uuid END`;
  return `INSERT INTO spends (tenant, cloud_account, cloud_resource_id, date, amount, unit, exclude_aggregate)
SELECT ${tenant}, ${sizeAccountId('x.a')}, ${sizeResourceId('x.a', 'x.r')},
  timestamp '${SIZE_SHAPE.lastDay}' - interval '1 day' * (g / ${perDay}),
  round((abs(hashint8(g)) % 100000) / 100.0, 2)::float8, 'USD', false
FROM generate_series(${lo}::bigint, ${hi}::bigint) AS g
CROSS JOIN LATERAL (SELECT (g % ${perDay}) / ${SIZE_SHAPE.resources} + 1 AS a, g % ${SIZE_SHAPE.resources} + 1 AS r) AS x`;
}
