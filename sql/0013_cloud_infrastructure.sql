-- Cloud infrastructure, beyond cloud_accounts and cloud_resourses (0002): account attributes,
-- scores and errors, resource attributes and metrics, the resources seen by the latest sync, and
-- the provider price list.
--
-- Tenancy: cloud_account_attrs has no tenant column in the reference; every row belongs to the
-- tenant of its account, so it has a tenant_id here that the permissions filter on.
-- cloud_resource_metrics.tenant_id stays nullable as in the reference. cloud_resource_details is
-- the providers' public price list, shared by every tenant: it has no tenant and the tenant roles
-- only read it.

CREATE TABLE cloud_account_attrs (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Not in the reference: the tenant of cloud_account_id.
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  name             text NOT NULL,
  value            text,
  created_at       timestamp NOT NULL DEFAULT now(),
  updated_at       timestamp NOT NULL DEFAULT now(),
  CONSTRAINT cloud_account_attrs_account_name_key UNIQUE (cloud_account_id, name)
);

CREATE INDEX cloud_account_attrs_tenant_id_idx ON cloud_account_attrs (tenant_id);

CREATE TABLE cloud_account_onboarding_errors (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id     uuid NOT NULL REFERENCES tenant (id),
  account_name  text NOT NULL,
  config        text NOT NULL,
  error_message text,
  created_at    timestamp NOT NULL DEFAULT now(),
  created_by    uuid NOT NULL
);

CREATE INDEX cloud_account_onboarding_errors_tenant_created_at_idx ON cloud_account_onboarding_errors (tenant_id, created_at DESC);

CREATE TABLE cloud_account_score (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant           uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  score            integer NOT NULL,
  source           text,
  description      text,
  created_at       timestamp NOT NULL DEFAULT now(),
  updated_at       timestamp DEFAULT now()
);

CREATE INDEX cloud_account_score_tenant_account_idx ON cloud_account_score (tenant, cloud_account_id);

CREATE TABLE cloud_api_permission_errors (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  account_number   text NOT NULL,
  cloud_provider   text NOT NULL,
  region           text NOT NULL,
  service_name     text NOT NULL,
  api_operation    text NOT NULL,
  wrapper_method   text NOT NULL,
  error_code       text NOT NULL,
  error_message    text,
  occurrence_count integer NOT NULL DEFAULT 1,
  first_seen_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at     timestamptz NOT NULL DEFAULT now(),
  is_resolved      boolean NOT NULL DEFAULT false,
  resolved_at      timestamptz
);

CREATE INDEX cloud_api_permission_errors_tenant_account_idx ON cloud_api_permission_errors (tenant_id, cloud_account_id, is_resolved);

CREATE TABLE cloud_resource_attributes (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL REFERENCES tenant (id),
  account_id   uuid NOT NULL REFERENCES cloud_accounts (id),
  resource_id  uuid NOT NULL REFERENCES cloud_resourses (id) ON DELETE CASCADE,
  name         text NOT NULL,
  value        text,
  labels       json,
  last_seen_at timestamp,
  created_at   timestamp DEFAULT now()
);

CREATE INDEX cloud_resource_attributes_tenant_account_idx ON cloud_resource_attributes (tenant_id, account_id);
CREATE INDEX cloud_resource_attributes_resource_name_idx ON cloud_resource_attributes (resource_id, name);

CREATE TABLE cloud_resource_details (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  cloud_provider      text NOT NULL,
  service_name        text NOT NULL,
  service_type        text NOT NULL,
  resource_type       text NOT NULL,
  resource_region     text,
  resource_capacity   jsonb NOT NULL DEFAULT '{}',
  resource_cost       double precision NOT NULL,
  price_unit          text NOT NULL,
  pricing_model       text NOT NULL,
  spot_pricing        jsonb,
  deployment_option   text NOT NULL,
  database_engine     text NOT NULL,
  operating_system    text,
  architecture        text,
  storage_type        text,
  network_performance text,
  tenancy             text,
  gpu_count           integer,
  current_generation  boolean,
  attributes          jsonb,
  created_at          timestamptz DEFAULT now(),
  updated_at          timestamptz DEFAULT now()
);

CREATE INDEX cloud_resource_details_lookup_idx ON cloud_resource_details (cloud_provider, resource_type, resource_region);

CREATE TABLE cloud_resource_metrics (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid REFERENCES tenant (id),
  cloud_account_id  uuid REFERENCES cloud_accounts (id),
  cloud_resource_id uuid NOT NULL REFERENCES cloud_resourses (id) ON DELETE CASCADE,
  metric            text NOT NULL,
  metric_type       text NOT NULL,
  tags              jsonb NOT NULL DEFAULT '{}',
  "timestamp"       timestamp NOT NULL,
  value             double precision NOT NULL
);

-- cloud_metric_groupings_v2 filters by tenant, account, metric and time.
CREATE INDEX cloud_resource_metrics_tenant_metric_time_idx ON cloud_resource_metrics (tenant_id, cloud_account_id, metric, "timestamp");
CREATE INDEX cloud_resource_metrics_resource_time_idx ON cloud_resource_metrics (cloud_resource_id, "timestamp");

-- The resources the latest sync of each account saw, by their provider-side identity.
CREATE TABLE active_resources (
  tenant_id            uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id     uuid NOT NULL REFERENCES cloud_accounts (id),
  resource_type        text NOT NULL,
  external_resource_id text NOT NULL,
  resourse_id          text NOT NULL,
  updated_at           timestamp NOT NULL DEFAULT now(),
  CONSTRAINT active_resources_pkey PRIMARY KEY (cloud_account_id, external_resource_id, resource_type, tenant_id)
);

CREATE INDEX active_resources_tenant_account_idx ON active_resources (tenant_id, cloud_account_id);

-- cloud_resources_v2 filters resources by tenant, provider, type and service.
CREATE INDEX cloud_resourses_tenant_type_idx ON cloud_resourses (tenant, type);
CREATE INDEX cloud_resourses_tenant_service_name_idx ON cloud_resourses (tenant, service_name);
