-- The fixture of the Hasura-compatibility tests (batches, stringified numbers, ltree, error codes).
-- Runs on PostgreSQL 15 (ltree from contrib) and on PGlite (which loads its ltree extension).
CREATE EXTENSION IF NOT EXISTS ltree;

-- One column of each numeric type; label is unique.
CREATE TABLE measures (
  id serial PRIMARY KEY,
  label text NOT NULL UNIQUE,
  big bigint,
  amount numeric,
  ratio double precision,
  approx real,
  whole integer,
  score integer NOT NULL DEFAULT 0 CHECK (score >= 0)
);
INSERT INTO measures (label, big, amount, ratio, approx, whole) VALUES
  ('a', 9007199254740993, 12345678901234567890.123456789, 0.1, 1.5, 7),
  ('b', 1, 0.5, 2.25, 2.5, 3);

-- Notes point at a measure; role user inserts only notes of its own with a priority up to 5.
CREATE TABLE notes (
  id serial PRIMARY KEY,
  measure_id integer NOT NULL REFERENCES measures (id),
  body text NOT NULL,
  priority integer NOT NULL DEFAULT 1,
  owner_id integer NOT NULL
);

-- The tree of the PostgreSQL ltree documentation.
CREATE TABLE categories (
  id serial PRIMARY KEY,
  path ltree NOT NULL,
  name text NOT NULL
);
INSERT INTO categories (path, name) VALUES
  ('Top', 'top'),
  ('Top.Science', 'science'),
  ('Top.Science.Astronomy', 'astronomy'),
  ('Top.Science.Astronomy.Astrophysics', 'astrophysics'),
  ('Top.Science.Astronomy.Cosmology', 'cosmology'),
  ('Top.Hobbies', 'hobbies'),
  ('Top.Hobbies.Amateurs_Astronomy', 'amateurs astronomy'),
  ('Top.Collections', 'collections'),
  ('Top.Collections.Pictures', 'pictures'),
  ('Top.Collections.Pictures.Astronomy', 'astronomy pictures'),
  ('Top.Collections.Pictures.Astronomy.Stars', 'stars'),
  ('Top.Collections.Pictures.Astronomy.Galaxies', 'galaxies'),
  ('Top.Collections.Pictures.Astronomy.Astronauts', 'astronauts');
