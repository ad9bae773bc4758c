-- Events and incidents, beyond the events table itself (0006): alert rules and triage rules,
-- what happened to each event (history, classification, duplicates, correlations, log analysis,
-- resolution), webhooks received from other tools, bulk status changes, and insights.
--
-- Tenancy: the reference gives event_bulk_operations, event_log_analysis and event_resolution no
-- tenant column, but every row belongs to one tenant (through its account or its event), so they
-- have a tenant_id here that the permissions filter on. event_correlations.tenant_id and
-- event_triage_rules.tenant_id stay nullable as in the reference; rows without a tenant are
-- visible to no tenant role.
-- Rows that describe one event go with it (ON DELETE CASCADE).

CREATE TABLE event_log_analysis_status (
  value       text PRIMARY KEY,
  description text
);

INSERT INTO event_log_analysis_status (value, description) VALUES
  ('COMPLETED',   'The analysis finished'),
  ('FAILED',      'The analysis could not be completed'),
  ('IN_PROGRESS', 'The analysis is running');

CREATE TABLE event_rule_severity (
  value text PRIMARY KEY
);

INSERT INTO event_rule_severity (value) VALUES
  ('critical'), ('warning');

CREATE TABLE event_rule_source (
  value text PRIMARY KEY
);

INSERT INTO event_rule_source (value) VALUES
  ('AWS_CloudTrail'), ('AWS_CloudWatch_Alarm'), ('AWS_EventBridge'), ('Azure_Monitor_Alert'),
  ('azure_monitor_webhook'), ('chronosphere'), ('datadog_webhook'), ('nudgebee'), ('prometheus'),
  ('servicenow_webhook');

CREATE TABLE insight_severity (
  value   text PRIMARY KEY,
  comment text NOT NULL
);

INSERT INTO insight_severity (value, comment) VALUES
  ('Critical', 'Needs action now'),
  ('High',     'Needs action soon'),
  ('Low',      'Worth knowing'),
  ('Medium',   'Should be looked at');

-- Composite indexes for events_v2 / event_groupings_v2 (tenant, status and severity filters).
CREATE INDEX events_tenant_status_severity_idx ON events (tenant, status, severity);
CREATE INDEX events_tenant_fingerprint_idx ON events (tenant, fingerprint);

CREATE TABLE event_rules (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id   uuid NOT NULL REFERENCES tenant (id),
  account_id  uuid NOT NULL REFERENCES cloud_accounts (id),
  name        text,
  alert       text NOT NULL,
  expr        text NOT NULL,
  duration    text,
  "group"     text,
  namespace   text,
  category    text NOT NULL,
  severity    text NOT NULL REFERENCES event_rule_severity (value),
  source      text NOT NULL REFERENCES event_rule_source (value),
  labels      jsonb NOT NULL DEFAULT '{}',
  annotations jsonb NOT NULL DEFAULT '{}',
  enabled     boolean NOT NULL DEFAULT true,
  is_editable boolean DEFAULT true,
  created_at  timestamp NOT NULL DEFAULT now(),
  created_by  uuid,
  updated_at  timestamp NOT NULL DEFAULT now(),
  updated_by  uuid
);

CREATE INDEX event_rules_tenant_account_idx ON event_rules (tenant_id, account_id);
CREATE INDEX event_rules_severity_idx ON event_rules (severity);
CREATE INDEX event_rules_source_idx ON event_rules (source);

CREATE TABLE event_triage_rules (
  id                            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id                     uuid REFERENCES tenant (id),
  account_id                    uuid REFERENCES cloud_accounts (id),
  name                          text,
  description                   text,
  rule_type                     text NOT NULL,
  action                        text NOT NULL,
  action_value                  jsonb,
  priority                      integer,
  reason                        text,
  enabled                       boolean DEFAULT true,
  is_editable                   boolean DEFAULT true,
  can_override                  boolean DEFAULT false,
  override_rule_id              uuid REFERENCES event_triage_rules (id) ON DELETE SET NULL,
  match_alertname               text,
  match_finding_type            text,
  match_fingerprint             text,
  match_labels                  jsonb,
  match_namespace               text,
  match_occurrence_greater_than integer,
  match_priority                text,
  match_service                 text,
  match_source                  text,
  match_count                   integer DEFAULT 0,
  last_matched_at               timestamp,
  effective_from                timestamp,
  effective_until               timestamp,
  created_at                    timestamp DEFAULT now(),
  created_by                    uuid,
  updated_at                    timestamp DEFAULT now(),
  updated_by                    uuid
);

CREATE INDEX event_triage_rules_tenant_account_idx ON event_triage_rules (tenant_id, account_id);
CREATE INDEX event_triage_rules_override_rule_id_idx ON event_triage_rules (override_rule_id);

CREATE TABLE event_history (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  event_id         uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  change_type      text NOT NULL,
  change_reason    text NOT NULL,
  old_value        jsonb,
  new_value        jsonb NOT NULL,
  metadata         jsonb,
  changed_at       timestamptz NOT NULL DEFAULT now(),
  changed_by       uuid
);

CREATE INDEX event_history_event_changed_at_idx ON event_history (event_id, changed_at);
CREATE INDEX event_history_tenant_changed_at_idx ON event_history (tenant_id, changed_at DESC);

CREATE TABLE event_classification (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id          uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id   uuid NOT NULL REFERENCES cloud_accounts (id),
  event_id           uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  linked_event_id    uuid REFERENCES events (id) ON DELETE SET NULL,
  rule_id            uuid REFERENCES event_triage_rules (id) ON DELETE SET NULL,
  classification     text NOT NULL,
  reason_code        text NOT NULL,
  reason_text        text,
  apply_scope        text,
  apply_until        timestamp,
  original_priority  text,
  original_score     integer,
  corrected_priority text,
  priority_direction text,
  feature_snapshot   jsonb,
  classified_at      timestamp DEFAULT now(),
  classified_by      uuid NOT NULL,
  created_at         timestamp DEFAULT now(),
  updated_at         timestamp DEFAULT now()
);

CREATE INDEX event_classification_tenant_event_idx ON event_classification (tenant_id, event_id);
CREATE INDEX event_classification_event_id_idx ON event_classification (event_id);
CREATE INDEX event_classification_linked_event_id_idx ON event_classification (linked_event_id);

CREATE TABLE event_bulk_operations (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Not in the reference: the tenant of account_id, so that the permissions can filter on it.
  tenant_id         uuid NOT NULL REFERENCES tenant (id),
  account_id        uuid NOT NULL REFERENCES cloud_accounts (id),
  classification_id uuid REFERENCES event_classification (id) ON DELETE SET NULL,
  rule_id           uuid REFERENCES event_triage_rules (id) ON DELETE SET NULL,
  operation_type    text NOT NULL,
  fingerprint       text,
  target_status     text NOT NULL,
  status            text,
  total_events      integer,
  processed_events  integer,
  error_message     text,
  created_at        timestamp DEFAULT now(),
  created_by        uuid,
  completed_at      timestamp
);

CREATE INDEX event_bulk_operations_tenant_created_at_idx ON event_bulk_operations (tenant_id, created_at DESC);
CREATE INDEX event_bulk_operations_account_id_idx ON event_bulk_operations (account_id);

CREATE TABLE event_duplicates (
  id                          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id                   uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id            uuid NOT NULL REFERENCES cloud_accounts (id),
  event_id                    uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  first_event_id              uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  previous_event_id           uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  fingerprint                 text NOT NULL,
  occurrence_number           integer NOT NULL,
  time_since_first_seconds    integer NOT NULL,
  time_since_previous_seconds integer NOT NULL,
  absolute_first_seen_at      timestamp,
  created_at                  timestamp NOT NULL DEFAULT now()
);

CREATE INDEX event_duplicates_tenant_fingerprint_idx ON event_duplicates (tenant_id, fingerprint);
CREATE INDEX event_duplicates_event_id_idx ON event_duplicates (event_id);
CREATE INDEX event_duplicates_first_event_id_idx ON event_duplicates (first_event_id);

CREATE TABLE event_correlations (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id           uuid REFERENCES tenant (id),
  cloud_account_id    uuid NOT NULL REFERENCES cloud_accounts (id),
  event_id            uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  related_event_id    uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  correlation_type    text NOT NULL,
  correlation_reason  text NOT NULL,
  correlation_score   numeric NOT NULL,
  dependency_distance integer NOT NULL DEFAULT 0,
  time_offset_minutes integer NOT NULL DEFAULT 0,
  created_at          timestamp NOT NULL DEFAULT now()
);

CREATE INDEX event_correlations_tenant_event_idx ON event_correlations (tenant_id, event_id);
CREATE INDEX event_correlations_event_id_idx ON event_correlations (event_id);
CREATE INDEX event_correlations_related_event_id_idx ON event_correlations (related_event_id);

CREATE TABLE event_log_analysis (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Not in the reference: the tenant of event_id, so that the permissions can filter on it.
  tenant_id             uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id      uuid REFERENCES cloud_accounts (id),
  event_id              uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  event_aggregation_key text,
  event_fingerprint     text,
  analysis_type         text NOT NULL,
  status                text NOT NULL REFERENCES event_log_analysis_status (value),
  status_reason         text,
  analysis              text,
  summary               text,
  recorded_at           timestamp NOT NULL DEFAULT now(),
  updated_at            timestamp DEFAULT now()
);

CREATE INDEX event_log_analysis_tenant_recorded_at_idx ON event_log_analysis (tenant_id, recorded_at DESC);
CREATE INDEX event_log_analysis_event_id_idx ON event_log_analysis (event_id);
CREATE INDEX event_log_analysis_status_idx ON event_log_analysis (status);

CREATE TABLE event_resolution (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Not in the reference: the tenant of event_id, so that the permissions can filter on it.
  tenant_id         uuid NOT NULL REFERENCES tenant (id),
  event_id          uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  type              text NOT NULL,
  type_reference_id text NOT NULL,
  resolver_type     text NOT NULL,
  resolver_id       text NOT NULL,
  status            text NOT NULL,
  status_message    text,
  data              jsonb,
  created_at        timestamp NOT NULL DEFAULT now(),
  updated_at        timestamp NOT NULL DEFAULT now()
);

CREATE INDEX event_resolution_tenant_created_at_idx ON event_resolution (tenant_id, created_at DESC);
CREATE INDEX event_resolution_event_id_idx ON event_resolution (event_id);

CREATE TABLE event_incoming_webhooks (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id          uuid NOT NULL REFERENCES tenant (id),
  account_id         uuid NOT NULL REFERENCES cloud_accounts (id),
  integration_id     uuid NOT NULL,
  integration_type   text NOT NULL,
  webhook_id         text NOT NULL,
  event_id           text NOT NULL,
  event_type         text NOT NULL,
  event_title        text NOT NULL,
  event_description  text,
  event_priority     text,
  event_status       text,
  event_url          text,
  event_created_at   timestamp NOT NULL,
  raw                text
);

CREATE INDEX event_incoming_webhooks_tenant_created_at_idx ON event_incoming_webhooks (tenant_id, event_created_at DESC);
CREATE INDEX event_incoming_webhooks_account_id_idx ON event_incoming_webhooks (account_id);
CREATE INDEX event_incoming_webhooks_integration_id_idx ON event_incoming_webhooks (integration_id);

CREATE TABLE insight (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant       uuid NOT NULL REFERENCES tenant (id),
  account_id   uuid NOT NULL REFERENCES cloud_accounts (id),
  resource_id  uuid REFERENCES cloud_resourses (id) ON DELETE SET NULL,
  unique_id    text NOT NULL,
  title        text NOT NULL,
  type         text NOT NULL,
  source       text NOT NULL,
  status       text NOT NULL,
  severity     text REFERENCES insight_severity (value),
  applications jsonb,
  rule         jsonb,
  created_at   timestamp NOT NULL DEFAULT now(),
  updated_at   timestamp NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX insight_tenant_unique_id_key ON insight (tenant, unique_id);
CREATE INDEX insight_tenant_status_severity_idx ON insight (tenant, status, severity);
CREATE INDEX insight_account_id_idx ON insight (account_id);
CREATE INDEX insight_resource_id_idx ON insight (resource_id);
