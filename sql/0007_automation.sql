-- Automation: auto-pilot policies and the approval policies that gate them.

CREATE TABLE auto_pilot_status (
  value       text PRIMARY KEY,
  description text NOT NULL
);

INSERT INTO auto_pilot_status (value, description) VALUES
  ('Active',   'Runs on its trigger and applies its actions'),
  ('DRAFT',    'Being written, never runs'),
  ('Disabled', 'Turned off'),
  ('Dryrun',   'Runs on its trigger and reports what it would do, without acting');

CREATE TABLE auto_pilot_approval_policy (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenant (id),
  account_id        uuid NOT NULL REFERENCES cloud_accounts (id),
  approval_type     text,
  status            text,
  policy_attributes jsonb NOT NULL DEFAULT '{}',
  created_at        timestamp NOT NULL DEFAULT now(),
  created_by        uuid NOT NULL,
  updated_at        timestamp DEFAULT now(),
  updated_by        uuid
);

CREATE INDEX auto_pilot_approval_policy_tenant_id_idx ON auto_pilot_approval_policy (tenant_id);
CREATE INDEX auto_pilot_approval_policy_account_id_idx ON auto_pilot_approval_policy (account_id);

CREATE TABLE auto_pilot (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id          uuid NOT NULL REFERENCES tenant (id),
  account_id         uuid NOT NULL REFERENCES cloud_accounts (id),
  approval_policy_id uuid REFERENCES auto_pilot_approval_policy (id),
  name               text NOT NULL,
  description        text,
  category           text NOT NULL,
  status             text NOT NULL REFERENCES auto_pilot_status (value),
  trigger_type       text,
  source             text,
  rule               jsonb NOT NULL DEFAULT '{}',
  attributes         jsonb NOT NULL DEFAULT '{}',
  notification       jsonb,
  schedule_time      text,
  execution_status   text,
  start_at           timestamp NOT NULL DEFAULT now(),
  end_at             timestamp,
  last_executed_time timestamp,
  last_schedule_time timestamp,
  next_schedule_time timestamp,
  created_at         timestamp NOT NULL DEFAULT now(),
  created_by         uuid NOT NULL,
  creation_date      timestamp NOT NULL DEFAULT now(),
  update_by          uuid,
  update_date        timestamp NOT NULL DEFAULT now()
);

CREATE INDEX auto_pilot_tenant_created_at_idx ON auto_pilot (tenant_id, created_at DESC);
CREATE INDEX auto_pilot_account_id_idx ON auto_pilot (account_id);
CREATE INDEX auto_pilot_approval_policy_id_idx ON auto_pilot (approval_policy_id);
CREATE INDEX auto_pilot_status_idx ON auto_pilot (status);
