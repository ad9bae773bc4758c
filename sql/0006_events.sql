-- Events and incidents.

CREATE TABLE event_severity (
  value text PRIMARY KEY
);

INSERT INTO event_severity (value) VALUES
  ('DEBUG'), ('HIGH'), ('INFO'), ('LOW'), ('MEDIUM');

CREATE TABLE event_source (
  value text PRIMARY KEY
);

INSERT INTO event_source (value) VALUES
  ('AWS_CloudTrail'), ('AWS_CloudWatch_Alarm'), ('AWS_EventBridge'), ('Azure_MetricAlert'),
  ('Azure_Monitor_Alert'), ('anomaly'), ('azure_monitor_webhook'), ('callback'), ('chronosphere'),
  ('datadog_webhook'), ('helm_release'), ('kubernetes_api_server'), ('manual'), ('nudgebee'),
  ('pagerduty_webhook'), ('prometheus'), ('scheduler'), ('servicenow_webhook'), ('slo'),
  ('workflow'), ('zenduty_webhook');

CREATE TABLE event_status (
  value text PRIMARY KEY
);

INSERT INTO event_status (value) VALUES
  ('CLOSED'), ('FIRING'), ('RESOLVED');

CREATE TABLE events (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant               uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id     uuid REFERENCES cloud_accounts (id),
  cloud_resource_id    uuid REFERENCES cloud_resourses (id),
  title                text NOT NULL,
  description          text,
  severity             text NOT NULL REFERENCES event_severity (value),
  priority             text NOT NULL REFERENCES event_severity (value),
  urgency              text NOT NULL REFERENCES event_severity (value),
  computed_priority    text,
  computed_score       integer,
  score_confidence     numeric,
  score_factors        jsonb,
  source               text REFERENCES event_source (value),
  status               text REFERENCES event_status (value),
  nb_status            text,
  nb_status_changed_at timestamp,
  nb_status_changed_by uuid,
  category             text,
  aggregation_key      text NOT NULL,
  fingerprint          text,
  finding_id           text NOT NULL,
  finding_type         text NOT NULL,
  failure              text,
  cluster              text NOT NULL,
  service_key          text,
  principal            text,
  subject_name         text NOT NULL,
  subject_namespace    text,
  subject_node         text,
  subject_owner        text,
  subject_owner_kind   text,
  subject_type         text,
  labels               jsonb,
  evidences            jsonb NOT NULL DEFAULT '[]',
  starts_at            timestamp,
  ends_at              timestamp,
  snoozed_until        timestamp,
  created_at           timestamp NOT NULL DEFAULT now(),
  updated_at           timestamp NOT NULL DEFAULT now()
);

CREATE INDEX events_tenant_created_at_idx ON events (tenant, created_at DESC);
CREATE INDEX events_cloud_account_id_idx ON events (cloud_account_id);
CREATE INDEX events_cloud_resource_id_idx ON events (cloud_resource_id);
CREATE INDEX events_priority_idx ON events (priority);
CREATE INDEX events_severity_idx ON events (severity);
CREATE INDEX events_source_idx ON events (source);
CREATE INDEX events_status_idx ON events (status);
