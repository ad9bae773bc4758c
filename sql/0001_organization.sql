-- Organization: tenants, users, the roles users hold and the tenants they belong to.
-- Columns the reference types as citext are text here (PGlite has no extensions); where a
-- case-insensitive match matters, a unique index on lower(...) gives it.

CREATE TABLE user_status_type (
  value   text PRIMARY KEY,
  comment text
);

INSERT INTO user_status_type (value, comment) VALUES
  ('active',    'The user may sign in'),
  ('inactive',  'The account has not been activated or was deactivated'),
  ('suspended', 'Sign-in is refused');

CREATE TABLE tenant_type (
  value   text PRIMARY KEY,
  comment text
);

INSERT INTO tenant_type (value, comment) VALUES
  ('Customer', 'A customer organisation'),
  ('Demo',     'A demonstration tenant'),
  ('QA',       'A tenant used for quality assurance');

CREATE TABLE tenant (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name       text NOT NULL,
  type       text REFERENCES tenant_type (value),
  created_at timestamp NOT NULL DEFAULT now(),
  created_by uuid NOT NULL,
  updated_at timestamp NOT NULL DEFAULT now(),
  updated_by uuid NOT NULL
);

CREATE UNIQUE INDEX tenant_name_key ON tenant (lower(name));
CREATE INDEX tenant_type_idx ON tenant (type);

CREATE TABLE users (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  username     text NOT NULL,
  display_name text NOT NULL,
  status       text NOT NULL DEFAULT 'active' REFERENCES user_status_type (value),
  created_at   timestamp NOT NULL DEFAULT now(),
  created_by   uuid,
  updated_at   timestamp NOT NULL DEFAULT now(),
  updated_by   uuid
);

-- username is the account e-mail; sign-in matches it case-insensitively.
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE INDEX users_status_idx ON users (status);

CREATE TABLE user_roles (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role        text NOT NULL,
  entity_type text NOT NULL,
  entity_id   text NOT NULL,
  tenant_id   uuid REFERENCES tenant (id) ON DELETE CASCADE,
  created_at  timestamp DEFAULT now(),
  created_by  uuid NOT NULL,
  updated_at  timestamp DEFAULT now()
);

CREATE UNIQUE INDEX user_roles_assignment_key ON user_roles (user_id, entity_type, entity_id, role);
CREATE INDEX user_roles_tenant_id_idx ON user_roles (tenant_id);

-- "user" is a reserved word: always quote it.
CREATE TABLE tenant_users (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant     uuid NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
  "user"     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  is_default boolean NOT NULL DEFAULT false,
  is_owner   boolean NOT NULL DEFAULT false,
  created_at timestamp NOT NULL DEFAULT now(),
  created_by uuid NOT NULL,
  updated_at timestamp NOT NULL DEFAULT now(),
  updated_by uuid NOT NULL,
  CONSTRAINT tenant_users_tenant_user_key UNIQUE (tenant, "user")
);

CREATE INDEX tenant_users_user_idx ON tenant_users ("user");
