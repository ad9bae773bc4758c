-- The AI catalogue of a tenant: the assistant agents of its cloud accounts, which knowledge bases
-- (ai_knowledgebase, sql/0023) each agent retrieves from, the global contexts every answer of an
-- account starts from, the tools agents may call, and the language models they may use. Read by the
-- ai_list_* / ai_get_* operations (actions/ai-catalogue/), which always filter by the session's
-- tenant and the request's cloud account.
--
-- These tables are not in the GraphQL catalogue (like the tables of sql/0023): tenants reach them
-- through the operations only. Tools and models with no tenant are the platform's, offered to every
-- tenant. Times are timestamptz, like the other ai_* tables.

CREATE TABLE ai_agent (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  name             text NOT NULL,
  description      text,
  -- What the agent is for (troubleshooting, cost, security, workflow, ...): picks its behaviour.
  agent_type       text NOT NULL DEFAULT 'assistant',
  system_prompt    text,
  enabled          boolean NOT NULL DEFAULT true,
  created_by       text,
  updated_by       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ai_agent_name_key UNIQUE (tenant_id, cloud_account_id, name)
);

-- Which knowledge bases an agent retrieves from. tenant_id is repeated so that every read can filter
-- on it without trusting the joined rows.
CREATE TABLE ai_agent_kb (
  tenant_id  uuid NOT NULL REFERENCES tenant (id),
  agent_id   uuid NOT NULL REFERENCES ai_agent (id) ON DELETE CASCADE,
  kb_id      uuid NOT NULL REFERENCES ai_knowledgebase (id) ON DELETE CASCADE,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, kb_id)
);

CREATE INDEX ai_agent_kb_kb_idx ON ai_agent_kb (kb_id);

-- Global contexts: text every answer of the account is given (conventions, environments, owners):
-- the reference's GlobalContextOutput.
CREATE TABLE ai_global_context (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  name             text NOT NULL,
  description      text,
  data             text NOT NULL,
  data_filename    text NOT NULL DEFAULT '',
  data_format      text NOT NULL DEFAULT 'text',
  data_size_bytes  double precision GENERATED ALWAYS AS (octet_length(data)) STORED,
  status           text NOT NULL DEFAULT 'active',
  created_by       text,
  updated_by       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX ai_global_context_tenant_idx ON ai_global_context (tenant_id, cloud_account_id, name);

-- Tools an agent may call. tenant_id and cloud_account_id NULL: a platform tool, offered to every
-- account; otherwise a tool of that account only (a tenant's own webhook, say).
CREATE TABLE ai_tool (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid REFERENCES tenant (id),
  cloud_account_id uuid REFERENCES cloud_accounts (id),
  name             text NOT NULL,
  description      text NOT NULL,
  -- JSON Schema of the tool's arguments.
  input_schema     jsonb NOT NULL DEFAULT '{}',
  enabled          boolean NOT NULL DEFAULT true,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ai_tool_scope_check CHECK ((tenant_id IS NULL) = (cloud_account_id IS NULL))
);

CREATE UNIQUE INDEX ai_tool_platform_name_key ON ai_tool (name) WHERE tenant_id IS NULL;
CREATE UNIQUE INDEX ai_tool_account_name_key ON ai_tool (tenant_id, cloud_account_id, name) WHERE tenant_id IS NOT NULL;

-- Which tools an agent uses.
CREATE TABLE ai_agent_tool (
  tenant_id uuid NOT NULL REFERENCES tenant (id),
  agent_id  uuid NOT NULL REFERENCES ai_agent (id) ON DELETE CASCADE,
  tool_id   uuid NOT NULL REFERENCES ai_tool (id) ON DELETE CASCADE,
  PRIMARY KEY (agent_id, tool_id)
);

CREATE INDEX ai_agent_tool_tool_idx ON ai_agent_tool (tool_id);

-- Language models. No tenant: the platform's catalogue of known models (usable only through the
-- configured endpoint, AI_BASE_URL). With a tenant: the tenant's own entries; is_default marks the
-- model its account (cloud_account_id) or, with no account, all its accounts use by default.
CREATE TABLE ai_model (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid REFERENCES tenant (id),
  cloud_account_id  uuid REFERENCES cloud_accounts (id),
  provider          text NOT NULL,
  name              text NOT NULL,
  display_name      text,
  description       text,
  context_window    integer,
  max_output_tokens integer,
  enabled           boolean NOT NULL DEFAULT true,
  is_default        boolean NOT NULL DEFAULT false,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  -- A platform entry is never a default: the default without a tenant's choice is the configuration's.
  CONSTRAINT ai_model_default_check CHECK (NOT is_default OR tenant_id IS NOT NULL),
  CONSTRAINT ai_model_account_check CHECK (cloud_account_id IS NULL OR tenant_id IS NOT NULL)
);

CREATE UNIQUE INDEX ai_model_platform_key ON ai_model (provider, name) WHERE tenant_id IS NULL;
-- At most one default per tenant and account (or per tenant for all accounts).
CREATE UNIQUE INDEX ai_model_default_key ON ai_model (tenant_id, coalesce(cloud_account_id, '00000000-0000-0000-0000-000000000000'::uuid)) WHERE is_default;

-- The platform's tools and model catalogue (reference data, like workflow_task_definitions).
INSERT INTO ai_tool (id, name, description, input_schema) VALUES
  ('00000000-0070-4000-8000-000000000001', 'query_events', 'Search the events and incidents of the account',
    '{"type":"object","properties":{"query":{"type":"string"},"start_time":{"type":"string"},"end_time":{"type":"string"}}}'),
  ('00000000-0070-4000-8000-000000000002', 'query_logs', 'Search the logs of a workload',
    '{"type":"object","required":["query"],"properties":{"query":{"type":"string"},"limit":{"type":"integer"}}}'),
  ('00000000-0070-4000-8000-000000000003', 'query_cost', 'Sum the spend of the account over a period, grouped by a dimension',
    '{"type":"object","required":["period"],"properties":{"period":{"type":"string"},"group_by":{"type":"string"}}}'),
  ('00000000-0070-4000-8000-000000000004', 'list_recommendations', 'List the open recommendations of the account',
    '{"type":"object","properties":{"category":{"type":"string"},"status":{"type":"string"}}}'),
  ('00000000-0070-4000-8000-000000000005', 'search_knowledge_base', 'Retrieve passages of the knowledge bases mapped to the agent',
    '{"type":"object","required":["query"],"properties":{"query":{"type":"string"},"limit":{"type":"integer"}}}'),
  ('00000000-0070-4000-8000-000000000006', 'k8s_describe', 'Describe a Kubernetes object of a cluster of the account',
    '{"type":"object","required":["kind","name"],"properties":{"kind":{"type":"string"},"namespace":{"type":"string"},"name":{"type":"string"}}}')
ON CONFLICT DO NOTHING;

INSERT INTO ai_model (id, provider, name, display_name, description, context_window, max_output_tokens) VALUES
  ('00000000-0071-4000-8000-000000000001', 'openai', 'gpt-4o-mini', 'GPT-4o mini', 'Fast, low-cost general model', 128000, 16384),
  ('00000000-0071-4000-8000-000000000002', 'openai', 'gpt-4o', 'GPT-4o', 'General model for longer analyses', 128000, 16384),
  ('00000000-0071-4000-8000-000000000003', 'anthropic', 'claude-3-5-sonnet', 'Claude 3.5 Sonnet', 'Long-context analysis model', 200000, 8192)
ON CONFLICT DO NOTHING;
