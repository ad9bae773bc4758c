import type { TestServer } from './support/server';
import { BOOK, startFixtureServer } from './support/fixture';

/**
 * The shape of a GraphQL document and the shape of the answer: nested relationships with arguments
 * at every level, aliases, fragments, @include/@skip, __typename, several operations per document.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server?.close());

describe('nested relationships, several levels deep, with arguments at each level', () => {
  test('countries -> authors (manual array) -> books (foreign key array) -> editions, and back up', async () => {
    const res = await server.gql(`{
      countries(where: {code: {_in: ["US", "GB", "JP"]}}, order_by: {name: desc}) {
        code
        authors(order_by: {id: desc}, where: {name: {_nlike: "Carol%"}}) {
          name
          country { name }
          books(order_by: {pages: desc}, limit: 2, where: {pages: {_gt: 100}}) {
            title
            author { name country { code } }
            editions(order_by: {edition: desc}, limit: 1) { edition year book { title } }
            editions_aggregate { aggregate { count } }
          }
        }
        authors_count: authors_aggregate { aggregate { count } }
      }
    }`);
    expect(res.body).toEqual({
      data: {
        countries: [
          {
            code: 'US',
            authors: [
              {
                name: 'Bob Brown',
                country: { name: 'United States' },
                books: [
                  {
                    title: 'Bright Nights',
                    author: { name: 'Bob Brown', country: { code: 'US' } },
                    editions: [{ edition: 1, year: 2010, book: { title: 'Bright Nights' } }],
                    editions_aggregate: { aggregate: { count: 1 } },
                  },
                ],
              },
            ],
            authors_count: { aggregate: { count: 2 } },
          },
          {
            code: 'GB',
            authors: [
              {
                name: 'Alice Archer',
                country: { name: 'United Kingdom' },
                books: [
                  {
                    title: 'The First Light',
                    author: { name: 'Alice Archer', country: { code: 'GB' } },
                    editions: [{ edition: 2, year: 2003, book: { title: 'The First Light' } }],
                    editions_aggregate: { aggregate: { count: 2 } },
                  },
                  {
                    title: 'Second Thoughts',
                    author: { name: 'Alice Archer', country: { code: 'GB' } },
                    editions: [],
                    editions_aggregate: { aggregate: { count: 0 } },
                  },
                ],
              },
            ],
            authors_count: { aggregate: { count: 1 } },
          },
          { code: 'JP', authors: [], authors_count: { aggregate: { count: 0 } } },
        ],
      },
    });
  });

  test('an object relationship without a row is null; an array relationship without rows is []', async () => {
    const res = await server.gql('{ authors(where: {id: {_eq: 5}}) { country { code } books { title } } }');
    expect(res.body).toEqual({ data: { authors: [{ country: null, books: [] }] } });
  });

  test('arguments of nested lists from variables', async () => {
    const query = `query ($limit: Int, $order: [books_order_by!], $where: books_bool_exp) {
      authors_by_pk(id: 1) { books(limit: $limit, order_by: $order, where: $where) { title } }
    }`;
    const a = await server.gql(query, { limit: 2, order: { title: 'desc' } });
    expect(a.body).toEqual({
      data: { authors_by_pk: { books: [{ title: 'Third Time' }, { title: 'The First Light' }] } },
    });
    const b = await server.gql(query, { order: [{ price: 'asc_nulls_first' }], where: { genre: { _eq: 'fiction' } } });
    expect(b.body).toEqual({
      data: { authors_by_pk: { books: [{ title: 'Third Time' }, { title: 'The First Light' }] } },
    });
  });
});

describe('aliases, fragments and inline fragments', () => {
  test('one field under several aliases, each with its own arguments', async () => {
    const res = await server.gql(`{
      short: books(where: {pages: {_lt: 100}}) { name: title size: pages }
      long: books(where: {pages: {_gt: 400}}) { name: title }
      first: authors_by_pk(id: 1) { who: name }
      count: books_aggregate { total: aggregate { n: count biggest: max { p: pages } } }
    }`);
    expect(res.body).toEqual({
      data: {
        short: [{ name: 'Quiet Verses', size: 90 }],
        long: [{ name: 'Bright Nights' }],
        first: { who: 'Alice Archer' },
        count: { total: { n: 6, biggest: { p: 480 } } },
      },
    });
    expect(Object.keys(res.body.data)).toEqual(['short', 'long', 'first', 'count']);
  });

  test('named fragments, nested fragments and inline fragments merge into one selection', async () => {
    const res = await server.gql(`
      query {
        books_by_pk(id: "${BOOK.firstLight}") { ...BookParts ... on books { pages author { ...AuthorName } } }
      }
      fragment BookParts on books { title ... { genre } author { id } }
      fragment AuthorName on authors { name }
    `);
    expect(res.body).toEqual({
      data: {
        books_by_pk: {
          title: 'The First Light',
          genre: 'fiction',
          author: { id: 1, name: 'Alice Archer' },
          pages: 320,
        },
      },
    });
  });

  test('fragments on aggregate types', async () => {
    const res = await server.gql(`
      { books_aggregate(where: {author_id: {_eq: 2}}, order_by: {title: asc}) { ...Agg } }
      fragment Agg on books_aggregate { aggregate { ...Fields } nodes { title } }
      fragment Fields on books_aggregate_fields { count min { pages } }
    `);
    expect(res.body).toEqual({
      data: {
        books_aggregate: {
          aggregate: { count: 2, min: { pages: 90 } },
          nodes: [{ title: 'Bright Nights' }, { title: 'Quiet Verses' }],
        },
      },
    });
  });
});

describe('@include and @skip', () => {
  const query = `query ($withName: Boolean!, $skipBooks: Boolean!) {
    authors_by_pk(id: 4) {
      id
      name @include(if: $withName)
      books(order_by: {title: asc}) @skip(if: $skipBooks) { title }
      ... @include(if: $withName) { rating }
    }
  }`;

  test.each([
    [true, false, { id: 4, name: 'Dan Dubois', books: [{ title: 'Autumn Poems' }], rating: 5 }],
    [false, false, { id: 4, books: [{ title: 'Autumn Poems' }] }],
    [true, true, { id: 4, name: 'Dan Dubois', rating: 5 }],
    [false, true, { id: 4 }],
  ])('withName=%s skipBooks=%s', async (withName, skipBooks, expected) => {
    const res = await server.gql(query, { withName, skipBooks });
    expect(res.body).toEqual({ data: { authors_by_pk: expected } });
  });

  test('literal conditions, and on root fields', async () => {
    const res = await server.gql(
      '{ a: countries_by_pk(code: "FR") @include(if: true) { name } b: countries_by_pk(code: "GB") @skip(if: true) { name } c: countries_by_pk(code: "JP") { name @skip(if: false) code @include(if: false) } }',
    );
    expect(res.body).toEqual({ data: { a: { name: 'France' }, c: { name: 'Japan' } } });
  });
});

describe('__typename at every level', () => {
  test('root, rows, relationships, aggregates and aggregate functions', async () => {
    const res = await server.gql(`{
      __typename
      authors_by_pk(id: 2) {
        __typename
        country { __typename code }
        books(order_by: {pages: desc}, limit: 1) { __typename editions { __typename edition } }
        books_aggregate { __typename aggregate { __typename count sum { __typename pages } avg { __typename pages } } nodes { __typename } }
      }
    }`);
    expect(res.body).toEqual({
      data: {
        __typename: 'query_root',
        authors_by_pk: {
          __typename: 'authors',
          country: { __typename: 'countries', code: 'US' },
          books: [{ __typename: 'books', editions: [{ __typename: 'editions', edition: 1 }] }],
          books_aggregate: {
            __typename: 'books_aggregate',
            aggregate: {
              __typename: 'books_aggregate_fields',
              count: 2,
              sum: { __typename: 'books_sum_fields', pages: 570 },
              avg: { __typename: 'books_avg_fields', pages: 285 },
            },
            nodes: [{ __typename: 'books' }, { __typename: 'books' }],
          },
        },
      },
    });
  });

  test('in mutation answers', async () => {
    const res = await server.gql(`mutation {
      __typename
      update_countries(where: {code: {_eq: "XX"}}, _set: {name: "none"}) { __typename affected_rows returning { __typename } }
      update_countries_by_pk(pk_columns: {code: "JP"}, _set: {name: "Japan"}) { __typename code }
    }`);
    expect(res.body).toEqual({
      data: {
        __typename: 'mutation_root',
        update_countries: { __typename: 'countries_mutation_response', affected_rows: 0, returning: [] },
        update_countries_by_pk: { __typename: 'countries', code: 'JP' },
      },
    });
  });
});

describe('several operations in one document, chosen by operationName', () => {
  const document = `
    query Countries { countries(order_by: {code: asc}, limit: 2) { code } }
    query Author($id: Int!) { authors_by_pk(id: $id) { name } }
    mutation Rename { update_countries_by_pk(pk_columns: {code: "FR"}, _set: {name: "France"}) { name } }
  `;
  const send = (operationName: unknown, variables: Record<string, unknown> = {}) =>
    server.post('/api/graphql', JSON.stringify({ query: document, variables, operationName }), {
      'x-hasura-admin-secret': 'test-admin-secret',
    });

  test('each operation answers on its own', async () => {
    expect((await send('Countries')).body).toEqual({ data: { countries: [{ code: 'FR' }, { code: 'GB' }] } });
    expect((await send('Author', { id: 3 })).body).toEqual({ data: { authors_by_pk: { name: 'Carol Chen' } } });
    expect((await send('Rename')).body).toEqual({ data: { update_countries_by_pk: { name: 'France' } } });
  });

  test('a missing or unknown operationName is refused', async () => {
    expect((await send(undefined)).body).toEqual({
      errors: [
        {
          message: 'exactly one operation has to be present in the document when operationName is not specified',
          extensions: { path: '$', code: 'validation-failed' },
        },
      ],
    });
    expect((await send('Nope')).body).toEqual({
      errors: [
        {
          message: 'no such operation found in the document: "Nope"',
          extensions: { path: '$.operationName', code: 'validation-failed' },
        },
      ],
    });
  });

  test('a required variable that is missing is refused', async () => {
    expect((await send('Author')).body).toEqual({
      errors: [
        {
          message: 'Variable "$id" of required type "Int!" was not provided.',
          extensions: { path: '$.variableValues', code: 'validation-failed' },
        },
      ],
    });
  });
});
