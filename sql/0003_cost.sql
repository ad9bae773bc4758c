-- Cost management: spend lines, one per account, resource and day.

CREATE TABLE spends (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant            uuid NOT NULL REFERENCES tenant (id),
  cloud_account     uuid NOT NULL REFERENCES cloud_accounts (id),
  cloud_resource_id uuid REFERENCES cloud_resourses (id),
  business_unit     uuid,
  date              timestamp NOT NULL,
  amount            double precision NOT NULL,
  unit              text,
  tags              jsonb,
  exclude_aggregate boolean DEFAULT false
);

CREATE INDEX spends_tenant_date_idx ON spends (tenant, date);
CREATE INDEX spends_cloud_account_date_idx ON spends (cloud_account, date);
CREATE INDEX spends_cloud_resource_id_idx ON spends (cloud_resource_id);
