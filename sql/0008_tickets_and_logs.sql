-- Tickets raised in external tools, and the built-in log store read by logs_query.
-- tickets.integration_id has no foreign key: integrations are not part of this schema.
-- logs is not exposed as a table in the GraphQL schema.

CREATE TABLE ticket_source_type (
  value   text PRIMARY KEY,
  comment text
);

INSERT INTO ticket_source_type (value, comment) VALUES
  ('auto_heal',      'Raised by an auto-heal action'),
  ('auto_optimise',  'Raised by an auto-optimise action'),
  ('auto_runbook',   'Raised by an automatic runbook'),
  ('aws',            'Raised from an AWS finding'),
  ('azure',          'Raised from an Azure finding'),
  ('event',          'Raised from an event'),
  ('gcp',            'Raised from a GCP finding'),
  ('kubernetes',     'Raised from a Kubernetes finding'),
  ('nudgebee',       'Raised through the platform API'),
  ('playbook',       'Raised by a playbook'),
  ('recommendation', 'Raised from a recommendation'),
  ('runbook',        'Raised by a runbook'),
  ('snowflake',      'Raised from a Snowflake finding'),
  ('ui',             'Raised by a user in the interface');

CREATE TABLE ticket_tool_types (
  value   text PRIMARY KEY,
  comment text
);

INSERT INTO ticket_tool_types (value, comment) VALUES
  ('github',     'GitHub Issues'),
  ('gitlab',     'GitLab Issues'),
  ('jira',       'Jira'),
  ('pagerduty',  'PagerDuty'),
  ('servicenow', 'ServiceNow'),
  ('zenduty',    'Zenduty');

CREATE TABLE tickets (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant         uuid NOT NULL REFERENCES tenant (id),
  account_id     uuid REFERENCES cloud_accounts (id),
  integration_id uuid NOT NULL,
  platform       text NOT NULL REFERENCES ticket_tool_types (value),
  source         text REFERENCES ticket_source_type (value),
  ticket_id      text NOT NULL,
  ticket_type    text NOT NULL,
  reference_id   text NOT NULL,
  project_key    text NOT NULL,
  title          text NOT NULL,
  description    text,
  severity       text,
  status         text,
  assignee       text,
  reporter       text,
  tags           text,
  url            text,
  error_message  text,
  is_new         boolean DEFAULT true,
  created_at     timestamp NOT NULL DEFAULT now(),
  created_by     uuid,
  updated_at     timestamp NOT NULL DEFAULT now()
);

CREATE INDEX tickets_tenant_created_at_idx ON tickets (tenant, created_at DESC);
CREATE INDEX tickets_account_id_idx ON tickets (account_id);
CREATE INDEX tickets_integration_id_idx ON tickets (integration_id);
CREATE INDEX tickets_platform_idx ON tickets (platform);
CREATE INDEX tickets_source_idx ON tickets (source);

CREATE TABLE logs (
  id               bigserial PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid REFERENCES cloud_accounts (id),
  ts               timestamptz NOT NULL,
  severity         text NOT NULL,
  message          text NOT NULL,
  labels           jsonb NOT NULL DEFAULT '{}'
);

CREATE INDEX logs_tenant_ts_idx ON logs (tenant_id, ts DESC);
CREATE INDEX logs_cloud_account_ts_idx ON logs (cloud_account_id, ts DESC);
CREATE INDEX logs_labels_idx ON logs USING gin (labels jsonb_path_ops);
