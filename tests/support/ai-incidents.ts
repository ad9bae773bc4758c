import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../engine/core/db/database';

/**
 * Seeded incidents for the AI-analysis tests: one event of each kind the built-in analyst knows,
 * with what a real cluster leaves around such an event (log lines, pod and node state, anomalies,
 * spend, a recent change) and, for some, a distractor (a crash-loop message beside an OOM) so that
 * the ranking is tested, not just the matching. Each incident has its own namespace and workload and
 * its own day (March 2026, after the demo data), so that no incident's evidence leaks into another's.
 */

export type IncidentKind =
  | 'out_of_memory'
  | 'crash_loop'
  | 'cpu_throttling'
  | 'failed_scheduling'
  | 'image_pull'
  | 'node_pressure'
  | 'configuration_error'
  | 'cost_spike';

export const INCIDENT_KINDS: IncidentKind[] = [
  'out_of_memory',
  'crash_loop',
  'cpu_throttling',
  'failed_scheduling',
  'image_pull',
  'node_pressure',
  'configuration_error',
  'cost_spike',
];

export interface SeededIncidents {
  tenant: string;
  account: string;
  cluster: string;
  /** The event of each kind. */
  events: Record<IncidentKind, string>;
  /** Ids of the evidence the analyst should cite, per kind. */
  logs: Record<string, string[]>;
  pods: Record<string, string>;
  nodeId: string;
  resourceId: string;
  recommendationId: string;
  knowledgeBaseDocId: string;
}

interface LogLine {
  minutes: number;
  severity: string;
  message: string;
}

interface WorkloadIncident {
  kind: IncidentKind;
  day: number;
  namespace: string;
  workload: string;
  pod: string;
  podStatus: string;
  restarts: number;
  podMeta: Record<string, unknown>;
  workloadPatch?: Record<string, unknown>;
  title: string;
  description: string;
  failure?: string;
  findingType: string;
  category: string;
  logs: LogLine[];
  anomaly?: { type: string; current: number; reference: number };
  /** A change event this many minutes before the incident. */
  change?: { minutes: number; title: string };
  /** The workload was updated this many minutes before. */
  updatedMinutesBefore?: number;
}

const MI = 1024 * 1024;

const WORKLOAD_INCIDENTS: WorkloadIncident[] = [
  {
    kind: 'out_of_memory',
    day: 2,
    namespace: 'shop',
    workload: 'orders-api',
    pod: 'orders-api-7d9f8b6c4-x2k9p',
    podStatus: 'Running',
    restarts: 6,
    podMeta: { last_state: { terminated: { reason: 'OOMKilled', exitCode: 137 } } },
    workloadPatch: { memory_limit: 512 * MI, memory_request: 384 * MI },
    title: 'Container OOMKilled in orders-api',
    description: 'Container orders-api in pod orders-api-7d9f8b6c4-x2k9p was OOMKilled (exit code 137).',
    findingType: 'issue',
    category: 'Resources',
    logs: [
      { minutes: -20, severity: 'info', message: 'GET /orders 200 41ms' },
      { minutes: -6, severity: 'warn', message: 'heap usage 94% of max, full GC took 1800ms' },
      { minutes: -2, severity: 'error', message: 'java.lang.OutOfMemoryError: Java heap space' },
      {
        minutes: -1,
        severity: 'error',
        message: 'Memory cgroup out of memory: Killed process 4123 (java) total-vm:2097152kB',
      },
      {
        minutes: 3,
        severity: 'warn',
        message: 'Back-off restarting failed container orders-api in pod orders-api-7d9f8b6c4-x2k9p',
      },
    ],
    anomaly: { type: 'Memory', current: 530, reference: 300 },
  },
  {
    kind: 'crash_loop',
    day: 3,
    namespace: 'payments',
    workload: 'checkout',
    pod: 'checkout-5c8d7f9b6-abcde',
    podStatus: 'Running',
    restarts: 14,
    podMeta: { last_state: { terminated: { reason: 'Error', exitCode: 2 } } },
    title: 'Pod CrashLoopBackOff in checkout',
    description: 'Back-off restarting failed container checkout in pod checkout-5c8d7f9b6-abcde (CrashLoopBackOff).',
    findingType: 'issue',
    category: 'Availability',
    logs: [
      { minutes: -10, severity: 'info', message: 'starting checkout v3.2.0' },
      {
        minutes: -9,
        severity: 'error',
        message: 'panic: runtime error: invalid memory address or nil pointer dereference',
      },
      { minutes: -9, severity: 'error', message: 'goroutine 1 [running]: main.loadPricing() /app/pricing.go:88' },
      {
        minutes: -4,
        severity: 'warn',
        message: 'Back-off restarting failed container checkout in pod checkout-5c8d7f9b6-abcde',
      },
    ],
    change: { minutes: -30, title: 'Rollout started for checkout' },
  },
  {
    kind: 'cpu_throttling',
    day: 4,
    namespace: 'search',
    workload: 'search-indexer',
    pod: 'search-indexer-6b7c8d9f5-qwert',
    podStatus: 'Running',
    restarts: 0,
    podMeta: {},
    workloadPatch: { cpu_limit: 0.5, cpu_request: 0.5 },
    title: 'CPUThrottlingHigh on search-indexer',
    description:
      '62% throttling of CPU in namespace search for container indexer in pod search-indexer-6b7c8d9f5-qwert.',
    findingType: 'prometheus_alert',
    category: 'Performance',
    logs: [
      { minutes: -15, severity: 'warn', message: 'request latency p99 2300ms above SLO of 500ms' },
      { minutes: -5, severity: 'warn', message: 'worker pool saturated, 120 requests queued' },
      { minutes: -1, severity: 'info', message: 'indexed 5000 documents in 48s' },
    ],
    anomaly: { type: 'CPU', current: 0.5, reference: 0.2 },
  },
  {
    kind: 'failed_scheduling',
    day: 5,
    namespace: 'ml',
    workload: 'ml-trainer',
    pod: 'ml-trainer-0',
    podStatus: 'Pending',
    restarts: 0,
    podMeta: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
    workloadPatch: { memory_request: 48 * 1024 * MI },
    title: 'Pod ml-trainer-0 cannot be scheduled',
    description:
      'FailedScheduling: 0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available.',
    findingType: 'issue',
    category: 'Availability',
    logs: [{ minutes: -3, severity: 'warn', message: 'pod ml-trainer-0 waiting for scheduling, retrying' }],
  },
  {
    kind: 'image_pull',
    day: 6,
    namespace: 'billing',
    workload: 'billing-ui',
    pod: 'billing-ui-84c6d5b7f-zxcvb',
    podStatus: 'ImagePullBackOff',
    restarts: 0,
    podMeta: { waiting: { reason: 'ImagePullBackOff' } },
    title: 'Image pull failing for billing-ui',
    description:
      'Failed to pull image "registry.example.com/billing-ui:v2.4.1": manifest for registry.example.com/billing-ui:v2.4.1 unknown',
    failure: 'ErrImagePull',
    findingType: 'issue',
    category: 'Deployment',
    logs: [
      { minutes: 1, severity: 'warn', message: 'Back-off pulling image "registry.example.com/billing-ui:v2.4.1"' },
    ],
    change: { minutes: -15, title: 'Helm release upgrade started for billing-ui' },
  },
  {
    kind: 'configuration_error',
    day: 8,
    namespace: 'messaging',
    workload: 'notifier',
    pod: 'notifier-6f5d4c3b2-plmok',
    podStatus: 'CreateContainerConfigError',
    restarts: 0,
    podMeta: { waiting: { reason: 'CreateContainerConfigError', message: 'configmap "notifier-config" not found' } },
    title: 'Container of notifier cannot start',
    description: 'Error: configmap "notifier-config" not found (CreateContainerConfigError).',
    findingType: 'issue',
    category: 'Availability',
    logs: [
      {
        minutes: 0,
        severity: 'error',
        message: "Error: couldn't find key SMTP_HOST in Secret messaging/notifier-smtp",
      },
    ],
    updatedMinutesBefore: 40,
  },
];

const BASE = Date.UTC(2026, 2, 1, 10, 0, 0); // 2026-03-01T10:00:00Z
const at = (day: number, minutes = 0) => new Date(BASE + day * 86_400_000 + minutes * 60_000).toISOString();
const ts = (iso: string) => iso.replace('Z', '');

/** Inserts the incidents into one Kubernetes account of the tenant; the ids, for the tests' assertions. */
export async function seedAiIncidents(
  db: Queryable,
  tenant: string,
  account: string,
  cluster = 'ai-test-eks',
): Promise<SeededIncidents> {
  const events = {} as Record<IncidentKind, string>;
  const logs: Record<string, string[]> = {};
  const pods: Record<string, string> = {};

  const insertEvent = async (e: {
    title: string;
    description: string;
    failure?: string | null;
    severity: string;
    source: string;
    status?: string;
    category: string;
    findingType: string;
    subject: string;
    namespace: string | null;
    node?: string | null;
    subjectType: string;
    owner?: string | null;
    resourceId?: string | null;
    at: string;
  }) => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO events (id, tenant, cloud_account_id, cloud_resource_id, title, description, failure, severity, priority, urgency, source, status, category,
                           aggregation_key, fingerprint, finding_id, finding_type, cluster, subject_name, subject_namespace, subject_node, subject_owner, subject_type,
                           labels, starts_at, created_at, updated_at)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4::uuid, $5::text, $6::text, $7::text, $8::text, $8::text, $8::text, $9::text, $10::text, $11::text,
               $12::text, $13::text, $14::text, $15::text, $16::text, $17::text, $18::text, $19::text, $20::text, $21::text,
               $22::jsonb, $23::timestamp, $23::timestamp, $23::timestamp)`,
      [
        id,
        tenant,
        account,
        e.resourceId ?? null,
        e.title,
        e.description,
        e.failure ?? null,
        e.severity,
        e.source,
        e.status ?? 'FIRING',
        e.category,
        `${e.findingType}:${e.subject}`,
        `ai-${e.findingType}-${e.subject}`,
        `ai-${id.slice(0, 8)}`,
        e.findingType,
        cluster,
        e.subject,
        e.namespace,
        e.node ?? null,
        e.owner ?? null,
        e.subjectType,
        JSON.stringify({ cluster, ...(e.namespace ? { namespace: e.namespace } : {}) }),
        ts(e.at),
      ],
    );
    return id;
  };
  const insertLog = async (
    key: string,
    iso: string,
    severity: string,
    message: string,
    labels: Record<string, string>,
  ) => {
    const [row] = await db.query(
      `INSERT INTO logs (tenant_id, cloud_account_id, ts, severity, message, labels) VALUES ($1::uuid, $2::uuid, $3::timestamptz, $4::text, $5::text, $6::jsonb) RETURNING id::text`,
      [tenant, account, iso, severity, message, JSON.stringify({ cluster, ...labels })],
    );
    (logs[key] ??= []).push(String(row.id));
  };

  for (const w of WORKLOAD_INCIDENTS) {
    const when = at(w.day);
    const updated = w.updatedMinutesBefore ? at(w.day, -w.updatedMinutesBefore) : at(w.day - 5);
    const patch = w.workloadPatch ?? {};
    await db.query(
      `INSERT INTO k8s_workloads (tenant_id, cloud_account_id, cloud_resource_id, external_id, name, namespace, kind, workload_type, replicas, status,
                                  ready_pods, total_pods, cpu_request, cpu_limit, memory_request, memory_limit, labels, meta, updated_at, last_seen)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::text, 'Deployment', 'Deployment', 1, $7::text, $8::int, 1,
               $9::float8, $10::float8, $11::bigint, $12::bigint, $13::jsonb, '{}', $14::timestamp, $14::timestamp)`,
      [
        tenant,
        account,
        randomUUID(),
        `${cluster}/${w.namespace}/deployment/${w.workload}`,
        w.workload,
        w.namespace,
        w.podStatus === 'Running' && w.restarts === 0 ? 'Running' : 'Degraded',
        w.podStatus === 'Running' && w.restarts === 0 ? '1' : '0',
        patch.cpu_request == null ? '0.25' : String(patch.cpu_request),
        patch.cpu_limit == null ? null : String(patch.cpu_limit),
        patch.memory_request == null ? String(256 * MI) : String(patch.memory_request),
        patch.memory_limit == null ? null : String(patch.memory_limit),
        JSON.stringify({ app: w.workload }),
        ts(updated),
      ],
    );
    const podId = randomUUID();
    pods[w.kind] = podId;
    await db.query(
      `INSERT INTO k8s_pods (tenant_id, cloud_account_id, cloud_resource_id, external_id, name, namespace, node_name, workload_name, workload_type, status, restart_count, labels, meta)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::text, $7::text, $8::text, 'Deployment', $9::text, $10::jsonb, $11::jsonb, $12::jsonb)`,
      [
        tenant,
        account,
        podId,
        `${cluster}/${w.namespace}/pod/${w.pod}`,
        w.pod,
        w.namespace,
        w.podStatus === 'Pending' ? null : 'ip-10-9-2-31.ec2.internal',
        w.workload,
        w.podStatus,
        JSON.stringify({ [w.workload]: w.restarts }),
        JSON.stringify({ app: w.workload }),
        JSON.stringify(w.podMeta),
      ],
    );
    if (w.change) {
      await insertEvent({
        title: w.change.title,
        description: `${w.change.title} by the deployment pipeline.`,
        severity: 'INFO',
        source: 'kubernetes_api_server',
        status: 'RESOLVED',
        category: 'Deployment',
        findingType: 'rollout',
        subject: w.workload,
        namespace: w.namespace,
        subjectType: 'deployment',
        at: at(w.day, w.change.minutes),
      });
    }
    events[w.kind] = await insertEvent({
      title: w.title,
      description: w.description,
      failure: w.failure,
      severity: 'HIGH',
      source: 'kubernetes_api_server',
      category: w.category,
      findingType: w.findingType,
      subject: w.pod,
      namespace: w.namespace,
      subjectType: 'pod',
      owner: w.workload,
      at: when,
    });
    for (const l of w.logs)
      await insertLog(w.kind, at(w.day, l.minutes), l.severity, l.message, {
        namespace: w.namespace,
        app: w.workload,
        pod: w.pod,
      });
    // Noise: the same namespace's other app, and this app a day earlier; neither may be cited.
    await insertLog('noise', at(w.day, -5), 'error', 'connection reset by peer', {
      namespace: w.namespace,
      app: 'sidecar-proxy',
      pod: 'sidecar-proxy-1a2b3-c4d5e',
    });
    await insertLog('noise', at(w.day - 1), 'error', 'upstream timed out', {
      namespace: w.namespace,
      app: w.workload,
      pod: w.pod,
    });
    if (w.anomaly) {
      await db.query(
        `INSERT INTO anomaly (tenant, account_id, anomaly_type, name, namespace, pod_name, current_value, reference_value, is_anomaly, evaluated_at)
         VALUES ($1::uuid, $2::uuid, $3::text, $4::text, $5::text, $6::text, $7::numeric, $8::jsonb, true, $9::timestamp)`,
        [
          tenant,
          account,
          w.anomaly.type,
          w.workload,
          w.namespace,
          w.pod,
          String(w.anomaly.current),
          JSON.stringify({ mean: w.anomaly.reference }),
          ts(at(w.day, -10)),
        ],
      );
    }
  }

  // Node pressure: a node event, the node's conditions, the kubelet's eviction lines, an evicted pod.
  const node = 'ip-10-9-1-20.ec2.internal';
  const nodeId = randomUUID();
  await db.query(
    `INSERT INTO k8s_nodes (tenant_id, cloud_account_id, cloud_resource_id, name, cpu_capacity, cpu_allocatable, memory_capacity, memory_allocatable, conditions, taints)
     VALUES ($1::uuid, $2::uuid, $3::uuid, $4::text, 4, 3.9, 16384, 15200, 'Ready=True,MemoryPressure=True,DiskPressure=False', 'node.kubernetes.io/memory-pressure:NoSchedule')`,
    [tenant, account, nodeId, node],
  );
  await insertEvent({
    title: 'Pod redis-0 evicted',
    description: 'The node was low on resource: memory. Container redis was using 3Gi.',
    severity: 'MEDIUM',
    source: 'kubernetes_api_server',
    category: 'Availability',
    findingType: 'issue',
    subject: 'redis-0',
    namespace: 'cache',
    node,
    subjectType: 'pod',
    at: at(7, 4),
  });
  events.node_pressure = await insertEvent({
    title: `Node ${node} has MemoryPressure`,
    description: 'Node condition MemoryPressure is True; the kubelet is evicting pods.',
    severity: 'HIGH',
    source: 'kubernetes_api_server',
    category: 'Infrastructure',
    findingType: 'node_issue',
    subject: node,
    namespace: null,
    node,
    subjectType: 'node',
    at: at(7),
  });
  await insertLog('node_pressure', at(7, -3), 'warn', 'eviction manager: attempting to reclaim memory', {
    node,
    component: 'kubelet',
  });
  await insertLog(
    'node_pressure',
    at(7, 4),
    'warn',
    'Evicted pod cache/redis-0: The node was low on resource: memory.',
    { node, component: 'kubelet' },
  );

  // Cost spike: a data-warehouse resource whose daily spend quadrupled, with a recommendation on it.
  const resourceId = randomUUID();
  await db.query(
    `INSERT INTO cloud_resourses (id, tenant, account, cloud_provider, name, type, service_name, region, status, is_active)
     VALUES ($1::uuid, $2::uuid, $3::uuid, 'AWS', 'analytics-warehouse', 'cluster', 'Amazon Redshift', 'us-east-1', 'Active', true)`,
    [resourceId, tenant, account],
  );
  for (let d = 13; d >= 0; d--) {
    const amount = d < 3 ? 160 + d : 40 + (d % 3);
    await db.query(
      `INSERT INTO spends (tenant, cloud_account, cloud_resource_id, date, amount, unit) VALUES ($1::uuid, $2::uuid, $3::uuid, $4::timestamp, $5::float8, 'USD')`,
      [tenant, account, resourceId, ts(at(9 - d, -600)), String(amount)],
    );
  }
  const [rec] = await db.query(
    `INSERT INTO recommendation (tenant_id, cloud_account_id, resource_id, account_object_id, rule_name, category, recommendation_action, severity, status, recommendation, estimated_savings)
     VALUES ($1::uuid, $2::uuid, $3::uuid, 'analytics-warehouse', 'redshift_pause_idle', 'Cost', 'Modify', 'High', 'Open', $4::jsonb, 2950.5) RETURNING id::text`,
    [
      tenant,
      account,
      resourceId,
      JSON.stringify({
        title: 'Pause the Redshift cluster outside business hours',
        description: 'The cluster is idle 14 hours a day.',
        resource: 'analytics-warehouse',
      }),
    ],
  );
  events.cost_spike = await insertEvent({
    title: 'Cost anomaly: analytics-warehouse spend above forecast',
    description: 'Daily spend of analytics-warehouse is 4x its 14-day average.',
    severity: 'MEDIUM',
    source: 'anomaly',
    category: 'Cost',
    findingType: 'cost_anomaly',
    subject: 'analytics-warehouse',
    namespace: null,
    subjectType: 'cluster',
    resourceId,
    at: at(9),
  });

  // Knowledge: a rule article (shared) and a runbook of the tenant's own.
  await db.query(
    `INSERT INTO knowledge_base (rule_name, description, diagnosis, impact, mitigation)
     VALUES ('container_oom_killed', 'A container was OOMKilled: it used more memory than its limit.', 'Look for OOMKilled and exit code 137 in the pod status.',
             'Requests fail while the container restarts.', 'Raise the memory limit or fix the leak; size requests to real use.')
     ON CONFLICT (rule_name) DO NOTHING`,
  );
  const [doc] = await db.query(
    `INSERT INTO ai_knowledgebase (tenant_id, cloud_account_id, name, description, data, data_filename)
     VALUES ($1::uuid, $2::uuid, 'Checkout runbook', 'How to handle checkout incidents',
             'When checkout is in CrashLoopBackOff after a rollout, roll back with helm rollback checkout and page the payments team. Pricing config lives in the pricing-config ConfigMap.',
             'checkout-runbook.md') RETURNING id::text`,
    [tenant, account],
  );

  return {
    tenant,
    account,
    cluster,
    events,
    logs,
    pods,
    nodeId,
    resourceId,
    recommendationId: String(rec.id),
    knowledgeBaseDocId: String(doc.id),
  };
}
