-- Agents: the in-cluster agents of cloud accounts, what they were asked to do (agent_task), the
-- calls they made (agent_audit_log) and the playbooks they run on alerts.
--
-- agent_playbook_action, agent_playbook_processor and agent_playbook_trigger are the platform's
-- catalogues of what an agent playbook can use, keyed by name as the API does: shared by every
-- tenant, no tenant, read-only for the tenant roles. agent_playbook.processor names a processor
-- but has no foreign key (the reference shows no relationship, and agents may report processors
-- the catalogue does not list yet). agent_audit_log.tenant_id and agent_playbook.tenant_id stay
-- nullable as in the reference (rows without a tenant are visible to no tenant role).

CREATE TABLE agent_playbook_source (
  value text PRIMARY KEY
);

INSERT INTO agent_playbook_source (value) VALUES
  ('agent'), ('user');

CREATE TABLE agent_playbook_action (
  name           text PRIMARY KEY,
  display_name   text NOT NULL,
  action_name    text,
  category       text,
  description    text,
  execution_mode text,
  source         text,
  params         jsonb
);

CREATE TABLE agent_playbook_processor (
  name  text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE agent_playbook_trigger (
  name   text PRIMARY KEY,
  params jsonb
);

CREATE TABLE agent (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant            uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id  uuid NOT NULL REFERENCES cloud_accounts (id),
  type              text,
  status            text NOT NULL,
  status_message    text,
  version           text,
  k8s_provider      text,
  k8s_version       text,
  access_key        text,
  access_secret     text,
  access_secret_v2  text,
  connection_status jsonb,
  last_connected_at timestamp,
  last_synced_at    timestamp,
  created_at        timestamp NOT NULL DEFAULT now(),
  updated_at        timestamp NOT NULL DEFAULT now()
);

CREATE INDEX agent_tenant_account_idx ON agent (tenant, cloud_account_id);
CREATE INDEX agent_status_idx ON agent (status);

CREATE TABLE agent_task (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant           uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  agent_id         uuid REFERENCES agent (id) ON DELETE SET NULL,
  action           text NOT NULL,
  payload          jsonb NOT NULL DEFAULT '{}',
  response         jsonb,
  resoruce_id      uuid,
  source           text,
  source_id        uuid,
  status           text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  created_by       uuid,
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX agent_task_tenant_created_at_idx ON agent_task (tenant, created_at DESC);
CREATE INDEX agent_task_cloud_account_status_idx ON agent_task (cloud_account_id, status);
CREATE INDEX agent_task_agent_id_idx ON agent_task (agent_id);

CREATE TABLE agent_audit_log (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid REFERENCES tenant (id),
  cloud_account_id uuid REFERENCES cloud_accounts (id),
  agent_id         uuid REFERENCES agent (id) ON DELETE SET NULL,
  client_ip        text NOT NULL,
  method           text,
  url              text NOT NULL,
  status_code      integer NOT NULL,
  time_taken       integer,
  headers          jsonb NOT NULL DEFAULT '{}',
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamp NOT NULL DEFAULT now()
);

CREATE INDEX agent_audit_log_tenant_created_at_idx ON agent_audit_log (tenant_id, created_at DESC);
CREATE INDEX agent_audit_log_agent_id_idx ON agent_audit_log (agent_id);

CREATE TABLE agent_playbook (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid REFERENCES tenant (id),
  cloud_account_id uuid REFERENCES cloud_accounts (id),
  alert_name       text,
  source           text REFERENCES agent_playbook_source (value),
  processor        text,
  trigger_params   jsonb,
  action_params    jsonb,
  created_at       timestamptz DEFAULT now(),
  updated_at       timestamptz DEFAULT now()
);

CREATE INDEX agent_playbook_tenant_account_idx ON agent_playbook (tenant_id, cloud_account_id);
CREATE INDEX agent_playbook_alert_name_idx ON agent_playbook (alert_name);
