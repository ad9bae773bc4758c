import { DEMO } from '../demo/demo-data';
import { EXAMPLES, withIds } from '../tests/support/examples';
import { LOG_ACCOUNTS, LOG_SPAN, SIZE_ACCOUNT } from './data';
import { V2_WORKLOADS } from './workloads-v2';

/** One GraphQL request the bench sends over and over, as a tenant_admin of the first demo tenant. */
export interface Workload {
  name: string;
  description: string;
  query: string;
  variables: Record<string, unknown>;
  /**
   * An analytic action (actions/analytics): the floor runs `floor.sql`, written by hand for the same
   * answer, instead of the engine's statement, and the answers are compared by value. `analytic` is
   * the request as the builder sees it (for EXPLAIN of the engine's statement).
   */
  floor?: {
    sql: string;
    params: string[];
    /** Request variables appended to `params` as JSON text, for a floor that writes the request's values. */
    variables?: string[];
    columns: { name: string; type: 'string' | 'float' | 'datetime' | 'json' }[];
    /** The root field of the answer (default spend_groupings_v2). */
    field?: string;
    /** The rows are the field's value itself (a list), not its `rows` (the analytic actions' shape). */
    list?: boolean;
    /** The field's value is the one row itself (a mutation's `{affected_rows}`). */
    single?: boolean;
  };
  analytic?: {
    request: Record<string, unknown>;
    columns: string[];
    /** The operation whose dataset builds the statement (engine-server.ts DATASETS; default spend_groupings_v2). */
    dataset?: string;
  };
  /** One of the `_v2` operations' workloads (workloads-v2.ts): selected by `npm run bench -- v2`. */
  v2?: boolean;
  /** The flat-in-size workload: selected by `npm run bench -- size`, over generated spends (BENCH_SIZES). */
  size?: boolean;
  /** A logs_query request (the engine's statement for EXPLAIN comes from actions/logs/store.ts). */
  logs?: LogsRequest;
  /** Only run on the large data (BENCH_SCALE), unless named in BENCH_WORKLOADS. */
  large?: boolean;
  /** Only run when named in BENCH_WORKLOADS (it writes rows, which would change the other workloads' data). */
  writes?: boolean;
  /**
   * A hand-written floor that answers the whole `data` object: one statement whose one row's `data`
   * column is the answer's JSON text, built by PostgreSQL. $1 is the request session's tenant (the
   * x-hasura-tenant-id header, or the JWT's claim), then the request's variables named in `variables`
   * in order (strings as they are, anything else as JSON text). Compared with the engine's answer by
   * value: floats to a relative 1e-9, the keys in `generated` (keys the database generates, such as
   * a new row's id) only as present in both, lists in any order with `unordered` (a query without
   * order_by, whose order PostgreSQL chooses).
   */
  handJson?: { sql: string; variables?: string[]; generated?: string[]; unordered?: boolean };
  /** PostgreSQL-bound: the report shows EXPLAIN (ANALYZE, BUFFERS) of the engine's statement and the floor's. */
  explain?: boolean;
  /** Sent with `Authorization: Bearer <JWT>` from the token exchange, not the admin secret. */
  jwt?: boolean;
  /** Statements run after the answers are compared and after each load run: the workload's writes undone. */
  cleanup?: string[];
}

/** The `request` of a logs_query workload. */
export interface LogsRequest {
  account_id: string;
  query: string;
  start: string;
  end: string;
  limit: number;
}

export const BENCH_ROLE = 'tenant_admin';
export const BENCH_TENANT = DEMO.tenants.acme.id;

export const WORKLOADS: Workload[] = [
  {
    name: 'nested',
    explain: true,
    description:
      'cloud_accounts + spends_aggregate(date range) + recommendations(order, limit); floor: hand-written SQL (one statement, two LATERAL subqueries)',
    query: `query AccountsWithSpend($from: timestamp!, $to: timestamp!, $recs: Int!) {
  cloud_accounts(order_by: {account_name: asc}) {
    id
    account_name
    cloud_provider
    status
    budget
    spends_aggregate(where: {date: {_gte: $from, _lt: $to}}) {
      aggregate {
        count
        sum { amount }
      }
    }
    recommendations(order_by: [{estimated_savings: desc}, {id: asc}], limit: $recs) {
      id
      category
      severity
      status
      estimated_savings
    }
  }
}`,
    variables: { from: '2025-12-01T00:00:00', to: '2026-02-01T00:00:00', recs: 5 },
    handJson: {
      sql: `SELECT json_build_object('cloud_accounts', coalesce(json_agg(json_build_object(
    'id', a.id, 'account_name', a.account_name, 'cloud_provider', a.cloud_provider, 'status', a.status, 'budget', a.budget,
    'spends_aggregate', json_build_object('aggregate', json_build_object('count', s.n, 'sum', json_build_object('amount', s.amount))),
    'recommendations', r.list)
  ORDER BY a.account_name), '[]'))::text AS data
FROM cloud_accounts a
CROSS JOIN LATERAL (SELECT count(*) AS n, sum(amount) AS amount FROM spends
  WHERE cloud_account = a.id AND tenant = $1::uuid AND date >= $2::timestamp AND date < $3::timestamp) s
CROSS JOIN LATERAL (SELECT coalesce(json_agg(json_build_object('id', id, 'category', category, 'severity', severity,
    'status', status, 'estimated_savings', estimated_savings) ORDER BY estimated_savings DESC, id), '[]') AS list
  FROM (SELECT * FROM recommendation WHERE cloud_account_id = a.id AND tenant_id = $1::uuid
    ORDER BY estimated_savings DESC, id LIMIT $4::int) x) r
WHERE a.tenant = $1::uuid`,
      variables: ['from', 'to', 'recs'],
    },
  },
  {
    name: 'by_pk',
    description: 'cloud_accounts_by_pk(id) { id account_name status budget }',
    query: `query AccountByPk($id: uuid!) {
  cloud_accounts_by_pk(id: $id) { id account_name status budget }
}`,
    variables: { id: DEMO.tenants.acme.cloudAccounts.aws },
  },
];

/** One month of spend lines, for the large-data workloads. */
const MONTH = { from: '2026-01-01T00:00:00', to: '2026-02-01T00:00:00' };
const SPEND_JOIN = 'spends s LEFT JOIN cloud_resourses r ON r.id = s.cloud_resource_id AND r.tenant = s.tenant';

WORKLOADS.push(
  {
    name: 'spend_by_service',
    large: true,
    v2: true,
    description: 'spend_groupings_v2 grouped by resource_service_name, one month, one tenant; floor: hand-written SQL',
    query: `query SpendByService($from: Datetime!, $to: Datetime!) {
  spend_groupings_v2(group_by: ["resource_service_name"], where: {spend_date: {_gte: $from, _lt: $to}}, order_by: [{column: "spend_amount", order: desc}]) {
    rows { resource_service_name spend_amount spend_count }
  }
}`,
    variables: MONTH,
    analytic: {
      request: {
        group_by: ['resource_service_name'],
        where: { spend_date: { _gte: MONTH.from, _lt: MONTH.to } },
        order_by: [{ column: 'spend_amount', order: 'desc' }],
      },
      columns: ['resource_service_name', 'spend_amount', 'spend_count'],
    },
    floor: {
      sql: `SELECT r.service_name AS resource_service_name, coalesce(sum(s.amount), 0)::float8 AS spend_amount, count(*)::float8 AS spend_count
FROM ${SPEND_JOIN}
WHERE s.tenant = $1::uuid AND s.date >= $2::timestamp AND s.date < $3::timestamp
GROUP BY r.service_name
ORDER BY 2 DESC, 1 ASC NULLS LAST`,
      params: [BENCH_TENANT, MONTH.from, MONTH.to],
      columns: [
        { name: 'resource_service_name', type: 'string' },
        { name: 'spend_amount', type: 'float' },
        { name: 'spend_count', type: 'float' },
      ],
    },
  },
  {
    name: 'spend_by_day',
    large: true,
    v2: true,
    description:
      'spend_groupings_v2 grouped by date_trunc(day, spend_date), one month, one tenant; floor: hand-written SQL',
    query: `query SpendByDay($from: Datetime!, $to: Datetime!) {
  spend_groupings_v2(
    column_transformations: [{name: "spend_date", expr: "date_trunc", args: ["day", "spend_date"]}]
    group_by: ["spend_date"]
    where: {spend_date: {_gte: $from, _lt: $to}}
    order_by: [{column: "spend_date", order: asc}]
  ) {
    rows { spend_date spend_amount spend_count }
  }
}`,
    variables: MONTH,
    analytic: {
      request: {
        column_transformations: [{ name: 'spend_date', expr: 'date_trunc', args: ['day', 'spend_date'] }],
        group_by: ['spend_date'],
        where: { spend_date: { _gte: MONTH.from, _lt: MONTH.to } },
        order_by: [{ column: 'spend_date', order: 'asc' }],
      },
      columns: ['spend_date', 'spend_amount', 'spend_count'],
    },
    floor: {
      sql: `SELECT date_trunc('day', s.date) AS spend_date, sum(s.amount)::float8 AS spend_amount, count(*)::float8 AS spend_count
FROM spends s
WHERE s.tenant = $1::uuid AND s.date >= $2::timestamp AND s.date < $3::timestamp
GROUP BY 1
ORDER BY 1`,
      params: [BENCH_TENANT, MONTH.from, MONTH.to],
      columns: [
        { name: 'spend_date', type: 'datetime' },
        { name: 'spend_amount', type: 'float' },
        { name: 'spend_count', type: 'float' },
      ],
    },
  },
);

/**
 * logs_query over the generated log lines (BENCH_LOG_LINES, data.ts): a Loki-style selector over one
 * account of the tenant, sent as the mutation with the tenant_admin session; the floor is the same
 * selection written by hand (the selector's values written into the SQL, the request's account, range
 * and limit bound), rows in the engine's shape, compared by value.
 */
const LOGS_QUERY = `mutation LogsQuery($request: LogsQueryInput!) {
  logs_query(request: $request) { timestamp severity message labels }
}`;
const LOG_DAYS = {
  start: LOG_SPAN.from,
  end: new Date(Date.parse(LOG_SPAN.from) + LOG_SPAN.days * 86_400_000).toISOString(),
};

function logsWorkload(
  name: string,
  description: string,
  request: Omit<LogsRequest, 'account_id'>,
  handWritten: string,
): Workload {
  const req: LogsRequest = { account_id: DEMO.tenants.acme.cloudAccounts.aws, ...request };
  return {
    name,
    logs: req,
    description: `logs_query ${req.query}, ${req.start} to ${req.end}, limit ${req.limit}, one account of ${LOG_ACCOUNTS.length} (${description}); floor: hand-written SQL`,
    query: LOGS_QUERY,
    variables: { request: req },
    floor: {
      sql: `SELECT ts AS "timestamp", severity, message, labels
FROM logs
WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid AND ts >= $3::timestamptz AND ts <= $4::timestamptz
  AND ${handWritten}
ORDER BY ts DESC, id DESC
LIMIT $5::int`,
      params: [BENCH_TENANT, req.account_id, req.start, req.end, String(req.limit)],
      columns: [
        { name: 'timestamp', type: 'datetime' },
        { name: 'severity', type: 'string' },
        { name: 'message', type: 'string' },
        { name: 'labels', type: 'json' },
      ],
      field: 'logs_query',
      list: true,
    },
  };
}

WORKLOADS.push(
  logsWorkload(
    'logs_selector',
    'many matches, spread over the range: the newest 100 are enough',
    { query: '{namespace="production", app=~"api.*", level!="debug"} |= "timeout"', ...LOG_DAYS, limit: 100 },
    `labels @> '{"namespace": "production"}' AND labels ->> 'app' LIKE 'api%' AND labels ->> 'level' IS DISTINCT FROM 'debug'
  AND message LIKE '%timeout%'`,
  ),
  logsWorkload(
    'logs_rare',
    'three = matchers and a regular expression: fewer matches than the limit, all of them read',
    {
      query: '{namespace="production", app="payments-worker", level="error"} |~ `(?i)deadlock.*pid 1\\d\\d\\)`',
      ...LOG_DAYS,
      limit: 100,
    },
    `labels @> '{"namespace": "production", "app": "payments-worker", "level": "error"}' AND message ~* 'deadlock.*pid 1[0-9][0-9]\\)'`,
  ),
  logsWorkload(
    'logs_window',
    'one hour of one app, all of its lines but the health probes',
    {
      query: '{namespace="staging", app="web-frontend"} != "health"',
      start: '2026-03-04T12:00:00.000Z',
      end: '2026-03-04T13:00:00.000Z',
      limit: 500,
    },
    `labels @> '{"namespace": "staging", "app": "web-frontend"}' AND message NOT LIKE '%health%'`,
  ),
);

/**
 * Flat in size (`npm run bench -- size`): one account's spend lines of a month, newest first, a page
 * of 20, against a spends table of 10,000 and of 10,000,000 generated rows (data.ts sizeSpendsSql:
 * the table grows by accounts, each with the same 40 resources x 250 days, so the account read holds
 * the same 10,000 lines at both sizes). The floor is the same page written by hand.
 */
const SIZE_MONTH = { from: '2026-01-01T00:00:00', to: '2026-02-01T00:00:00' };
WORKLOADS.push({
  name: 'spends_page',
  size: true,
  explain: true,
  description:
    'spends of one account in a month, order_by date desc, id asc, limit 20 (the generated spends of BENCH_SIZES); floor: hand-written SQL',
  query: `query SpendsPage($account: uuid!, $from: timestamp!, $to: timestamp!) {
  spends(where: {cloud_account: {_eq: $account}, date: {_gte: $from, _lt: $to}}, order_by: [{date: desc}, {id: asc}], limit: 20) {
    id
    date
    amount
    cloud_resource_id
    unit
  }
}`,
  variables: { account: SIZE_ACCOUNT, ...SIZE_MONTH },
  handJson: {
    sql: `SELECT json_build_object('spends', coalesce(json_agg(json_build_object('id', id, 'date', date, 'amount', amount,
    'cloud_resource_id', cloud_resource_id, 'unit', unit) ORDER BY date DESC, id), '[]'))::text AS data
FROM (SELECT id, date, amount, cloud_resource_id, unit FROM spends
  WHERE tenant = $1::uuid AND cloud_account = $2::uuid AND date >= $3::timestamp AND date < $4::timestamp
  ORDER BY date DESC, id LIMIT 20) s`,
    variables: ['account', 'from', 'to'],
  },
});

WORKLOADS.push(...V2_WORKLOADS);

/**
 * A nested insert (Hasura's `<table>_arr_rel_insert_input`): 100 playbooks of 10 tasks each in one
 * request, the tasks taking their new playbook's generated key; the floor writes the same rows from the
 * same request values with one hand-written statement (the objects as one json parameter, two
 * data-modifying CTEs; a task finds its playbook by name, unique in this request). Both answer
 * affected_rows.
 */
const NESTED_PLAYBOOKS = 100;
const NESTED_TASKS = 10;
const account = DEMO.tenants.acme.cloudAccounts.aws;
WORKLOADS.push({
  name: 'nested_insert',
  description: `insert_auto_playbook: ${NESTED_PLAYBOOKS} playbooks x ${NESTED_TASKS} auto_playbook_tasks, nested, one request; floor: hand-written SQL`,
  writes: true,
  query: `mutation NestedInsert($objects: [auto_playbook_insert_input!]!) {
  insert_auto_playbook(objects: $objects) { affected_rows }
}`,
  variables: {
    objects: Array.from({ length: NESTED_PLAYBOOKS }, (_, p) => ({
      account_id: account,
      name: `bench-${p + 1}`,
      status: 'DRAFT',
      auto_playbook_tasks: {
        data: Array.from({ length: NESTED_TASKS }, (__, t) => ({
          account_id: account,
          name: `task-${t + 1}`,
          action_type: 'bench',
          task_type: 'bench',
          status: 'Scheduled',
          scheduled_time: '2026-01-01T00:00:00',
        })),
      },
    })),
  },
  floor: {
    sql: `WITH src AS (
  SELECT o FROM json_array_elements($2::text::json) AS o
), p AS (
  INSERT INTO auto_playbook (tenant_id, account_id, name, status)
  SELECT $1::uuid, (o->>'account_id')::uuid, o->>'name', o->>'status' FROM src
  RETURNING id, name
), t AS (
  INSERT INTO auto_playbook_task (tenant_id, account_id, auto_playbook_id, name, action_type, task_type, status, scheduled_time)
  SELECT $1::uuid, (k->>'account_id')::uuid, p.id, k->>'name', k->>'action_type', k->>'task_type', k->>'status', (k->>'scheduled_time')::timestamp
  FROM src JOIN p ON p.name = src.o->>'name', json_array_elements(src.o->'auto_playbook_tasks'->'data') AS k
  RETURNING 1
)
SELECT ((SELECT count(*) FROM p) + (SELECT count(*) FROM t))::float8 AS affected_rows`,
    params: [BENCH_TENANT],
    variables: ['objects'],
    columns: [{ name: 'affected_rows', type: 'float' }],
    field: 'insert_auto_playbook',
    single: true,
  },
});

/**
 * Workloads with a hand-written floor that answers the whole `data` object (Workload.handJson): the
 * SQL a skilled person writes for the same answer, the JSON built by PostgreSQL as the engine does.
 * Each table's tenant filter is the permission's (tenant_admin: the row's tenant is the session's).
 */
const AWS = DEMO.tenants.acme.cloudAccounts.aws;
/** Six months of spend lines of the demo tenant: 30 resources x 181 days = 5,430 rows. */
const HALF_YEAR = { from: '2025-09-01T00:00:00', to: '2026-03-01T00:00:00' };
const INSERTED = 10;

WORKLOADS.push(
  {
    name: 'object_rel',
    explain: true,
    description:
      'spends(order_by date desc, limit 100) each with its cloudAccountByCloudAccount object; floor: hand-written SQL',
    query: `query SpendsWithAccount($from: timestamp!) {
  spends(where: {date: {_gte: $from}}, order_by: [{date: desc}, {id: asc}], limit: 100) {
    id
    date
    amount
    cloudAccountByCloudAccount { id account_name cloud_provider status budget }
  }
}`,
    variables: { from: '2026-02-01T00:00:00' },
    handJson: {
      sql: `SELECT json_build_object('spends', coalesce(json_agg(json_build_object(
    'id', s.id, 'date', s.date, 'amount', s.amount,
    'cloudAccountByCloudAccount', CASE WHEN a.id IS NOT NULL THEN json_build_object(
      'id', a.id, 'account_name', a.account_name, 'cloud_provider', a.cloud_provider, 'status', a.status, 'budget', a.budget) END)
  ORDER BY s.date DESC, s.id), '[]'))::text AS data
FROM (SELECT id, date, amount, cloud_account FROM spends WHERE tenant = $1::uuid AND date >= $2::timestamp ORDER BY date DESC, id LIMIT 100) s
LEFT JOIN cloud_accounts a ON a.id = s.cloud_account AND a.tenant = $1::uuid`,
      variables: ['from'],
    },
  },
  {
    name: 'aggregate',
    explain: true,
    description: `spends_aggregate { count sum { amount } } over six months (${30 * 181} rows); floor: hand-written SQL`,
    query: `query SpendTotals($from: timestamp!, $to: timestamp!) {
  spends_aggregate(where: {date: {_gte: $from, _lt: $to}}) { aggregate { count sum { amount } } }
}`,
    variables: HALF_YEAR,
    handJson: {
      sql: `SELECT json_build_object('spends_aggregate', json_build_object('aggregate',
  json_build_object('count', count(*), 'sum', json_build_object('amount', sum(amount)))))::text AS data
FROM spends WHERE tenant = $1::uuid AND date >= $2::timestamp AND date < $3::timestamp`,
      variables: ['from', 'to'],
    },
  },
  {
    name: 'five_roots',
    description:
      'five root fields: cloud_accounts_by_pk, recommendation(limit 5), events(limit 5), cloud_resourses of an account, auto_pilot; floor: hand-written SQL',
    query: `query FiveRoots($id: uuid!) {
  cloud_accounts_by_pk(id: $id) { id account_name status budget }
  recommendation(order_by: [{estimated_savings: desc}, {id: asc}], limit: 5) { id category severity estimated_savings }
  events(order_by: [{created_at: desc}, {id: asc}], limit: 5) { id title severity created_at }
  cloud_resourses(where: {account: {_eq: $id}}, order_by: [{name: asc}, {id: asc}]) { id name service_name }
  auto_pilot(order_by: [{name: asc}, {id: asc}]) { id name status }
}`,
    variables: { id: AWS },
    handJson: {
      sql: `SELECT json_build_object(
  'cloud_accounts_by_pk', (SELECT json_build_object('id', id, 'account_name', account_name, 'status', status, 'budget', budget)
    FROM cloud_accounts WHERE id = $2::uuid AND tenant = $1::uuid),
  'recommendation', (SELECT coalesce(json_agg(json_build_object('id', id, 'category', category, 'severity', severity,
      'estimated_savings', estimated_savings) ORDER BY estimated_savings DESC, id), '[]')
    FROM (SELECT * FROM recommendation WHERE tenant_id = $1::uuid ORDER BY estimated_savings DESC, id LIMIT 5) r),
  'events', (SELECT coalesce(json_agg(json_build_object('id', id, 'title', title, 'severity', severity, 'created_at', created_at)
      ORDER BY created_at DESC, id), '[]')
    FROM (SELECT * FROM events WHERE tenant = $1::uuid ORDER BY created_at DESC, id LIMIT 5) e),
  'cloud_resourses', (SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'service_name', service_name)
      ORDER BY name, id), '[]')
    FROM cloud_resourses WHERE tenant = $1::uuid AND account = $2::uuid),
  'auto_pilot', (SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'status', status) ORDER BY name, id), '[]')
    FROM auto_pilot WHERE tenant_id = $1::uuid)
)::text AS data`,
      variables: ['id'],
    },
  },
  {
    // Self-cleaning, so that it runs by default: the bench deletes its rows (and vacuums the table)
    // after each load run; no other workload reads auto_playbook, and inserts of new rows take no
    // lock that another request waits for (an update of the same rows would measure lock queues).
    // The floor, like any handler of a multi-tenant API, checks that each row's account is the
    // tenant's (the engine's tenant reference check, tenant-references.ts); it leaves such rows out
    // where the engine refuses the request, which costs the same lookups.
    name: 'insert_returning',
    description: `insert_auto_playbook of ${INSERTED} rows { affected_rows returning { id name status account_id } }, rows deleted after each run; floor: hand-written SQL`,
    query: `mutation InsertReturning($objects: [auto_playbook_insert_input!]!) {
  insert_auto_playbook(objects: $objects) { affected_rows returning { id name status account_id } }
}`,
    variables: {
      objects: Array.from({ length: INSERTED }, (_, i) => ({
        account_id: AWS,
        name: `bench-returning-${i + 1}`,
        status: 'DRAFT',
      })),
    },
    handJson: {
      sql: `WITH ins AS (
  INSERT INTO auto_playbook (tenant_id, account_id, name, status)
  SELECT $1::uuid, o.account_id, o.name, o.status FROM json_to_recordset($2::text::json) AS o(account_id uuid, name text, status text)
  WHERE o.account_id IS NULL OR EXISTS (SELECT 1 FROM cloud_accounts a WHERE a.id = o.account_id AND a.tenant = $1::uuid)
  RETURNING id, name, status, account_id
)
SELECT json_build_object('insert_auto_playbook', json_build_object('affected_rows', count(*), 'returning',
  coalesce(json_agg(json_build_object('id', id, 'name', name, 'status', status, 'account_id', account_id)), '[]')))::text AS data
FROM ins`,
      variables: ['objects'],
      generated: ['id'],
    },
    cleanup: [`DELETE FROM auto_playbook WHERE name LIKE 'bench-returning-%'`, 'VACUUM (ANALYZE) auto_playbook'],
  },
);

/**
 * The reference's example reads (tests/support/examples.ts, verbatim; placeholder ids replaced), sent
 * as API consumers send them: with `Authorization: Bearer <JWT>` from the token exchange, so that the
 * session check is part of the engine's cost. The floor verifies the same JWT with the same library
 * (jose, remembered as verified until it expires, as the engine does) and takes the tenant from it.
 */
function example(name: keyof typeof EXAMPLES, handJson: NonNullable<Workload['handJson']>): Workload {
  const ex = EXAMPLES[name] as { query: string; variables?: unknown };
  return {
    name: `ex_${name}`,
    jwt: true,
    description: `the reference's example ${name}, with a Bearer JWT; floor: hand-written SQL, the JWT verified with jose`,
    query: ex.query,
    variables: withIds(ex.variables, { account: AWS, integration: DEMO.tenants.acme.integrationId }),
    handJson,
  };
}

WORKLOADS.push(
  example('ListCloudAccounts', {
    sql: `SELECT json_build_object('cloud_accounts', coalesce(json_agg(json_build_object('id', id, 'account_name', account_name,
  'cloud_provider', cloud_provider, 'account_type', account_type, 'status', status, 'budget', budget, 'created_at', created_at)
  ORDER BY account_name), '[]'))::text AS data
FROM cloud_accounts WHERE tenant = $1::uuid`,
  }),
  example('SpendByAccount', {
    sql: `SELECT json_build_object('cloud_accounts', coalesce(json_agg(json_build_object('id', a.id, 'account_name', a.account_name,
  'cloud_provider', a.cloud_provider, 'spends_aggregate', json_build_object('aggregate',
    json_build_object('sum', json_build_object('amount', s.amount), 'count', coalesce(s.n, 0))))), '[]'))::text AS data
FROM cloud_accounts a
LEFT JOIN (SELECT cloud_account, sum(amount) AS amount, count(*) AS n FROM spends
  WHERE tenant = $1::uuid AND date >= $2::timestamp AND date <= $3::timestamp GROUP BY cloud_account) s ON s.cloud_account = a.id
WHERE a.tenant = $1::uuid`,
    variables: ['startDate', 'endDate'],
    unordered: true,
  }),
  example('GetRecommendations', {
    sql: `SELECT json_build_object(
  'recommendation', (SELECT coalesce(json_agg(json_build_object('id', r.id, 'recommendation', r.recommendation,
      'rule_name', r.rule_name, 'category', r.category, 'severity', r.severity, 'status', r.status,
      'estimated_savings', r.estimated_savings, 'cloud_resourse', CASE WHEN c.id IS NOT NULL THEN
        json_build_object('name', c.name, 'region', c.region, 'service_name', c.service_name) END)
      ORDER BY r.severity, r.estimated_savings DESC), '[]')
    FROM (SELECT * FROM recommendation WHERE tenant_id = $1::uuid AND status IN ('Open', 'Assigned')
      ORDER BY severity, estimated_savings DESC LIMIT $2::int OFFSET $3::int) r
    LEFT JOIN cloud_resourses c ON c.id = r.resource_id AND c.tenant = $1::uuid),
  'recommendation_aggregate', json_build_object('aggregate', json_build_object('count',
    (SELECT count(*) FROM recommendation WHERE tenant_id = $1::uuid AND status IN ('Open', 'Assigned'))))
)::text AS data`,
    variables: ['limit', 'offset'],
  }),
  example('RecentEvents', {
    sql: `SELECT json_build_object(
  'events', (SELECT coalesce(json_agg(json_build_object('id', e.id, 'title', e.title, 'severity', e.severity,
      'source', e.source, 'status', e.status, 'created_at', e.created_at, 'cloud_account', CASE WHEN a.id IS NOT NULL THEN
        json_build_object('account_name', a.account_name) END) ORDER BY e.created_at DESC), '[]')
    FROM (SELECT * FROM events WHERE tenant = $1::uuid ORDER BY created_at DESC LIMIT $2::int OFFSET $3::int) e
    LEFT JOIN cloud_accounts a ON a.id = e.cloud_account_id AND a.tenant = $1::uuid),
  'events_aggregate', json_build_object('aggregate', json_build_object('count', (SELECT count(*) FROM events WHERE tenant = $1::uuid)))
)::text AS data`,
    variables: ['limit', 'offset'],
  }),
  example('ListK8sWorkloads', {
    sql: `SELECT json_build_object('k8s_workloads', coalesce(json_agg(json_build_object('id', id, 'name', name,
  'namespace', namespace, 'workload_type', workload_type, 'replicas', replicas, 'status', status, 'cpu_request', cpu_request,
  'cpu_limit', cpu_limit, 'memory_request', memory_request, 'memory_limit', memory_limit) ORDER BY name), '[]'))::text AS data
FROM (SELECT * FROM k8s_workloads WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid ORDER BY name LIMIT $3::int) w`,
    variables: ['accountId', 'limit'],
  }),
  example('ListAutoPilotPolicies', {
    sql: `SELECT json_build_object('auto_pilot', coalesce(json_agg(json_build_object('id', p.id, 'name', p.name,
  'description', p.description, 'status', p.status, 'trigger_type', p.trigger_type, 'created_at', p.created_at,
  'auto_pilot_approval_policy', CASE WHEN ap.id IS NOT NULL THEN
    json_build_object('approval_type', ap.approval_type, 'status', ap.status) END) ORDER BY p.created_at DESC), '[]'))::text AS data
FROM (SELECT * FROM auto_pilot WHERE tenant_id = $1::uuid ORDER BY created_at DESC LIMIT $2::int OFFSET $3::int) p
LEFT JOIN auto_pilot_approval_policy ap ON ap.id = p.approval_policy_id AND ap.tenant_id = $1::uuid`,
    variables: ['limit', 'offset'],
  }),
  example('ListTenantUsers', {
    sql: `SELECT json_build_object('tenant_users', coalesce(json_agg(json_build_object('user', u.j)), '[]'))::text AS data
FROM tenant_users tu
LEFT JOIN LATERAL (SELECT json_build_object('id', u.id, 'username', u.username, 'display_name', u.display_name, 'status', u.status,
    'user_roles', (SELECT coalesce(json_agg(json_build_object('role', r.role, 'entity_type', r.entity_type, 'entity_id', r.entity_id)), '[]')
      FROM user_roles r WHERE r.user_id = u.id AND r.tenant_id = $1::uuid)) AS j
  FROM users u WHERE u.id = tu."user") u ON true
WHERE tu.tenant = $1::uuid`,
    unordered: true,
  }),
  example('CloudAccounts', {
    sql: `SELECT json_build_object('cloud_accounts', coalesce(json_agg(json_build_object('id', id, 'account_name', account_name,
  'cloud_provider', cloud_provider, 'status', status)), '[]'))::text AS data
FROM (SELECT id, account_name, cloud_provider, status FROM cloud_accounts WHERE tenant = $1::uuid LIMIT 3) a`,
    unordered: true,
  }),
);

/** The rows of an answer (engine's or floor's) of a workload with a hand-written floor. */
export function answerRows(w: Workload, text: string): Record<string, unknown>[] {
  const field = JSON.parse(text)?.data?.[w.floor?.field ?? 'spend_groupings_v2'];
  if (w.floor?.single) return field ? [field] : [];
  return ((w.floor?.list ? field : field?.rows) ?? []) as Record<string, unknown>[];
}

/** The floor's answer around its rows, in the shape of the engine's. */
export function floorAnswer(w: Workload, rows: unknown[]): string {
  const field = JSON.stringify(w.floor?.field ?? 'spend_groupings_v2');
  if (w.floor?.single) return `{"data":{${field}:${JSON.stringify(rows[0] ?? null)}}}`;
  return w.floor?.list
    ? `{"data":{${field}:${JSON.stringify(rows)}}}`
    : `{"data":{${field}:{"rows":${JSON.stringify(rows)}}}}`;
}

/** The request headers of the bench's session (the admin secret acting as a tenant_admin). */
export function sessionHeaders(adminSecret: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-hasura-admin-secret': adminSecret,
    'x-hasura-role': BENCH_ROLE,
    'x-hasura-tenant-id': BENCH_TENANT,
  };
}

export function requestBody(w: Workload): string {
  return JSON.stringify({ query: w.query, variables: w.variables });
}

/** The parameters of a handJson floor statement: the session's tenant, then the named request variables. */
export function handParams(w: Workload, tenant: string, variables: Record<string, unknown>): string[] {
  const vars = (w.handJson?.variables ?? []).map((name) => {
    const v = variables[name];
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
  return [tenant, ...vars];
}
