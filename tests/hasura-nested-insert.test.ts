import * as path from 'node:path';
import { startTestServer, type TestServer } from './support/server';
import { backendName } from './support/database';

/**
 * Nested inserts, as Hasura v2 does them: through object relationships (the related row first, its key
 * fills the row's foreign key) and array relationships (the rows after, with the new parent's key), at
 * any depth, each level under its own table's insert permission, all or nothing. Fixture
 * tests/fixture-nested: authors (owner_id preset from the session), articles (check through `author`),
 * comments (check on the body). The tests run in order on one database.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    seed: false,
    env: {
      METADATA_DIR: path.resolve(__dirname, 'fixture-nested/metadata'),
      MIGRATIONS_DIR: path.resolve(__dirname, 'fixture-nested/sql'),
    },
  });
});
afterAll(() => server?.close());

const asUser = (id: number) => ({ 'x-hasura-role': 'user', 'x-hasura-user-id': String(id) });
const sql = (text: string) => server.started.db.query(text, []);
const counts = async () => {
  const [r] = await sql(
    'SELECT (SELECT count(*) FROM authors)::int AS a, (SELECT count(*) FROM articles)::int AS b, (SELECT count(*) FROM comments)::int AS c',
  );
  return r;
};

describe(`nested inserts (${backendName})`, () => {
  test('the schema has Hasura’s nested input types', async () => {
    const res = await server.gql(
      `{ a: __type(name: "articles_arr_rel_insert_input") { inputFields { name type { kind ofType { kind } } } }
         o: __type(name: "authors_obj_rel_insert_input") { inputFields { name type { kind ofType { name } } } }
         i: __type(name: "articles_insert_input") { inputFields { name } } }`,
      {},
      asUser(1),
    );
    expect(res.body.data.a.inputFields[0]).toEqual({
      name: 'data',
      type: { kind: 'NON_NULL', ofType: { kind: 'LIST' } },
    });
    expect(res.body.data.o.inputFields).toEqual([
      { name: 'data', type: { kind: 'NON_NULL', ofType: { name: 'authors_insert_input' } } },
      { name: 'on_conflict', type: { kind: 'INPUT_OBJECT', ofType: null } },
    ]);
    expect(res.body.data.i.inputFields.map((f: { name: string }) => f.name).sort()).toEqual([
      'author',
      'author_id',
      'comments',
      'rating',
      'title',
    ]);
  });

  test('array relationships to depth two: keys flow down, affected_rows counts every level, returning sees the rows', async () => {
    const before = await counts();
    const res = await server.gql(
      `mutation {
        insert_authors(objects: [
          {name: "Ann", articles: {data: [
            {title: "A1", comments: {data: [{body: "c1"}, {body: "c2"}]}},
            {title: "A2"}
          ]}},
          {name: "Bob", articles: {data: [{title: "B1", comments: {data: [{body: "c3"}]}}]}}
        ]) {
          affected_rows
          returning { name owner_id articles(order_by: {title: asc}) { title comments(order_by: {body: asc}) { body } } }
        }
      }`,
      {},
      asUser(7),
    );
    expect(res.body).toEqual({
      data: {
        insert_authors: {
          affected_rows: 8,
          returning: [
            {
              name: 'Ann',
              owner_id: 7,
              articles: [
                { title: 'A1', comments: [{ body: 'c1' }, { body: 'c2' }] },
                { title: 'A2', comments: [] },
              ],
            },
            { name: 'Bob', owner_id: 7, articles: [{ title: 'B1', comments: [{ body: 'c3' }] }] },
          ],
        },
      },
    });
    const after = await counts();
    expect([after.a - before.a, after.b - before.b, after.c - before.c]).toEqual([2, 3, 3]);
    const rows = await sql(
      `SELECT au.name, ar.title, c.body FROM comments c JOIN articles ar ON ar.id = c.article_id
       JOIN authors au ON au.id = ar.author_id WHERE au.name IN ('Ann', 'Bob') ORDER BY c.body`,
    );
    expect(rows).toEqual([
      { name: 'Ann', title: 'A1', body: 'c1' },
      { name: 'Ann', title: 'A1', body: 'c2' },
      { name: 'Bob', title: 'B1', body: 'c3' },
    ]);
  });

  test('an object relationship: the author is written first and its key fills author_id; insert_one too', async () => {
    const res = await server.gql(
      `mutation {
        insert_articles(objects: [{title: "O1", author: {data: {name: "Cy"}}, comments: {data: [{body: "x"}]}}]) {
          affected_rows returning { title author { name owner_id articles { title } } comments { body } }
        }
        insert_articles_one(object: {title: "O2", author: {data: {name: "Di"}}}) { title author { name } }
      }`,
      {},
      asUser(7),
    );
    expect(res.body).toEqual({
      data: {
        insert_articles: {
          affected_rows: 3,
          returning: [
            {
              title: 'O1',
              author: { name: 'Cy', owner_id: 7, articles: [{ title: 'O1' }] },
              comments: [{ body: 'x' }],
            },
          ],
        },
        insert_articles_one: { title: 'O2', author: { name: 'Di' } },
      },
    });
    const rows = await sql(
      `SELECT ar.title, au.name FROM articles ar JOIN authors au ON au.id = ar.author_id WHERE ar.title IN ('O1', 'O2') ORDER BY 1`,
    );
    expect(rows).toEqual([
      { title: 'O1', name: 'Cy' },
      { title: 'O2', name: 'Di' },
    ]);
  });

  test('on_conflict at a nested level: an existing author is updated and reused', async () => {
    const [{ id }] = await sql(`SELECT id FROM authors WHERE name = 'Cy'`);
    const res = await server.gql(
      `mutation {
        insert_articles(objects: [{title: "O3", author: {data: {name: "Cy"}, on_conflict: {constraint: authors_name_key, update_columns: [name]}}}]) {
          affected_rows returning { author { id name } }
        }
      }`,
      {},
      asUser(7),
    );
    expect(res.body).toEqual({
      data: { insert_articles: { affected_rows: 2, returning: [{ author: { id, name: 'Cy' } }] } },
    });
    expect(await sql(`SELECT count(*)::int AS n FROM authors WHERE name = 'Cy'`)).toEqual([{ n: 1 }]);
  });

  test('an object relationship upsert that does nothing writes nothing: not-supported, with its path', async () => {
    const before = await counts();
    const res = await server.gql(
      `mutation {
        insert_articles(objects: [{title: "ok", author: {data: {name: "Iva"}}}, {title: "O4", author: {data: {name: "Cy"}, on_conflict: {constraint: authors_name_key, update_columns: []}}}]) {
          affected_rows
        }
      }`,
      {},
      asUser(7),
    );
    expect(res.body.errors[0].extensions).toEqual({
      code: 'not-supported',
      path: '$.selectionSet.insert_articles.args.objects[1].author',
    });
    expect(await counts()).toEqual(before);
  });

  test('a column a parent row fills cannot also be given (Hasura’s message and path)', async () => {
    const res = await server.gql(
      `mutation { insert_authors(objects: [{name: "Ed", articles: {data: [{title: "t"}, {title: "u", author_id: 1}]}}]) { affected_rows } }`,
      {},
      asUser(7),
    );
    expect(res.body.errors[0]).toEqual({
      message: 'cannot insert "author_id" columns as their values are already being determined by parent insert',
      extensions: { code: 'validation-failed', path: '$.selectionSet.insert_authors.args.objects[0].articles.data[1]' },
    });
  });

  test('an object relationship beside the column it fills is refused (Hasura’s message and path)', async () => {
    const res = await server.gql(
      `mutation { insert_articles(objects: [{title: "t", author_id: 1, author: {data: {name: "Ed"}}}]) { affected_rows } }`,
      {},
      asUser(7),
    );
    expect(res.body.errors[0]).toEqual({
      message: 'cannot insert object relationship "author" as "author_id" column values are already determined',
      extensions: { code: 'validation-failed', path: '$.selectionSet.insert_articles.args.objects[0].author' },
    });
    expect(await sql(`SELECT count(*)::int AS n FROM authors WHERE name = 'Ed'`)).toEqual([{ n: 0 }]);
  });

  test('a composite key: both columns flow down an array relationship and up an object relationship', async () => {
    const res = await server.gql(
      `mutation {
        insert_series(objects: [{owner: "o", code: "s1", title: "S1", episodes: {data: [{name: "e1"}, {name: "e2"}]}}]) {
          affected_rows returning { episodes(order_by: {name: asc}) { name series_owner series_code } }
        }
        insert_episodes_one(object: {name: "e3", series: {data: {owner: "o", code: "s2", title: "S2"}}}) {
          series { code episodes { name } }
        }
      }`,
      {},
      asUser(7),
    );
    expect(res.body).toEqual({
      data: {
        insert_series: {
          affected_rows: 3,
          returning: [
            {
              episodes: [
                { name: 'e1', series_owner: 'o', series_code: 's1' },
                { name: 'e2', series_owner: 'o', series_code: 's1' },
              ],
            },
          ],
        },
        insert_episodes_one: { series: { code: 's2', episodes: [{ name: 'e3' }] } },
      },
    });
    expect(await sql('SELECT series_owner, series_code, name FROM episodes ORDER BY name')).toEqual([
      { series_owner: 'o', series_code: 's1', name: 'e1' },
      { series_owner: 'o', series_code: 's1', name: 'e2' },
      { series_owner: 'o', series_code: 's2', name: 'e3' },
    ]);
  });

  test('a bad type at depth two is refused with the path to the field, and nothing is written', async () => {
    const before = await counts();
    const res = await server.gql(
      `mutation { insert_authors(objects: [{name: "Ed", articles: {data: [{title: "t"}, {title: 5}]}}]) { affected_rows } }`,
      {},
      asUser(7),
    );
    expect(res.body.errors[0].extensions.code).toBe('validation-failed');
    expect(res.body.errors[0].extensions.path).toBe(
      '$.selectionSet.insert_authors.args.objects[0].articles.data[1].title',
    );
    expect(await counts()).toEqual(before);
  });

  test.each([
    [
      'the top level (author check: none; a constraint)',
      '{name: "Existing", articles: {data: [{title: "t"}]}}',
      'constraint-violation',
    ],
    [
      'level two (article check: rating)',
      '{name: "Fo", articles: {data: [{title: "t"}, {title: "u", rating: 9}]}}',
      'permission-error',
    ],
    [
      'level two (a CHECK constraint)',
      '{name: "Fo", articles: {data: [{title: "t"}, {title: ""}]}}',
      'permission-error',
    ],
    [
      'level three (comment check)',
      '{name: "Fo", articles: {data: [{title: "t", comments: {data: [{body: "ok"}, {body: "spam!"}]}}]}}',
      'permission-error',
    ],
  ])('a failure at %s writes nothing at any level', async (_, object, code) => {
    const before = await counts();
    const res = await server.gql(
      `mutation { insert_authors(objects: [{name: "Gi"}, ${object}]) { affected_rows } }`,
      {},
      asUser(7),
    );
    expect(res.body.errors[0].extensions.code).toBe(code);
    expect(await counts()).toEqual(before);
  });

  test('each level is checked with the session: an article under an author of another user is refused', async () => {
    const [{ id }] = await sql(`SELECT id FROM authors WHERE name = 'Existing'`);
    const before = await counts();
    // Author "Existing" belongs to user 1: user 7 may not add an article under it, even nested.
    const res = await server.gql(
      `mutation ($id: Int!) { insert_articles(objects: [{title: "t", author_id: $id, comments: {data: [{body: "b"}]}}]) { affected_rows } }`,
      { id },
      asUser(7),
    );
    expect(res.body.errors[0].extensions).toEqual({
      code: 'permission-error',
      path: '$.selectionSet.insert_articles.args.objects[0]',
    });
    expect(await counts()).toEqual(before);
    const ok = await server.gql(
      `mutation ($id: Int!) { insert_articles(objects: [{title: "mine", author_id: $id, comments: {data: [{body: "b"}]}}]) { affected_rows } }`,
      { id },
      asUser(1),
    );
    expect(ok.body).toEqual({ data: { insert_articles: { affected_rows: 2 } } });
  });

  test('a check refused at depth two names the rows refused; nothing is written', async () => {
    const before = await counts();
    const res = await server.gql(
      `mutation {
        insert_authors(objects: [{name: "Lia", articles: {data: [
          {title: "L1", comments: {data: [{body: "fine"}, {body: "spam!"}]}},
          {title: "L2", comments: {data: [{body: "fine too"}]}}
        ]}}]) { affected_rows }
      }`,
      {},
      asUser(7),
    );
    expect(res.body.errors[0]).toEqual({
      message: 'check constraint of an insert/update permission has failed',
      extensions: {
        code: 'permission-error',
        path: '$.selectionSet.insert_authors.args.objects[0].articles.data[0].comments.data',
      },
    });
    expect(await counts()).toEqual(before);
    // A single refused row is named itself.
    const one = await server.gql(
      `mutation { insert_articles(objects: [{title: "M1", author: {data: {name: "Mo"}}, rating: 9}]) { affected_rows } }`,
      {},
      asUser(7),
    );
    expect(one.body.errors[0].extensions.path).toBe('$.selectionSet.insert_articles.args.objects[0]');
    expect(await counts()).toEqual(before);
  });

  test('rows of one level with different columns: a column an object leaves out gets its DEFAULT', async () => {
    const res = await server.gql(
      `mutation {
        insert_authors(objects: [{name: "Jo"}, {name: "Kim", articles: {data: [{title: "K1", rating: 3}, {title: "K2"}, {rating: 1, title: "K3"}]}}]) {
          affected_rows
        }
      }`,
      {},
      asUser(7),
    );
    expect(res.body).toEqual({ data: { insert_authors: { affected_rows: 5 } } });
    expect(
      await sql(
        `SELECT ar.title, ar.rating, au.name FROM articles ar JOIN authors au ON au.id = ar.author_id WHERE au.name = 'Kim' ORDER BY 1`,
      ),
    ).toEqual([
      { title: 'K1', rating: 3, name: 'Kim' },
      { title: 'K2', rating: null, name: 'Kim' },
      { title: 'K3', rating: 1, name: 'Kim' },
    ]);
  });

  test('a role without insert permission on the nested table gets no such field, and writes nothing', async () => {
    const authorOnly = { 'x-hasura-role': 'author_only' };
    const types = await server.gql('{ __type(name: "authors_insert_input") { inputFields { name } } }', {}, authorOnly);
    expect(types.body.data.__type.inputFields.map((f: { name: string }) => f.name)).toEqual(['name']);
    const before = await counts();
    const res = await server.gql(
      'mutation { insert_authors(objects: [{name: "Only authors", articles: {data: [{title: "t"}]}}]) { affected_rows } }',
      {},
      authorOnly,
    );
    expect(res.body.errors[0].extensions.code).toBe('validation-failed');
    expect(res.body.errors[0].message).toContain('articles');
    expect(await counts()).toEqual(before);
  });

  test('nested objects given as variables', async () => {
    const res = await server.gql(
      `mutation ($objects: [authors_insert_input!]!) { insert_authors(objects: $objects) { affected_rows returning { name articles { title } } } }`,
      { objects: [{ name: 'Hal', articles: { data: [{ title: 'H1' }] } }] },
      asUser(7),
    );
    expect(res.body).toEqual({
      data: { insert_authors: { affected_rows: 2, returning: [{ name: 'Hal', articles: [{ title: 'H1' }] }] } },
    });
    // The same document with nested objects of another shape: a plan of its own, not the cached one.
    const again = await server.gql(
      `mutation ($objects: [authors_insert_input!]!) { insert_authors(objects: $objects) { affected_rows returning { name articles(order_by: {title: asc}) { title comments { body } } } } }`,
      {
        objects: [
          { name: 'Ivy', articles: { data: [{ title: 'I1', comments: { data: [{ body: 'q' }] } }, { title: 'I2' }] } },
        ],
      },
      asUser(7),
    );
    expect(again.body).toEqual({
      data: {
        insert_authors: {
          affected_rows: 4,
          returning: [
            {
              name: 'Ivy',
              articles: [
                { title: 'I1', comments: [{ body: 'q' }] },
                { title: 'I2', comments: [] },
              ],
            },
          ],
        },
      },
    });
  });
});
