import { DEMO } from '../sql/demo/demo-data';

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
  floor?: { sql: string; params: string[]; columns: { name: string; type: 'string' | 'float' | 'datetime' }[] };
  analytic?: { request: Record<string, unknown>; columns: string[] };
  /** Only run on the large data (BENCH_SCALE), unless named in BENCH_WORKLOADS. */
  large?: boolean;
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
      request: { group_by: ['resource_service_name'], where: { spend_date: { _gte: MONTH.from, _lt: MONTH.to } }, order_by: [{ column: 'spend_amount', order: 'desc' }] },
      columns: ['resource_service_name', 'spend_amount', 'spend_count'],
    },
    floor: {
      sql: `SELECT r.service_name AS resource_service_name, coalesce(sum(s.amount), 0)::float8 AS spend_amount, count(*)::float8 AS spend_count
FROM ${SPEND_JOIN}
WHERE s.tenant = $1::uuid AND s.date >= $2::timestamp AND s.date < $3::timestamp
GROUP BY r.service_name
ORDER BY 2 DESC, 1 ASC NULLS LAST`,
      params: [BENCH_TENANT, MONTH.from, MONTH.to],
      columns: [{ name: 'resource_service_name', type: 'string' }, { name: 'spend_amount', type: 'float' }, { name: 'spend_count', type: 'float' }],
    },
  },
  {
    name: 'spend_by_day',
    large: true,
    description: 'spend_groupings_v2 grouped by date_trunc(day, spend_date), one month, one tenant; floor: hand-written SQL',
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
        group_by: ['spend_date'], where: { spend_date: { _gte: MONTH.from, _lt: MONTH.to } }, order_by: [{ column: 'spend_date', order: 'asc' }],
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
      columns: [{ name: 'spend_date', type: 'datetime' }, { name: 'spend_amount', type: 'float' }, { name: 'spend_count', type: 'float' }],
    },
  },
);

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
