-- Anomalies: detection settings per cloud account (anomaly_config) and what the detector found
-- (anomaly). anomaly.anomaly_type is free text in the reference (a String, not the lookup), so it
-- has no foreign key; anomaly_config's type columns reference their lookups.

CREATE TABLE anomaly_change_operator (
  value   text PRIMARY KEY,
  comment text
);

INSERT INTO anomaly_change_operator (value, comment) VALUES
  ('GT',  'Greater than the reference'),
  ('GTE', 'Greater than or equal to the reference'),
  ('LT',  'Less than the reference'),
  ('LTE', 'Less than or equal to the reference');

CREATE TABLE anomaly_config_type (
  value   text PRIMARY KEY,
  comment text
);

INSERT INTO anomaly_config_type (value, comment) VALUES
  ('Metric', 'Compares a metric with its value over a reference period');

CREATE TABLE anomaly_type (
  value   text PRIMARY KEY,
  comment text
);

INSERT INTO anomaly_type (value, comment) VALUES
  ('APIRequest', 'Request rate of an API'),
  ('CPU',        'CPU usage'),
  ('ErrorRate',  'Share of failed requests'),
  ('Latency',    'Response time'),
  ('Memory',     'Memory usage'),
  ('Network',    'Network traffic');

CREATE TABLE anomaly_config (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id  uuid NOT NULL REFERENCES cloud_accounts (id),
  type              text NOT NULL REFERENCES anomaly_config_type (value),
  anomaly_type      text NOT NULL REFERENCES anomaly_type (value),
  change_operator   text NOT NULL REFERENCES anomaly_change_operator (value),
  buffer_percentage numeric NOT NULL,
  reference_period  text NOT NULL,
  reference_unit    text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  created_by        uuid NOT NULL,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  updated_by        uuid NOT NULL
);

CREATE INDEX anomaly_config_tenant_account_idx ON anomaly_config (tenant_id, cloud_account_id);
CREATE INDEX anomaly_config_anomaly_type_idx ON anomaly_config (anomaly_type);

CREATE TABLE anomaly (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant            uuid NOT NULL REFERENCES tenant (id),
  account_id        uuid NOT NULL REFERENCES cloud_accounts (id),
  config_id         uuid REFERENCES anomaly_config (id) ON DELETE SET NULL,
  anomaly_type      text NOT NULL,
  name              text NOT NULL,
  namespace         text,
  pod_name          text,
  current_value     numeric NOT NULL,
  reference_value   jsonb NOT NULL DEFAULT '{}',
  is_anomaly        boolean NOT NULL DEFAULT false,
  evaluated_at      timestamp NOT NULL,
  training_end_time timestamp,
  created_at        timestamp NOT NULL DEFAULT now(),
  updated_at        timestamp NOT NULL DEFAULT now()
);

-- anomaly_v2 / anomaly_v3 / anomaly_grouping_v2 filter by tenant, account, type and time.
CREATE INDEX anomaly_tenant_evaluated_at_idx ON anomaly (tenant, evaluated_at DESC);
CREATE INDEX anomaly_tenant_account_type_idx ON anomaly (tenant, account_id, anomaly_type);
CREATE INDEX anomaly_config_id_idx ON anomaly (config_id);
