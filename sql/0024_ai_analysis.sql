-- AI-assisted analysis (actions/ai): what the language model cost each tenant, the budgets that cap
-- it, and the analyses already made of events, so that asking again does not pay again.
--
-- Like the conversation tables of 0023, these are not in the GraphQL catalogue: tenants reach them
-- only through the ai_* operations, which filter by the session's tenant.

-- One row per answer of the language model, with the tokens it reported (usage.prompt_tokens and
-- usage.completion_tokens). The built-in analyst costs nothing and writes no row.
-- module: the budget it counts against (investigation: analyses of events; user_investigation:
-- questions users ask in conversations); operation: the GraphQL operation that called the model.
CREATE TABLE ai_usage (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id  uuid REFERENCES cloud_accounts (id),
  module            text NOT NULL,
  operation         text NOT NULL,
  model             text NOT NULL,
  prompt_tokens     integer NOT NULL DEFAULT 0,
  completion_tokens integer NOT NULL DEFAULT 0,
  total_tokens      integer GENERATED ALWAYS AS (prompt_tokens + completion_tokens) STORED,
  -- What the call was about: an event id or a conversation id.
  subject_id        text,
  created_at        timestamptz NOT NULL DEFAULT now()
);

-- ai_budget_status and the budget check sum a tenant's (or an account's) usage of one module this month.
CREATE INDEX ai_usage_tenant_module_created_idx ON ai_usage (tenant_id, module, created_at);
CREATE INDEX ai_usage_account_module_created_idx ON ai_usage (cloud_account_id, module, created_at);

-- Monthly token budgets that override the engine's defaults (AI_BUDGET_TENANT, AI_BUDGET_ACCOUNT).
-- A row without cloud_account_id is the tenant's: tenant_tokens caps the whole tenant, and
-- account_tokens, when set, caps each of its accounts. A row with cloud_account_id caps that account
-- (account_tokens). module NULL applies to every module; a row naming the module wins over it.
CREATE TABLE ai_budget (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid REFERENCES cloud_accounts (id) ON DELETE CASCADE,
  module           text,
  tenant_tokens    bigint CHECK (tenant_tokens >= 0),
  account_tokens   bigint CHECK (account_tokens >= 0),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ai_budget_tenant_only_on_tenant_rows CHECK (cloud_account_id IS NULL OR tenant_tokens IS NULL)
);

-- One budget per (tenant, account or none, module or all): the NULLs compared as values.
CREATE UNIQUE INDEX ai_budget_scope_key ON ai_budget (
  tenant_id, coalesce(cloud_account_id, '00000000-0000-0000-0000-000000000000'::uuid), coalesce(module, '*'));

-- The latest analysis of an event per kind ('rca', 'recommendation:logs', 'recommendation:fix'):
-- ai_get_rca with generate: false answers from here.
CREATE TABLE ai_event_analysis (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid REFERENCES cloud_accounts (id),
  event_id         uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  kind             text NOT NULL,
  -- 'builtin' or 'model:<name>'.
  answered_by      text NOT NULL,
  data             jsonb NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ai_event_analysis_event_kind_key UNIQUE (tenant_id, event_id, kind)
);

-- Full-text retrieval (actions/ai/retrieval.ts) over tables that have no tsvector column: the
-- expressions here are the ones its queries use, so that the planner can use these indexes.
CREATE INDEX events_search_idx ON events
  USING gin (to_tsvector('english', title || ' ' || coalesce(description, '') || ' ' || coalesce(failure, '')));
CREATE INDEX recommendation_search_idx ON recommendation
  USING gin (to_tsvector('english', coalesce(rule_name, '') || ' ' || coalesce(category, '') || ' ' || recommendation::text));
CREATE INDEX knowledge_base_search_idx ON knowledge_base
  USING gin (to_tsvector('english', rule_name || ' ' || description || ' ' || diagnosis || ' ' || mitigation));
