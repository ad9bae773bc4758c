-- The e-mail a sign-in failure counter belongs to (the hashed key of its e-mail counter), on the
-- e-mail's own counter and on its counters per client address: an operator who clears a user's lockout
-- (`npm run admin -- clear-lockout --email`) clears them all without knowing the addresses.
-- Hashed like the keys: the table still holds no e-mail addresses.

ALTER TABLE auth_failures ADD COLUMN email_key text;

CREATE INDEX auth_failures_email_key_idx ON auth_failures (email_key) WHERE email_key IS NOT NULL;
