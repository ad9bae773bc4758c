-- Cloud infrastructure: onboarded cloud accounts and the resources found in them.
-- The table name cloud_resourses and the lookup column decription are spelled as in the
-- platform's API and are kept so.

CREATE TABLE cloud_provider_type (
  value   text PRIMARY KEY,
  comment text NOT NULL
);

INSERT INTO cloud_provider_type (value, comment) VALUES
  ('AWS',       'Amazon Web Services'),
  ('Azure',     'Microsoft Azure'),
  ('GCP',       'Google Cloud Platform'),
  ('Github',    'GitHub'),
  ('Jira',      'Jira'),
  ('K8s',       'Kubernetes'),
  ('NewRelic',  'New Relic'),
  ('OpenAi',    'OpenAI'),
  ('Other',     'Other provider'),
  ('Postgres',  'PostgreSQL'),
  ('Slack',     'Slack'),
  ('Snowflake', 'Snowflake');

CREATE TABLE cloud_account_status_type (
  value      text PRIMARY KEY,
  decription text NOT NULL
);

INSERT INTO cloud_account_status_type (value, decription) VALUES
  ('active',   'The account is connected and synchronised'),
  ('disabled', 'Synchronisation was turned off by a user'),
  ('inactive', 'The account cannot be reached with its credentials');

CREATE TABLE cloud_account_sync_status_type (
  value text PRIMARY KEY
);

INSERT INTO cloud_account_sync_status_type (value) VALUES
  ('Completed'), ('Error'), ('Queued'), ('Running');

CREATE TABLE account_env_type (
  value   text PRIMARY KEY,
  comment text
);

INSERT INTO account_env_type (value, comment) VALUES
  ('non_prod', 'Non-production environment'),
  ('prod',     'Production environment');

CREATE TABLE cloud_resource_status_type (
  value text PRIMARY KEY
);

INSERT INTO cloud_resource_status_type (value) VALUES
  ('Active'), ('Deleted'), ('Inactive'), ('Unknown');

CREATE TABLE cloud_accounts (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant              uuid REFERENCES tenant (id),
  account_name        text NOT NULL,
  account_number      text,
  account_type        text NOT NULL,
  account_env         text NOT NULL REFERENCES account_env_type (value),
  account_purpose     text,
  account_access      text,
  account_url         text,
  cloud_provider      text REFERENCES cloud_provider_type (value),
  status              text NOT NULL REFERENCES cloud_account_status_type (value),
  sync_status         text REFERENCES cloud_account_sync_status_type (value),
  sync_status_message text,
  synced_at           timestamp,
  agent_synced_at     timestamp,
  budget              double precision,
  billing_source      text,
  region              text,
  start_date          timestamp,
  parent_account_id   uuid,
  external_id         text,
  assume_role         text,
  access_key          text,
  access_secret       text,
  access_secret_v2    text,
  agent_access_key    text,
  agent_access_secret text,
  data                jsonb,
  etl_attempt         integer NOT NULL DEFAULT 0,
  created_at          timestamp NOT NULL DEFAULT now(),
  created_by          uuid NOT NULL,
  updated_at          timestamp NOT NULL DEFAULT now(),
  updated_by          uuid NOT NULL
);

CREATE INDEX cloud_accounts_tenant_account_name_idx ON cloud_accounts (tenant, account_name);
CREATE INDEX cloud_accounts_cloud_provider_idx ON cloud_accounts (cloud_provider);
CREATE INDEX cloud_accounts_status_idx ON cloud_accounts (status);
CREATE INDEX cloud_accounts_sync_status_idx ON cloud_accounts (sync_status);

CREATE TABLE cloud_resourses (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant               uuid NOT NULL REFERENCES tenant (id),
  account              uuid NOT NULL REFERENCES cloud_accounts (id),
  cloud_provider       text NOT NULL REFERENCES cloud_provider_type (value),
  name                 text,
  type                 text,
  service_name         text,
  region               text NOT NULL,
  arn                  text,
  external_resource_id text,
  resourse_id          text,
  status               text REFERENCES cloud_resource_status_type (value),
  is_active            boolean,
  first_seen           timestamp,
  last_seen            timestamp,
  resourse_created_on  timestamp,
  meta                 jsonb,
  tags                 jsonb,
  created_at           timestamp NOT NULL DEFAULT now(),
  created_by           uuid,
  updated_at           timestamp NOT NULL DEFAULT now(),
  updated_by           uuid
);

CREATE INDEX cloud_resourses_tenant_account_idx ON cloud_resourses (tenant, account);
CREATE INDEX cloud_resourses_account_idx ON cloud_resourses (account);
CREATE INDEX cloud_resourses_cloud_provider_idx ON cloud_resourses (cloud_provider);
CREATE INDEX cloud_resourses_status_idx ON cloud_resourses (status);
