-- Recommendations, beyond the recommendation table itself (0004): how each one was resolved
-- (a ticket raised, an auto-pilot task run, ...).
--
-- Tenancy: the reference gives recommendation_resolution no tenant column, but every row belongs
-- to the tenant of its recommendation, so it has a tenant_id here that the permissions filter on.

CREATE TABLE recommendation_resolution (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Not in the reference: the tenant of recommendation_id.
  tenant_id         uuid NOT NULL REFERENCES tenant (id),
  recommendation_id uuid NOT NULL REFERENCES recommendation (id) ON DELETE CASCADE,
  type              text NOT NULL,
  type_reference_id text NOT NULL,
  resolver_type     text NOT NULL,
  resolver_id       text NOT NULL,
  status            text NOT NULL,
  status_message    text,
  data              jsonb,
  created_at        timestamp NOT NULL DEFAULT now(),
  updated_at        timestamp DEFAULT now()
);

CREATE INDEX recommendation_resolution_tenant_created_at_idx ON recommendation_resolution (tenant_id, created_at DESC);
CREATE INDEX recommendation_resolution_recommendation_id_idx ON recommendation_resolution (recommendation_id);

-- recommendation_groupings_v2 and the security/misconfiguration operations group by rule and
-- category within a tenant.
CREATE INDEX recommendation_tenant_category_rule_idx ON recommendation (tenant_id, category, rule_name);
CREATE INDEX recommendation_tenant_created_at_idx ON recommendation (tenant_id, created_at DESC);
