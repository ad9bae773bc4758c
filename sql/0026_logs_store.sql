-- The log store behind logs_query, and what tickets_insert_one needs: ticketing integrations and
-- per-tenant ticket numbers. Runs on PostgreSQL 15+ and on PGlite: no extension is needed
-- (pg_trgm would index line filters, but PGlite does not ship it loaded, so nothing relies on it).

-- logs_query reads one account's lines newest first: WHERE cloud_account_id = $ ORDER BY ts DESC,
-- id DESC LIMIT n. With id in the key the order is the index's own (no sort step), and a selector
-- matching many lines stops after the newest n. It supersedes (cloud_account_id, ts DESC).
CREATE INDEX logs_account_ts_id_idx ON logs (cloud_account_id, ts DESC, id DESC);
DROP INDEX IF EXISTS logs_cloud_account_ts_idx;

-- `=` matchers become labels @> '{...}' (GIN jsonb_path_ops, logs_labels_idx of 0008). Whether the
-- planner walks the time index or that GIN bitmap depends on how many lines it expects the
-- containment to match, which it estimates from the column's statistics: a larger sample makes the
-- estimate good for labels of rarer values too.
ALTER TABLE logs ALTER COLUMN labels SET STATISTICS 1000;

-- Ticketing (and other) integrations of a tenant. Not tracked in the GraphQL metadata: `config`
-- holds credentials (for Jira: base_url, email, api_token) that only server-side code reads.
CREATE TABLE integrations (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  name             text NOT NULL,
  -- jira, github, ... (ticket_tool_types for ticketing integrations)
  integration_type text NOT NULL,
  config           jsonb NOT NULL DEFAULT '{}',
  enabled          boolean NOT NULL DEFAULT true,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX integrations_tenant_id_idx ON integrations (tenant_id);

-- The platform's own ticket numbers, per tenant and project key (OPS-1, OPS-2 ...): one row
-- incremented by an upsert, so that two tickets created at once never get the same number.
CREATE TABLE ticket_sequences (
  tenant      uuid NOT NULL REFERENCES tenant (id),
  project_key text NOT NULL,
  last_value  bigint NOT NULL,
  PRIMARY KEY (tenant, project_key)
);
