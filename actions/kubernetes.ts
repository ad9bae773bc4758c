import type { ActionContext } from './context';
import { analyticOperation } from './analytics/operation';
import { sql, tenantOf, type Sql } from './api';
import { jsonbWhere, whereOf, type Dataset, type Field, uuidText } from './analytics/dataset';

/**
 * Kubernetes: workloads, pods, namespaces and nodes of the clusters in cloud accounts. A workload's
 * FQDN is namespace/kind/name, a pod's namespace/name (unique within an account's cluster).
 */

const WORKLOAD_FQDN = `(w.namespace || '/' || w.kind || '/' || w.name)`;

const workloadCommon: Record<string, Field> = {
  account_id: uuidText('w.cloud_account_id'),
  external_id: { sql: 'w.external_id', type: 'string' },
  is_active: { sql: 'w.is_active', type: 'boolean' },
  kind: { sql: 'w.kind', type: 'string' },
  name: { sql: 'w.name', type: 'string' },
  namespace: { sql: 'w.namespace', type: 'string' },
  resource_id: uuidText('w.cloud_resource_id'),
  tenant_id: { ...uuidText('w.tenant_id'), constant: true },
  workload_fqdn: { sql: WORKLOAD_FQDN, type: 'string' },
};
const workloadWhere = [
  'account_id',
  'external_id',
  'is_active',
  'kind',
  'name',
  'namespace',
  'resource_id',
  'tenant_id',
  'workload_fqdn',
];
const kindCount = (kind: string) => ({
  sql: `count(*) FILTER (WHERE lower(w.kind) = '${kind}')::int`,
  type: 'int' as const,
});

export const k8sWorkloadGroupings: Dataset = {
  name: 'k8s_workload_groupings_v2',
  from: 'k8s_workloads w',
  tenant: { sql: 'w.tenant_id', cast: 'uuid' },
  fields: workloadCommon,
  aggregates: {
    count: { sql: 'count(*)::int', type: 'int' },
    cronjob_count: kindCount('cronjob'),
    daemonset_count: kindCount('daemonset'),
    deployment_count: kindCount('deployment'),
    job_count: kindCount('job'),
    replicaset_count: kindCount('replicaset'),
    rollout_count: kindCount('rollout'),
    statefulset_count: kindCount('statefulset'),
  },
  where: whereOf(workloadCommon, workloadWhere, { labels: jsonbWhere('w.labels') }),
};

/** k8s_workloads_v2's rows: the reference types is_active, ready_pods and total_pods as String. */
const workloadFields: Record<string, Field> = {
  ...workloadCommon,
  is_active: { ...workloadCommon.is_active, text: true },
  creation_time: { sql: 'w.creation_time', type: 'datetime' },
  labels: { sql: 'w.labels', type: 'json' },
  last_seen: { sql: 'w.last_seen', type: 'datetime' },
  meta: { sql: 'w.meta', type: 'json' },
  ready_pods: { sql: 'w.ready_pods', type: 'int', text: true },
  total_pods: { sql: 'w.total_pods', type: 'int', text: true },
  updated_at: { sql: 'w.updated_at', type: 'datetime' },
};

export const k8sWorkloads: Dataset = {
  name: 'k8s_workloads_v2',
  from: 'k8s_workloads w',
  tenant: { sql: 'w.tenant_id', cast: 'uuid' },
  fields: workloadFields,
  where: whereOf(
    workloadFields,
    [...workloadWhere, 'creation_time', 'last_seen', 'ready_pods', 'total_pods', 'updated_at'],
    { labels: jsonbWhere('w.labels') },
  ),
};

const podCommon: Record<string, Field> = {
  account_id: uuidText('p.cloud_account_id'),
  external_id: { sql: 'p.external_id', type: 'string' },
  is_active: { sql: 'p.is_active', type: 'boolean' },
  name: { sql: 'p.name', type: 'string' },
  namespace: { sql: 'p.namespace', type: 'string' },
  node_name: { sql: 'p.node_name', type: 'string' },
  pod_fqdn: { sql: `(p.namespace || '/' || p.name)`, type: 'string' },
  resource_id: uuidText('p.cloud_resource_id'),
  status: { sql: 'p.status', type: 'string' },
  tenant_id: { ...uuidText('p.tenant_id'), constant: true },
  workload_name: { sql: 'p.workload_name', type: 'string' },
  workload_type: { sql: 'p.workload_type', type: 'string' },
};
const podWhere = Object.keys(podCommon);
const podExtraWhere = {
  creation_time: { sql: 'p.creation_time', type: 'datetime' as const },
  labels: jsonbWhere('p.labels'),
};

export const k8sPodGroupings: Dataset = {
  name: 'k8s_pod_groupings_v2',
  from: 'k8s_pods p',
  tenant: { sql: 'p.tenant_id', cast: 'uuid' },
  fields: podCommon,
  aggregates: { count: { sql: 'count(*)::int', type: 'int' } },
  where: whereOf(podCommon, podWhere, podExtraWhere),
};

const podFields: Record<string, Field> = {
  ...podCommon,
  creation_time: { sql: 'p.creation_time', type: 'datetime' },
  labels: { sql: 'p.labels', type: 'json' },
  last_seen: { sql: 'p.last_seen', type: 'datetime' },
  meta: { sql: 'p.meta', type: 'json' },
  // Restarts per container, {"<container>": n}.
  restart_count: { sql: 'p.restart_count', type: 'json' },
  updated_at: { sql: 'p.updated_at', type: 'datetime' },
};

/** The pod's restarts over all its containers. */
const RESTARTS = `(SELECT coalesce(sum((c.value #>> '{}')::numeric), 0)::bigint FROM jsonb_each(CASE WHEN jsonb_typeof(p.restart_count) = 'object' THEN p.restart_count ELSE '{}'::jsonb END) c WHERE jsonb_typeof(c.value) = 'number')`;

export const k8sPods: Dataset = {
  name: 'k8s_pods_v2',
  from: 'k8s_pods p',
  tenant: { sql: 'p.tenant_id', cast: 'uuid' },
  fields: podFields,
  where: whereOf(podFields, [...podWhere, 'last_seen', 'updated_at'], {
    ...podExtraWhere,
    restart_count: { sql: RESTARTS, type: 'int' },
  }),
};

const namespaceCommon: Record<string, Field> = {
  account_id: { sql: 'n.cloud_account_id', type: 'string' },
  is_active: { sql: 'n.is_active', type: 'boolean' },
  name: { sql: 'n.name', type: 'string' },
  tenant_id: { sql: 'n.tenant_id', type: 'string', constant: true },
};
const namespaceExtraWhere = {
  creation_time: { sql: 'n.creation_time', type: 'datetime' as const },
  updated_at: { sql: 'n.updated_at', type: 'datetime' as const },
};

export const k8sNamespaceGroupings: Dataset = {
  name: 'k8s_namespace_groupings_v2',
  from: 'k8s_namespaces n',
  // k8s_namespaces keys are text (the API's String!); tenants are compared in lower case.
  tenant: { sql: 'n.tenant_id', cast: 'text' },
  fields: namespaceCommon,
  aggregates: { count: { sql: 'count(*)::int', type: 'int' } },
  where: whereOf(namespaceCommon, Object.keys(namespaceCommon), namespaceExtraWhere),
};

const namespaceFields: Record<string, Field> = {
  ...namespaceCommon,
  creation_time: { sql: 'n.creation_time', type: 'datetime' },
  pod_count: { sql: 'n.pod_count', type: 'int' },
  updated_at: { sql: 'n.updated_at', type: 'datetime' },
  workload_count: { sql: 'n.workload_count', type: 'int' },
};

export const k8sNamespaces: Dataset = {
  name: 'k8s_namespaces_v2',
  from: 'k8s_namespaces n',
  tenant: { sql: 'n.tenant_id', cast: 'text' },
  fields: namespaceFields,
  where: whereOf(namespaceFields, Object.keys(namespaceFields)),
};

/**
 * Counts of the pods (by status) and workloads (by kind) in the accounts of a group of nodes: a
 * subquery over the group's accounts (an aggregate of the outer query).
 */
const countsIn = (table: string, key: string) => (tenant: Sql) =>
  sql`(SELECT coalesce(jsonb_object_agg(x.k, x.n), '{}'::jsonb)::text FROM (
    SELECT t.${sql.ident(key)} AS k, count(*) AS n FROM ${sql.ident(table)} t
     WHERE t.tenant_id = ${tenant} AND t.cloud_account_id = ANY (array_agg(DISTINCT k.cloud_account_id)) GROUP BY t.${sql.ident(key)}) x)`;

const clusterFields: Record<string, Field> = {
  account_id: uuidText('k.cloud_account_id'),
  tenant_id: { ...uuidText('k.tenant_id'), constant: true },
};

export const k8sClusterGroupings: Dataset = {
  name: 'k8s_cluster_groupings_v2',
  from: 'k8s_nodes k',
  tenant: { sql: 'k.tenant_id', cast: 'uuid' },
  fields: clusterFields,
  aggregates: {
    node_count: { sql: 'count(*)::int', type: 'int' },
    node_cpu_allocatable: { sql: 'sum(k.cpu_allocatable)', type: 'float' },
    node_cpu_capacity: { sql: 'sum(k.cpu_capacity)', type: 'float' },
    node_memory_allocatable: { sql: 'sum(k.memory_allocatable)::float8', type: 'float' },
    node_memory_capacity: { sql: 'sum(k.memory_capacity)::float8', type: 'float' },
    node_spot_count: { sql: `count(*) FILTER (WHERE lower(k.node_type) = 'spot')::int`, type: 'int' },
    pod_status_counts: { sql: countsIn('k8s_pods', 'status'), type: 'string' },
    workload_type_counts: { sql: countsIn('k8s_workloads', 'kind'), type: 'string' },
  },
  where: whereOf(clusterFields, ['account_id', 'tenant_id']),
};

export const k8s_workload_groupings_v2 = analyticOperation(k8sWorkloadGroupings);
export const k8s_workloads_v2 = analyticOperation(k8sWorkloads);
export const k8s_pod_groupings_v2 = analyticOperation(k8sPodGroupings);
export const k8s_pods_v2 = analyticOperation(k8sPods);
export const k8s_namespace_groupings_v2 = analyticOperation(k8sNamespaceGroupings);
export const k8s_namespaces_v2 = analyticOperation(k8sNamespaces);
export const k8s_cluster_groupings_v2 = analyticOperation(k8sClusterGroupings);

/**
 * k8s_versions: the upstream Kubernetes minor releases the platform knows, newest first, with the
 * date each was released (YYYY-MM-DD). A fixed catalogue, the same for every tenant; extend it as
 * releases come out.
 */
export const K8S_VERSIONS: readonly { version: string; release_date: string }[] = [
  { version: '1.34', release_date: '2025-08-27' },
  { version: '1.33', release_date: '2025-04-23' },
  { version: '1.32', release_date: '2024-12-11' },
  { version: '1.31', release_date: '2024-08-13' },
  { version: '1.30', release_date: '2024-04-17' },
  { version: '1.29', release_date: '2023-12-13' },
  { version: '1.28', release_date: '2023-08-15' },
  { version: '1.27', release_date: '2023-04-11' },
  { version: '1.26', release_date: '2022-12-09' },
  { version: '1.25', release_date: '2022-08-23' },
  { version: '1.24', release_date: '2022-05-03' },
  { version: '1.23', release_date: '2021-12-07' },
  { version: '1.22', release_date: '2021-08-04' },
  { version: '1.21', release_date: '2021-04-08' },
  { version: '1.20', release_date: '2020-12-08' },
];

export async function k8s_versions(_args: Record<string, unknown>, ctx: ActionContext) {
  // Tenant users only, like every other Kubernetes operation.
  tenantOf(ctx);
  return K8S_VERSIONS.map((v) => ({ ...v }));
}

// ---------------------------------------------------------------------------------------------
// k8s_metrics_groupings_v2: usage samples of pods (table k8s_metrics, one row per pod and sample
// time) grouped by the caller's choice of fields.

/**
 * Efficiencies are ratios of use to request (0.5 = half of the request used), per sample; a sample
 * without a request (null or 0) has no efficiency of that kind rather than an infinite one.
 * `efficiency` is the mean of a sample's cpu and memory efficiencies (the one known, when only one
 * is). The avg_ and max_ aggregates are over the group's samples (one per pod and time), so
 * avg_cpu_used of a workload is what one of its pods used on average, not the workload's total;
 * cost, sum_ingress and sum_egress add the samples up (bytes, and the account's currency).
 */
const CPU_EFFICIENCY = '(m.cpu_used / NULLIF(m.cpu_request, 0))';
const RAM_EFFICIENCY = '(m.memory_used / NULLIF(m.memory_request, 0))';
const EFFICIENCY = `((coalesce(${CPU_EFFICIENCY}, 0) + coalesce(${RAM_EFFICIENCY}, 0))
  / NULLIF((${CPU_EFFICIENCY} IS NOT NULL)::int + (${RAM_EFFICIENCY} IS NOT NULL)::int, 0))`;

const metricFields: Record<string, Field> = {
  account_id: uuidText('m.cloud_account_id'),
  namespace_name: { sql: 'm.namespace', type: 'string' },
  node_name: { sql: 'm.node_name', type: 'string' },
  pod_fqdn: { sql: 'm.pod_fqdn', type: 'string' },
  pod_name: { sql: 'm.pod_name', type: 'string' },
  tenant_id: { ...uuidText('m.tenant_id'), constant: true },
  timestamp: { sql: 'm."timestamp"', type: 'datetime' },
  workload_fqdn: { sql: 'm.workload_fqdn', type: 'string' },
  workload_name: { sql: 'm.workload_name', type: 'string' },
  workload_type: { sql: 'm.workload_type', type: 'string' },
};

const avgMax = (name: string, sql: string): Record<string, Field> => ({
  [`avg_${name}`]: { sql: `avg(${sql})`, type: 'float' },
  [`max_${name}`]: { sql: `max(${sql})`, type: 'float' },
});

export const k8sMetricsGroupings: Dataset = {
  name: 'k8s_metrics_groupings_v2',
  from: 'k8s_metrics m',
  tenant: { sql: 'm.tenant_id', cast: 'uuid' },
  fields: metricFields,
  aggregates: {
    ...avgMax('cpu_efficiency', CPU_EFFICIENCY),
    ...avgMax('cpu_request', 'm.cpu_request'),
    ...avgMax('cpu_used', 'm.cpu_used'),
    ...avgMax('efficiency', EFFICIENCY),
    ...avgMax('memory_request', 'm.memory_request'),
    ...avgMax('memory_used', 'm.memory_used'),
    ...avgMax('ram_efficiency', RAM_EFFICIENCY),
    cost: { sql: 'sum(m.cost)', type: 'float' },
    sum_egress: { sql: 'sum(m.egress)', type: 'float' },
    sum_ingress: { sql: 'sum(m.ingress)', type: 'float' },
  },
  where: whereOf(metricFields, Object.keys(metricFields)),
};

export const k8s_metrics_groupings_v2 = analyticOperation(k8sMetricsGroupings);

// ---------------------------------------------------------------------------------------------
// Workload monitoring: k8s_workloads_cloud_account_monitoring_v2 and its _recommendations_v2.
// One row per active workload of the tenant's accounts.

/** Recommendation statuses still to act on (the others are settled: Closed, Dismissed, Archive). */
export const ACTIONABLE_RECOMMENDATION_STATUSES = ['Open', 'Assigned', 'InProgress'] as const;

/**
 * Whether recommendation `rc` is about workload `w` (SQL over both aliases): it is in the workload's
 * account and either raised on the workload's own resource, or its body names the workload
 * (`namespace` and `workload_name`, the keys Kubernetes recommendations carry).
 */
export function recommendationOnWorkload(rc: string, w: string): string {
  return `(${rc}.tenant_id = ${w}.tenant_id AND ${rc}.cloud_account_id = ${w}.cloud_account_id
    AND (${rc}.resource_id = ${w}.cloud_resource_id
      OR (${rc}.recommendation ->> 'namespace' = ${w}.namespace AND ${rc}.recommendation ->> 'workload_name' = ${w}.name)))`;
}

/**
 * The workload an event is about: its subject's owner (a pod's workload), or the subject itself when
 * it is a workload (the same reading as event_get_filter_values' `workload`).
 */
/**
 * The workload an event `e` is about. A pod's is the workload its pod row names (its owner in the event
 * is usually a ReplicaSet, `<deployment>-<hash>`, not the workload), else that owner; anything else's is
 * its owner, or itself when it is a workload.
 */
const EVENT_WORKLOAD = `CASE WHEN lower(e.subject_type) = 'pod' THEN coalesce(
    (SELECT p.workload_name FROM k8s_pods p WHERE p.tenant_id = e.tenant AND p.cloud_account_id = e.cloud_account_id
        AND p.namespace = e.subject_namespace AND p.name = e.subject_name AND p.workload_name IS NOT NULL LIMIT 1),
    e.subject_owner)
  ELSE coalesce(e.subject_owner, CASE WHEN lower(e.subject_type) IN ('cronjob', 'daemonset', 'deployment', 'job', 'replicaset', 'rollout', 'statefulset') THEN e.subject_name END) END`;

/**
 * Per workload (account, namespace, name); pods and events are counted once per statement for the
 * tenant (the statement's tenant value) and joined to the workloads:
 * - pod errors: its active pods that are failing now (a status other than Running, Succeeded and
 *   Pending: Failed, Unknown, CrashLoopBackOff, ...) or whose containers have restarted (RESTARTS,
 *   above, reads the pod as `p`);
 * - application errors: its log lines (table logs, labelled with the workload's namespace and its
 *   `app` label, the workload's name without one) of severity error, critical or fatal;
 * - events: every event about it (EVENT_WORKLOAD), whatever its status;
 * - SLOs: the platform has no SLO definitions of its own, only the events SLO checks send (source
 *   slo). An SLO is known by its events' fingerprint (aggregation key without one): total counts
 *   those that reported on the workload, failed those whose latest event is still FIRING.
 */
const MONITORING_FROM = (tenant: Sql) => sql`k8s_workloads w
  JOIN cloud_accounts a ON a.id = w.cloud_account_id AND a.tenant = w.tenant_id
  LEFT JOIN (
    SELECT p.cloud_account_id, p.namespace, p.workload_name, count(*)::int AS n
    FROM k8s_pods p
    WHERE p.tenant_id = ${tenant} AND p.is_active AND p.workload_name IS NOT NULL
      AND (p.status NOT IN ('Running', 'Succeeded', 'Pending') OR ${sql.text(RESTARTS)} > 0)
    GROUP BY 1, 2, 3
  ) pe ON pe.cloud_account_id = w.cloud_account_id AND pe.namespace = w.namespace AND pe.workload_name = w.name
  LEFT JOIN (
    -- The error lines are read once and grouped by account and label set (a few hundred sets for an
    -- account's 45,000 lines), and each workload counts the sets its labels are contained in; per
    -- workload, through the labels' GIN index, each read every account's lines of its namespace and app
    -- (145,000 at scale 100 with the bench's 3 million lines: 2.3 s a workload, where one pass over the
    -- table takes 1 s). Keyed by account too, so that a filter on the account reaches the lines.
    SELECT w2.cloud_account_id, w2.id, sum(g.n)::int AS n
    FROM k8s_workloads w2
    JOIN (
      SELECT l.cloud_account_id, l.labels, count(*) AS n
      FROM logs l
      WHERE l.tenant_id = ${tenant} AND lower(l.severity) IN ('error', 'critical', 'fatal')
      GROUP BY 1, 2
    ) g ON g.cloud_account_id = w2.cloud_account_id
      AND g.labels @> jsonb_build_object('namespace', w2.namespace, 'app', coalesce(w2.labels ->> 'app', w2.name))
    WHERE w2.tenant_id = ${tenant}
    GROUP BY 1, 2
  ) le ON le.cloud_account_id = w.cloud_account_id AND le.id = w.id
  LEFT JOIN (
    SELECT e.cloud_account_id, e.subject_namespace AS namespace, ${sql.text(EVENT_WORKLOAD)} AS workload, count(*)::int AS n
    FROM events e
    WHERE e.tenant = ${tenant}
    GROUP BY 1, 2, 3
  ) ev ON ev.cloud_account_id = w.cloud_account_id AND ev.namespace = w.namespace AND ev.workload = w.name
  LEFT JOIN (
    SELECT s.cloud_account_id, s.namespace, s.workload, count(*)::int AS total, count(*) FILTER (WHERE s.status = 'FIRING')::int AS failed
    FROM (
      SELECT DISTINCT ON (e.cloud_account_id, e.subject_namespace, ${sql.text(EVENT_WORKLOAD)}, coalesce(e.fingerprint, e.aggregation_key))
             e.cloud_account_id, e.subject_namespace AS namespace, ${sql.text(EVENT_WORKLOAD)} AS workload, e.status
      FROM events e
      WHERE e.tenant = ${tenant} AND e.source = 'slo'
      ORDER BY e.cloud_account_id, e.subject_namespace, ${sql.text(EVENT_WORKLOAD)}, coalesce(e.fingerprint, e.aggregation_key), e.created_at DESC, e.id DESC
    ) s
    GROUP BY 1, 2, 3
  ) slo ON slo.cloud_account_id = w.cloud_account_id AND slo.namespace = w.namespace AND slo.workload = w.name`;

const monitoringWhere = {
  account_id: uuidText('w.cloud_account_id'),
  // A String in the API: the ISO text of the creation time (UTC), so _like '2026-01%' selects a month.
  creation_time: { sql: `to_char(w.creation_time, 'YYYY-MM-DD"T"HH24:MI:SS')`, type: 'string' as const },
  name: { sql: 'w.name', type: 'string' as const },
  namespace: { sql: 'w.namespace', type: 'string' as const },
  tenant_id: uuidText('w.tenant_id'),
};

const monitoringFields: Record<string, Field> = {
  account_id: uuidText('w.cloud_account_id'),
  account_name: { sql: 'a.account_name', type: 'string' },
  application_error_count: { sql: 'coalesce(le.n, 0)', type: 'int' },
  creation_time: { sql: monitoringWhere.creation_time.sql, type: 'string' },
  event_count: { sql: 'coalesce(ev.n, 0)', type: 'int' },
  failed_slo_count: { sql: 'coalesce(slo.failed, 0)', type: 'int' },
  name: { sql: 'w.name', type: 'string' },
  namespace: { sql: 'w.namespace', type: 'string' },
  pod_error_count: { sql: 'coalesce(pe.n, 0)', type: 'int' },
  ready_pods: { sql: 'w.ready_pods', type: 'int' },
  total_pods: { sql: 'w.total_pods', type: 'int' },
  total_slo_count: { sql: 'coalesce(slo.total, 0)', type: 'int' },
  workload_id: uuidText('w.id'),
};

export const k8sWorkloadMonitoring: Dataset = {
  name: 'k8s_workloads_cloud_account_monitoring_v2',
  from: MONITORING_FROM,
  // Workloads that are gone (is_active false) are history, not something to monitor.
  filter: 'w.is_active',
  tenant: { sql: 'w.tenant_id', cast: 'uuid' },
  fields: monitoringFields,
  where: monitoringWhere,
};

const ACTIONABLE = ACTIONABLE_RECOMMENDATION_STATUSES.map((s) => `'${s}'`).join(', ');

export const k8sWorkloadMonitoringRecommendations: Dataset = {
  name: 'k8s_workloads_cloud_account_monitoring_recommendations_v2',
  // Counted per workload in a lateral subquery: a recommendation may name the workload through its
  // resource or its body, which no single grouping key covers.
  from: `k8s_workloads w
    LEFT JOIN LATERAL (
      SELECT count(*)::int AS n FROM recommendation rc
      WHERE ${recommendationOnWorkload('rc', 'w')} AND coalesce(rc.status, 'Open') IN (${ACTIONABLE})
    ) r ON true`,
  filter: 'w.is_active',
  tenant: { sql: 'w.tenant_id', cast: 'uuid' },
  fields: {
    account_id: uuidText('w.cloud_account_id'),
    namespace: { sql: 'w.namespace', type: 'string' },
    recommendation_count: { sql: 'r.n', type: 'int' },
    tenant_id: { ...uuidText('w.tenant_id'), constant: true },
    workload_name: { sql: 'w.name', type: 'string' },
  },
  where: monitoringWhere,
};

export const k8s_workloads_cloud_account_monitoring_v2 = analyticOperation(k8sWorkloadMonitoring);
export const k8s_workloads_cloud_account_monitoring_recommendations_v2 = analyticOperation(
  k8sWorkloadMonitoringRecommendations,
);
