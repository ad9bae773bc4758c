-- Rows of many column types, inserted many objects at a time (tests/insert-rows.test.ts).
CREATE TABLE typed_rows (
  id serial PRIMARY KEY,
  label text NOT NULL UNIQUE,
  n integer,
  amount numeric,
  big bigint,
  ratio double precision,
  flag boolean,
  doc jsonb,
  doc_json json,
  tags text[],
  nums integer[],
  at timestamptz,
  day date,
  ref uuid,
  note text NOT NULL DEFAULT 'default note',
  owner text
);
