-- Kubernetes usage samples: one row per pod and sample time (the collector's interval, an hour in
-- the demo data), read by k8s_metrics_groupings_v2 (actions/kubernetes.ts), which computes the
-- efficiencies and totals from these columns.
--
-- Units: cpu_* are cores (the sample's average use; the request in force then), memory_* are bytes,
-- ingress / egress are bytes received / sent during the sample's interval, cost is the pod's cost
-- over that interval, in the account's currency. A request may be null (nothing requested): its
-- efficiency is then unknown (null), not infinite.
-- The FQDNs are generated the way the other Kubernetes operations spell them (a pod's
-- namespace/name, a workload's namespace/kind/name), so that a sample's FQDN equals the one of
-- k8s_pods_v2 / k8s_workloads_v2 for the same object and the two can be filtered alike.
-- The table is not in the GraphQL catalogue (the spec lists no such table): it is read through
-- k8s_metrics_groupings_v2 only.

CREATE TABLE k8s_metrics (
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  "timestamp"      timestamp NOT NULL,
  node_name        text,
  namespace        text NOT NULL,
  pod_name         text NOT NULL,
  pod_fqdn         text GENERATED ALWAYS AS (namespace || '/' || pod_name) STORED,
  workload_name    text,
  workload_type    text,
  workload_fqdn    text GENERATED ALWAYS AS (namespace || '/' || workload_type || '/' || workload_name) STORED,
  cpu_request      double precision,
  cpu_used         double precision,
  memory_request   double precision,
  memory_used      double precision,
  ingress          double precision,
  egress           double precision,
  cost             double precision,
  -- One sample per pod and time; a collector that sends a sample again replaces nothing (the key
  -- refuses it), so sums are never doubled.
  CONSTRAINT k8s_metrics_pkey PRIMARY KEY (tenant_id, cloud_account_id, namespace, pod_name, "timestamp")
);

-- Every statement of k8s_metrics_groupings_v2 is a tenant's, and nearly always a time range of it.
CREATE INDEX k8s_metrics_tenant_timestamp_idx ON k8s_metrics (tenant_id, "timestamp");
-- Per account and time range (the usual page: one cluster, the last days).
CREATE INDEX k8s_metrics_tenant_account_timestamp_idx ON k8s_metrics (tenant_id, cloud_account_id, "timestamp");
-- One workload's history.
CREATE INDEX k8s_metrics_tenant_workload_idx ON k8s_metrics (tenant_id, cloud_account_id, namespace, workload_name, "timestamp");
