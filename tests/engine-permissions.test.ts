import type { TestServer } from './support/server';
import { asReader, asUser, BOOK, startFixtureServer } from './support/fixture';

/**
 * Role `user` (tests/fixture/metadata): books and their editions filtered by owner_id =
 * X-Hasura-User-Id, internal_note hidden, authors capped at 4 rows without aggregates, writes to books
 * with a check and session-variable presets. Role `reader`: countries and genres, no mutations.
 * User 1 owns The First Light, Second Thoughts, Bright Nights and Autumn Poems; user 2 owns
 * Third Time and Quiet Verses.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server?.close());

const validation = (message: string, path: string) => ({
  errors: [{ message, extensions: { path, code: 'validation-failed' } }],
});

describe('rows of another user are invisible', () => {
  test('in lists, even when asked for by a where', async () => {
    const one = await server.gql(
      '{ books(order_by: {title: asc}) { title owner_id } other: books(where: {title: {_eq: "Third Time"}}) { title } }',
      {},
      asUser(1),
    );
    expect(one.body).toEqual({
      data: {
        books: [
          { title: 'Autumn Poems', owner_id: 1 },
          { title: 'Bright Nights', owner_id: 1 },
          { title: 'Second Thoughts', owner_id: 1 },
          { title: 'The First Light', owner_id: 1 },
        ],
        other: [],
      },
    });
    const two = await server.gql('{ books(order_by: {title: asc}) { title } }', {}, asUser(2));
    expect(two.body).toEqual({ data: { books: [{ title: 'Quiet Verses' }, { title: 'Third Time' }] } });
    const nobody = await server.gql('{ books { title } }', {}, asUser(3));
    expect(nobody.body).toEqual({ data: { books: [] } });
  });

  test('in aggregates', async () => {
    const query = '{ books_aggregate { aggregate { count sum { pages } max { title } } nodes { title } } }';
    const one = await server.gql(
      query.replace('books_aggregate {', 'books_aggregate(order_by: {title: asc}) {'),
      {},
      asUser(1),
    );
    expect(one.body).toEqual({
      data: {
        books_aggregate: {
          aggregate: { count: 4, sum: { pages: 1130 }, max: { title: 'The First Light' } },
          nodes: [
            { title: 'Autumn Poems' },
            { title: 'Bright Nights' },
            { title: 'Second Thoughts' },
            { title: 'The First Light' },
          ],
        },
      },
    });
    const two = await server.gql('{ books_aggregate { aggregate { count sum { pages } } } }', {}, asUser(2));
    expect(two.body).toEqual({ data: { books_aggregate: { aggregate: { count: 2, sum: { pages: 240 } } } } });
  });

  test('in by_pk', async () => {
    const query = `{ books_by_pk(id: "${BOOK.thirdTime}") { title } }`;
    expect((await server.gql(query, {}, asUser(1))).body).toEqual({ data: { books_by_pk: null } });
    expect((await server.gql(query, {}, asUser(2))).body).toEqual({ data: { books_by_pk: { title: 'Third Time' } } });
  });

  test('in nested relationships and relationship aggregates', async () => {
    const res = await server.gql(
      `{ authors(order_by: {id: asc}) {
      id
      books(order_by: {title: asc}) { title editions { edition } }
      books_aggregate { aggregate { count } }
    } }`,
      {},
      asUser(2),
    );
    expect(res.body).toEqual({
      data: {
        authors: [
          {
            id: 1,
            books: [{ title: 'Third Time', editions: [{ edition: 1 }] }],
            books_aggregate: { aggregate: { count: 1 } },
          },
          { id: 2, books: [{ title: 'Quiet Verses', editions: [] }], books_aggregate: { aggregate: { count: 1 } } },
          { id: 3, books: [], books_aggregate: { aggregate: { count: 0 } } },
          { id: 4, books: [], books_aggregate: { aggregate: { count: 0 } } },
        ],
      },
    });
  });

  test('in a table whose filter goes through a relationship (editions of own books)', async () => {
    const query =
      '{ editions(order_by: [{year: asc}]) { year book { title } } editions_aggregate { aggregate { count } } }';
    expect((await server.gql(query, {}, asUser(1))).body).toEqual({
      data: {
        editions: [
          { year: 2001, book: { title: 'The First Light' } },
          { year: 2003, book: { title: 'The First Light' } },
          { year: 2010, book: { title: 'Bright Nights' } },
        ],
        editions_aggregate: { aggregate: { count: 3 } },
      },
    });
    expect((await server.gql(query, {}, asUser(2))).body).toEqual({
      data: {
        editions: [{ year: 2008, book: { title: 'Third Time' } }],
        editions_aggregate: { aggregate: { count: 1 } },
      },
    });
  });

  test('in filters, ordering and aggregate predicates through relationships', async () => {
    const res = await server.gql(
      `{
      byBook: authors(where: {books: {title: {_eq: "Third Time"}}}) { id }
      byCount: authors(where: {books_aggregate: {count: {predicate: {_gt: 1}}}}, order_by: {id: asc}) { id }
      ordered: authors(order_by: [{books_aggregate: {count: desc}}, {id: asc}]) { id }
    }`,
      {},
      asUser(1),
    );
    expect(res.body).toEqual({
      data: { byBook: [], byCount: [{ id: 1 }], ordered: [{ id: 1 }, { id: 2 }, { id: 4 }, { id: 3 }] },
    });
  });
});

describe('a column left out of the permission does not exist for the role', () => {
  test.each([
    [
      'selected',
      '{ books { internal_note } }',
      'Cannot query field "internal_note" on type "books".',
      '$.selectionSet.books.selectionSet.internal_note',
    ],
    [
      'in where',
      '{ books(where: {internal_note: {_is_null: true}}) { id } }',
      'Field "internal_note" is not defined by type "books_bool_exp".',
      '$.selectionSet.books.args.where.internal_note',
    ],
    [
      'in order_by',
      '{ books(order_by: {internal_note: asc}) { id } }',
      'Field "internal_note" is not defined by type "books_order_by".',
      '$.selectionSet.books.args.order_by.internal_note',
    ],
    [
      'in an aggregate',
      '{ books_aggregate { aggregate { max { internal_note } } } }',
      'Cannot query field "internal_note" on type "books_max_fields".',
      '$.selectionSet.books_aggregate.selectionSet.aggregate.selectionSet.max.selectionSet.internal_note',
    ],
    [
      'in returning',
      'mutation { delete_books(where: {}) { returning { internal_note } } }',
      'Cannot query field "internal_note" on type "books".',
      '$.selectionSet.delete_books.selectionSet.returning.selectionSet.internal_note',
    ],
  ])('%s', async (_name, query, message, path) => {
    expect((await server.gql(query, {}, asUser(1))).body).toEqual(validation(message, path));
  });

  test('the admin sees it', async () => {
    const res = await server.gql(`{ books_by_pk(id: "${BOOK.firstLight}") { internal_note } }`);
    expect(res.body).toEqual({ data: { books_by_pk: { internal_note: 'bestseller' } } });
  });
});

describe('the row limit of the permission', () => {
  test('caps lists, whatever the limit argument says', async () => {
    const query = 'query ($l: Int) { authors(order_by: {id: desc}, limit: $l) { id } }';
    expect((await server.gql(query, {}, asUser(1))).body).toEqual({
      data: { authors: [{ id: 5 }, { id: 4 }, { id: 3 }, { id: 2 }] },
    });
    expect((await server.gql(query, { l: 10 }, asUser(1))).body).toEqual({
      data: { authors: [{ id: 5 }, { id: 4 }, { id: 3 }, { id: 2 }] },
    });
    expect((await server.gql(query, { l: 2 }, asUser(1))).body).toEqual({ data: { authors: [{ id: 5 }, { id: 4 }] } });
    expect((await server.gql(query, { l: 10 })).body.data.authors).toHaveLength(5);
  });

  test('aggregates are not allowed where the permission does not allow them', async () => {
    expect((await server.gql('{ authors_aggregate { aggregate { count } } }', {}, asUser(1))).body).toEqual(
      validation(
        'Cannot query field "authors_aggregate" on type "query_root". Did you mean "books_aggregate", "editions_aggregate", or "countries_aggregate"?',
        '$.selectionSet.authors_aggregate',
      ),
    );
  });
});

describe('writes of role user', () => {
  test('insert: the owner is preset from the session and cannot be given', async () => {
    const res = await server.gql(
      `mutation { insert_books_one(object: {id: "bbbbbbbb-0000-4000-8000-000000000001", author_id: 3, title: "Mine", pages: 10}) { title owner_id updated_by } }`,
      {},
      asUser(2),
    );
    expect(res.body).toEqual({ data: { insert_books_one: { title: 'Mine', owner_id: 2, updated_by: null } } });
    const given = await server.gql(
      'mutation { insert_books_one(object: {author_id: 3, title: "Theirs", owner_id: 1}) { id } }',
      {},
      asUser(2),
    );
    expect(given.body).toEqual(
      validation(
        'Field "owner_id" is not defined by type "books_insert_input".',
        '$.selectionSet.insert_books_one.args.object.owner_id',
      ),
    );
  });

  test('insert: a failed check is a permission-error and persists nothing', async () => {
    const res = await server.gql(
      `mutation {
      insert_books(objects: [{id: "bbbbbbbb-0000-4000-8000-000000000002", author_id: 3, title: "Fine", pages: 5}, {id: "bbbbbbbb-0000-4000-8000-000000000003", author_id: 3, title: "Empty", pages: 0}]) { affected_rows }
    }`,
      {},
      asUser(2),
    );
    expect(res.body).toEqual({
      errors: [
        {
          message: 'check constraint of an insert/update permission has failed',
          extensions: { path: '$.selectionSet.insert_books', code: 'permission-error' },
        },
      ],
    });
    const after = await server.gql(
      '{ books(where: {id: {_in: ["bbbbbbbb-0000-4000-8000-000000000002", "bbbbbbbb-0000-4000-8000-000000000003"]}}) { id } }',
    );
    expect(after.body).toEqual({ data: { books: [] } });
  });

  test('update: only own rows change; the updater is preset from the session', async () => {
    const res = await server.gql(
      'mutation { update_books(where: {}, _inc: {pages: 1}) { affected_rows returning { title pages updated_by } } }',
      {},
      asUser(2),
    );
    res.body.data.update_books.returning.sort((a: { title: string }, b: { title: string }) =>
      a.title.localeCompare(b.title),
    );
    expect(res.body).toEqual({
      data: {
        update_books: {
          affected_rows: 3,
          returning: [
            { title: 'Mine', pages: 11, updated_by: 2 },
            { title: 'Quiet Verses', pages: 91, updated_by: 2 },
            { title: 'Third Time', pages: 151, updated_by: 2 },
          ],
        },
      },
    });
    const others = await server.gql(
      '{ books(where: {owner_id: {_eq: 1}}, order_by: {pages: asc}) { pages updated_by } }',
    );
    expect(others.body).toEqual({
      data: { books: [120, 210, 320, 480].map((pages) => ({ pages, updated_by: null })) },
    });
  });

  test('update: relationships in the answer keep the role filters', async () => {
    const res = await server.gql(
      `mutation { update_books(where: {author_id: {_eq: 1}}, _set: {genre: fiction}) {
      affected_rows returning { title editions(order_by: {edition: asc}) { edition } author { name books_aggregate { aggregate { count } } } }
    } }`,
      {},
      asUser(2),
    );
    expect(res.body).toEqual({
      data: {
        update_books: {
          affected_rows: 1,
          returning: [
            {
              title: 'Third Time',
              editions: [{ edition: 1 }],
              author: { name: 'Alice Archer', books_aggregate: { aggregate: { count: 1 } } },
            },
          ],
        },
      },
    });
  });

  test("update: another user's row is not found by update_by_pk nor by update", async () => {
    const res = await server.gql(
      `mutation {
      byPk: update_books_by_pk(pk_columns: {id: "${BOOK.firstLight}"}, _set: {title: "stolen"}) { title }
      byWhere: update_books(where: {id: {_eq: "${BOOK.firstLight}"}}, _set: {title: "stolen"}) { affected_rows }
    }`,
      {},
      asUser(2),
    );
    expect(res.body).toEqual({ data: { byPk: null, byWhere: { affected_rows: 0 } } });
    expect((await server.gql(`{ books_by_pk(id: "${BOOK.firstLight}") { title } }`)).body).toEqual({
      data: { books_by_pk: { title: 'The First Light' } },
    });
  });

  test('update: a failed check is a permission-error and changes nothing; columns outside the permission do not exist', async () => {
    const res = await server.gql(
      `mutation { update_books_by_pk(pk_columns: {id: "${BOOK.thirdTime}"}, _set: {pages: 0}) { pages } }`,
      {},
      asUser(2),
    );
    expect(res.body).toEqual({
      errors: [
        {
          message: 'check constraint of an insert/update permission has failed',
          extensions: { path: '$.selectionSet.update_books_by_pk', code: 'permission-error' },
        },
      ],
    });
    expect((await server.gql(`{ books_by_pk(id: "${BOOK.thirdTime}") { pages } }`)).body).toEqual({
      data: { books_by_pk: { pages: 151 } },
    });
    const column = await server.gql(
      `mutation { update_books_by_pk(pk_columns: {id: "${BOOK.thirdTime}"}, _set: {published: null}) { pages } }`,
      {},
      asUser(2),
    );
    expect(column.body).toEqual(
      validation(
        'Field "published" is not defined by type "books_set_input".',
        '$.selectionSet.update_books_by_pk.args._set.published',
      ),
    );
  });

  test("delete: another user's rows are not deleted; own rows are", async () => {
    const theirs = await server.gql(
      `mutation {
      byWhere: delete_books(where: {title: {_eq: "Third Time"}}) { affected_rows }
      byPk: delete_books_by_pk(id: "${BOOK.thirdTime}") { title }
    }`,
      {},
      asUser(1),
    );
    expect(theirs.body).toEqual({ data: { byWhere: { affected_rows: 0 }, byPk: null } });
    const mine = await server.gql(
      'mutation { delete_books(where: {title: {_eq: "Mine"}}) { affected_rows returning { title owner_id } } }',
      {},
      asUser(2),
    );
    expect(mine.body).toEqual({
      data: { delete_books: { affected_rows: 1, returning: [{ title: 'Mine', owner_id: 2 }] } },
    });
    const all = await server.gql('{ books_aggregate { aggregate { count } } }');
    expect(all.body).toEqual({ data: { books_aggregate: { aggregate: { count: 6 } } } });
  });

  test('a role without write permissions has no mutations; a missing session variable is refused', async () => {
    const reader = await server.gql('mutation { delete_countries(where: {}) { affected_rows } }', {}, asReader);
    expect(reader.body).toEqual({
      errors: [
        { message: 'no mutations exist for role "reader"', extensions: { path: '$', code: 'validation-failed' } },
      ],
    });
    const noUser = await server.gql('{ books { id } }', {}, { 'x-hasura-role': 'user' });
    expect(noUser.status).toBe(400);
    expect(noUser.body).toEqual({
      errors: [
        { message: 'missing session variable: "x-hasura-user-id"', extensions: { path: '$', code: 'not-found' } },
      ],
    });
  });
});

describe('introspection shows only what the role may see', () => {
  const names = (res: {
    body: { data: { __type: { fields?: { name: string }[]; inputFields?: { name: string }[] } | null } };
  }) => {
    const t = res.body.data.__type;
    return t && (t.fields ?? t.inputFields ?? []).map((f) => f.name);
  };

  test('root types', async () => {
    const query = '{ __schema { queryType { name } mutationType { name } subscriptionType { name } } }';
    const both = {
      data: {
        __schema: {
          queryType: { name: 'query_root' },
          mutationType: { name: 'mutation_root' },
          subscriptionType: { name: 'subscription_root' },
        },
      },
    };
    expect((await server.gql(query)).body).toEqual(both);
    expect((await server.gql(query, {}, asUser(1))).body).toEqual(both);
    expect((await server.gql(query, {}, asReader)).body).toEqual({
      data: {
        __schema: {
          queryType: { name: 'query_root' },
          mutationType: null,
          subscriptionType: { name: 'subscription_root' },
        },
      },
    });
  });

  test('the fields of books', async () => {
    const query = '{ __type(name: "books") { fields { name } } }';
    expect(names(await server.gql(query, {}, asUser(1)))).toEqual([
      'id',
      'author_id',
      'title',
      'pages',
      'price',
      'published',
      'genre',
      'owner_id',
      'updated_by',
      'author',
      'genre_info',
      'editions',
      'editions_aggregate',
    ]);
    expect(names(await server.gql(query))).toEqual([
      'id',
      'author_id',
      'title',
      'pages',
      'price',
      'published',
      'genre',
      'owner_id',
      'updated_by',
      'internal_note',
      'author',
      'genre_info',
      'editions',
      'editions_aggregate',
    ]);
    expect((await server.gql(query, {}, asReader)).body).toEqual({ data: { __type: null } });
  });

  test('root fields and input types', async () => {
    const fields = async (type: string, headers: Record<string, string>) =>
      names(await server.gql(`{ __type(name: "${type}") { fields { name } inputFields { name } } }`, {}, headers));
    expect(await fields('query_root', asReader)).toEqual(['countries', 'countries_by_pk', 'genres', 'genres_by_pk']);
    expect(await fields('query_root', asUser(1))).toEqual([
      'authors',
      'authors_by_pk',
      'books',
      'books_aggregate',
      'books_by_pk',
      'countries',
      'countries_aggregate',
      'countries_by_pk',
      'editions',
      'editions_aggregate',
      'editions_by_pk',
      'genres',
      'genres_by_pk',
    ]);
    expect(await fields('mutation_root', asUser(1))).toEqual([
      'insert_books',
      'insert_books_one',
      'update_books',
      'update_books_by_pk',
      // Hasura's update_T_many, offered with the update permission.
      'update_books_many',
      'delete_books',
      'delete_books_by_pk',
    ]);
    expect(await fields('books_insert_input', asUser(1))).toEqual([
      'id',
      'author_id',
      'title',
      'pages',
      'price',
      'published',
      'genre',
    ]);
    expect(await fields('books_set_input', asUser(1))).toEqual(['title', 'pages', 'price', 'genre']);
    expect(await fields('authors', asUser(1))).toEqual([
      'id',
      'name',
      'birth_date',
      'rating',
      'tags',
      'profile',
      'country_code',
      'created_at',
      'country',
      'books',
      'books_aggregate',
    ]);
  });
});

describe('the plan cache', () => {
  test('the same document and role with other variable values compiles once', async () => {
    const engine = server.started.engine;
    const query =
      'query ($id: uuid!, $min: Int) { books_by_pk(id: $id) { title } books(where: {pages: {_gte: $min}}, order_by: {pages: desc}, limit: 1) { pages } }';
    const before = engine.compilations;
    const a = await server.gql(query, { id: BOOK.firstLight, min: 0 }, asUser(1));
    const b = await server.gql(query, { id: BOOK.brightNights, min: 500 }, asUser(1));
    expect(a.body).toEqual({ data: { books_by_pk: { title: 'The First Light' }, books: [{ pages: 480 }] } });
    expect(b.body).toEqual({ data: { books_by_pk: { title: 'Bright Nights' }, books: [] } });
    expect(engine.compilations - before).toBe(1);
    // The plan is the role's: another session of the same role shares it, another role does not.
    const c = await server.gql(query, { id: BOOK.thirdTime, min: 0 }, asUser(2));
    expect(c.body).toEqual({ data: { books_by_pk: { title: 'Third Time' }, books: [{ pages: 151 }] } });
    expect(engine.compilations - before).toBe(1);
    await server.gql(query, { id: BOOK.thirdTime, min: 0 });
    expect(engine.compilations - before).toBe(2);
  });

  test('a scalar variable left out and then given gets a plan of its own', async () => {
    const query =
      'query ($l: Int, $t: String) { authors(order_by: {id: asc}, limit: $l, where: {name: {_eq: $t}}) { id } }';
    expect((await server.gql(query, {}, asUser(1))).body).toEqual({
      data: { authors: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }] },
    });
    expect((await server.gql(query, { l: 1 }, asUser(1))).body).toEqual({ data: { authors: [{ id: 1 }] } });
    expect((await server.gql(query, { t: 'Carol Chen' }, asUser(1))).body).toEqual({ data: { authors: [{ id: 3 }] } });
    expect((await server.gql(query, {}, asUser(1))).body).toEqual({
      data: { authors: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }] },
    });
  });
});
