-- Automation, beyond auto_pilot and auto_pilot_approval_policy (0007): auto-pilot tasks, the
-- resources auto-optimise acts on, approvals and the people who ask for and give them, and
-- playbooks with their executions and tasks.
--
-- Lookups: the reference lists values for auto_pilot_task_status and auto_playbook_status, whose
-- columns it types as *_enum; they are enum tables. auto_pilot_approvals.status,
-- auto_playbook_executions.status and auto_playbook_task.status are typed String in the
-- reference although they reference auto_pilot_approval_status, auto_pilot_execution_status and
-- auto_playbook_task_status (the reference shows those relationships): these three are plain
-- lookup tables (not is_enum in the metadata), so that the columns stay String. The values of
-- the lookups the reference does not list are the platform's own.
-- autopilot_attributes and auto_playbook_actions are the platform's catalogues (attribute names
-- and the actions a playbook can run), shared by every tenant: no tenant, read-only for the
-- tenant roles. Rows that describe one policy, auto-pilot or playbook go with it (ON DELETE CASCADE).
-- User columns (created_by, reviewer_id, ...) have no foreign key, as on the other tables; the
-- metadata joins them to users by hand.

CREATE TABLE auto_pilot_category (
  value       text PRIMARY KEY,
  description text NOT NULL
);

INSERT INTO auto_pilot_category (value, description) VALUES
  ('Cost',        'Lowers spend (stop, delete or schedule resources)'),
  ('Remediation', 'Fixes a failing workload or resource'),
  ('RightSizing', 'Applies right-sizing recommendations'),
  ('Schedule',    'Starts and stops resources on a schedule'),
  ('Security',    'Applies security recommendations');

CREATE TABLE auto_pilot_execution_status (
  value       text PRIMARY KEY,
  description text NOT NULL
);

INSERT INTO auto_pilot_execution_status (value, description) VALUES
  ('Completed',  'The run finished'),
  ('Failed',     'The run stopped on an error'),
  ('InProgress', 'The run is under way'),
  ('Scheduled',  'The run waits for its time'),
  ('Skipped',    'The run was skipped by a user or a rule');

CREATE TABLE auto_pilot_task_status (
  value       text PRIMARY KEY,
  description text
);

INSERT INTO auto_pilot_task_status (value, description) VALUES
  ('Complete',    'The task finished'),
  ('Dryrun',      'The task was evaluated without acting'),
  ('Executed',    'The action was applied'),
  ('Failed',      'The task stopped on an error'),
  ('In_Progress', 'The task is running'),
  ('Scheduled',   'The task waits for its time'),
  ('Skipped',     'The task was skipped');

CREATE TABLE auto_pilot_approval_status (
  status      text PRIMARY KEY,
  description text
);

INSERT INTO auto_pilot_approval_status (status, description) VALUES
  ('Approved', 'The reviewer approved the action'),
  ('Expired',  'Nobody answered in time'),
  ('Pending',  'Waiting for the reviewer'),
  ('Rejected', 'The reviewer refused the action');

CREATE TABLE auto_playbook_status (
  value       text PRIMARY KEY,
  description text NOT NULL
);

INSERT INTO auto_playbook_status (value, description) VALUES
  ('ACTIVE',   'Runs on its trigger'),
  ('DISABLED', 'Turned off'),
  ('DRAFT',    'Being written, never runs');

CREATE TABLE auto_playbook_task_status (
  value       text PRIMARY KEY,
  description text
);

INSERT INTO auto_playbook_task_status (value, description) VALUES
  ('Complete',    'The task finished'),
  ('Failed',      'The task stopped on an error'),
  ('In_Progress', 'The task is running'),
  ('Scheduled',   'The task waits for its turn'),
  ('Skipped',     'The task was skipped');

-- "values" is the key column's name in the API; it is a reserved word, always quoted.
CREATE TABLE auto_playbook_execution_status (
  "values"    text PRIMARY KEY,
  description text NOT NULL
);

INSERT INTO auto_playbook_execution_status ("values", description) VALUES
  ('Completed', 'Every task finished'),
  ('Failed',    'A task failed'),
  ('Running',   'Tasks are running'),
  ('Scheduled', 'The execution waits for its time'),
  ('Skipped',   'The execution was skipped');

CREATE TABLE autopilot_attributes (
  id    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  key   text NOT NULL,
  value text NOT NULL,
  CONSTRAINT autopilot_attributes_key_value_key UNIQUE (key, value)
);

CREATE TABLE auto_playbook_actions (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL,
  "Source"    text NOT NULL,
  category    text NOT NULL,
  description text NOT NULL,
  config      jsonb NOT NULL DEFAULT '{}',
  created_at  timestamp NOT NULL DEFAULT now(),
  updated_at  timestamp NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX auto_playbook_actions_source_name_key ON auto_playbook_actions ("Source", name);

CREATE TABLE auto_pilot_task (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenant (id),
  account_id        uuid NOT NULL REFERENCES cloud_accounts (id),
  auto_pilot_id     uuid NOT NULL REFERENCES auto_pilot (id) ON DELETE CASCADE,
  recommendation_id uuid REFERENCES recommendation (id) ON DELETE SET NULL,
  task_id           uuid,
  name              text NOT NULL,
  command           text,
  status            text NOT NULL REFERENCES auto_pilot_task_status (value),
  attributes        jsonb NOT NULL DEFAULT '{}',
  meta              jsonb NOT NULL DEFAULT '{}',
  resource_filter   jsonb,
  error             text,
  reason            text,
  skipped_by        uuid,
  scheduled_time    timestamp NOT NULL,
  created_at        timestamp NOT NULL DEFAULT now(),
  updated_at        timestamp NOT NULL DEFAULT now()
);

CREATE INDEX auto_pilot_task_tenant_scheduled_time_idx ON auto_pilot_task (tenant_id, scheduled_time DESC);
CREATE INDEX auto_pilot_task_auto_pilot_id_idx ON auto_pilot_task (auto_pilot_id);
CREATE INDEX auto_pilot_task_status_idx ON auto_pilot_task (status);

CREATE TABLE auto_optimize_resource_map (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id           uuid NOT NULL REFERENCES tenant (id),
  account_id          uuid NOT NULL REFERENCES cloud_accounts (id),
  auto_optimize_id    uuid NOT NULL REFERENCES auto_pilot (id) ON DELETE CASCADE,
  auto_optimize_type  text NOT NULL,
  resource_identifier jsonb NOT NULL
);

CREATE INDEX auto_optimize_resource_map_tenant_account_idx ON auto_optimize_resource_map (tenant_id, account_id);
CREATE INDEX auto_optimize_resource_map_auto_optimize_id_idx ON auto_optimize_resource_map (auto_optimize_id);

CREATE TABLE auto_pilot_reviewers (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id  uuid NOT NULL REFERENCES tenant (id),
  account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  policy_id  uuid NOT NULL REFERENCES auto_pilot_approval_policy (id) ON DELETE CASCADE,
  user_id    uuid NOT NULL,
  created_at timestamp NOT NULL DEFAULT now(),
  CONSTRAINT auto_pilot_reviewers_policy_user_key UNIQUE (policy_id, user_id)
);

CREATE INDEX auto_pilot_reviewers_tenant_id_idx ON auto_pilot_reviewers (tenant_id);
CREATE INDEX auto_pilot_reviewers_user_id_idx ON auto_pilot_reviewers (user_id);

CREATE TABLE auto_pilot_reviewee (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id  uuid NOT NULL REFERENCES tenant (id),
  account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  policy_id  uuid NOT NULL REFERENCES auto_pilot_approval_policy (id) ON DELETE CASCADE,
  user_id    uuid NOT NULL,
  created_at timestamp NOT NULL DEFAULT now(),
  CONSTRAINT auto_pilot_reviewee_policy_user_key UNIQUE (policy_id, user_id)
);

CREATE INDEX auto_pilot_reviewee_tenant_id_idx ON auto_pilot_reviewee (tenant_id);
CREATE INDEX auto_pilot_reviewee_user_id_idx ON auto_pilot_reviewee (user_id);

CREATE TABLE auto_pilot_approvals (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenant (id),
  account_id        uuid NOT NULL REFERENCES cloud_accounts (id),
  policy_id         uuid NOT NULL REFERENCES auto_pilot_approval_policy (id) ON DELETE CASCADE,
  autopilot_id      uuid NOT NULL REFERENCES auto_pilot (id) ON DELETE CASCADE,
  auto_pilot_type   text NOT NULL,
  reviewer_id       uuid NOT NULL,
  reviewer_comments text,
  status            text NOT NULL DEFAULT 'Pending' REFERENCES auto_pilot_approval_status (status),
  attributes        jsonb NOT NULL DEFAULT '{}',
  created_at        timestamp NOT NULL DEFAULT now(),
  updated_at        timestamp DEFAULT now()
);

CREATE INDEX auto_pilot_approvals_tenant_status_idx ON auto_pilot_approvals (tenant_id, status);
CREATE INDEX auto_pilot_approvals_policy_id_idx ON auto_pilot_approvals (policy_id);
CREATE INDEX auto_pilot_approvals_autopilot_id_idx ON auto_pilot_approvals (autopilot_id);

CREATE TABLE auto_playbook (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id          uuid NOT NULL REFERENCES tenant (id),
  account_id         uuid NOT NULL REFERENCES cloud_accounts (id),
  name               text NOT NULL,
  status             text NOT NULL REFERENCES auto_playbook_status (value),
  execution_status   text NOT NULL DEFAULT 'Scheduled',
  trigger            jsonb NOT NULL DEFAULT '{}',
  resource_filter    jsonb NOT NULL DEFAULT '{}',
  tasks              jsonb NOT NULL DEFAULT '[]',
  attributes         jsonb NOT NULL DEFAULT '{}',
  notification       jsonb NOT NULL DEFAULT '{}',
  start_at           timestamp NOT NULL DEFAULT now(),
  end_at             timestamp,
  last_executed_time timestamp,
  last_schedule_time timestamp,
  created_at         timestamp NOT NULL DEFAULT now(),
  created_by         uuid,
  update_at          timestamp NOT NULL DEFAULT now(),
  updated_by         uuid
);

-- auto_playbook_v2 / auto_playbook_grouping_v2 filter by tenant, account and status.
CREATE INDEX auto_playbook_tenant_account_status_idx ON auto_playbook (tenant_id, account_id, status);
CREATE INDEX auto_playbook_tenant_created_at_idx ON auto_playbook (tenant_id, created_at DESC);

CREATE TABLE auto_playbook_executions (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  account_id       uuid NOT NULL REFERENCES cloud_accounts (id),
  auto_playbook_id uuid NOT NULL REFERENCES auto_playbook (id) ON DELETE CASCADE,
  status           text NOT NULL REFERENCES auto_pilot_execution_status (value),
  attribute        jsonb NOT NULL DEFAULT '{}',
  meta             jsonb,
  scheduled_at     timestamp NOT NULL,
  skipped_by       uuid,
  created_at       timestamp NOT NULL DEFAULT now(),
  updated_at       timestamp DEFAULT now()
);

CREATE INDEX auto_playbook_executions_playbook_scheduled_idx ON auto_playbook_executions (auto_playbook_id, scheduled_at DESC);
CREATE INDEX auto_playbook_executions_tenant_status_idx ON auto_playbook_executions (tenant_id, status);

CREATE TABLE auto_playbook_task (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  account_id       uuid NOT NULL REFERENCES cloud_accounts (id),
  auto_playbook_id uuid NOT NULL REFERENCES auto_playbook (id) ON DELETE CASCADE,
  execution_id     uuid REFERENCES auto_playbook_executions (id) ON DELETE CASCADE,
  action_id        uuid REFERENCES auto_playbook_actions (id) ON DELETE SET NULL,
  name             text NOT NULL,
  action_type      text NOT NULL,
  task_type        text NOT NULL,
  status           text NOT NULL REFERENCES auto_playbook_task_status (value),
  attributes       jsonb NOT NULL DEFAULT '{}',
  meta_data        jsonb NOT NULL DEFAULT '{}',
  resource         jsonb,
  result           text,
  error            text,
  reason           text,
  scheduled_time   timestamp NOT NULL,
  created_at       timestamp NOT NULL DEFAULT now(),
  updated_at       timestamp NOT NULL DEFAULT now()
);

CREATE INDEX auto_playbook_task_playbook_idx ON auto_playbook_task (auto_playbook_id, scheduled_time);
CREATE INDEX auto_playbook_task_execution_id_idx ON auto_playbook_task (execution_id);
CREATE INDEX auto_playbook_task_tenant_status_idx ON auto_playbook_task (tenant_id, status);
