-- Fixture of tests/hasura-schema.test.ts: two enum tables (one with a comment column, one without),
-- tickets that reference them, notes on tickets, and tables used only by the start-up refusals.
CREATE TABLE ticket_status (
  value text PRIMARY KEY,
  comment text
);
INSERT INTO ticket_status (value, comment) VALUES
  ('Open', 'Waiting for someone to take it'),
  ('In_progress', 'Someone works on it'),
  ('Closed', NULL);

CREATE TABLE priority (
  value text PRIMARY KEY
);
INSERT INTO priority (value) VALUES ('low'), ('high'), ('_urgent');

CREATE TABLE tickets (
  id integer PRIMARY KEY,
  title text NOT NULL,
  status text NOT NULL DEFAULT 'Open' REFERENCES ticket_status (value),
  priority text REFERENCES priority (value)
);
INSERT INTO tickets (id, title, status, priority) VALUES
  (1, 'Printer jam', 'Open', 'high'),
  (2, 'VPN down', 'In_progress', '_urgent'),
  (3, 'New laptop', 'Closed', NULL);

CREATE TABLE notes (
  id integer PRIMARY KEY,
  ticket_id integer NOT NULL REFERENCES tickets (id),
  body text NOT NULL
);
INSERT INTO notes (id, ticket_id, body) VALUES (1, 1, 'Paper stuck in tray 2'), (2, 2, 'Router restarted');

-- Enum tables that Hasura refuses: values that are not GraphQL names, and no rows at all.
CREATE TABLE bad_status (value text PRIMARY KEY, comment text);
INSERT INTO bad_status (value) VALUES ('Fine'), ('in progress'), ('2fa'), ('true');
CREATE TABLE empty_status (value text PRIMARY KEY);
