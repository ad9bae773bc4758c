import { analyticOperation } from './analytics/operation';
import { whereOf, type Dataset, type Field } from './analytics/dataset';

/** Cost Management: spend lines (spends) with their resource's region, service and type. */

const SPEND_FROM = 'spends s LEFT JOIN cloud_resourses r ON r.id = s.cloud_resource_id AND r.tenant = s.tenant';

const groupingFields: Record<string, Field> = {
  account_id: { sql: 's.cloud_account::text', type: 'string' },
  currency_type: { sql: 's.unit', type: 'string' },
  resource_id: { sql: 's.cloud_resource_id::text', type: 'string' },
  resource_region: { sql: 'r.region', type: 'string' },
  resource_service_name: { sql: 'r.service_name', type: 'string' },
  resource_type: { sql: 'r.type', type: 'string' },
  spend_date: { sql: 's.date', type: 'datetime' },
  tenant_id: { sql: 's.tenant::text', type: 'string', constant: true },
};

export const spendGroupings: Dataset = {
  name: 'spend_groupings_v2',
  from: SPEND_FROM,
  tenant: { sql: 's.tenant', cast: 'uuid' },
  fields: groupingFields,
  aggregates: {
    account_count: { sql: 'count(DISTINCT s.cloud_account)', type: 'float' },
    resource_count: { sql: 'count(DISTINCT s.cloud_resource_id)', type: 'float' },
    spend_amount: { sql: 'coalesce(sum(s.amount), 0)', type: 'float' },
    spend_count: { sql: 'count(*)', type: 'float' },
  },
  where: whereOf(
    groupingFields,
    [
      'account_id',
      'resource_id',
      'resource_region',
      'resource_service_name',
      'resource_type',
      'spend_date',
      'tenant_id',
    ],
    {
      exclude_aggregate: { sql: 'coalesce(s.exclude_aggregate, false)', type: 'boolean' },
    },
  ),
};

const spendFields: Record<string, Field> = {
  amount: { sql: 's.amount', type: 'float' },
  business_unit: { sql: 's.business_unit::text', type: 'string' },
  cloud_account: { sql: 's.cloud_account::text', type: 'string' },
  cloud_resource_id: { sql: 's.cloud_resource_id::text', type: 'string' },
  date: { sql: 's.date', type: 'datetime' },
  exclude_aggregate: { sql: 'coalesce(s.exclude_aggregate, false)', type: 'boolean' },
  id: { sql: 's.id::text', type: 'string' },
  resource_region: { sql: 'r.region', type: 'string' },
  resource_service_name: { sql: 'r.service_name', type: 'string' },
  resource_type: { sql: 'r.type', type: 'string' },
  tags: { sql: 's.tags', type: 'json' },
  tenant: { sql: 's.tenant::text', type: 'string' },
  unit: { sql: 's.unit', type: 'string' },
};

export const spends: Dataset = {
  name: 'spends_v2',
  from: SPEND_FROM,
  tenant: { sql: 's.tenant', cast: 'uuid' },
  fields: spendFields,
  where: whereOf(spendFields, [
    'amount',
    'business_unit',
    'cloud_account',
    'cloud_resource_id',
    'date',
    'id',
    'resource_region',
    'resource_service_name',
    'resource_type',
    'tenant',
    'unit',
  ]),
};

export const spend_groupings_v2 = analyticOperation(spendGroupings);
export const spends_v2 = analyticOperation(spends);
