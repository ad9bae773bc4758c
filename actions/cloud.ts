import { analyticOperation } from './analytics/operation';
import { whereOf, type Dataset, type Field, uuidText } from './analytics/dataset';

/** Cloud Infrastructure: resource metric samples, with their resource's region, service and type. */

const metricFields: Record<string, Field> = {
  account_id: uuidText('m.cloud_account_id'),
  metric: { sql: 'm.metric', type: 'string' },
  region_name: { sql: 'r.region', type: 'string' },
  resource_id: uuidText('m.cloud_resource_id'),
  service_name: { sql: 'r.service_name', type: 'string' },
  tenant_id: { ...uuidText('m.tenant_id'), constant: true },
  timestamp: { sql: 'm."timestamp"', type: 'datetime' },
};

export const cloudMetricGroupings: Dataset = {
  name: 'cloud_metric_groupings_v2',
  from: 'cloud_resource_metrics m LEFT JOIN cloud_resourses r ON r.id = m.cloud_resource_id AND r.tenant = m.tenant_id',
  tenant: { sql: 'm.tenant_id', cast: 'uuid' },
  fields: metricFields,
  aggregates: {
    avg_value: { sql: 'avg(m.value)', type: 'float' },
    count_value: { sql: 'count(m.value)::int', type: 'int' },
    max_value: { sql: 'max(m.value)', type: 'float' },
    min_value: { sql: 'min(m.value)', type: 'float' },
    sum_value: { sql: 'sum(m.value)', type: 'float' },
  },
  where: whereOf(
    metricFields,
    ['account_id', 'metric', 'region_name', 'resource_id', 'service_name', 'tenant_id', 'timestamp'],
    {
      resource_type: { sql: 'r.type', type: 'string' },
    },
  ),
};

export const cloud_metric_groupings_v2 = analyticOperation(cloudMetricGroupings);
