-- Cost management: the tenant's bill, usage costs per service, funding sources and the funding
-- they give to business units, and the resource groupings spends can be broken down by.
-- funding_sources.name is citext in the reference; it is text here (no extensions) with a
-- case-insensitive unique index per tenant. businessunit_funding.business_unit and
-- funding_sources.user_groups have no foreign key: business units and user groups are not part of
-- this schema. created_by / updated_by / owners name users without a foreign key (the metadata
-- joins them to users by hand), as on the other tables.

CREATE TABLE spends_resource_group_type (
  value          text PRIMARY KEY,
  description    text NOT NULL,
  cloud_provider text NOT NULL REFERENCES cloud_provider_type (value)
);

INSERT INTO spends_resource_group_type (value, description, cloud_provider) VALUES
  ('aws_account',          'AWS linked account',           'AWS'),
  ('aws_region',           'AWS region',                   'AWS'),
  ('aws_service',          'AWS service',                  'AWS'),
  ('aws_usage_type',       'AWS usage type',               'AWS'),
  ('azure_resource_group', 'Azure resource group',         'Azure'),
  ('azure_service',        'Azure meter category',         'Azure'),
  ('azure_subscription',   'Azure subscription',           'Azure'),
  ('gcp_project',          'Google Cloud project',         'GCP'),
  ('gcp_service',          'Google Cloud service',         'GCP'),
  ('gcp_sku',              'Google Cloud SKU',             'GCP'),
  ('k8s_namespace',        'Kubernetes namespace',         'K8s'),
  ('k8s_workload',         'Kubernetes workload',          'K8s');

CREATE INDEX spends_resource_group_type_cloud_provider_idx ON spends_resource_group_type (cloud_provider);

CREATE TABLE billing (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id          uuid NOT NULL REFERENCES tenant (id),
  tier               text,
  amount_due         double precision NOT NULL DEFAULT 0,
  total_paid         double precision NOT NULL DEFAULT 0,
  last_billed_amount double precision NOT NULL DEFAULT 0,
  last_billed_date   timestamp,
  created_at         timestamp NOT NULL DEFAULT now(),
  updated_at         timestamp NOT NULL DEFAULT now()
);

CREATE INDEX billing_tenant_id_idx ON billing (tenant_id, created_at DESC);

CREATE TABLE billing_usage_cost (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id     uuid NOT NULL REFERENCES tenant (id),
  account_id    uuid REFERENCES cloud_accounts (id),
  billing_date  timestamp NOT NULL,
  name          text NOT NULL,
  service_name  text NOT NULL,
  units         integer NOT NULL DEFAULT 0,
  cost_per_unit double precision NOT NULL DEFAULT 0,
  total_cost    double precision NOT NULL DEFAULT 0,
  created_at    timestamp NOT NULL DEFAULT now(),
  updated_at    timestamp NOT NULL DEFAULT now()
);

CREATE INDEX billing_usage_cost_tenant_date_idx ON billing_usage_cost (tenant_id, billing_date);
CREATE INDEX billing_usage_cost_account_id_idx ON billing_usage_cost (account_id);

CREATE TABLE funding_sources (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant         uuid NOT NULL REFERENCES tenant (id),
  name           text NOT NULL,
  description    text NOT NULL,
  amount         double precision NOT NULL,
  planned_amount double precision,
  start_date     timestamp NOT NULL,
  end_date       timestamp NOT NULL,
  owners         uuid NOT NULL,
  user_groups    uuid,
  created_at     timestamp NOT NULL DEFAULT now(),
  created_by     uuid NOT NULL,
  updated_at     timestamp DEFAULT now(),
  updated_by     uuid NOT NULL
);

CREATE UNIQUE INDEX funding_sources_tenant_name_key ON funding_sources (tenant, lower(name));
CREATE INDEX funding_sources_tenant_start_date_idx ON funding_sources (tenant, start_date);

CREATE TABLE businessunit_funding (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant         uuid NOT NULL REFERENCES tenant (id),
  business_unit  uuid NOT NULL,
  funding_source uuid NOT NULL REFERENCES funding_sources (id) ON DELETE CASCADE,
  amount         double precision NOT NULL,
  planned_amount double precision NOT NULL DEFAULT 0,
  start_date     timestamp,
  end_date       timestamp,
  created_at     timestamp NOT NULL DEFAULT now(),
  created_by     uuid NOT NULL,
  updated_at     timestamp NOT NULL DEFAULT now(),
  updated_by     uuid NOT NULL
);

CREATE INDEX businessunit_funding_tenant_business_unit_idx ON businessunit_funding (tenant, business_unit);
CREATE INDEX businessunit_funding_funding_source_idx ON businessunit_funding (funding_source);
