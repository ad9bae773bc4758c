import { DEMO } from '../demo/demo-data';
import { LOG_ACCOUNTS, LOG_SPAN } from './data';

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
  analytic?: { request: Record<string, unknown>; columns: string[] };
  /** A logs_query request (the engine's statement for EXPLAIN comes from actions/logs/store.ts). */
  logs?: LogsRequest;
  /** Only run on the large data (BENCH_SCALE), unless named in BENCH_WORKLOADS. */
  large?: boolean;
  /** Only run when named in BENCH_WORKLOADS (it writes rows, which would change the other workloads' data). */
  writes?: boolean;
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
    description: 'cloud_accounts + spends_aggregate(date range) + recommendations(order, limit)',
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
