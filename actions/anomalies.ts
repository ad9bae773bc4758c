import type { GraphQLResolveInfo } from 'graphql';
import type { ActionContext } from './context';
import { analyticOperation } from './analytics/operation';
import { rowsAnswer, type AnalyticRequest } from './analytics/builder';
import { whereOf, type Dataset, type Field, uuidText } from './analytics/dataset';
import { selectedRowFields } from './analytics/selection';
import { analyticStatement } from './analytics/statements';
import { tenantOf } from './api';

/**
 * Anomalies: what the detector found per workload and metric (table anomaly). anomaly_v2 lists the
 * evaluations, anomaly_grouping_v2 counts them, anomaly_v3 summarises them per (anomaly_type, name,
 * namespace): evaluations, anomalous evaluations and the latest evaluation time. All through the
 * analytic builder; the tenant is the session's.
 */

const fields: Record<string, Field> = {
  account_id: uuidText('a.account_id'),
  anomaly_type: { sql: 'a.anomaly_type', type: 'string' },
  config_id: uuidText('a.config_id'),
  // A number, sorted as one; String! in the API, which serialises it as its text.
  current_value: { sql: 'a.current_value', type: 'float' },
  // The reference statistics (jsonb), as JSON text.
  evaluated_at: { sql: 'a.evaluated_at', type: 'datetime' },
  id: uuidText('a.id'),
  is_anomaly: { sql: 'a.is_anomaly', type: 'boolean' },
  name: { sql: 'a.name', type: 'string' },
  // namespace is String! in the API: an anomaly outside any namespace has ''.
  namespace: { sql: `coalesce(a.namespace, '')`, type: 'string' },
  reference_value: { sql: 'a.reference_value::text', type: 'string' },
  updated_at: { sql: 'a.updated_at', type: 'datetime' },
};

const where = whereOf(fields, ['account_id', 'anomaly_type', 'config_id', 'is_anomaly', 'name', 'namespace']);

export const anomalies: Dataset = {
  name: 'anomaly_v2',
  from: 'anomaly a',
  tenant: { sql: 'a.tenant', cast: 'uuid' },
  fields,
  where,
};

export const anomalyGroupings: Dataset = {
  name: 'anomaly_grouping_v2',
  from: 'anomaly a',
  tenant: { sql: 'a.tenant', cast: 'uuid' },
  fields,
  aggregates: { count: { sql: 'count(*)::int', type: 'int' } },
  where,
};

const v3Fields: Record<string, Field> = {
  account_id: fields.account_id,
  anomaly_type: fields.anomaly_type,
  name: fields.name,
  namespace: fields.namespace,
};

export const anomaliesV3: Dataset = {
  name: 'anomaly_v3',
  from: 'anomaly a',
  tenant: { sql: 'a.tenant', cast: 'uuid' },
  fields: v3Fields,
  aggregates: {
    anomaly_count: { sql: 'count(*) FILTER (WHERE a.is_anomaly)::int', type: 'int' },
    count: { sql: 'count(*)::int', type: 'int' },
    evaluated_at: { sql: 'max(a.evaluated_at)', type: 'datetime' },
  },
  where: whereOf(v3Fields, ['account_id', 'anomaly_type', 'name', 'namespace']),
};

/** The groups of anomaly_v3: one row per anomaly_type, name and namespace (over the filtered accounts). */
const V3_GROUPS = ['anomaly_type', 'name', 'namespace'];

export const anomaly_v2 = analyticOperation(anomalies);
export const anomaly_grouping_v2 = analyticOperation(anomalyGroupings);

/** anomaly_v3 has no order_by: the most recently evaluated groups come first. */
export async function anomaly_v3(args: Record<string, unknown>, ctx: ActionContext, info?: GraphQLResolveInfo) {
  const req: AnalyticRequest = {
    where: args.where,
    limit: args.limit as number | null | undefined,
    offset: args.offset as number | null | undefined,
    group_by: V3_GROUPS,
    order_by: [{ column: 'evaluated_at', order: 'desc' }, ...V3_GROUPS.map((column) => ({ column }))],
  };
  const selected = selectedRowFields(info);
  const s = analyticStatement(
    anomaliesV3,
    req,
    tenantOf(ctx).toLowerCase(),
    selected ?? [...V3_GROUPS, 'anomaly_count', 'count', 'evaluated_at'],
  );
  return { rows: rowsAnswer(s, await ctx.db.query(s.text, s.params)) };
}
