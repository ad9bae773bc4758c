-- Sign-in by e-mail link: each link's token, kept only as its SHA-256 hash, valid 10 minutes and usable
-- once. The rows also count the requests per e-mail and per client address (the rate limit), and are
-- pruned a day after they expire.
CREATE TABLE email_sign_in_tokens (
  token_hash   text PRIMARY KEY,
  email        text NOT NULL,
  requested_by text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz
);

CREATE INDEX email_sign_in_tokens_email_idx ON email_sign_in_tokens (email, created_at);
CREATE INDEX email_sign_in_tokens_address_idx ON email_sign_in_tokens (requested_by, created_at);
