-- Kubernetes workloads of the clusters in cloud accounts.
-- The primary key is (cloud_account_id, cloud_resource_id, tenant_id), the by_pk arguments of the
-- API; cloud_resource_id is the workload's own resource id. id is a stable surrogate key.
-- cpu_* are cores, memory_* are bytes.

CREATE TABLE k8s_workloads (
  id                uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id  uuid NOT NULL REFERENCES cloud_accounts (id),
  cloud_resource_id uuid NOT NULL,
  external_id       text NOT NULL,
  name              text NOT NULL,
  namespace         text NOT NULL,
  kind              text NOT NULL,
  workload_type     text,
  replicas          integer,
  status            text,
  ready_pods        integer NOT NULL DEFAULT 0,
  total_pods        integer NOT NULL DEFAULT 0,
  cpu_request       double precision,
  cpu_limit         double precision,
  memory_request    bigint,
  memory_limit      bigint,
  labels            jsonb NOT NULL DEFAULT '{}',
  meta              jsonb NOT NULL DEFAULT '{}',
  is_active         boolean NOT NULL DEFAULT true,
  creation_time     timestamp,
  last_seen         timestamp NOT NULL DEFAULT now(),
  updated_at        timestamp,
  CONSTRAINT k8s_workloads_pkey PRIMARY KEY (cloud_account_id, cloud_resource_id, tenant_id),
  CONSTRAINT k8s_workloads_id_key UNIQUE (id)
);

CREATE INDEX k8s_workloads_tenant_account_name_idx ON k8s_workloads (tenant_id, cloud_account_id, name);
