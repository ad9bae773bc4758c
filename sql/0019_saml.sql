-- SAML 2.0 single sign-on: the links between IdP accounts and users, the assertions already
-- accepted (shared by every instance, so that a response cannot be replayed against another one),
-- and the tenant attributes that SaaS provisioning reads.
--
-- None of these tables is tracked in the metadata: they are reached only by the sign-in code.

-- An IdP account (its issuer and NameID) signs in as one user.
CREATE TABLE user_saml_links (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  issuer     text NOT NULL,
  name_id    text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_login_at timestamptz,
  CONSTRAINT user_saml_links_account_key UNIQUE (issuer, name_id)
);

CREATE INDEX user_saml_links_user_idx ON user_saml_links (user_id);

-- Each assertion ID is accepted once. Rows are kept until the assertion itself has expired (after
-- that it is refused for its age anyway) and pruned as new assertions arrive.
CREATE TABLE saml_assertions_seen (
  assertion_id text NOT NULL,
  issuer       text NOT NULL,
  expires_at   timestamptz NOT NULL,
  seen_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, assertion_id)
);

CREATE INDEX saml_assertions_seen_expires_idx ON saml_assertions_seen (expires_at);

-- Tenant attributes of SaaS sign-in: the e-mail domains whose users join the tenant at their first
-- SAML login (lower case, without "@"), and the role those new users get.
CREATE TABLE tenant_attrs (
  tenant_id         uuid PRIMARY KEY REFERENCES tenant (id) ON DELETE CASCADE,
  allowed_domains   text[] NOT NULL DEFAULT '{}',
  auth_default_role text,
  updated_at        timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX tenant_attrs_domains_idx ON tenant_attrs USING gin (allowed_domains);
