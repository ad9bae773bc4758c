-- Workflows: a tenant's automations written as a definition (inputs, triggers, tasks, hooks, retry
-- policy) and run by the workflow engine; their executions; and the catalogue of task types a
-- definition can use. Read by the workflow_* operations (actions/workflows.ts).
--
-- workflows and workflow_executions belong to a tenant (tenant_id) and to one of its cloud
-- accounts (account_id, which the operations' requests name). workflow_task_definitions is the
-- platform's own catalogue, shared by every tenant: no tenant.
-- The definition follows the reference's WorkflowDefinition (jsonb, as written by the user); an
-- execution keeps its task results in `tasks` (a jsonb array of WorkflowExecutionTaskResponse).
-- Times are UTC (timestamp without time zone, as in the other tables). User columns (created_by,
-- updated_by) have no foreign key, as elsewhere; account_id has none either.

CREATE TABLE workflow_task_definitions (
  name          text PRIMARY KEY,
  description   text NOT NULL,
  input_schema  jsonb,
  output_schema jsonb
);

CREATE TABLE workflows (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id             uuid NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
  account_id            uuid NOT NULL,
  name                  text NOT NULL,
  -- ACTIVE (runs on its triggers), INACTIVE (turned off) or DRAFT.
  status                text NOT NULL DEFAULT 'DRAFT',
  definition            jsonb NOT NULL DEFAULT '{}',
  tags                  jsonb NOT NULL DEFAULT '{}',
  last_execution_status text,
  last_execution_time   timestamp,
  created_at            timestamp NOT NULL DEFAULT now(),
  created_by            uuid,
  updated_at            timestamp NOT NULL DEFAULT now(),
  updated_by            uuid
);

CREATE INDEX workflows_tenant_account_idx ON workflows (tenant_id, account_id, created_at);

CREATE TABLE workflow_executions (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id          uuid NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
  workflow_id        uuid NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
  -- RUNNING, COMPLETED, FAILED, CANCELED or TIMED_OUT.
  status             text NOT NULL,
  -- The type of the trigger that started it (schedule, event, manual, ...).
  trigger_type       text,
  triggered_by       text,
  parent_workflow_id text,
  inputs             jsonb,
  tasks              jsonb NOT NULL DEFAULT '[]',
  workflow_result    jsonb,
  error              text,
  start_time         timestamp NOT NULL DEFAULT now(),
  close_time         timestamp
);

CREATE INDEX workflow_executions_workflow_idx ON workflow_executions (tenant_id, workflow_id, start_time);

-- The catalogue of task types (platform reference data). The demo tenants' workflows are demo data:
-- sql/demo/workflows.sql, loaded with the rest of the demo set.

INSERT INTO workflow_task_definitions (name, description, input_schema, output_schema) VALUES
  ('approval', 'Wait for a reviewer to approve or reject',
    '{"type":"object","required":["reviewers"],"properties":{"reviewers":{"type":"array","items":{"type":"string"}},"timeout":{"type":"string"}}}',
    '{"type":"object","properties":{"approved":{"type":"boolean"},"reviewer":{"type":"string"}}}'),
  ('cloud_resource_action', 'Start, stop, resize or delete a cloud resource',
    '{"type":"object","required":["resource_id","action"],"properties":{"resource_id":{"type":"string"},"action":{"type":"string","enum":["start","stop","resize","delete"]},"size":{"type":"string"}}}',
    '{"type":"object","properties":{"state":{"type":"string"}}}'),
  ('http_request', 'Call an HTTP endpoint',
    '{"type":"object","required":["url"],"properties":{"url":{"type":"string"},"method":{"type":"string"},"headers":{"type":"object"},"body":{}}}',
    '{"type":"object","properties":{"status":{"type":"integer"},"body":{}}}'),
  ('k8s_scale_workload', 'Scale a Kubernetes workload to a number of replicas',
    '{"type":"object","required":["namespace","name","replicas"],"properties":{"namespace":{"type":"string"},"name":{"type":"string"},"replicas":{"type":"integer"}}}',
    '{"type":"object","properties":{"previous_replicas":{"type":"integer"}}}'),
  ('notify_slack', 'Post a message to a Slack channel',
    '{"type":"object","required":["channel","message"],"properties":{"channel":{"type":"string"},"message":{"type":"string"}}}',
    NULL),
  ('query_cost', 'Sum the spend of an account over a period',
    '{"type":"object","required":["period"],"properties":{"period":{"type":"string"},"group_by":{"type":"string"}}}',
    '{"type":"object","properties":{"total":{"type":"number"},"currency":{"type":"string"}}}')
ON CONFLICT (name) DO NOTHING;
