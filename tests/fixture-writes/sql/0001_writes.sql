-- JSON values written as GraphQL literals.
CREATE TABLE docs (
  id serial PRIMARY KEY,
  batch integer NOT NULL,
  doc jsonb,
  doc_json json
);
-- Counters: _inc on integer, numeric and bigint; update presets.
CREATE TABLE counters (
  id serial PRIMARY KEY,
  label text NOT NULL UNIQUE,
  n integer NOT NULL DEFAULT 0,
  amount numeric NOT NULL DEFAULT 0,
  big bigint NOT NULL DEFAULT 0,
  touched_by text
);
INSERT INTO counters (label, n, amount, big) VALUES ('a', 1, 1.5, 9007199254740993), ('b', 10, 0, 0);
-- Deletes through relationships.
CREATE TABLE owners (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE pets (id serial PRIMARY KEY, owner_id integer NOT NULL REFERENCES owners (id), name text NOT NULL);
INSERT INTO owners VALUES (1, 'ann'), (2, 'bob');
INSERT INTO pets (owner_id, name) VALUES (1, 'rex'), (1, 'tom'), (2, 'fido');
-- A table without a primary key.
CREATE TABLE log_lines (line text NOT NULL, level integer NOT NULL DEFAULT 0);
INSERT INTO log_lines VALUES ('one', 1), ('two', 2);
-- Views written through INSTEAD OF triggers (a join: not automatically updatable).
CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL, owner_id integer NOT NULL REFERENCES owners (id));
CREATE VIEW note_view AS SELECT n.id, n.body, o.name AS owner_name FROM notes n JOIN owners o ON o.id = n.owner_id;
CREATE VIEW note_view_nokey AS SELECT * FROM note_view;
CREATE FUNCTION note_view_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO notes (body, owner_id) VALUES (NEW.body, (SELECT id FROM owners WHERE name = NEW.owner_name))
      RETURNING id INTO NEW.id;
    RETURN NEW;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE notes SET body = NEW.body WHERE id = OLD.id;
    RETURN NEW;
  ELSE
    DELETE FROM notes WHERE id = OLD.id;
    RETURN OLD;
  END IF;
END $$;
CREATE TRIGGER note_view_write INSTEAD OF INSERT OR UPDATE OR DELETE ON note_view
  FOR EACH ROW EXECUTE FUNCTION note_view_write();
CREATE TRIGGER note_view_nokey_write INSTEAD OF INSERT OR UPDATE OR DELETE ON note_view_nokey
  FOR EACH ROW EXECUTE FUNCTION note_view_write();
