-- Browser sessions that ended before their cookie expired. A session cookie carries a random id; only
-- its SHA-256 is kept here, from sign-out until the cookie would have expired. Every instance hears
-- of a new row on platform_auth and refuses that cookie from then on.
--
-- users.sessions_valid_after ends all of a user's sessions at once: cookies issued before it are
-- refused. It moves when the password or the status changes (a trigger, so every path counts: the
-- admin command, the settings page, plain SQL) and on "sign out everywhere".
--
-- Not tracked in the metadata (engine/compile/model/secret-columns.ts refuses it).

CREATE TABLE ended_sessions (
  id_hash    text PRIMARY KEY,
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  ended_at   timestamptz NOT NULL DEFAULT now(),
  -- When the cookie expires anyway; rows past it may be deleted.
  expires_at timestamptz NOT NULL
);

CREATE INDEX ended_sessions_expires_idx ON ended_sessions (expires_at);

ALTER TABLE users ADD COLUMN sessions_valid_after timestamptz;

CREATE FUNCTION platform_auth_session_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('platform_auth', json_build_object('session', NEW.id_hash)::text);
  RETURN NULL;
END $$;

CREATE TRIGGER ended_sessions_notify AFTER INSERT ON ended_sessions
  FOR EACH ROW EXECUTE FUNCTION platform_auth_session_ended();

CREATE FUNCTION platform_auth_user_sessions_end() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.password_hash IS DISTINCT FROM OLD.password_hash OR NEW.status IS DISTINCT FROM OLD.status THEN
    NEW.sessions_valid_after := clock_timestamp();
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER users_sessions_end BEFORE UPDATE ON users
  FOR EACH ROW EXECUTE FUNCTION platform_auth_user_sessions_end();

CREATE FUNCTION platform_auth_user_sessions_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('platform_auth', json_build_object('user', NEW.id)::text);
  RETURN NULL;
END $$;

CREATE TRIGGER users_sessions_ended AFTER UPDATE ON users
  FOR EACH ROW WHEN (OLD.sessions_valid_after IS DISTINCT FROM NEW.sessions_valid_after)
  EXECUTE FUNCTION platform_auth_user_sessions_ended();
