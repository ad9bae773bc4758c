import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startTestServer, type TestServer } from './support/server';

/**
 * Hasura's read API on a fixture of its own (tests/hasura-read): column comparison operators (`_ceq`
 * ... `_clte`) in `where` and in permissions (with `["$", column]`), aggregates under a permission's
 * row limit, `count(columns:, distinct:)`, and the `path` argument of json and jsonb columns. Every
 * answer is checked against hand-written SQL on the same rows.
 */
const FIXTURE = path.resolve(__dirname, 'hasura-read');
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    seed: false,
    env: { METADATA_DIR: path.join(FIXTURE, 'metadata'), MIGRATIONS_DIR: path.join(FIXTURE, 'sql') },
  });
});
afterAll(() => server?.close());

const as = (role: string) => ({ 'x-hasura-role': role });
const sql = (text: string) => server.started.db.query(text);
const ids = async (text: string) => (await sql(text)).map((r) => Number(r.id));

async function data(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  const res = await server.gql(query, variables, headers);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

async function refusal(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  const res = await server.gql(query, variables, headers);
  expect(res.body.data).toBeUndefined();
  return res.body.errors[0] as { message: string; extensions: { code: string; path: string } };
}

describe('column comparison operators in where', () => {
  const cases: [string, string, string, string][] = [
    ['price', '_ceq', 'list_price', 'price = list_price'],
    ['price', '_cne', 'list_price', 'price <> list_price'],
    ['price', '_cgt', 'list_price', 'price > list_price'],
    ['price', '_cgte', 'list_price', 'price >= list_price'],
    ['price', '_clt', 'list_price', 'price < list_price'],
    ['stock', '_clte', 'reserved', 'stock <= reserved'],
    ['stock', '_ceq', 'reserved', 'stock = reserved'],
  ];
  test.each(cases)('%s %s %s is SQL %s', async (column, op, other, condition) => {
    const got = await data(`{ items(where: {${column}: {${op}: "${other}"}}, order_by: {id: asc}) { id } }`);
    const want = await ids(`SELECT id FROM items WHERE ${condition} ORDER BY id`);
    expect(want.length).toBeGreaterThan(0);
    expect(got.items.map((r: { id: number }) => r.id)).toEqual(want);
  });

  test('combines with value comparisons and _not, and works through a relationship', async () => {
    const got = await data(`{
      a: items(where: {_not: {price: {_clt: "list_price"}}, stock: {_gt: 2}}, order_by: {id: asc}) { id }
      b: shops(where: {items: {stock: {_ceq: "reserved"}}}, order_by: {id: asc}) { id }
    }`);
    expect(got.a.map((r: { id: number }) => r.id)).toEqual(
      await ids('SELECT id FROM items WHERE NOT (price < list_price) AND stock > 2 ORDER BY id'),
    );
    expect(got.b.map((r: { id: number }) => r.id)).toEqual(
      await ids(
        'SELECT id FROM shops s WHERE EXISTS (SELECT 1 FROM items i WHERE i.shop_id = s.id AND i.stock = i.reserved) ORDER BY id',
      ),
    );
  });

  test('the column name may sit inside a where variable, and each name gets its own plan', async () => {
    const q = 'query($w: items_bool_exp) { items(where: $w, order_by: {id: asc}) { id } }';
    const lt = await data(q, { w: { price: { _clt: 'list_price' } } });
    const gt = await data(q, { w: { price: { _cgt: 'list_price' } } });
    const eq = await data(q, { w: { stock: { _ceq: 'reserved' } } });
    const eqPrice = await data(q, { w: { stock: { _ceq: 'stock' } } });
    expect(lt.items.map((r: { id: number }) => r.id)).toEqual(
      await ids('SELECT id FROM items WHERE price < list_price ORDER BY id'),
    );
    expect(gt.items.map((r: { id: number }) => r.id)).toEqual(
      await ids('SELECT id FROM items WHERE price > list_price ORDER BY id'),
    );
    expect(eq.items.map((r: { id: number }) => r.id)).toEqual(
      await ids('SELECT id FROM items WHERE stock = reserved ORDER BY id'),
    );
    expect(eqPrice.items.map((r: { id: number }) => r.id)).toEqual(
      await ids('SELECT id FROM items WHERE stock = stock ORDER BY id'),
    );
  });

  test('an unknown column, a column the role cannot see and a column of another type are refused', async () => {
    const unknown = await refusal('{ items(where: {price: {_ceq: "nope"}}) { id } }');
    expect(unknown.extensions.code).toBe('validation-failed');
    expect(unknown.message).toBe(`column "nope" not found in type: 'items_select_column'`);
    expect(unknown.extensions.path).toBe('$.selectionSet.items.args.where.price._ceq');

    // unit_cost is a numeric column like price, readable by admin but not by viewer.
    expect((await data('{ items(where: {price: {_clt: "unit_cost"}}) { id } }')).items.length).toBeGreaterThan(0);
    const hidden = await refusal('{ items(where: {price: {_clt: "unit_cost"}}) { id } }', undefined, as('viewer'));
    expect(hidden.message).toBe(`column "unit_cost" not found in type: 'items_select_column'`);

    const typed = await refusal('{ items(where: {price: {_ceq: "title"}}) { id } }');
    expect(typed.message).toMatch(/cannot compare column "price" of type numeric with column "title" of type String/);

    const viaVariable = await refusal(
      'query($w: items_bool_exp) { items(where: $w) { id } }',
      {
        w: { price: { _ceq: 'unit_cost' } },
      },
      as('viewer'),
    );
    expect(viaVariable.message).toBe(`column "unit_cost" not found in type: 'items_select_column'`);

    const bare = await refusal('query($c: String) { items(where: {price: {_ceq: $c}}) { id } }', { c: 'list_price' });
    expect(bare.extensions.code).toBe('validation-failed');
    expect(bare.message).toMatch(/cannot be a variable/);
  });

  test('column operators are not aggregate predicates', async () => {
    const err = await refusal('{ shops(where: {items_aggregate: {count: {predicate: {_ceq: "id"}}}}) { id } }');
    expect(err.extensions.code).toBe('validation-failed');
    expect(err.message).toBe('_ceq is not a valid aggregate predicate');
  });
});

describe('column comparison operators in permissions', () => {
  test('a filter comparing two columns of the row (buyer: price < list_price)', async () => {
    const got = await data(
      '{ items(order_by: {id: asc}) { id } items_aggregate { aggregate { count } } }',
      undefined,
      as('buyer'),
    );
    const want = await ids('SELECT id FROM items WHERE price < list_price ORDER BY id');
    expect(got.items.map((r: { id: number }) => r.id)).toEqual(want);
    expect(got.items_aggregate.aggregate.count).toBe(want.length);
  });

  test('["$", column] names the permission table inside a relationship (seller: items of their shop owner)', async () => {
    const got = await data('{ items(order_by: {id: asc}) { id } }', undefined, as('seller'));
    const want = await ids(
      'SELECT i.id FROM items i JOIN shops s ON s.id = i.shop_id WHERE s.owner_id = i.seller_id ORDER BY i.id',
    );
    expect(want).not.toEqual(await ids('SELECT id FROM items ORDER BY id'));
    expect(got.items.map((r: { id: number }) => r.id)).toEqual(want);
  });

  test('each permission keeps its own root when nested in another table or in a where', async () => {
    const got = await data(
      `{
        shops(order_by: {id: asc}) { id items(order_by: {id: asc}) { id } }
        withFirst: shops(where: {items: {id: {_eq: 1}}}) { id }
        withSecond: shops(where: {items: {id: {_eq: 2}}}) { id }
      }`,
      undefined,
      as('seller'),
    );
    const shops = await ids(
      'SELECT s.id FROM shops s WHERE EXISTS (SELECT 1 FROM items i WHERE i.shop_id = s.id AND i.price >= s.min_price) ORDER BY s.id',
    );
    expect(got.shops.map((s: { id: number }) => s.id)).toEqual(shops);
    for (const s of got.shops as { id: number; items: { id: number }[] }[]) {
      expect(s.items.map((i) => i.id)).toEqual(
        await ids(
          `SELECT i.id FROM items i JOIN shops s ON s.id = i.shop_id WHERE s.id = ${s.id} AND s.owner_id = i.seller_id ORDER BY i.id`,
        ),
      );
    }
    // Item 1 is the seller's (its shop's owner sells it), item 2 is not: the where sees only the former.
    expect(got.withFirst).toEqual([{ id: 1 }]);
    expect(got.withSecond).toEqual([]);
  });

  test('metadata naming an unknown column or an ill-formed root reference is refused at start', async () => {
    for (const [operand, message] of [
      ['nope', '"nope" is not a column of "items"'],
      ['["$", nope]', '"nope" is not a column of "items"'],
      ['["x", price]', 'expected a column name, or ["$", column] for the root table'],
      ['title', 'cannot compare column "price" (numeric) with "title" (String)'],
    ]) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hasura-read-'));
      fs.cpSync(path.join(FIXTURE, 'metadata'), dir, { recursive: true });
      const file = path.join(dir, 'databases/default/tables/public_items.yaml');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('_clt: list_price', `_clt: ${operand}`));
      await expect(
        startTestServer({ seed: false, env: { METADATA_DIR: dir, MIGRATIONS_DIR: path.join(FIXTURE, 'sql') } }),
      ).rejects.toThrow(message);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // Four engines, each on an empty database of its own (the fixture's migrations).
  }, 180_000);
});

describe('aggregates', () => {
  test('under a permission limit, nodes are capped and count counts every permitted row', async () => {
    const got = await data(
      `{ items_aggregate(order_by: {id: desc}) { aggregate { count sum { stock } max { price } } nodes { id } } }`,
      undefined,
      as('viewer'),
    );
    const [want] = await sql('SELECT count(*)::int AS n, sum(stock)::int AS s, max(price)::float AS m FROM items');
    expect(want.n).toBe(6);
    expect(got.items_aggregate.aggregate).toEqual({ count: want.n, sum: { stock: want.s }, max: { price: want.m } });
    expect(got.items_aggregate.nodes.map((r: { id: number }) => r.id)).toEqual(
      await ids('SELECT id FROM items ORDER BY id DESC LIMIT 2'),
    );
    // A list keeps the cap.
    expect((await data('{ items { id } }', undefined, as('viewer'))).items).toHaveLength(2);
  });

  test('a request limit still applies to the aggregates; the permission limit to the nodes as well', async () => {
    const got = await data(
      `{ shops(order_by: {id: asc}) { id items_aggregate(limit: 3, order_by: {id: asc}) { aggregate { count } nodes { id } } } }`,
      undefined,
      as('viewer'),
    );
    for (const s of got.shops as {
      id: number;
      items_aggregate: { aggregate: { count: number }; nodes: { id: number }[] };
    }[]) {
      const rows = await ids(`SELECT id FROM items WHERE shop_id = ${s.id} ORDER BY id LIMIT 3`);
      expect(s.items_aggregate.aggregate.count).toBe(rows.length);
      expect(s.items_aggregate.nodes.map((n) => n.id)).toEqual(rows.slice(0, 2));
    }
  });

  test('count(columns:, distinct:) as plain SQL counts', async () => {
    const got = await data(`{ items_aggregate { aggregate {
      all: count
      allDistinct: count(distinct: true)
      content: count(columns: [content])
      contentDistinct: count(columns: [content], distinct: true)
      pair: count(columns: [content, stock])
      pairDistinct: count(columns: [content, stock], distinct: true)
    } } }`);
    const [want] = await sql(`SELECT
      count(*)::int AS all,
      count(content)::int AS content,
      (SELECT count(*)::int FROM (SELECT DISTINCT content FROM items WHERE content IS NOT NULL) d) AS content_distinct,
      count(*)::int AS pair,
      (SELECT count(*)::int FROM (SELECT DISTINCT content, stock FROM items) d) AS pair_distinct
      FROM items`);
    // Hasura counts a row value over several columns, never null itself: every row, and with
    // distinct every distinct combination, nulls included.
    expect(want).toEqual({ all: 6, content: 5, content_distinct: 3, pair: 6, pair_distinct: 5 });
    expect(got.items_aggregate.aggregate).toEqual({
      all: want.all,
      allDistinct: want.all,
      content: want.content,
      contentDistinct: want.content_distinct,
      pair: want.pair,
      pairDistinct: want.pair_distinct,
    });
  });

  test('count(columns:) in an aggregate filter of where counts the same way', async () => {
    const got = await data(`{
      pair: shops(where: {items_aggregate: {count: {arguments: [content, stock], predicate: {_eq: 2}}}}, order_by: {id: asc}) { id }
      distinct: shops(where: {items_aggregate: {count: {arguments: [content, stock], distinct: true, predicate: {_eq: 1}}}}, order_by: {id: asc}) { id }
    }`);
    expect(got.pair.map((s: { id: number }) => s.id)).toEqual(
      await ids(
        `SELECT s.id FROM shops s WHERE (SELECT count(*) FROM items i WHERE i.shop_id = s.id) = 2 ORDER BY s.id`,
      ),
    );
    expect(got.distinct.map((s: { id: number }) => s.id)).toEqual(
      await ids(`SELECT s.id FROM shops s WHERE (SELECT count(*) FROM (SELECT DISTINCT content, stock FROM items i
        WHERE i.shop_id = s.id) d) = 1 ORDER BY s.id`),
    );
  });
});

describe('the path argument of json and jsonb columns', () => {
  const paths: [string, string, string][] = [
    ['data', '$.a.b', "data #> '{a,b}'"],
    ['data', 'a.b', "data #> '{a,b}'"],
    ['data', '$.a.b[2].c', "data #> '{a,b,2,c}'"],
    ['data', '$.a.b[0]', "data #> '{a,b,0}'"],
    ['data', '$[1].a', "data #> '{1,a}'"],
    ['data', '$["odd key"]', `data #> '{"odd key"}'`],
    ['data', "$['k']", "data #> '{k}'"],
    ['data', '$', 'data'],
    ['raw', '$.a.b', "raw #> '{a,b}'"],
    ['raw', '$[1]', "raw #> '{1}'"],
  ];
  test.each(paths)('%s(path: %s) is SQL %s', async (column, p, expression) => {
    const got = await data(`{ items(order_by: {id: asc}) { id v: ${column}(path: ${JSON.stringify(p)}) } }`);
    const want = await sql(`SELECT id, (${expression})::text AS v FROM items ORDER BY id`);
    expect(want.some((r) => r.v !== null)).toBe(true);
    expect(got.items.map((r: { id: number; v: unknown }) => [r.id, r.v === null ? null : JSON.stringify(r.v)])).toEqual(
      want.map((r) => [Number(r.id), r.v === null ? null : JSON.stringify(JSON.parse(String(r.v)))]),
    );
  });

  test('a path works in nodes and through relationships, and the value is bound, not spliced', async () => {
    const evil = `$["x') --"]`;
    const got = await data(`{
      shops(order_by: {id: asc}) { items_aggregate(order_by: {id: asc}) { nodes { id data(path: "$.a.b") } } }
      items_by_pk(id: 1) { data(path: ${JSON.stringify(evil)}) }
    }`);
    const first = got.shops[0].items_aggregate.nodes as { id: number; data: unknown }[];
    expect(first[0]).toEqual({ id: 1, data: [1, 2, { c: 'x' }] });
    expect(got.items_by_pk).toEqual({ data: null });
  });

  test('an invalid path, or one given as a variable, is refused', async () => {
    for (const [p, why] of [
      ['$.a[', 'expected "]"'],
      ['$.', 'expected a key'],
      ['$.a[x]', 'expected an array index'],
      ['$a', 'unexpected "a"'],
      ['$["a]', 'to close the key'],
    ]) {
      const err = await refusal(`{ items { data(path: ${JSON.stringify(p)}) } }`);
      expect(err.extensions.code).toBe('validation-failed');
      expect(err.message).toContain('parse json path error');
      expect(err.message).toContain(why);
      expect(err.extensions.path).toBe('$.selectionSet.items.selectionSet.data.args.path');
    }
    const viaVariable = await refusal('query($p: String) { items { data(path: $p) } }', { p: '$.a' });
    expect(viaVariable.extensions.code).toBe('validation-failed');
    // path is offered on json and jsonb columns only.
    const notJson = await refusal('{ items { title(path: "$.a") } }');
    expect(notJson.extensions.code).toBe('validation-failed');
  });
});
