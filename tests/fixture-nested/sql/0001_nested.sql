CREATE TABLE authors (
  id serial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  owner_id integer
);
CREATE TABLE articles (
  id serial PRIMARY KEY,
  title text NOT NULL CHECK (title <> ''),
  author_id integer NOT NULL REFERENCES authors (id),
  rating integer
);
CREATE TABLE comments (
  id serial PRIMARY KEY,
  article_id integer NOT NULL REFERENCES articles (id),
  body text NOT NULL
);
INSERT INTO authors (name, owner_id) VALUES ('Existing', 1);
-- A composite key: a series is (owner, code); its episodes reference both columns.
CREATE TABLE series (
  owner text NOT NULL,
  code text NOT NULL,
  title text NOT NULL,
  PRIMARY KEY (owner, code)
);
CREATE TABLE episodes (
  id serial PRIMARY KEY,
  series_owner text NOT NULL,
  series_code text NOT NULL,
  name text NOT NULL,
  FOREIGN KEY (series_owner, series_code) REFERENCES series (owner, code)
);
-- One-to-one seen from the referenced side: the profile holds the key of its author.
CREATE TABLE author_profiles (
  author_id integer PRIMARY KEY REFERENCES authors (id),
  bio text NOT NULL
);
-- A manual relationship without a foreign key, written after its parent (insertion_order: after_parent).
CREATE TABLE author_settings (
  author_id integer PRIMARY KEY,
  theme text NOT NULL
);
-- An array relationship to a table with a unique key, for upserts at a nested level.
CREATE TABLE tags (
  id serial PRIMARY KEY,
  author_id integer NOT NULL REFERENCES authors (id),
  label text NOT NULL UNIQUE,
  note text
);
