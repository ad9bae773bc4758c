-- Kubernetes, beyond k8s_workloads (0005): nodes, pods and namespaces of the clusters in cloud
-- accounts, and the average resource usage of each account's clusters.
--
-- Keys follow the API's by_pk arguments: nodes and pods are keyed like workloads by
-- (cloud_account_id, cloud_resource_id, tenant_id), cloud_resource_id being the object's own
-- resource id. k8s_namespaces is keyed by (cloud_account_id, name, tenant_id), all text as the API
-- types them (String!), so it has no foreign keys; its permissions compare the text tenant_id
-- with the session's tenant. k8s_account_resource_usage has no primary key (the API has no
-- k8s_account_resource_usage_by_pk): one row per account, replaced by each sync.
-- Node cpu values are cores; node memory values are MiB (Int in the API).

CREATE TABLE k8s_nodes (
  tenant_id          uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id   uuid NOT NULL REFERENCES cloud_accounts (id),
  cloud_resource_id  uuid NOT NULL,
  name               text NOT NULL,
  node_type          text,
  node_flavor        text,
  node_region        text,
  node_zone          text,
  internal_ip        text,
  external_ip        text,
  cpu_capacity       double precision NOT NULL,
  cpu_allocatable    double precision NOT NULL,
  cpu_limits         double precision,
  memory_capacity    integer NOT NULL,
  memory_allocatable integer NOT NULL,
  memory_limits      integer,
  cost               double precision,
  conditions         text,
  taints             text,
  labels             jsonb,
  meta               jsonb,
  is_active          boolean NOT NULL DEFAULT true,
  node_creation_time timestamp,
  updated_at         timestamp DEFAULT now(),
  CONSTRAINT k8s_nodes_pkey PRIMARY KEY (cloud_account_id, cloud_resource_id, tenant_id)
);

CREATE INDEX k8s_nodes_tenant_account_name_idx ON k8s_nodes (tenant_id, cloud_account_id, name);

CREATE TABLE k8s_pods (
  tenant_id         uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id  uuid NOT NULL REFERENCES cloud_accounts (id),
  cloud_resource_id uuid NOT NULL,
  external_id       text NOT NULL,
  name              text NOT NULL,
  namespace         text NOT NULL,
  node_name         text,
  workload_name     text,
  workload_type     text,
  status            text NOT NULL,
  restart_count     jsonb,
  labels            jsonb,
  meta              jsonb,
  is_active         boolean NOT NULL DEFAULT true,
  creation_time     timestamp,
  last_seen         timestamp NOT NULL DEFAULT now(),
  updated_at        timestamp DEFAULT now(),
  CONSTRAINT k8s_pods_pkey PRIMARY KEY (cloud_account_id, cloud_resource_id, tenant_id)
);

-- k8s_pods_v2 / k8s_pod_groupings_v2 filter by account, namespace, workload and status.
CREATE INDEX k8s_pods_tenant_account_namespace_idx ON k8s_pods (tenant_id, cloud_account_id, namespace);
CREATE INDEX k8s_pods_tenant_account_workload_idx ON k8s_pods (tenant_id, cloud_account_id, workload_name);
CREATE INDEX k8s_pods_status_idx ON k8s_pods (status);

CREATE TABLE k8s_namespaces (
  tenant_id        text NOT NULL,
  cloud_account_id text NOT NULL,
  name             text NOT NULL,
  pod_count        integer,
  workload_count   integer,
  is_active        boolean NOT NULL DEFAULT true,
  creation_time    timestamp,
  updated_at       timestamp DEFAULT now(),
  CONSTRAINT k8s_namespaces_pkey PRIMARY KEY (cloud_account_id, name, tenant_id)
);

CREATE INDEX k8s_namespaces_tenant_account_idx ON k8s_namespaces (tenant_id, cloud_account_id);

CREATE TABLE k8s_account_resource_usage (
  tenant_id        uuid REFERENCES tenant (id),
  cloud_account_id uuid REFERENCES cloud_accounts (id),
  avg_cpu_request  double precision,
  avg_cpu_usage    double precision,
  avg_mem_request  double precision,
  avg_mem_usage    double precision,
  avg_ingress      double precision,
  avg_egress       double precision
);

CREATE INDEX k8s_account_resource_usage_tenant_account_idx ON k8s_account_resource_usage (tenant_id, cloud_account_id);

-- k8s_workloads_v2 / k8s_workload_groupings_v2 filter by namespace and kind.
CREATE INDEX k8s_workloads_tenant_account_namespace_idx ON k8s_workloads (tenant_id, cloud_account_id, namespace);
