-- Sign-in: built-in credentials, API tokens and the failed-attempt counters that every instance
-- of the engine shares.
--
-- api_tokens is not tracked in the metadata: its secret_hash must never be readable through the
-- generic table operations. The signed-in user reaches their own tokens through the api_tokens,
-- create_api_token and delete_api_token operations (actions/api-tokens.ts).

-- scrypt, with its parameters and salt in the stored string (engine/auth/passwords.ts); null: the user
-- signs in through SSO only.
ALTER TABLE users ADD COLUMN password_hash text;

CREATE TABLE api_tokens (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  tenant_id    uuid NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  -- The first characters of the secret, shown in lists so that a user can tell tokens apart.
  prefix       text NOT NULL,
  -- SHA-256 of the secret, hex. The secret itself is shown once, at creation, and never stored.
  secret_hash  text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  -- Deletion is soft and irreversible: a deleted token never authenticates again.
  deleted_at   timestamptz,
  CONSTRAINT api_tokens_secret_hash_key UNIQUE (secret_hash)
);

CREATE INDEX api_tokens_user_idx ON api_tokens (user_id, created_at DESC) WHERE deleted_at IS NULL;

-- Failed sign-in attempts per key (a client address or an e-mail, hashed), in fixed windows.
CREATE TABLE auth_failures (
  key          text PRIMARY KEY,
  failures     integer NOT NULL,
  window_start timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX auth_failures_window_idx ON auth_failures (window_start);

-- Every instance LISTENs on platform_auth and drops what it remembered about a token or a user when
-- told. Triggers send the notices, so a token deleted or a user suspended by any path (the settings
-- page, GraphQL, the admin command, plain SQL) reaches every instance when the transaction commits.
CREATE FUNCTION platform_auth_token_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('platform_auth', json_build_object('token', OLD.id)::text);
  ELSIF NEW.deleted_at IS NOT NULL AND OLD.deleted_at IS NULL THEN
    PERFORM pg_notify('platform_auth', json_build_object('token', NEW.id)::text);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER api_tokens_revoked AFTER UPDATE OF deleted_at OR DELETE ON api_tokens
  FOR EACH ROW EXECUTE FUNCTION platform_auth_token_changed();

CREATE FUNCTION platform_auth_user_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('platform_auth', json_build_object('user', OLD.id)::text);
  ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
    PERFORM pg_notify('platform_auth', json_build_object('user', NEW.id)::text);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER users_status_changed AFTER UPDATE OF status OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION platform_auth_user_changed();

CREATE FUNCTION platform_auth_role_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('platform_auth', json_build_object('user', OLD.user_id)::text);
  RETURN NULL;
END $$;

CREATE TRIGGER user_roles_changed AFTER UPDATE OR DELETE ON user_roles
  FOR EACH ROW EXECUTE FUNCTION platform_auth_role_changed();
