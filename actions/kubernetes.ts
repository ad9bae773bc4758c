import type { ActionContext } from '../engine/execute/actions';
import { analyticOperation } from './analytics/operation';
import { tenantOf } from './session';
import { jsonbWhere, whereOf, type Dataset, type Field } from './analytics/dataset';

/**
 * Kubernetes: workloads, pods, namespaces and nodes of the clusters in cloud accounts. A workload's
 * FQDN is namespace/kind/name, a pod's namespace/name (unique within an account's cluster).
 */

const WORKLOAD_FQDN = `(w.namespace || '/' || w.kind || '/' || w.name)`;

const workloadCommon: Record<string, Field> = {
  account_id: { sql: 'w.cloud_account_id::text', type: 'string' },
  external_id: { sql: 'w.external_id', type: 'string' },
  is_active: { sql: 'w.is_active', type: 'boolean' },
  kind: { sql: 'w.kind', type: 'string' },
  name: { sql: 'w.name', type: 'string' },
  namespace: { sql: 'w.namespace', type: 'string' },
  resource_id: { sql: 'w.cloud_resource_id::text', type: 'string' },
  tenant_id: { sql: 'w.tenant_id::text', type: 'string', constant: true },
  workload_fqdn: { sql: WORKLOAD_FQDN, type: 'string' },
};
const workloadWhere = ['account_id', 'external_id', 'is_active', 'kind', 'name', 'namespace', 'resource_id', 'tenant_id', 'workload_fqdn'];
const kindCount = (kind: string) => ({ sql: `count(*) FILTER (WHERE lower(w.kind) = '${kind}')::int`, type: 'int' as const });

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

const workloadFields: Record<string, Field> = {
  ...workloadCommon,
  creation_time: { sql: 'w.creation_time', type: 'datetime' },
  labels: { sql: 'w.labels', type: 'json' },
  last_seen: { sql: 'w.last_seen', type: 'datetime' },
  meta: { sql: 'w.meta', type: 'json' },
  ready_pods: { sql: 'w.ready_pods', type: 'int' },
  total_pods: { sql: 'w.total_pods', type: 'int' },
  updated_at: { sql: 'w.updated_at', type: 'datetime' },
};

export const k8sWorkloads: Dataset = {
  name: 'k8s_workloads_v2',
  from: 'k8s_workloads w',
  tenant: { sql: 'w.tenant_id', cast: 'uuid' },
  fields: workloadFields,
  where: whereOf(workloadFields, [...workloadWhere, 'creation_time', 'last_seen', 'ready_pods', 'total_pods', 'updated_at'], { labels: jsonbWhere('w.labels') }),
};

const podCommon: Record<string, Field> = {
  account_id: { sql: 'p.cloud_account_id::text', type: 'string' },
  external_id: { sql: 'p.external_id', type: 'string' },
  is_active: { sql: 'p.is_active', type: 'boolean' },
  name: { sql: 'p.name', type: 'string' },
  namespace: { sql: 'p.namespace', type: 'string' },
  node_name: { sql: 'p.node_name', type: 'string' },
  pod_fqdn: { sql: `(p.namespace || '/' || p.name)`, type: 'string' },
  resource_id: { sql: 'p.cloud_resource_id::text', type: 'string' },
  status: { sql: 'p.status', type: 'string' },
  tenant_id: { sql: 'p.tenant_id::text', type: 'string', constant: true },
  workload_name: { sql: 'p.workload_name', type: 'string' },
  workload_type: { sql: 'p.workload_type', type: 'string' },
};
const podWhere = Object.keys(podCommon);
const podExtraWhere = { creation_time: { sql: 'p.creation_time', type: 'datetime' as const }, labels: jsonbWhere('p.labels') };

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
  where: whereOf(podFields, [...podWhere, 'last_seen', 'updated_at'], { ...podExtraWhere, restart_count: { sql: RESTARTS, type: 'int' } }),
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
const countsIn = (table: string, key: string) => `(SELECT coalesce(jsonb_object_agg(x.k, x.n), '{}'::jsonb)::text FROM (
    SELECT t.${key} AS k, count(*) AS n FROM ${table} t
     WHERE t.tenant_id = $1::uuid AND t.cloud_account_id = ANY (array_agg(DISTINCT k.cloud_account_id)) GROUP BY t.${key}) x)`;

const clusterFields: Record<string, Field> = {
  account_id: { sql: 'k.cloud_account_id::text', type: 'string' },
  tenant_id: { sql: 'k.tenant_id::text', type: 'string', constant: true },
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
