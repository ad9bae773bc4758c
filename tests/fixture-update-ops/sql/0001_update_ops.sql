-- Hasura's update operators: jsonb columns (data, meta, secret), a numeric one, a preset one.
CREATE TABLE owners (
  id integer PRIMARY KEY,
  name text NOT NULL
);
CREATE TABLE docs (
  id integer PRIMARY KEY,
  owner_id integer NOT NULL REFERENCES owners (id),
  title text NOT NULL,
  data jsonb,
  meta jsonb,
  secret jsonb,
  counter integer NOT NULL DEFAULT 0,
  updated_by text
);
INSERT INTO owners (id, name) VALUES (1, 'Ann'), (2, 'Bob');
