import { analyticOperation } from './analytics/operation';
import { jsonbWhere, whereOf, type Dataset, type Field, uuidText } from './analytics/dataset';

/** Recommendations, with the name, type and service of the resource each is raised on. */

const groupingFields: Record<string, Field> = {
  account_id: uuidText('rc.cloud_account_id'),
  account_object_id: { sql: 'rc.account_object_id', type: 'string' },
  category: { sql: 'rc.category', type: 'string' },
  resource_cloud_service: { sql: 'r.service_name', type: 'string' },
  resource_id: uuidText('rc.resource_id'),
  resource_k8s_namespace: { sql: `(rc.recommendation ->> 'namespace')`, type: 'string' },
  resource_name: { sql: 'r.name', type: 'string' },
  resource_type: { sql: 'r.type', type: 'string' },
  rule_name: { sql: 'rc.rule_name', type: 'string' },
  severity: { sql: 'rc.severity', type: 'string' },
  status: { sql: 'rc.status', type: 'string' },
  tenant_id: { ...uuidText('rc.tenant_id'), constant: true },
  timestamp: { sql: 'rc.created_at', type: 'datetime' },
};

export const recommendationGroupings: Dataset = {
  name: 'recommendation_groupings_v2',
  from: 'recommendation rc LEFT JOIN cloud_resourses r ON r.id = rc.resource_id AND r.tenant = rc.tenant_id',
  tenant: { sql: 'rc.tenant_id', cast: 'uuid' },
  fields: groupingFields,
  aggregates: {
    count: { sql: 'count(*)::int', type: 'int' },
    sum_estimated_savings: { sql: 'coalesce(sum(rc.estimated_savings), 0)', type: 'float' },
  },
  where: whereOf(
    groupingFields,
    [
      'account_id',
      'account_object_id',
      'category',
      'resource_cloud_service',
      'resource_id',
      'resource_k8s_namespace',
      'resource_name',
      'resource_type',
      'rule_name',
      'severity',
      'status',
      'tenant_id',
      'timestamp',
    ],
    {
      // Kubernetes version upgrades name the version leaving support in their body.
      deleted_version: { sql: `(rc.recommendation ->> 'deleted_version')`, type: 'string' },
      deprecated_version: { sql: `(rc.recommendation ->> 'deprecated_version')`, type: 'string' },
      estimated_savings: { sql: 'rc.estimated_savings', type: 'float' },
      recommendation: jsonbWhere('rc.recommendation'),
    },
  ),
};

export const recommendation_groupings_v2 = analyticOperation(recommendationGroupings);

/** Vulnerabilities in the images of Kubernetes workloads (recommendation_vulnerabilities). */
const securityCommon: Record<string, Field> = {
  account_id: uuidText('v.cloud_account_id'),
  created_at: { sql: 'v.created_at', type: 'datetime' },
  id: uuidText('v.id'),
  image: { sql: 'v.image', type: 'string' },
  is_active: { sql: 'v.is_active', type: 'boolean' },
  namespace: { sql: 'v.namespace', type: 'string' },
  package_id: { sql: 'v.package_id', type: 'string' },
  severity: { sql: 'v.severity', type: 'string' },
  severity_weight: { sql: 'v.severity_weight', type: 'int' },
  status: { sql: 'v.status', type: 'string' },
  tenant_id: { ...uuidText('v.tenant_id'), constant: true },
  vulnerability_id: { sql: 'v.vulnerability_id', type: 'string' },
  workload_name: { sql: 'v.workload_name', type: 'string' },
  workload_type: { sql: 'v.workload_type', type: 'string' },
};
const securityWhere = whereOf(securityCommon, Object.keys(securityCommon));
const severityCount = (severity: string) => ({
  sql: `count(*) FILTER (WHERE v.severity = '${severity}')::int`,
  type: 'int' as const,
});

export const recommendationSecurityGroupings: Dataset = {
  name: 'recommendation_security_groupings_v2',
  from: 'recommendation_vulnerabilities v',
  tenant: { sql: 'v.tenant_id', cast: 'uuid' },
  fields: securityCommon,
  aggregates: {
    count: { sql: 'count(*)::int', type: 'int' },
    count_image: { sql: 'count(DISTINCT v.image)::int', type: 'int' },
    count_package_id: { sql: 'count(DISTINCT v.package_id)::int', type: 'int' },
    count_severity_critical: severityCount('Critical'),
    count_severity_high: severityCount('High'),
    count_severity_info: severityCount('Info'),
    count_severity_low: severityCount('Low'),
    count_severity_medium: severityCount('Medium'),
    count_vulnerability_id: { sql: 'count(DISTINCT v.vulnerability_id)::int', type: 'int' },
    count_workload_name: {
      sql: `count(DISTINCT (v.cloud_account_id, v.namespace, v.workload_name))::int`,
      type: 'int',
    },
  },
  where: securityWhere,
};

export const recommendationSecurity: Dataset = {
  name: 'recommendation_security_v2',
  from: 'recommendation_vulnerabilities v',
  tenant: { sql: 'v.tenant_id', cast: 'uuid' },
  fields: {
    ...securityCommon,
    recommendation: { sql: 'v.recommendation', type: 'json' },
    updated_at: { sql: 'v.updated_at', type: 'datetime' },
  },
  where: securityWhere,
};

export const recommendation_security_groupings_v2 = analyticOperation(recommendationSecurityGroupings);
export const recommendation_security_v2 = analyticOperation(recommendationSecurity);

/**
 * Misconfigurations: the recommendations of category Configuration. Their body may name the check's
 * own category, message, Kubernetes namespace and container (`check_category`, `message`,
 * `namespace`, `container`); the message falls back to the description.
 */
const missconfigFields: Record<string, Field> = {
  account_id: uuidText('rc.cloud_account_id'),
  account_object_id: { sql: 'rc.account_object_id', type: 'string' },
  category: { sql: 'rc.category', type: 'string' },
  created_at: { sql: 'rc.created_at', type: 'datetime' },
  // The API types it String.
  estimated_savings: { sql: 'rc.estimated_savings::text', type: 'string' },
  missconfig_category: { sql: `coalesce(rc.recommendation ->> 'check_category', rc.category)`, type: 'string' },
  missconfig_message: {
    sql: `coalesce(rc.recommendation ->> 'message', rc.recommendation ->> 'description')`,
    type: 'string',
  },
  resource_id: uuidText('rc.resource_id'),
  resource_k8s_container: { sql: `(rc.recommendation ->> 'container')`, type: 'string' },
  resource_k8s_namespace: { sql: `(rc.recommendation ->> 'namespace')`, type: 'string' },
  resource_name: { sql: 'r.name', type: 'string' },
  resource_type: { sql: 'r.type', type: 'string' },
  rule_name: { sql: 'rc.rule_name', type: 'string' },
  status: { sql: 'rc.status', type: 'string' },
  tenant_id: { ...uuidText('rc.tenant_id'), constant: true },
  updated_at: { sql: 'rc.updated_at', type: 'datetime' },
};
const MISSCONFIG_FROM = `recommendation rc LEFT JOIN cloud_resourses r ON r.id = rc.resource_id AND r.tenant = rc.tenant_id`;
const missconfigWhere = whereOf(
  missconfigFields,
  Object.keys(missconfigFields).filter((n) => n !== 'estimated_savings'),
  {
    estimated_savings: { sql: 'rc.estimated_savings', type: 'float' },
  },
);

export const recommendationMissconfigGroupings: Dataset = {
  name: 'recommendation_missconfig_groupings_v2',
  from: MISSCONFIG_FROM,
  filter: `rc.category = 'Configuration'`,
  tenant: { sql: 'rc.tenant_id', cast: 'uuid' },
  fields: missconfigFields,
  aggregates: {
    count: { sql: 'count(*)::int', type: 'int' },
    sum_estimated_savings: { sql: 'coalesce(sum(rc.estimated_savings), 0)', type: 'float' },
  },
  where: missconfigWhere,
};

/**
 * The misconfigurations themselves. The operation takes group_by too (the spec gives it one): with
 * it, the answer is the distinct combinations of the columns asked for.
 */
export const recommendationMissconfig: Dataset = {
  name: 'recommendation_missconfig_v2',
  from: MISSCONFIG_FROM,
  filter: recommendationMissconfigGroupings.filter,
  tenant: recommendationMissconfigGroupings.tenant,
  fields: missconfigFields,
  groupable: true,
  where: missconfigWhere,
};

export const recommendation_missconfig_groupings_v2 = analyticOperation(recommendationMissconfigGroupings);
export const recommendation_missconfig_v2 = analyticOperation(recommendationMissconfig);

/** CIS benchmark rule results per account (recommendation_security_cis). */
const cisFields: Record<string, Field> = {
  account_id: uuidText('c.cloud_account_id'),
  id: uuidText('c.id'),
  rule_description: { sql: 'c.rule_description', type: 'string' },
  rule_id: { sql: 'c.rule_id', type: 'string' },
  rule_name: { sql: 'c.rule_name', type: 'string' },
  severity: { sql: 'c.severity', type: 'string' },
  severity_weight: { sql: 'c.severity_weight', type: 'int' },
  status: { sql: 'c.status', type: 'string' },
  tenant_id: { ...uuidText('c.tenant_id'), constant: true },
  updated_at: { sql: 'c.updated_at', type: 'datetime' },
};

export const recommendationSecurityCisGroupings: Dataset = {
  name: 'recommendation_security_cis_groupings_v2',
  from: 'recommendation_security_cis c',
  tenant: { sql: 'c.tenant_id', cast: 'uuid' },
  fields: cisFields,
  aggregates: { count: { sql: 'count(*)::int', type: 'int' } },
  where: whereOf(
    cisFields,
    Object.keys(cisFields).filter((n) => n !== 'updated_at'),
  ),
};

export const recommendation_security_cis_groupings_v2 = analyticOperation(recommendationSecurityCisGroupings);
