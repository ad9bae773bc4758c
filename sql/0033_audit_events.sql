-- Audit events (issue 17): sign-ins and their failures, token exchanges, lockouts, API tokens created
-- and deleted, SAML provisioning, operators' user commands. Written by the engine (engine/core/audit.ts)
-- and readable by the admin role only (metadata: no tenant role has a permission on it).
-- No foreign keys: an event outlives the user, token or tenant it names, and a failed sign-in names an
-- e-mail that may belong to no one. Never a password, a secret, a token or a hash.
CREATE TABLE audit_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  -- signin, token_exchange, lockout, api_token_created, api_token_deleted, saml_user_created, ...
  type text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('success', 'failure')),
  -- password, saml, api_token, cli ...
  method text,
  email text,
  user_id uuid,
  tenant_id uuid,
  token_id uuid,
  -- Why a failure failed, in words for people (never the value that was wrong).
  reason text,
  client_address text,
  -- The request's x-request-id: joins the event to its access line.
  request_id text,
  detail jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_events_occurred_at ON audit_events (occurred_at DESC);
CREATE INDEX audit_events_tenant ON audit_events (tenant_id, occurred_at DESC);
CREATE INDEX audit_events_user ON audit_events (user_id, occurred_at DESC);

-- Append-only: an event cannot be changed or deleted row by row (not even by the admin role's
-- GraphQL mutations); an operator prunes old events with TRUNCATE or a migration of their own.
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events cannot be changed or deleted' USING ERRCODE = 'check_violation';
END;
$$;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
