import type { Evidence, EvidenceItem } from '../types';

/**
 * What the built-in analyst knows: common causes of incidents, each recognised by the signatures it
 * leaves in events, logs, pod and node state (`strong`: text that names the cause; `weak`: text that
 * fits it without naming it), plus checks of structured facts (restart counts, anomalies, spend).
 * Patterns are the messages Kubernetes, the kernel and cloud billing actually write, so that real
 * evidence matches without a model.
 */

/** A piece of support for a cause: how much it weighs and where it was found. */
export interface Signal {
  weight: number;
  item: EvidenceItem;
  excerpt: string;
}

export interface Rule {
  cause: string;
  title: string;
  strong: RegExp[];
  weak: RegExp[];
  /** A symptom (a crash loop) that a more specific cause, when found, explains. */
  symptom?: boolean;
  /** Signals from structured facts rather than text. */
  facts?(ev: Evidence): Signal[];
  explanation: string;
  actions(ev: Evidence): string[];
}

const target = (ev: Evidence) =>
  ev.workload && ev.event.subject_namespace ? `${ev.event.subject_namespace}/${ev.workload}` : ev.event.subject_name;

const workloadFacts = (ev: Evidence) => ev.items.find((i) => i.role === 'workload')?.facts ?? {};

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(bytes >= 2 ** 30 ? 1 : 2)} GiB`;

const anomalySignals = (ev: Evidence, type: string, weight: number): Signal[] =>
  ev.items
    .filter((i) => i.role === 'anomaly' && String(i.facts?.anomaly_type).toLowerCase() === type)
    .slice(0, 2)
    .map((item) => ({ weight, item, excerpt: item.text }));

export const RULES: Rule[] = [
  {
    cause: 'out_of_memory',
    title: 'Out of memory (OOMKilled)',
    strong: [/OOMKilled/i, /out of memory/i, /oom[- _]?kill/i, /exit code:? ?137\b/i, /memory cgroup out of memory/i],
    weak: [
      /memory (usage|limit)[^.\n]*(high|exceed|above|reached)/i,
      /java\.lang\.OutOfMemoryError/i,
      /cannot allocate memory/i,
    ],
    facts: (ev) => anomalySignals(ev, 'memory', 0.25),
    explanation: 'The container used more memory than its limit and the kernel killed it (OOMKilled, exit code 137).',
    actions: (ev) => {
      const limit = Number(workloadFacts(ev).memory_limit) || 0;
      return [
        limit
          ? `Raise the memory limit of ${target(ev)} from ${gib(limit)} to about ${gib(limit * 1.5)}, or reduce its memory use`
          : `Set a memory request and limit on ${target(ev)} that cover its peak use`,
        'Compare memory use with the limit over the days before the event: a steady climb points at a leak, a sudden jump at a load or data change',
        `Check the last termination state of the pods (kubectl -n ${ev.event.subject_namespace ?? '<namespace>'} describe pod) for OOMKilled`,
      ];
    },
  },
  {
    cause: 'crash_loop',
    title: 'Crash loop (CrashLoopBackOff)',
    strong: [/CrashLoopBackOff/i, /back-?off restarting failed container/i],
    weak: [
      /\bpanic:/i,
      /\bfatal\b/i,
      /unhandled exception/i,
      /exited with (code|status) [1-9]/i,
      /segmentation fault/i,
      /liveness probe failed/i,
    ],
    symptom: true,
    facts: (ev) =>
      ev.items
        .filter((i) => i.role === 'pod' && Number(i.facts?.restarts) > 0)
        .slice(0, 2)
        .map((item) => ({ weight: Number(item.facts!.restarts) >= 5 ? 0.35 : 0.1, item, excerpt: item.text })),
    explanation:
      'The container keeps exiting soon after it starts, and Kubernetes restarts it with growing back-off delays.',
    actions: (ev) => [
      `Read the logs of the previous container run (kubectl -n ${ev.event.subject_namespace ?? '<namespace>'} logs <pod> --previous) for the error it exits with`,
      'If the crashes began after a rollout, roll back to the previous revision while the error is fixed',
      'Check that the liveness probe gives the application enough time to start (initialDelaySeconds, failureThreshold)',
    ],
  },
  {
    cause: 'cpu_throttling',
    title: 'CPU throttling',
    strong: [/CPUThrottlingHigh/i, /cpu throttl/i, /throttled/i],
    weak: [/high cpu/i, /cpu (usage|utili[sz]ation)[^.\n]*(high|above|\d{2,3}\s?%)/i, /nr_throttled/i],
    facts: (ev) => anomalySignals(ev, 'cpu', 0.25),
    explanation:
      'The workload needs more CPU than its limit allows, so the kernel throttles it and requests slow down.',
    actions: (ev) => {
      const limit = Number(workloadFacts(ev).cpu_limit) || 0;
      return [
        limit
          ? `Raise or remove the CPU limit of ${target(ev)} (now ${limit} cores), keeping the request at its usual use`
          : `Review the CPU request and limit of ${target(ev)}`,
        'Scale out (more replicas or a HorizontalPodAutoscaler on CPU) if the load is real',
        'Look for a hot loop or a traffic change at the time throttling started',
      ];
    },
  },
  {
    cause: 'failed_scheduling',
    title: 'Pods cannot be scheduled',
    strong: [
      /FailedScheduling/i,
      /Insufficient (cpu|memory|nvidia)/i,
      /Unschedulable/i,
      /\d+\/\d+ nodes are available/i,
      /didn'?t match (Pod's )?node (affinity|selector)/i,
    ],
    weak: [/\bPending\b/, /had (untolerated )?taint/i, /pod has unbound immediate PersistentVolumeClaims/i],
    facts: (ev) =>
      ev.items
        .filter((i) => i.role === 'pod' && String(i.facts?.status) === 'Pending')
        .slice(0, 2)
        .map((item) => ({ weight: 0.3, item, excerpt: item.text })),
    explanation:
      'No node has enough free CPU or memory (or a matching selector/toleration) for the pods, so they stay Pending.',
    actions: (ev) => [
      `Lower the CPU/memory requests of ${target(ev)} if they exceed what it uses`,
      'Add capacity: scale the node group or let the cluster autoscaler add nodes',
      'Check node selectors, affinity and taints/tolerations against the available nodes',
    ],
  },
  {
    cause: 'image_pull',
    title: 'Image cannot be pulled',
    strong: [
      /ErrImagePull/i,
      /ImagePullBackOff/i,
      /manifest (for \S+ )?unknown/i,
      /pull access denied/i,
      /failed to pull image/i,
    ],
    weak: [
      /repository does not exist/i,
      /unauthorized: authentication required/i,
      /not found: manifest/i,
      /x509: certificate/i,
    ],
    explanation:
      'The node cannot pull the container image: the tag does not exist, the registry refuses the credentials, or it cannot be reached.',
    actions: (ev) => [
      `Check that the image and tag in ${target(ev)} exist in the registry`,
      'Check the imagePullSecrets of the pod and that the registry credentials are still valid',
      'Check that the nodes can reach the registry (network policy, proxy, private endpoint)',
    ],
  },
  {
    cause: 'node_pressure',
    title: 'Node under pressure or not ready',
    strong: [
      /(Memory|Disk|PID)Pressure(?!\s*=\s*False)/,
      /NodeNotReady/i,
      /\bNotReady\b/,
      /Ready=False/i,
      /The node was low on resource/i,
      /\bEvicted\b/,
    ],
    weak: [/kubelet stopped posting node status/i, /eviction/i, /no space left on device/i, /node .*unreachable/i],
    explanation:
      'The node ran short of memory, disk or process ids (or stopped reporting), so the kubelet evicts pods or the node leaves service.',
    actions: (ev) => [
      `Cordon and drain node ${ev.event.subject_node ?? ev.event.subject_name} if it stays under pressure, and replace it`,
      'Free disk space (images, logs, emptyDir volumes) or give the node group larger disks',
      'Set requests on pods that run without them so the scheduler does not overcommit the node',
    ],
  },
  {
    cause: 'configuration_error',
    title: 'Configuration error',
    strong: [
      /CreateContainerConfigError/i,
      /configmaps? "?[\w.-]+"? not found/i,
      /secrets? "?[\w.-]+"? not found/i,
      /couldn'?t find key/i,
      /invalid value for (env|environment)/i,
      /missing required (env|environment|setting|config)/i,
    ],
    weak: [
      /environment variable \S+ (is )?not set/i,
      /invalid configuration/i,
      /config(uration)? (error|invalid)/i,
      /CreateContainerError/i,
    ],
    facts: (ev) =>
      ev.items
        .filter((i) => i.role === 'change')
        .slice(0, 1)
        .map((item) => ({ weight: 0.05, item, excerpt: item.text })),
    explanation:
      'The container cannot start with its configuration: a ConfigMap, Secret or key it refers to is missing, or a setting is invalid.',
    actions: (ev) => [
      `Create the missing ConfigMap/Secret (or key) in namespace ${ev.event.subject_namespace ?? '<namespace>'}, or fix the reference in ${target(ev)}`,
      'Compare the environment and mounted configuration with the last working revision; roll back the change if it broke them',
      'Validate configuration in CI (kubectl apply --dry-run=server) before it reaches the cluster',
    ],
  },
  {
    cause: 'cost_spike',
    title: 'Cost spike',
    strong: [
      /cost anomaly/i,
      /spend above (forecast|budget)/i,
      /cost spike/i,
      /budget .*(exceeded|threshold)/i,
      /unexpected (spend|cost)/i,
    ],
    // Words about money going up, not the bare words: "billing" or "cost" alone are namespace,
    // workload and tag names too (billing-ui, cost-center) and would pin a cost cause on any incident there.
    weak: [
      /(?<![\w"/-])(spend|costs?|bill(ing)?|charges?)(?![\w"/-])[^.\n]{0,40}\b(increas\w*|rose|ris(e|ing)|jump\w*|spik\w*|grew|doubl\w*|tripl\w*|higher|above)\b/i,
      /\b(higher|increased|rising|unusual|unexpected) (spend|costs?|bill(ing)?|charges?)(?![\w"/-])/i,
    ],
    facts: (ev) => {
      const out: Signal[] = [];
      for (const item of ev.items.filter((i) => i.role === 'spend')) {
        const series = (item.facts?.series ?? []) as { day: string; amount: number }[];
        if (series.length < 4) continue;
        const recent = series.slice(-3);
        const base = series.slice(0, -3);
        const avg = (xs: { amount: number }[]) => xs.reduce((a, b) => a + b.amount, 0) / xs.length;
        const ratio = avg(base) > 0 ? avg(recent) / avg(base) : 0;
        if (ratio >= 1.5)
          out.push({
            weight: ratio >= 3 ? 0.6 : 0.4,
            item,
            excerpt: `last 3 days average ${avg(recent).toFixed(2)} vs ${avg(base).toFixed(2)} before (x${ratio.toFixed(1)})`,
          });
      }
      for (const item of ev.items
        .filter((i) => i.role === 'recommendation' && Number(i.facts?.savings) > 0)
        .slice(0, 2)) {
        out.push({
          weight: 0.05,
          item,
          excerpt: `${item.ref.title}: saves ${Number(item.facts!.savings).toFixed(2)} a month`,
        });
      }
      return out;
    },
    explanation: 'Spend on the resource rose well above its recent baseline.',
    actions: (ev) => {
      const recs = ev.items.filter((i) => i.role === 'recommendation' && Number(i.facts?.savings) > 0);
      return [
        `Review what changed on ${ev.event.subject_name} when the spend rose (usage, size, data transfer, new resources)`,
        ...recs
          .slice(0, 3)
          .map(
            (r) => `Apply recommendation "${r.ref.title}" (about ${Number(r.facts!.savings).toFixed(2)} a month saved)`,
          ),
        'Set a budget alert on the account so the next rise is caught early',
      ];
    },
  },
];
