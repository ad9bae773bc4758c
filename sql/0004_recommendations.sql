-- Recommendations raised on cloud accounts and their resources.

CREATE TABLE recommendation_action_type (
  value text PRIMARY KEY
);

INSERT INTO recommendation_action_type (value) VALUES
  ('Create'), ('Delete'), ('Modify');

CREATE TABLE recommendation_category_type (
  value text PRIMARY KEY
);

INSERT INTO recommendation_category_type (value) VALUES
  ('Configuration'), ('Cost'), ('InfraUpgrade'), ('K8sSpotRecommendation'),
  ('K8sVersionUpgrade'), ('RightSizing'), ('Security');

CREATE TABLE recommendation_severity_type (
  value text PRIMARY KEY
);

INSERT INTO recommendation_severity_type (value) VALUES
  ('Critical'), ('High'), ('Info'), ('Low'), ('Medium');

CREATE TABLE recommendation_status_type (
  value       text PRIMARY KEY,
  description text
);

INSERT INTO recommendation_status_type (value, description) VALUES
  ('Archive',    'Kept for the record, no longer shown'),
  ('Assigned',   'Assigned to someone to act on'),
  ('Closed',     'Resolved'),
  ('Dismissed',  'Dismissed by a user, with a reason'),
  ('InProgress', 'Being worked on'),
  ('Open',       'New, not acted on yet');

CREATE TABLE recommendation (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id             uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id      uuid NOT NULL REFERENCES cloud_accounts (id),
  resource_id           uuid REFERENCES cloud_resourses (id),
  account_object_id     text,
  rule_name             text,
  category              text REFERENCES recommendation_category_type (value),
  recommendation_action text NOT NULL REFERENCES recommendation_action_type (value),
  severity              text REFERENCES recommendation_severity_type (value),
  status                text REFERENCES recommendation_status_type (value),
  recommendation        jsonb NOT NULL,
  estimated_savings     double precision,
  is_dismissed          boolean NOT NULL DEFAULT false,
  dismissed_reason      text,
  note                  text,
  created_at            timestamp NOT NULL DEFAULT now(),
  updated_at            timestamp NOT NULL DEFAULT now(),
  updated_by            uuid
);

CREATE INDEX recommendation_tenant_status_severity_idx ON recommendation (tenant_id, status, severity);
CREATE INDEX recommendation_cloud_account_id_idx ON recommendation (cloud_account_id);
CREATE INDEX recommendation_resource_id_idx ON recommendation (resource_id);
CREATE INDEX recommendation_status_idx ON recommendation (status);
CREATE INDEX recommendation_severity_idx ON recommendation (severity);
CREATE INDEX recommendation_category_idx ON recommendation (category);
CREATE INDEX recommendation_action_idx ON recommendation (recommendation_action);
