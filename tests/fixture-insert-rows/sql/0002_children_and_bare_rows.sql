-- A child table, so that objects may carry nested rows (a plan that reads each object), and a table
-- whose every column has a default, so that objects may give no key at all.
CREATE TABLE typed_children (
  id serial PRIMARY KEY,
  row_id integer NOT NULL REFERENCES typed_rows (id) ON DELETE CASCADE,
  label text NOT NULL
);
CREATE TABLE bare_rows (
  id serial PRIMARY KEY,
  note text NOT NULL DEFAULT 'bare'
);
