-- AI and LLM: the knowledge base of rules (how to diagnose and fix what a rule finds) and the
-- knowledge graph of each account (nodes, edges between them, and attribute metadata).
--
-- knowledge_base has no tenant in the reference: it holds one article per rule_name, written by
-- the platform and shared by every tenant, so it is read-only for the tenant roles.

CREATE TABLE knowledge_base (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  rule_name   text NOT NULL,
  description text NOT NULL,
  diagnosis   text NOT NULL,
  impact      text NOT NULL,
  mitigation  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT knowledge_base_rule_name_key UNIQUE (rule_name)
);

CREATE TABLE knowledge_graph_node (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id  uuid NOT NULL REFERENCES cloud_accounts (id),
  unique_key        text NOT NULL,
  node_type         text,
  level             text NOT NULL,
  labels            jsonb NOT NULL DEFAULT '{}',
  properties        jsonb NOT NULL DEFAULT '{}',
  query_attributes  jsonb NOT NULL DEFAULT '{}',
  is_active         boolean NOT NULL DEFAULT true,
  last_sync_version numeric NOT NULL DEFAULT 0,
  created_at        timestamp NOT NULL DEFAULT now(),
  updated_at        timestamp NOT NULL DEFAULT now(),
  CONSTRAINT knowledge_graph_node_unique_key_key UNIQUE (tenant_id, cloud_account_id, unique_key)
);

CREATE INDEX knowledge_graph_node_tenant_type_idx ON knowledge_graph_node (tenant_id, node_type);
CREATE INDEX knowledge_graph_node_labels_idx ON knowledge_graph_node USING gin (labels jsonb_path_ops);

CREATE TABLE knowledge_graph_edge (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id           uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id    uuid NOT NULL REFERENCES cloud_accounts (id),
  source_node_id      uuid NOT NULL REFERENCES knowledge_graph_node (id) ON DELETE CASCADE,
  destination_node_id uuid NOT NULL REFERENCES knowledge_graph_node (id) ON DELETE CASCADE,
  relationship_type   text NOT NULL,
  level               text NOT NULL,
  properties          jsonb NOT NULL DEFAULT '{}',
  created_at          timestamp NOT NULL DEFAULT now(),
  updated_at          timestamp NOT NULL DEFAULT now()
);

CREATE INDEX knowledge_graph_edge_tenant_type_idx ON knowledge_graph_edge (tenant_id, relationship_type);
CREATE INDEX knowledge_graph_edge_source_node_id_idx ON knowledge_graph_edge (source_node_id);
CREATE INDEX knowledge_graph_edge_destination_node_id_idx ON knowledge_graph_edge (destination_node_id);

CREATE TABLE knowledge_graph_metadata (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id             uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id      uuid NOT NULL REFERENCES cloud_accounts (id),
  attribute_key         text NOT NULL,
  attribute_type        text NOT NULL,
  attribute_value       jsonb NOT NULL,
  additional_properties jsonb,
  last_sync_at          timestamp
);

CREATE INDEX knowledge_graph_metadata_tenant_key_idx ON knowledge_graph_metadata (tenant_id, cloud_account_id, attribute_key);
