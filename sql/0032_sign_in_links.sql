-- Sign-in with OpenID Connect / OAuth providers (Google, Azure AD, Azure AD B2C, Auth0, OneLogin, a
-- generic OpenID Connect provider) and the e-mail link: which outside account signs in as which user.
-- SAML keeps its own table (user_saml_links).
--
-- Not tracked in the metadata: only the sign-in code and the Profile page read it.

-- An account at a provider (the ID token's issuer and subject) signs in as one user. `provider` is
-- this service's name for the provider (google, azure-ad, oidc, email...), shown on the Profile page;
-- `email` is the address the provider gave at the last sign-in.
CREATE TABLE user_provider_links (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider      text NOT NULL,
  issuer        text NOT NULL,
  subject       text NOT NULL,
  email         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_login_at timestamptz,
  CONSTRAINT user_provider_links_account_key UNIQUE (issuer, subject)
);

CREATE INDEX user_provider_links_user_idx ON user_provider_links (user_id);
