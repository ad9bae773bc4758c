import { DEMO } from '../demo/demo-data';

/**
 * Every `_v2` analytic operation of the spec (actions/*.ts, each a dataset read by
 * actions/analytics/builder.ts), one realistic request each, against a floor written by hand: the
 * SQL a skilled person writes for the same rows (the tenant's rows only, the same order, ties broken
 * as the builder breaks them: by the returned columns in order, ascending, nulls last). $1 is the
 * session's tenant; the request's values are bound as the floor's other parameters. Selected by
 * `npm run bench -- v2` (scale 100); compared by value before loading.
 *
 * A table: operation, the request (sent as GraphQL literals), the columns selected with their
 * comparison type, the floor's SQL and parameters.
 */
type Column = [name: string, type: 'string' | 'float' | 'datetime' | 'json'];

interface V2 {
  name: string;
  op: string;
  request: Record<string, unknown>;
  columns: Column[];
  sql: string;
  params?: string[];
  description: string;
}

const TENANT = DEMO.tenants.acme.id;
const AWS = DEMO.tenants.acme.cloudAccounts.aws;
const MONTH = { from: '2026-02-01T00:00:00', to: '2026-03-01T00:00:00' };

/** A JSON value as a GraphQL literal (keys unquoted; the value of `order`, a sort order, is an enum). */
export function graphqlLiteral(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(graphqlLiteral).join(', ')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${k === 'order' && typeof x === 'string' ? x : graphqlLiteral(x)}`)
      .join(', ')}}`;
  return JSON.stringify(v);
}

/** The window the events datasets read each event with: its fingerprint's first time, within the tenant. */
const EVENTS_OF_TENANT = `(SELECT ev.*,
    CASE WHEN ev.fingerprint IS NULL THEN ev.created_at ELSE min(ev.created_at) OVER (PARTITION BY ev.fingerprint) END AS fp_first_seen_at
  FROM events ev WHERE ev.tenant = $1::uuid) e`;

/** The workload an event `e` is about: a pod's workload (its pod row's), else its owner, else itself when it is a workload. */
const EVENT_WORKLOAD = `CASE WHEN lower(e.subject_type) = 'pod' THEN coalesce(
    (SELECT p.workload_name FROM k8s_pods p WHERE p.tenant_id = e.tenant AND p.cloud_account_id = e.cloud_account_id
        AND p.namespace = e.subject_namespace AND p.name = e.subject_name AND p.workload_name IS NOT NULL LIMIT 1),
    e.subject_owner)
  ELSE coalesce(e.subject_owner, CASE WHEN lower(e.subject_type) IN ('cronjob', 'daemonset', 'deployment', 'job', 'replicaset', 'rollout', 'statefulset')
    THEN e.subject_name END) END`;

const V2_TABLE: V2[] = [
  {
    name: 'v2_spends',
    op: 'spends_v2',
    description: 'one account, one month, newest 100 lines',
    request: {
      where: { cloud_account: { _eq: AWS }, date: { _gte: MONTH.from, _lt: MONTH.to } },
      order_by: [{ column: 'date', order: 'desc' }],
      limit: 100,
    },
    columns: [
      ['id', 'string'],
      ['date', 'datetime'],
      ['amount', 'float'],
      ['resource_service_name', 'string'],
    ],
    sql: `SELECT s.id::text AS id, s.date, s.amount, r.service_name AS resource_service_name
FROM spends s LEFT JOIN cloud_resourses r ON r.id = s.cloud_resource_id AND r.tenant = s.tenant
WHERE s.tenant = $1::uuid AND s.cloud_account = $2::uuid AND s.date >= $3::timestamp AND s.date < $4::timestamp
ORDER BY s.date DESC, s.id
LIMIT 100`,
    params: [AWS, MONTH.from, MONTH.to],
  },
  {
    name: 'v2_anomalies',
    op: 'anomaly_v2',
    description: 'the newest 50 anomalous evaluations',
    request: { where: { is_anomaly: { _eq: true } }, order_by: [{ column: 'evaluated_at', order: 'desc' }], limit: 50 },
    columns: [
      ['id', 'string'],
      ['name', 'string'],
      ['anomaly_type', 'string'],
      ['namespace', 'string'],
      ['evaluated_at', 'datetime'],
    ],
    sql: `SELECT a.id::text AS id, a.name, a.anomaly_type, coalesce(a.namespace, '') AS namespace, a.evaluated_at
FROM anomaly a WHERE a.tenant = $1::uuid AND a.is_anomaly
ORDER BY a.evaluated_at DESC, a.id
LIMIT 50`,
  },
  {
    name: 'v2_anomaly_count',
    op: 'anomaly_grouping_v2',
    description: 'anomalous evaluations counted',
    request: { where: { is_anomaly: { _eq: true } } },
    columns: [['count', 'float']],
    sql: `SELECT count(*)::int AS count FROM anomaly a WHERE a.tenant = $1::uuid AND a.is_anomaly`,
  },
  {
    name: 'v2_event_groupings',
    op: 'event_groupings_v2',
    description: 'one month of events by priority, with new issues',
    request: { group_by: ['priority'], where: { created_at: { _gte: MONTH.from, _lt: MONTH.to } } },
    columns: [
      ['priority', 'string'],
      ['event_count', 'float'],
      ['count_new_issues', 'float'],
      ['max_created_at', 'datetime'],
    ],
    sql: `SELECT e.priority, count(*)::float8 AS event_count, count(*) FILTER (WHERE e.created_at = e.fp_first_seen_at)::int AS count_new_issues,
  max(e.created_at) AS max_created_at
FROM ${EVENTS_OF_TENANT}
WHERE e.created_at >= $2::timestamp AND e.created_at < $3::timestamp
GROUP BY e.priority
ORDER BY e.priority NULLS LAST`,
    params: [MONTH.from, MONTH.to],
  },
  {
    name: 'v2_events',
    op: 'events_v2',
    description: 'the newest 50 events of a month, with is_new_issue',
    request: {
      where: { created_at: { _gte: MONTH.from, _lt: MONTH.to } },
      order_by: [{ column: 'created_at', order: 'desc' }],
      limit: 50,
    },
    columns: [
      ['id', 'string'],
      ['title', 'string'],
      ['priority', 'string'],
      ['created_at', 'datetime'],
      ['is_new_issue', 'string'],
    ],
    sql: `SELECT e.id::text AS id, e.title, e.priority, e.created_at, e.created_at = e.fp_first_seen_at AS is_new_issue
FROM ${EVENTS_OF_TENANT}
WHERE e.created_at >= $2::timestamp AND e.created_at < $3::timestamp
ORDER BY e.created_at DESC, e.id
LIMIT 50`,
    params: [MONTH.from, MONTH.to],
  },
  {
    name: 'v2_recommendation_groupings',
    op: 'recommendation_groupings_v2',
    description: 'open recommendations by category, with savings',
    request: { group_by: ['category'], where: { status: { _in: ['Open', 'Assigned'] } } },
    columns: [
      ['category', 'string'],
      ['count', 'float'],
      ['sum_estimated_savings', 'float'],
    ],
    sql: `SELECT rc.category, count(*)::int AS count, coalesce(sum(rc.estimated_savings), 0)::float8 AS sum_estimated_savings
FROM recommendation rc WHERE rc.tenant_id = $1::uuid AND rc.status IN ('Open', 'Assigned')
GROUP BY rc.category
ORDER BY rc.category NULLS LAST`,
  },
  {
    name: 'v2_missconfig_groupings',
    op: 'recommendation_missconfig_groupings_v2',
    description: 'misconfigurations by check category',
    request: { group_by: ['missconfig_category'] },
    columns: [
      ['missconfig_category', 'string'],
      ['count', 'float'],
    ],
    sql: `SELECT coalesce(rc.recommendation ->> 'check_category', rc.category) AS missconfig_category, count(*)::int AS count
FROM recommendation rc WHERE rc.tenant_id = $1::uuid AND rc.category = 'Configuration'
GROUP BY 1
ORDER BY 1 NULLS LAST`,
  },
  {
    name: 'v2_missconfig',
    op: 'recommendation_missconfig_v2',
    description: 'the newest 50 misconfigurations with their resource',
    request: { order_by: [{ column: 'created_at', order: 'desc' }], limit: 50 },
    columns: [
      ['rule_name', 'string'],
      ['resource_name', 'string'],
      ['status', 'string'],
      ['created_at', 'datetime'],
    ],
    sql: `SELECT rc.rule_name, r.name AS resource_name, rc.status, rc.created_at
FROM recommendation rc LEFT JOIN cloud_resourses r ON r.id = rc.resource_id AND r.tenant = rc.tenant_id
WHERE rc.tenant_id = $1::uuid AND rc.category = 'Configuration'
ORDER BY rc.created_at DESC, rc.rule_name NULLS LAST, r.name NULLS LAST, rc.status NULLS LAST
LIMIT 50`,
  },
  {
    name: 'v2_cis_groupings',
    op: 'recommendation_security_cis_groupings_v2',
    description: 'CIS rule results by severity',
    request: { group_by: ['severity'] },
    columns: [
      ['severity', 'string'],
      ['count', 'float'],
    ],
    sql: `SELECT c.severity, count(*)::int AS count FROM recommendation_security_cis c WHERE c.tenant_id = $1::uuid
GROUP BY 1 ORDER BY 1 NULLS LAST`,
  },
  {
    name: 'v2_security_groupings',
    op: 'recommendation_security_groupings_v2',
    description: 'vulnerabilities by namespace, critical ones and images counted',
    request: { group_by: ['namespace'] },
    columns: [
      ['namespace', 'string'],
      ['count', 'float'],
      ['count_severity_critical', 'float'],
      ['count_image', 'float'],
    ],
    sql: `SELECT v.namespace, count(*)::int AS count, count(*) FILTER (WHERE v.severity = 'Critical')::int AS count_severity_critical,
  count(DISTINCT v.image)::int AS count_image
FROM recommendation_vulnerabilities v WHERE v.tenant_id = $1::uuid
GROUP BY 1 ORDER BY 1 NULLS LAST`,
  },
  {
    name: 'v2_security',
    op: 'recommendation_security_v2',
    description: 'the 50 heaviest vulnerabilities',
    request: { order_by: [{ column: 'severity_weight', order: 'desc' }], limit: 50 },
    columns: [
      ['id', 'string'],
      ['vulnerability_id', 'string'],
      ['severity', 'string'],
      ['workload_name', 'string'],
    ],
    sql: `SELECT v.id::text AS id, v.vulnerability_id, v.severity, v.workload_name
FROM recommendation_vulnerabilities v WHERE v.tenant_id = $1::uuid
ORDER BY v.severity_weight DESC, v.id
LIMIT 50`,
  },
  {
    name: 'v2_cloud_metrics',
    op: 'cloud_metric_groupings_v2',
    description: 'resource metric samples by metric',
    request: { group_by: ['metric'] },
    columns: [
      ['metric', 'string'],
      ['avg_value', 'float'],
      ['max_value', 'float'],
      ['count_value', 'float'],
    ],
    sql: `SELECT m.metric, avg(m.value)::float8 AS avg_value, max(m.value)::float8 AS max_value, count(m.value)::int AS count_value
FROM cloud_resource_metrics m WHERE m.tenant_id = $1::uuid
GROUP BY 1 ORDER BY 1 NULLS LAST`,
  },
  {
    name: 'v2_workload_groupings',
    op: 'k8s_workload_groupings_v2',
    description: 'workloads by namespace, deployments and stateful sets counted',
    request: { group_by: ['namespace'] },
    columns: [
      ['namespace', 'string'],
      ['count', 'float'],
      ['deployment_count', 'float'],
      ['statefulset_count', 'float'],
    ],
    sql: `SELECT w.namespace, count(*)::int AS count, count(*) FILTER (WHERE lower(w.kind) = 'deployment')::int AS deployment_count,
  count(*) FILTER (WHERE lower(w.kind) = 'statefulset')::int AS statefulset_count
FROM k8s_workloads w WHERE w.tenant_id = $1::uuid
GROUP BY 1 ORDER BY 1 NULLS LAST`,
  },
  {
    name: 'v2_workloads',
    op: 'k8s_workloads_v2',
    description: 'the first 100 active workloads by name',
    request: { where: { is_active: { _eq: true } }, order_by: [{ column: 'name', order: 'asc' }], limit: 100 },
    columns: [
      ['name', 'string'],
      ['namespace', 'string'],
      ['kind', 'string'],
      ['account_id', 'string'],
      ['total_pods', 'float'],
    ],
    sql: `SELECT w.name, w.namespace, w.kind, w.cloud_account_id::text AS account_id, w.total_pods
FROM k8s_workloads w WHERE w.tenant_id = $1::uuid AND w.is_active
ORDER BY w.name, w.namespace NULLS LAST, w.kind NULLS LAST, w.cloud_account_id::text NULLS LAST, w.total_pods NULLS LAST
LIMIT 100`,
  },
  {
    name: 'v2_pod_groupings',
    op: 'k8s_pod_groupings_v2',
    description: 'pods by status',
    request: { group_by: ['status'] },
    columns: [
      ['status', 'string'],
      ['count', 'float'],
    ],
    sql: `SELECT p.status, count(*)::int AS count FROM k8s_pods p WHERE p.tenant_id = $1::uuid GROUP BY 1 ORDER BY 1 NULLS LAST`,
  },
  {
    name: 'v2_pods',
    op: 'k8s_pods_v2',
    description: 'the first 100 pods that are not running, by name',
    request: { where: { status: { _neq: 'Running' } }, order_by: [{ column: 'name', order: 'asc' }], limit: 100 },
    columns: [
      ['name', 'string'],
      ['namespace', 'string'],
      ['status', 'string'],
      ['account_id', 'string'],
    ],
    sql: `SELECT p.name, p.namespace, p.status, p.cloud_account_id::text AS account_id
FROM k8s_pods p WHERE p.tenant_id = $1::uuid AND p.status <> 'Running'
ORDER BY p.name, p.namespace NULLS LAST, p.status NULLS LAST, p.cloud_account_id::text NULLS LAST
LIMIT 100`,
  },
  {
    name: 'v2_namespace_groupings',
    op: 'k8s_namespace_groupings_v2',
    description: 'namespaces by name, counted over the accounts',
    request: { group_by: ['name'] },
    columns: [
      ['name', 'string'],
      ['count', 'float'],
    ],
    sql: `SELECT n.name, count(*)::int AS count FROM k8s_namespaces n WHERE n.tenant_id = $1::text GROUP BY 1 ORDER BY 1 NULLS LAST`,
  },
  {
    name: 'v2_namespaces',
    op: 'k8s_namespaces_v2',
    description: 'the first 100 namespaces by name',
    request: { order_by: [{ column: 'name', order: 'asc' }], limit: 100 },
    columns: [
      ['name', 'string'],
      ['account_id', 'string'],
      ['pod_count', 'float'],
    ],
    sql: `SELECT n.name, n.cloud_account_id AS account_id, n.pod_count
FROM k8s_namespaces n WHERE n.tenant_id = $1::text
ORDER BY n.name, n.cloud_account_id NULLS LAST, n.pod_count NULLS LAST
LIMIT 100`,
  },
  {
    name: 'v2_cluster_groupings',
    op: 'k8s_cluster_groupings_v2',
    description: 'nodes per account, the 50 largest clusters',
    request: { group_by: ['account_id'], order_by: [{ column: 'node_count', order: 'desc' }], limit: 50 },
    columns: [
      ['account_id', 'string'],
      ['node_count', 'float'],
      ['node_cpu_capacity', 'float'],
      ['node_spot_count', 'float'],
    ],
    sql: `SELECT k.cloud_account_id::text AS account_id, count(*)::int AS node_count, sum(k.cpu_capacity)::float8 AS node_cpu_capacity,
  count(*) FILTER (WHERE lower(k.node_type) = 'spot')::int AS node_spot_count
FROM k8s_nodes k WHERE k.tenant_id = $1::uuid
GROUP BY k.cloud_account_id
ORDER BY 2 DESC, 1 NULLS LAST, 2, 3 NULLS LAST, 4
LIMIT 50`,
  },
  {
    name: 'v2_k8s_metrics',
    op: 'k8s_metrics_groupings_v2',
    description: 'pod usage samples by workload',
    request: { group_by: ['workload_name'] },
    columns: [
      ['workload_name', 'string'],
      ['avg_cpu_used', 'float'],
      ['max_memory_used', 'float'],
      ['cost', 'float'],
    ],
    sql: `SELECT m.workload_name, avg(m.cpu_used)::float8 AS avg_cpu_used, max(m.memory_used)::float8 AS max_memory_used, sum(m.cost)::float8 AS cost
FROM k8s_metrics m WHERE m.tenant_id = $1::uuid
GROUP BY 1 ORDER BY 1 NULLS LAST`,
  },
  {
    name: 'v2_playbooks',
    op: 'auto_playbook_v2',
    description: 'the newest 50 playbooks with their creator',
    request: { order_by: [{ column: 'created_at', order: 'desc' }], limit: 50 },
    columns: [
      ['id', 'string'],
      ['name', 'string'],
      ['status', 'string'],
      ['username', 'string'],
    ],
    sql: `SELECT p.id::text AS id, p.name, p.status, cu.username
FROM auto_playbook p LEFT JOIN users cu ON cu.id = p.created_by
WHERE p.tenant_id = $1::uuid
ORDER BY p.created_at DESC, p.id
LIMIT 50`,
  },
  {
    name: 'v2_playbook_count',
    op: 'auto_playbook_grouping_v2',
    description: 'active playbooks counted',
    request: { where: { status: { _eq: 'ACTIVE' } } },
    columns: [['count', 'float']],
    sql: `SELECT count(*)::float8 AS count FROM auto_playbook p WHERE p.tenant_id = $1::uuid AND p.status = 'ACTIVE'`,
  },
  {
    name: 'v2_monitoring',
    op: 'k8s_workloads_cloud_account_monitoring_v2',
    description: "one account's active workloads with pod errors, events, application errors and SLOs counted",
    request: { where: { account_id: { _eq: AWS } } },
    columns: [
      ['name', 'string'],
      ['namespace', 'string'],
      ['account_name', 'string'],
      ['pod_error_count', 'float'],
      ['event_count', 'float'],
      ['application_error_count', 'float'],
      ['total_slo_count', 'float'],
      ['failed_slo_count', 'float'],
    ],
    sql: `SELECT w.name, w.namespace, a.account_name, coalesce(pe.n, 0) AS pod_error_count, coalesce(ev.n, 0) AS event_count,
  coalesce(le.n, 0) AS application_error_count, coalesce(slo.total, 0) AS total_slo_count, coalesce(slo.failed, 0) AS failed_slo_count
FROM k8s_workloads w
JOIN cloud_accounts a ON a.id = w.cloud_account_id AND a.tenant = w.tenant_id
LEFT JOIN (
  SELECT p.namespace, p.workload_name, count(*)::int AS n FROM k8s_pods p
  WHERE p.tenant_id = $1::uuid AND p.cloud_account_id = $2::uuid AND p.is_active AND p.workload_name IS NOT NULL
    AND (p.status NOT IN ('Running', 'Succeeded', 'Pending')
      OR (SELECT coalesce(sum((c.value #>> '{}')::numeric), 0) FROM jsonb_each(CASE WHEN jsonb_typeof(p.restart_count) = 'object'
          THEN p.restart_count ELSE '{}'::jsonb END) c WHERE jsonb_typeof(c.value) = 'number') > 0)
  GROUP BY 1, 2
) pe ON pe.namespace = w.namespace AND pe.workload_name = w.name
LEFT JOIN (
  SELECT w2.id, sum(g.n)::int AS n
  FROM k8s_workloads w2
  JOIN (SELECT l.labels, count(*) AS n FROM logs l
    WHERE l.tenant_id = $1::uuid AND l.cloud_account_id = $2::uuid AND lower(l.severity) IN ('error', 'critical', 'fatal')
    GROUP BY 1) g ON g.labels @> jsonb_build_object('namespace', w2.namespace, 'app', coalesce(w2.labels ->> 'app', w2.name))
  WHERE w2.tenant_id = $1::uuid AND w2.cloud_account_id = $2::uuid
  GROUP BY 1
) le ON le.id = w.id
LEFT JOIN (
  SELECT x.namespace, x.workload, count(*)::int AS n
  FROM (SELECT e.subject_namespace AS namespace, ${EVENT_WORKLOAD} AS workload FROM events e
    WHERE e.tenant = $1::uuid AND e.cloud_account_id = $2::uuid) x
  GROUP BY 1, 2
) ev ON ev.namespace = w.namespace AND ev.workload = w.name
LEFT JOIN (
  SELECT s.namespace, s.workload, count(*)::int AS total, count(*) FILTER (WHERE s.status = 'FIRING')::int AS failed
  FROM (
    SELECT DISTINCT ON (y.namespace, y.workload, y.k) y.namespace, y.workload, y.status
    FROM (SELECT e.subject_namespace AS namespace, ${EVENT_WORKLOAD} AS workload, coalesce(e.fingerprint, e.aggregation_key) AS k,
        e.status, e.created_at, e.id
      FROM events e WHERE e.tenant = $1::uuid AND e.cloud_account_id = $2::uuid AND e.source = 'slo') y
    ORDER BY y.namespace, y.workload, y.k, y.created_at DESC, y.id DESC
  ) s
  GROUP BY 1, 2
) slo ON slo.namespace = w.namespace AND slo.workload = w.name
WHERE w.tenant_id = $1::uuid AND w.cloud_account_id = $2::uuid AND w.is_active
ORDER BY 1 NULLS LAST, 2 NULLS LAST, 3 NULLS LAST, 4, 5, 6, 7, 8`,
    params: [AWS],
  },
  {
    name: 'v2_monitoring_recommendations',
    op: 'k8s_workloads_cloud_account_monitoring_recommendations_v2',
    description: "one account's active workloads with their actionable recommendations counted",
    request: { where: { account_id: { _eq: AWS } } },
    columns: [
      ['workload_name', 'string'],
      ['namespace', 'string'],
      ['recommendation_count', 'float'],
    ],
    sql: `SELECT w.name AS workload_name, w.namespace, (SELECT count(*)::int FROM recommendation rc
    WHERE rc.tenant_id = w.tenant_id AND rc.cloud_account_id = w.cloud_account_id
      AND (rc.resource_id = w.cloud_resource_id OR (rc.recommendation ->> 'namespace' = w.namespace AND rc.recommendation ->> 'workload_name' = w.name))
      AND coalesce(rc.status, 'Open') IN ('Open', 'Assigned', 'InProgress')) AS recommendation_count
FROM k8s_workloads w WHERE w.tenant_id = $1::uuid AND w.cloud_account_id = $2::uuid AND w.is_active
ORDER BY 1 NULLS LAST, 2 NULLS LAST, 3 NULLS LAST`,
    params: [AWS],
  },
];

/** The workloads of the table, in workloads.ts' shape (Workload; not imported here, which would make a cycle). */
export const V2_WORKLOADS = V2_TABLE.map((v) => {
  const selection = v.columns.map(([c]) => c).join(' ');
  const args = Object.entries(v.request)
    .map(([k, x]) => `${k}: ${graphqlLiteral(x)}`)
    .join(', ');
  return {
    name: v.name,
    v2: true,
    description: `${v.op}: ${v.description}; floor: hand-written SQL`,
    query: `query ${v.name.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase())} { ${v.op}(${args}) { rows { ${selection} } } }`,
    variables: {},
    analytic: { dataset: v.op, request: v.request, columns: v.columns.map(([c]) => c) },
    floor: {
      sql: v.sql,
      params: [TENANT, ...(v.params ?? [])],
      columns: v.columns.map(([name, type]) => ({ name, type })),
      field: v.op,
    },
  };
});
