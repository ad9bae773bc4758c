import type { TestServer } from './support/server';
import { BOOK, startFixtureServer } from './support/fixture';
import { spacesOutsideStrings } from './support/json-text';

/**
 * Mutations (as admin): insert, insert_one, on_conflict, update with _set and _inc, update_by_pk,
 * delete, delete_by_pk, returning with relationships, affected_rows, one transaction per request.
 * The tests run in order on one database; each says what it changes.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server?.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** RETURNING has no order of its own: sort rows by a key before comparing. */
const sorted = <T extends Record<string, unknown>>(rows: T[], key: keyof T) =>
  [...rows].sort((a, b) => String(a[key]).localeCompare(String(b[key])));

describe('insert_T and insert_T_one', () => {
  test('objects with different column sets: a column an object leaves out gets its DEFAULT', async () => {
    const res = await server.gql(`mutation {
      insert_authors(objects: [
        {name: "Fay Fox", birth_date: "2000-01-01", tags: ["x"], country_code: "JP"},
        {name: "Gus Grey", rating: 1.5, profile: {a: 1, b: [true, null]}}
      ]) {
        affected_rows
        returning { id name birth_date rating tags profile country_code created_at country { name } books { title } }
      }
    }`);
    expect(res.body).toEqual({
      data: {
        insert_authors: {
          affected_rows: 2,
          returning: [
            {
              id: 6,
              name: 'Fay Fox',
              birth_date: '2000-01-01',
              rating: null,
              tags: ['x'],
              profile: null,
              country_code: 'JP',
              created_at: '2024-06-01T00:00:00+00:00',
              country: { name: 'Japan' },
              books: [],
            },
            {
              id: 7,
              name: 'Gus Grey',
              birth_date: null,
              rating: 1.5,
              tags: [],
              profile: { a: 1, b: [true, null] },
              country_code: null,
              created_at: '2024-06-01T00:00:00+00:00',
              country: null,
              books: [],
            },
          ],
        },
      },
    });
  });

  test('insert_T_one with only the required columns, returning relationships', async () => {
    const res = await server.gql(`mutation {
      insert_books_one(object: {id: "aaaaaaaa-0000-4000-8000-000000000001", author_id: 6, title: "Fox Tales"}) {
        id title pages price published genre owner_id updated_by internal_note
        author { name country { code } } genre_info { comment } editions { edition }
      }
    }`);
    expect(res.body).toEqual({
      data: {
        insert_books_one: {
          id: 'aaaaaaaa-0000-4000-8000-000000000001',
          title: 'Fox Tales',
          pages: 100,
          price: null,
          published: null,
          genre: 'fiction',
          owner_id: 0,
          updated_by: null,
          internal_note: null,
          author: { name: 'Fay Fox', country: { code: 'JP' } },
          genre_info: { comment: 'Novels and stories' },
          editions: [],
        },
      },
    });
    expect(spacesOutsideStrings(res.text)).toEqual([]);
  });

  test('values from variables; a generated uuid key', async () => {
    const res = await server.gql(
      'mutation ($objects: [books_insert_input!]!) { insert_books(objects: $objects) { affected_rows returning { id title pages price published genre author { name } } } }',
      {
        objects: [
          {
            author_id: 7,
            title: 'Grey Days',
            pages: 33,
            price: '7.50',
            published: '2020-02-29T23:59:59',
            genre: 'poetry',
          },
        ],
      },
    );
    expect(res.body).toEqual({
      data: {
        insert_books: {
          affected_rows: 1,
          returning: [
            {
              id: expect.stringMatching(UUID),
              title: 'Grey Days',
              pages: 33,
              price: 7.5,
              published: '2020-02-29T23:59:59',
              genre: 'poetry',
              author: { name: 'Gus Grey' },
            },
          ],
        },
      },
    });
    expect(spacesOutsideStrings(res.text)).toEqual([]);
  });

  test('a nullable column without a DEFAULT that no object gives is NULL', async () => {
    const res = await server.gql(
      'mutation { insert_countries(objects: [{code: "CA", name: "Canada"}]) { affected_rows } insert_editions(objects: [{book_id: "aaaaaaaa-0000-4000-8000-000000000001", edition: 1, year: 2024}]) { returning { format } } }',
    );
    expect(res.body).toEqual({
      data: { insert_countries: { affected_rows: 1 }, insert_editions: { returning: [{ format: null }] } },
    });
    expect(spacesOutsideStrings(res.text)).toEqual([]);
  });
});

describe('on_conflict', () => {
  test('update_columns: conflicting rows are updated, new rows inserted', async () => {
    const res = await server.gql(`mutation {
      insert_countries(objects: [{code: "FR", name: "La France"}, {code: "ES", name: "Spain"}], on_conflict: {constraint: countries_pkey, update_columns: [name]}) {
        affected_rows returning { code name }
      }
    }`);
    expect(res.body).toEqual({
      data: {
        insert_countries: {
          affected_rows: 2,
          returning: [
            { code: 'FR', name: 'La France' },
            { code: 'ES', name: 'Spain' },
          ],
        },
      },
    });
  });

  test('no update_columns: conflicting rows are left alone and not returned', async () => {
    const res = await server.gql(`mutation {
      insert_countries(objects: [{code: "FR", name: "Nope"}, {code: "IT", name: "Italy"}], on_conflict: {constraint: countries_pkey, update_columns: []}) {
        affected_rows returning { code name }
      }
    }`);
    expect(res.body).toEqual({
      data: { insert_countries: { affected_rows: 1, returning: [{ code: 'IT', name: 'Italy' }] } },
    });
  });

  test('a where on the conflict update that does not hold leaves the row alone', async () => {
    const res = await server.gql(`mutation {
      insert_countries_one(object: {code: "FR", name: "Francia"}, on_conflict: {constraint: countries_pkey, update_columns: [name], where: {name: {_eq: "France"}}}) { name }
    }`);
    expect(res.body).toEqual({ data: { insert_countries_one: null } });
    const now = await server.gql('{ countries(order_by: {code: asc}) { code name } }');
    expect(now.body).toEqual({
      data: {
        countries: [
          { code: 'CA', name: 'Canada' },
          { code: 'ES', name: 'Spain' },
          { code: 'FR', name: 'La France' },
          { code: 'GB', name: 'United Kingdom' },
          { code: 'IT', name: 'Italy' },
          { code: 'JP', name: 'Japan' },
          { code: 'US', name: 'United States' },
        ],
      },
    });
  });

  test('on a unique constraint other than the primary key, with insert_T_one', async () => {
    const res = await server.gql(`mutation {
      insert_authors_one(object: {name: "Bob Brown", rating: 3.5}, on_conflict: {constraint: authors_name_key, update_columns: [rating]}) { id name rating }
    }`);
    expect(res.body).toEqual({ data: { insert_authors_one: { id: 2, name: 'Bob Brown', rating: 3.5 } } });
  });
});

describe('update_T and update_T_by_pk', () => {
  test('_set and _inc together, with affected_rows and returning relationships', async () => {
    const res = await server.gql(`mutation {
      update_books(where: {author_id: {_eq: 2}}, _set: {genre: nonfiction}, _inc: {pages: 10}) {
        affected_rows returning { title pages genre author { name } genre_info { comment } }
      }
    }`);
    expect(res.body.data.update_books.affected_rows).toBe(2);
    res.body.data.update_books.returning = sorted(res.body.data.update_books.returning, 'title');
    expect(res.body).toEqual({
      data: {
        update_books: {
          affected_rows: 2,
          returning: [
            {
              title: 'Bright Nights',
              pages: 490,
              genre: 'nonfiction',
              author: { name: 'Bob Brown' },
              genre_info: { comment: 'Facts' },
            },
            {
              title: 'Quiet Verses',
              pages: 100,
              genre: 'nonfiction',
              author: { name: 'Bob Brown' },
              genre_info: { comment: 'Facts' },
            },
          ],
        },
      },
    });
  });

  test('a where through a relationship; values from variables; _inc on numeric', async () => {
    const res = await server.gql(
      'mutation ($name: String!, $by: Int!, $cents: numeric!) { update_books(where: {author: {name: {_eq: $name}}}, _inc: {pages: $by, price: $cents}) { affected_rows returning { title pages price } } }',
      { name: 'Dan Dubois', by: -20, cents: '0.05' },
    );
    expect(res.body).toEqual({
      data: { update_books: { affected_rows: 1, returning: [{ title: 'Autumn Poems', pages: 100, price: 15.05 }] } },
    });
  });

  test('no matching rows: affected_rows 0 and an empty returning', async () => {
    const res = await server.gql(
      'mutation { update_books(where: {pages: {_gt: 10000}}, _set: {title: "x"}) { affected_rows returning { title } } }',
    );
    expect(res.body).toEqual({ data: { update_books: { affected_rows: 0, returning: [] } } });
  });

  test('update_T_by_pk returns the row, or null when the key matches nothing', async () => {
    const res = await server.gql(`mutation {
      found: update_books_by_pk(pk_columns: {id: "${BOOK.firstLight}"}, _set: {title: "The First Light (2nd)", published: null}, _inc: {price: 0.01}) {
        title price published editions(order_by: {edition: asc}) { edition } author { name }
      }
      missing: update_books_by_pk(pk_columns: {id: "00000000-0000-4000-8000-000000000000"}, _set: {title: "x"}) { title }
      composite: update_editions_by_pk(pk_columns: {book_id: "${BOOK.brightNights}", edition: 1}, _set: {format: null}, _inc: {year: 1}) { year format }
    }`);
    expect(res.body).toEqual({
      data: {
        found: {
          title: 'The First Light (2nd)',
          price: 20,
          published: null,
          editions: [{ edition: 1 }, { edition: 2 }],
          author: { name: 'Alice Archer' },
        },
        missing: null,
        composite: { year: 2011, format: null },
      },
    });
  });

  test('relationships in returning read the rows as the mutation left them', async () => {
    const res = await server.gql(`mutation {
      update_authors(where: {id: {_eq: 4}}, _set: {name: "Daniel Dubois"}) {
        returning { name books { title author { name } } books_aggregate { nodes { author { name } } } }
      }
      update_books_by_pk(pk_columns: {id: "${BOOK.autumnPoems}"}, _set: {title: "Winter Poems"}) { title author { books { title } } }
    }`);
    expect(res.body).toEqual({
      data: {
        update_authors: {
          returning: [
            {
              name: 'Daniel Dubois',
              books: [{ title: 'Autumn Poems', author: { name: 'Daniel Dubois' } }],
              books_aggregate: { nodes: [{ author: { name: 'Daniel Dubois' } }] },
            },
          ],
        },
        update_books_by_pk: { title: 'Winter Poems', author: { books: [{ title: 'Winter Poems' }] } },
      },
    });
  });

  test('update without an operator is refused with Hasura’s message, naming the operators the table offers', async () => {
    const res = await server.gql('mutation { update_books(where: {}) { affected_rows } }');
    expect(res.body).toEqual({
      errors: [
        {
          message: 'at least any one of _set, _inc is expected',
          extensions: { path: '$.selectionSet.update_books.args', code: 'validation-failed' },
        },
      ],
    });
  });
});

describe('delete_T and delete_T_by_pk', () => {
  test('delete_T with affected_rows and returning relationships', async () => {
    const res = await server.gql(
      'mutation { delete_editions(where: {year: {_lt: 2005}}) { affected_rows returning { edition year book { title } } } }',
    );
    res.body.data.delete_editions.returning = sorted(res.body.data.delete_editions.returning, 'edition');
    expect(res.body).toEqual({
      data: {
        delete_editions: {
          affected_rows: 2,
          returning: [
            { edition: 1, year: 2001, book: { title: 'The First Light (2nd)' } },
            { edition: 2, year: 2003, book: { title: 'The First Light (2nd)' } },
          ],
        },
      },
    });
  });

  test('delete_T_by_pk returns the deleted row, then null', async () => {
    const query = `mutation { delete_books_by_pk(id: "${BOOK.secondThoughts}") { title pages author { name } } }`;
    expect((await server.gql(query)).body).toEqual({
      data: { delete_books_by_pk: { title: 'Second Thoughts', pages: 210, author: { name: 'Alice Archer' } } },
    });
    expect((await server.gql(query)).body).toEqual({ data: { delete_books_by_pk: null } });
    const text = await server.gql(
      'mutation { delete_countries_by_pk(code: "CA") { name } delete_countries(where: {code: {_in: ["ES", "IT", "XX"]}}) { affected_rows } }',
    );
    expect(text.body).toEqual({
      data: { delete_countries_by_pk: { name: 'Canada' }, delete_countries: { affected_rows: 2 } },
    });
  });

  test('delete with no matching rows', async () => {
    const res = await server.gql(
      'mutation { delete_books(where: {title: {_eq: "no such book"}}) { affected_rows returning { id } } }',
    );
    expect(res.body).toEqual({ data: { delete_books: { affected_rows: 0, returning: [] } } });
  });
});

describe('the mutations of one request are one transaction, run in document order', () => {
  test('a later field sees what an earlier one wrote', async () => {
    const res = await server.gql(`mutation {
      a: insert_countries_one(object: {code: "NL", name: "Netherlands"}) { code }
      b: update_countries(where: {code: {_eq: "NL"}}, _set: {name: "Holland"}) { affected_rows returning { name } }
      c: delete_countries_by_pk(code: "NL") { name }
    }`);
    expect(res.body).toEqual({
      data: { a: { code: 'NL' }, b: { affected_rows: 1, returning: [{ name: 'Holland' }] }, c: { name: 'Holland' } },
    });
  });

  test('a unique violation in the second field undoes the first', async () => {
    const res = await server.gql(`mutation {
      a: insert_countries_one(object: {code: "DE", name: "Germany"}) { code }
      b: insert_countries_one(object: {code: "GB", name: "Britain"}) { code }
    }`);
    expect(res.body).toEqual({
      errors: [
        {
          message: 'duplicate key value violates unique constraint "countries_pkey"',
          extensions: { path: '$', code: 'constraint-violation' },
        },
      ],
    });
    expect((await server.gql('{ countries_by_pk(code: "DE") { code } }')).body).toEqual({
      data: { countries_by_pk: null },
    });
  });

  test('a foreign key violation undoes an earlier update', async () => {
    const res = await server.gql(`mutation {
      update_countries_by_pk(pk_columns: {code: "JP"}, _set: {name: "Nippon"}) { name }
      insert_books(objects: [{author_id: 99, title: "Orphan"}]) { affected_rows }
    }`);
    expect(res.body).toEqual({
      errors: [
        {
          message: 'insert or update on table "books" violates foreign key constraint "books_author_id_fkey"',
          extensions: { path: '$', code: 'constraint-violation' },
        },
      ],
    });
    expect((await server.gql('{ countries_by_pk(code: "JP") { name } }')).body).toEqual({
      data: { countries_by_pk: { name: 'Japan' } },
    });
  });

  test('a NOT NULL violation is a constraint violation too', async () => {
    const res = await server.gql('mutation { insert_authors_one(object: {rating: 1}) { id } }');
    expect(res.body).toEqual({
      errors: [
        {
          message: 'null value in column "name" of relation "authors" violates not-null constraint',
          extensions: { path: '$', code: 'constraint-violation' },
        },
      ],
    });
  });
});
