import * as path from 'node:path';
import { startTestServer, type TestServer } from './support/server';
import { backendName } from './support/database';

/**
 * Nested inserts whose related rows are written after their parent, and upserts at nested levels, as
 * Hasura v2 does them. Fixture tests/fixture-nested: authors have a one-to-one `profile` whose table holds
 * the author's key (foreign_key_constraint_on the remote table), a manual `settings` relationship with
 * `insertion_order: after_parent`, and `tags` (unique label) as an array relationship.
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
    `SELECT (SELECT count(*) FROM authors)::int AS authors, (SELECT count(*) FROM author_profiles)::int AS profiles,
            (SELECT count(*) FROM author_settings)::int AS settings, (SELECT count(*) FROM tags)::int AS tags`,
  );
  return r;
};

describe(`nested inserts written after their parent (${backendName})`, () => {
  test('one-to-one from the referenced side: the author first, its new key fills the profile', async () => {
    const res = await server.gql(
      `mutation {
        insert_authors_one(object: {name: "Pia", profile: {data: {bio: "writes"}}}) {
          id name profile { author_id bio }
        }
      }`,
      {},
      asUser(7),
    );
    const id = res.body.data?.insert_authors_one?.id;
    expect(res.body).toEqual({
      data: { insert_authors_one: { id, name: 'Pia', profile: { author_id: id, bio: 'writes' } } },
    });
    expect(await sql(`SELECT author_id, bio FROM author_profiles`)).toEqual([{ author_id: id, bio: 'writes' }]);
  });

  test('insertion_order: after_parent on a manual relationship, beside an array relationship, in a many insert', async () => {
    const res = await server.gql(
      `mutation {
        insert_authors(objects: [
          {name: "Quin", settings: {data: {theme: "dark"}}, profile: {data: {bio: "q"}}, tags: {data: [{label: "q1"}, {label: "q2"}]}},
          {name: "Rae", settings: {data: {theme: "light"}}}
        ]) {
          affected_rows
          returning { name settings { theme } profile { bio } tags(order_by: {label: asc}) { label } }
        }
      }`,
      {},
      asUser(7),
    );
    expect(res.body).toEqual({
      data: {
        insert_authors: {
          affected_rows: 7,
          returning: [
            {
              name: 'Quin',
              settings: { theme: 'dark' },
              profile: { bio: 'q' },
              tags: [{ label: 'q1' }, { label: 'q2' }],
            },
            { name: 'Rae', settings: { theme: 'light' }, profile: null, tags: [] },
          ],
        },
      },
    });
    expect(
      await sql(`SELECT a.name, s.theme FROM author_settings s JOIN authors a ON a.id = s.author_id ORDER BY a.name`),
    ).toEqual([
      { name: 'Quin', theme: 'dark' },
      { name: 'Rae', theme: 'light' },
    ]);
  });

  test('the key the parent fills may not be given in the related object (Hasura’s message and path)', async () => {
    const before = await counts();
    const res = await server.gql(
      `mutation { insert_authors_one(object: {name: "Sol", profile: {data: {author_id: 1, bio: "x"}}}) { id } }`,
      {},
      asUser(7),
    );
    expect(res.body.errors[0]).toEqual({
      message: 'cannot insert "author_id" columns as their values are already being determined by parent insert',
      extensions: { code: 'validation-failed', path: '$.selectionSet.insert_authors_one.args.object.profile.data' },
    });
    expect(await counts()).toEqual(before);
  });

  test('the related row’s own check (through its relationship to the new parent) refuses, and nothing is written', async () => {
    const before = await counts();
    const spam = await server.gql(
      `mutation { insert_authors_one(object: {name: "Tia", profile: {data: {bio: "spam here"}}}) { id } }`,
      {},
      asUser(7),
    );
    expect(spam.body.errors[0].extensions).toEqual({
      code: 'permission-error',
      path: '$.selectionSet.insert_authors_one.args.object.profile.data',
    });
    expect(await counts()).toEqual(before);
  });

  test('a constraint broken by rows written after their parent writes nothing at all, the parent included', async () => {
    const before = await counts();
    // "q1" is taken: the tags' unique key refuses it, and the author and profile written before go too.
    const res = await server.gql(
      `mutation {
        insert_authors_one(object: {name: "Uma", profile: {data: {bio: "fine"}}, tags: {data: [{label: "u1"}, {label: "q1"}]}}) { id }
      }`,
      {},
      asUser(7),
    );
    expect(res.body.errors[0].extensions.code).toBe('constraint-violation');
    expect(await counts()).toEqual(before);
    expect(await sql(`SELECT count(*)::int AS n FROM authors WHERE name = 'Uma'`)).toEqual([{ n: 0 }]);
  });
});

describe(`upserts at nested levels (${backendName})`, () => {
  test('update_columns: [] at an array level: conflicting rows are skipped, the others written', async () => {
    await server.gql(
      `mutation { insert_authors_one(object: {name: "Vic", tags: {data: [{label: "shared", note: "first"}]}}) { id } }`,
      {},
      asUser(7),
    );
    const res = await server.gql(
      `mutation {
        insert_authors_one(object: {name: "Wes", tags: {
          data: [{label: "shared", note: "second"}, {label: "w1"}],
          on_conflict: {constraint: tags_label_key, update_columns: []}
        }}) { name tags { label } }
      }`,
      {},
      asUser(7),
    );
    expect(res.body).toEqual({ data: { insert_authors_one: { name: 'Wes', tags: [{ label: 'w1' }] } } });
    expect(
      await sql(`SELECT t.note, a.name FROM tags t JOIN authors a ON a.id = t.author_id WHERE label = 'shared'`),
    ).toEqual([{ note: 'first', name: 'Vic' }]);
  });

  test('on_conflict with where at an array level: only rows the where admits are updated', async () => {
    await sql(
      `INSERT INTO tags (author_id, label, note) SELECT id, 'locked-tag', 'locked' FROM authors WHERE name = 'Vic'`,
    );
    const res = await server.gql(
      `mutation {
        insert_authors(objects: [{name: "Xia", tags: {
          data: [{label: "shared", note: "updated"}, {label: "locked-tag", note: "updated"}],
          on_conflict: {constraint: tags_label_key, update_columns: [note], where: {note: {_neq: "locked"}}}
        }}]) { affected_rows }
      }`,
      {},
      asUser(7),
    );
    // The author and the one tag the where admits; the locked tag is left as it was.
    expect(res.body).toEqual({ data: { insert_authors: { affected_rows: 2 } } });
    expect(await sql(`SELECT label, note FROM tags WHERE label IN ('shared', 'locked-tag') ORDER BY label`)).toEqual([
      { label: 'locked-tag', note: 'locked' },
      { label: 'shared', note: 'updated' },
    ]);
  });

  test('a top-level upsert that writes nothing cannot give its key to its children: not-supported, nothing written', async () => {
    const before = await counts();
    const res = await server.gql(
      `mutation {
        insert_authors(
          objects: [{name: "Yan", tags: {data: [{label: "y1"}]}}, {name: "Vic", tags: {data: [{label: "v2"}]}}],
          on_conflict: {constraint: authors_name_key, update_columns: []}
        ) { affected_rows }
      }`,
      {},
      asUser(7),
    );
    expect(res.body.errors[0]).toEqual({
      message: 'cannot proceed to insert array relations since insert to table "authors" affects zero rows',
      extensions: { code: 'not-supported', path: '$.selectionSet.insert_authors.args.objects[1]' },
    });
    expect(await counts()).toEqual(before);
  });

  test('a top-level upsert that updates hands the existing key to its children', async () => {
    const [{ id }] = await sql(`SELECT id FROM authors WHERE name = 'Vic'`);
    const res = await server.gql(
      `mutation {
        insert_authors(
          objects: [{name: "Vic", tags: {data: [{label: "v3"}]}}],
          on_conflict: {constraint: authors_name_key, update_columns: [name]}
        ) { affected_rows returning { id tags(order_by: {label: asc}) { label } } }
      }`,
      {},
      asUser(7),
    );
    expect(res.body.data.insert_authors.affected_rows).toBe(2);
    expect(res.body.data.insert_authors.returning[0].id).toBe(id);
    expect(res.body.data.insert_authors.returning[0].tags.map((t: { label: string }) => t.label)).toContain('v3');
  });

  test('one row named twice by the upserts of one request is a constraint-violation, and nothing is written', async () => {
    const before = await counts();
    const res = await server.gql(
      `mutation {
        insert_authors(objects: [
          {name: "Zed", tags: {data: [{label: "twice", note: "a"}], on_conflict: {constraint: tags_label_key, update_columns: [note]}}},
          {name: "Zoe", tags: {data: [{label: "twice", note: "b"}], on_conflict: {constraint: tags_label_key, update_columns: [note]}}}
        ]) { affected_rows }
      }`,
      {},
      asUser(7),
    );
    expect(res.body.errors[0].extensions.code).toBe('constraint-violation');
    expect(res.body.errors[0].message).toContain('cannot affect row a second time');
    expect(await counts()).toEqual(before);
  });
});
