-- Security recommendations.
--
-- recommendation_vulnerabilities: findings on the container images that Kubernetes workloads run,
-- one row per vulnerability (CVE, GHSA, ...) found in a package of an image of a workload. Read by
-- recommendation_security_v2 and recommendation_security_groupings_v2.
-- severity_weight orders severities: Critical 5, High 4, Medium 3, Low 2, Info 1 (0 otherwise).

CREATE TABLE recommendation_vulnerabilities (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  namespace        text NOT NULL,
  workload_name    text NOT NULL,
  workload_type    text,
  image            text NOT NULL,
  package_id       text NOT NULL,
  vulnerability_id text NOT NULL,
  severity         text NOT NULL REFERENCES recommendation_severity_type (value),
  severity_weight  integer GENERATED ALWAYS AS (
    CASE severity WHEN 'Critical' THEN 5 WHEN 'High' THEN 4 WHEN 'Medium' THEN 3 WHEN 'Low' THEN 2 WHEN 'Info' THEN 1 ELSE 0 END
  ) STORED,
  status           text NOT NULL DEFAULT 'Open' REFERENCES recommendation_status_type (value),
  is_active        boolean NOT NULL DEFAULT true,
  -- The finding: title, installed and fixed versions, links.
  recommendation   jsonb NOT NULL DEFAULT '{}',
  created_at       timestamp NOT NULL DEFAULT now(),
  updated_at       timestamp NOT NULL DEFAULT now()
);

CREATE INDEX recommendation_vulnerabilities_tenant_account_idx ON recommendation_vulnerabilities (tenant_id, cloud_account_id, severity);
CREATE INDEX recommendation_vulnerabilities_workload_idx ON recommendation_vulnerabilities (tenant_id, namespace, workload_name);

-- CIS benchmark results of cloud accounts and clusters: one row per rule and account, the rule's
-- latest status (Open when it fails, Closed when it passes). Read by
-- recommendation_security_cis_groupings_v2. severity_weight as above.
CREATE TABLE recommendation_security_cis (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenant (id),
  cloud_account_id uuid NOT NULL REFERENCES cloud_accounts (id),
  rule_id          text NOT NULL,
  rule_name        text NOT NULL,
  rule_description text,
  severity         text NOT NULL REFERENCES recommendation_severity_type (value),
  severity_weight  integer GENERATED ALWAYS AS (
    CASE severity WHEN 'Critical' THEN 5 WHEN 'High' THEN 4 WHEN 'Medium' THEN 3 WHEN 'Low' THEN 2 WHEN 'Info' THEN 1 ELSE 0 END
  ) STORED,
  status           text NOT NULL DEFAULT 'Open' REFERENCES recommendation_status_type (value),
  updated_at       timestamp NOT NULL DEFAULT now(),
  CONSTRAINT recommendation_security_cis_rule_key UNIQUE (tenant_id, cloud_account_id, rule_id)
);
