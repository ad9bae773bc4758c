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
