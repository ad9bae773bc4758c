-- Demo usage samples (k8s_metrics, sql/0022) of the demo tenants' pods (Acme, Globex), loaded after
-- the demo set (demo/seed.ts): one sample per pod and hour from 2026-02-21 through 2026-02-28,
-- from the hour the pod was created. Requests are the pod's workload's; use follows a daily cycle
-- (peak at 14:00) around a level of its own per pod, so that efficiencies differ between workloads.
-- Pending pods run nowhere and have no samples; a Succeeded pod (a CronJob's) runs at 02:00 only.
-- Every value is computed from the pod's fixed ids and the hour, so a second load writes the same
-- rows (and adds none: the key refuses them).

INSERT INTO k8s_metrics (tenant_id, cloud_account_id, "timestamp", node_name, namespace, pod_name, workload_name, workload_type,
                         cpu_request, cpu_used, memory_request, memory_used, ingress, egress, cost)
SELECT p.tenant_id, p.cloud_account_id, h.ts, p.node_name, p.namespace, p.name, p.workload_name, p.workload_type,
       p.cpu_request,
       round((p.cpu_request * p.cpu_level * h.cycle * (1 + 0.05 * sin(p.k * 7 + h.n * 1.3)))::numeric, 6)::float8,
       p.memory_request,
       round((p.memory_request * p.mem_level * (1 + 0.08 * sin(p.k * 3 + h.n * 0.7)))::numeric, 0)::float8,
       round(((20 + 15 * (p.k % 5)) * 1048576 * h.cycle)::numeric, 0)::float8,
       round(((20 + 15 * (p.k % 5)) * 1048576 * h.cycle * 0.6)::numeric, 0)::float8,
       -- What the requested capacity costs an hour: 0.0316 a core, 0.0042 a GiB.
       round((p.cpu_request * 0.0316 + p.memory_request / 1073741824.0 * 0.0042)::numeric, 6)::float8
FROM (
  SELECT pod.*, w.cpu_request, w.memory_request::float8 AS memory_request,
         -- The pod's own level of use: 15% to 85% of its cpu request, 30% to 90% of its memory.
         0.15 + 0.07 * (k % 11) AS cpu_level,
         0.30 + 0.06 * ((k * 3) % 11) AS mem_level
  FROM (
    SELECT p.*, row_number() OVER (PARTITION BY p.tenant_id ORDER BY p.cloud_resource_id) AS k
    FROM k8s_pods p
    WHERE p.tenant_id IN ('11111111-0000-4000-8000-000000000001', '22222222-0000-4000-8000-000000000001')
  ) pod
  JOIN k8s_workloads w ON w.tenant_id = pod.tenant_id AND w.cloud_account_id = pod.cloud_account_id
                      AND w.namespace = pod.namespace AND w.name = pod.workload_name
  WHERE pod.status <> 'Pending'
) p
CROSS JOIN LATERAL (
  SELECT g.ts,
         extract(epoch FROM g.ts - timestamp '2026-02-21 00:00:00') / 3600 AS n,
         1 + 0.35 * sin(2 * pi() * (extract(hour FROM g.ts) - 8) / 24) AS cycle
  FROM generate_series(timestamp '2026-02-21 00:00:00', timestamp '2026-02-28 23:00:00', interval '1 hour') AS g (ts)
) h
WHERE h.ts >= date_trunc('hour', coalesce(p.creation_time, timestamp '2026-02-21 00:00:00'))
  AND (p.status <> 'Succeeded' OR extract(hour FROM h.ts) = 2)
ON CONFLICT DO NOTHING;
