-- The fixture of tests/hasura-read.test.ts: shops and their items, with pairs of comparable columns
-- (price and list_price, stock and reserved), nullable columns to count, and json and jsonb values.
CREATE TABLE shops (
  id integer PRIMARY KEY,
  name text NOT NULL,
  owner_id integer NOT NULL,
  min_price numeric
);
INSERT INTO shops (id, name, owner_id, min_price) VALUES
  (1, 'North', 10, 6),
  (2, 'South', 20, 10);

CREATE TABLE items (
  id integer PRIMARY KEY,
  shop_id integer NOT NULL REFERENCES shops (id),
  title text NOT NULL,
  content text,
  price numeric,
  list_price numeric,
  stock integer,
  reserved integer,
  seller_id integer,
  data jsonb,
  raw json,
  unit_cost numeric
);
INSERT INTO items (id, shop_id, title, content, price, list_price, stock, reserved, seller_id, data, raw, unit_cost) VALUES
  (1, 1, 'Apple', 'red', 5, 6, 10, 10, 10, '{"a": {"b": [1, 2, {"c": "x"}]}, "k": "v", "odd key": 1}', '{"a": {"b": "raw"}}', 100),
  (2, 1, 'Banana', NULL, 7, 7, 3, 5, 20, '{"a": {"b": [3]}}', NULL, 1),
  (3, 2, 'Cherry', 'dark', 9, 12, NULL, 1, 20, '{"a": {}}', '{"x": 1}', 2),
  (4, 2, 'Date', 'sweet', 4, 3, 8, 2, 10, NULL, NULL, 3),
  (5, 1, 'Elder', 'red', NULL, 4, 2, 2, 10, '{"k": "w"}', '[10, 20]', 4),
  (6, 2, 'Fig', 'red', 3, 5, 10, 0, 20, '[{"a": 1}, {"a": 2}]', NULL, 5);
