import { DEMO } from '../sql/demo/demo-data';

/** One GraphQL request the bench sends over and over, as a tenant_admin of the first demo tenant. */
export interface Workload {
  name: string;
  description: string;
  query: string;
  variables: Record<string, unknown>;
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
