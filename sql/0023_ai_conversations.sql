-- AI-assisted analysis: the tenant's conversations with the assistant, what it remembers, the
-- references behind its answers, and the tenant's own knowledge bases (documents the assistant
-- retrieves from). The reference's AIMemoryResponse, AIReferenceResponse and KnowledgebaseOutput
-- describe the rows; conversations and messages are ours.
--
-- These tables are not in the GraphQL catalogue: tenants reach them through the ai_* operations,
-- which always filter by the session's tenant.

CREATE TABLE ai_conversation (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid REFERENCES cloud_accounts (id),
  user_id          uuid,
  agent_id         uuid,
  title            text NOT NULL DEFAULT '',
  -- The model and provider a conversation was configured with (AIConfigInput), when any.
  model_config     jsonb NOT NULL DEFAULT '{}',
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX ai_conversation_tenant_idx ON ai_conversation (tenant_id, cloud_account_id, updated_at DESC);

-- One row per message: the user's question or the assistant's answer.
CREATE TABLE ai_message (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id       uuid NOT NULL REFERENCES tenant (id),
  conversation_id uuid NOT NULL REFERENCES ai_conversation (id) ON DELETE CASCADE,
  role            text NOT NULL CHECK (role IN ('user', 'assistant')),
  content         text NOT NULL,
  -- The answer's references ([{type, id, title, ...}]); empty for the user's messages.
  refs            jsonb NOT NULL DEFAULT '[]',
  status          text NOT NULL DEFAULT 'completed',
  -- Who answered: 'builtin' (the offline analyst) or 'model:<name>'.
  answered_by     text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  search          tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED
);

CREATE INDEX ai_message_conversation_idx ON ai_message (conversation_id, created_at);
CREATE INDEX ai_message_search_idx ON ai_message USING gin (search);

-- What the assistant keeps from a conversation (facts, summaries) to use in later answers.
CREATE TABLE ai_memory (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid REFERENCES cloud_accounts (id),
  conversation_id  uuid REFERENCES ai_conversation (id) ON DELETE CASCADE,
  message_id       uuid REFERENCES ai_message (id) ON DELETE CASCADE,
  memory_type      text NOT NULL DEFAULT 'fact',
  content          text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX ai_memory_tenant_idx ON ai_memory (tenant_id, cloud_account_id, created_at DESC);
CREATE INDEX ai_memory_conversation_idx ON ai_memory (conversation_id, created_at DESC);

-- The platform records an answer cites (an event, a recommendation, a spend, a knowledge-base entry).
CREATE TABLE ai_reference (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid REFERENCES cloud_accounts (id),
  agent_id         uuid,
  conversation_id  uuid REFERENCES ai_conversation (id) ON DELETE CASCADE,
  message_id       uuid REFERENCES ai_message (id) ON DELETE CASCADE,
  -- The cited record's id and kind: event, recommendation, spend, knowledge_base, log, anomaly, ...
  reference_id     text NOT NULL,
  type             text NOT NULL,
  content          text,
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX ai_reference_tenant_idx ON ai_reference (tenant_id, cloud_account_id, created_at DESC);
CREATE INDEX ai_reference_conversation_idx ON ai_reference (conversation_id, created_at DESC);

-- A tenant's own knowledge bases (runbooks, architecture notes, ...): KnowledgebaseOutput.
CREATE TABLE ai_knowledgebase (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  name             text NOT NULL,
  description      text,
  kb_type          text NOT NULL DEFAULT 'document',
  kb_source        text,
  integration_id   uuid,
  data             text NOT NULL,
  data_filename    text NOT NULL DEFAULT '',
  data_format      text NOT NULL DEFAULT 'text',
  data_size_bytes  double precision GENERATED ALWAYS AS (octet_length(data)) STORED,
  status           text NOT NULL DEFAULT 'active',
  created_by       text,
  updated_by       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  search           tsvector GENERATED ALWAYS AS (
    to_tsvector('english', name || ' ' || coalesce(description, '') || ' ' || data)) STORED
);

CREATE INDEX ai_knowledgebase_tenant_idx ON ai_knowledgebase (tenant_id, cloud_account_id, name);
CREATE INDEX ai_knowledgebase_search_idx ON ai_knowledgebase USING gin (search);
