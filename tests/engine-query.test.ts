import type { TestServer } from './support/server';
import { BOOK, startFixtureServer } from './support/fixture';
import { spacesOutsideStrings } from './support/json-text';

/**
 * Table queries over the fixture schema (tests/fixture), compared as exact JSON: root fields, keys of
 * every kind, JSON types of values, ordering, distinct_on, paging, arguments from variables.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server?.close());

const ids = (list: number[]) => list.map((id) => ({ id }));
const titles = (list: string[]) => list.map((title) => ({ title }));

describe('T returns every row with values of the right JSON type', () => {
  test('authors: int, text, date, numeric, jsonb, nullable jsonb, timestamptz', async () => {
    const res = await server.gql(
      '{ authors(order_by: {id: asc}) { id name birth_date rating tags profile country_code created_at } }',
    );
    expect(res.body).toEqual({
      data: {
        authors: [
          {
            id: 1,
            name: 'Alice Archer',
            birth_date: '1970-01-15',
            rating: 4.5,
            tags: ['classic', 'british'],
            profile: { twitter: '@alice', langs: ['en', 'fr'] },
            country_code: 'GB',
            created_at: '2024-01-01T10:00:00+00:00',
          },
          {
            id: 2,
            name: 'Bob Brown',
            birth_date: '1980-06-30',
            rating: 3.25,
            tags: ['modern'],
            profile: null,
            country_code: 'US',
            created_at: '2024-02-01T10:00:00+00:00',
          },
          {
            id: 3,
            name: 'Carol Chen',
            birth_date: null,
            rating: null,
            tags: [],
            profile: { site: 'carol.example' },
            country_code: 'US',
            created_at: '2024-03-01T10:00:00+00:00',
          },
          {
            id: 4,
            name: 'Dan Dubois',
            birth_date: '1965-12-01',
            rating: 5,
            tags: ['poetry', 'french'],
            profile: { twitter: '@dan' },
            country_code: 'FR',
            created_at: '2024-04-01T10:00:00+00:00',
          },
          {
            id: 5,
            name: 'eve evans',
            birth_date: '1990-03-03',
            rating: 2,
            tags: ['modern', 'classic'],
            profile: null,
            country_code: null,
            created_at: '2024-05-01T10:00:00+00:00',
          },
        ],
      },
    });
  });

  test('books: uuid, numeric(10,2) as numbers, timestamp without zone, lookup values, NULLs', async () => {
    const res = await server.gql(
      '{ books(order_by: {pages: asc}) { id author_id title pages price published genre } }',
    );
    expect(res.body).toEqual({
      data: {
        books: [
          {
            id: BOOK.quietVerses,
            author_id: 2,
            title: 'Quiet Verses',
            pages: 90,
            price: 9.95,
            published: '2015-07-04T18:45:30.5',
            genre: 'poetry',
          },
          {
            id: BOOK.autumnPoems,
            author_id: 4,
            title: 'Autumn Poems',
            pages: 120,
            price: 15,
            published: '1999-10-10T10:10:10',
            genre: 'poetry',
          },
          {
            id: BOOK.thirdTime,
            author_id: 1,
            title: 'Third Time',
            pages: 150,
            price: null,
            published: null,
            genre: 'fiction',
          },
          {
            id: BOOK.secondThoughts,
            author_id: 1,
            title: 'Second Thoughts',
            pages: 210,
            price: 12.5,
            published: '2005-09-10T08:30:00',
            genre: 'nonfiction',
          },
          {
            id: BOOK.firstLight,
            author_id: 1,
            title: 'The First Light',
            pages: 320,
            price: 19.99,
            published: '2001-05-01T12:00:00',
            genre: 'fiction',
          },
          {
            id: BOOK.brightNights,
            author_id: 2,
            title: 'Bright Nights',
            pages: 480,
            price: 25,
            published: '2010-01-01T00:00:00',
            genre: 'fiction',
          },
        ],
      },
    });
    // Numbers stay numbers with their scale as PostgreSQL writes them.
    expect(res.text).toContain('"price":25.00');
  });

  test('answers are byte-compact JSON at every depth: lists, objects, aggregates, by key, long aliases', async () => {
    const long = `a${'x'.repeat(70)}`;
    const res = await server.gql(`{
      books(order_by: {title: asc}, limit: 2) { __typename title ${long}: pages author { name } }
      authors(order_by: {id: asc}, limit: 2) {
        name books(order_by: {title: asc}) { title }
        books_aggregate(order_by: {title: asc}) { aggregate { count max { pages } } nodes { title } }
      }
      books_by_pk(id: "${BOOK.brightNights}") { title author { name books_aggregate { aggregate { count } } } }
    }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.books[0]).toEqual({
      __typename: 'books',
      title: 'Autumn Poems',
      [long]: 120,
      author: { name: 'Dan Dubois' },
    });
    expect(res.body.data.authors[0].books_aggregate.aggregate).toEqual({ count: 3, max: { pages: 320 } });
    expect(res.body.data.books_by_pk.author).toEqual({
      name: 'Bob Brown',
      books_aggregate: { aggregate: { count: 2 } },
    });
    expect(spacesOutsideStrings(res.text)).toEqual([]);
  });

  test('a table of 66 columns (more than json_build_object takes in one call) comes back whole', async () => {
    const cols = Array.from({ length: 64 }, (_, i) => `c${String(i + 1).padStart(2, '0')}`);
    const res = await server.gql(`{ wide(order_by: {id: asc}) { id label ${cols.join(' ')} } }`);
    const row = (id: number, label: string, value: (i: number) => number | null) => ({
      id,
      label,
      ...Object.fromEntries(cols.map((c, i) => [c, value(i + 1)])),
    });
    expect(res.body).toEqual({
      data: { wide: [row(1, 'one', (i) => i), row(2, 'two', (i) => (i === 64 ? null : i * 100))] },
    });
    expect(Object.keys(res.body.data.wide[0])).toEqual(['id', 'label', ...cols]);
  });
});

describe('T_by_pk finds one row by a key of any kind, null when missing', () => {
  test('serial, uuid, composite and text keys, and a custom root field name', async () => {
    const res = await server.gql(`{
      authors_by_pk(id: 2) { id name }
      books_by_pk(id: "${BOOK.brightNights}") { title pages }
      editions_by_pk(book_id: "${BOOK.firstLight}", edition: 2) { book_id edition year format }
      countries_by_pk(code: "JP") { code name }
      wide_row(id: 2) { id label c64 }
    }`);
    expect(res.body).toEqual({
      data: {
        authors_by_pk: { id: 2, name: 'Bob Brown' },
        books_by_pk: { title: 'Bright Nights', pages: 480 },
        editions_by_pk: { book_id: BOOK.firstLight, edition: 2, year: 2003, format: 'paperback' },
        countries_by_pk: { code: 'JP', name: 'Japan' },
        wide_row: { id: 2, label: 'two', c64: null },
      },
    });
  });

  test('missing rows give null', async () => {
    const res = await server.gql(`{
      authors_by_pk(id: 99) { id }
      books_by_pk(id: "00000000-0000-0000-0000-000000000000") { id }
      editions_by_pk(book_id: "${BOOK.firstLight}", edition: 3) { year }
      countries_by_pk(code: "XX") { name }
      wide_row(id: 3) { id }
    }`);
    expect(res.body).toEqual({
      data: { authors_by_pk: null, books_by_pk: null, editions_by_pk: null, countries_by_pk: null, wide_row: null },
    });
  });

  test('by_pk with variables', async () => {
    const res = await server.gql('query ($b: uuid!, $e: Int!) { editions_by_pk(book_id: $b, edition: $e) { year } }', {
      b: BOOK.brightNights,
      e: 1,
    });
    expect(res.body).toEqual({ data: { editions_by_pk: { year: 2010 } } });
  });

  test('custom root fields replace the default names; custom column names replace the column name', async () => {
    const old = await server.gql('{ wide_rows { id } }');
    expect(old.body).toEqual({
      errors: [
        {
          message: 'Cannot query field "wide_rows" on type "query_root". Did you mean "wide_row" or "wide_stats"?',
          extensions: { path: '$.selectionSet.wide_rows', code: 'validation-failed' },
        },
      ],
    });
    const agg = await server.gql('{ wide_stats { aggregate { count sum { c01 } } } }');
    expect(agg.body).toEqual({ data: { wide_stats: { aggregate: { count: 2, sum: { c01: 101 } } } } });
    const born = await server.gql('{ authors { born } }');
    expect(born.body.errors[0].extensions).toEqual({
      path: '$.selectionSet.authors.selectionSet.born',
      code: 'validation-failed',
    });
    const renamed = await server.gql(
      '{ authors(where: {birth_date: {_lt: "1971-01-01"}}, order_by: {birth_date: asc}) { name birth_date } }',
    );
    expect(renamed.body).toEqual({
      data: {
        authors: [
          { name: 'Dan Dubois', birth_date: '1965-12-01' },
          { name: 'Alice Archer', birth_date: '1970-01-15' },
        ],
      },
    });
  });
});

describe('order_by: directions, list priority, relationships and aggregates', () => {
  test.each([
    ['asc', [5, 2, 1, 4, 3]],
    ['asc_nulls_last', [5, 2, 1, 4, 3]],
    ['asc_nulls_first', [3, 5, 2, 1, 4]],
    ['desc', [3, 4, 1, 2, 5]],
    ['desc_nulls_first', [3, 4, 1, 2, 5]],
    ['desc_nulls_last', [4, 1, 2, 5, 3]],
  ])('rating %s (one NULL rating)', async (dir, expected) => {
    const literal = await server.gql(`{ authors(order_by: {rating: ${dir}}) { id } }`);
    expect(literal.body).toEqual({ data: { authors: ids(expected) } });
    const variable = await server.gql('query ($o: [authors_order_by!]) { authors(order_by: $o) { id } }', {
      o: { rating: dir },
    });
    expect(variable.body).toEqual({ data: { authors: ids(expected) } });
  });

  test('a list gives priority in list order', async () => {
    const genreFirst = await server.gql('{ books(order_by: [{genre: asc}, {pages: desc}]) { genre pages } }');
    expect(genreFirst.body).toEqual({
      data: {
        books: [
          { genre: 'fiction', pages: 480 },
          { genre: 'fiction', pages: 320 },
          { genre: 'fiction', pages: 150 },
          { genre: 'nonfiction', pages: 210 },
          { genre: 'poetry', pages: 120 },
          { genre: 'poetry', pages: 90 },
        ],
      },
    });
    const pagesFirst = await server.gql('{ books(order_by: [{pages: desc}, {genre: asc}]) { pages } }');
    expect(pagesFirst.body).toEqual({ data: { books: [480, 320, 210, 150, 120, 90].map((pages) => ({ pages })) } });
  });

  test('by a column of an object relationship', async () => {
    const res = await server.gql(
      '{ books(order_by: [{author: {name: desc}}, {title: asc}]) { title author { name } } }',
    );
    expect(res.body).toEqual({
      data: {
        books: [
          { title: 'Autumn Poems', author: { name: 'Dan Dubois' } },
          { title: 'Bright Nights', author: { name: 'Bob Brown' } },
          { title: 'Quiet Verses', author: { name: 'Bob Brown' } },
          { title: 'Second Thoughts', author: { name: 'Alice Archer' } },
          { title: 'The First Light', author: { name: 'Alice Archer' } },
          { title: 'Third Time', author: { name: 'Alice Archer' } },
        ],
      },
    });
  });

  test('by a manual object relationship, NULL (no country) last', async () => {
    const res = await server.gql('{ authors(order_by: [{country: {name: asc}}, {id: desc}]) { id } }');
    expect(res.body).toEqual({ data: { authors: ids([4, 1, 3, 2, 5]) } });
  });

  test('by the count of an array relationship', async () => {
    const res = await server.gql('{ authors(order_by: [{books_aggregate: {count: desc}}, {id: asc}]) { id } }');
    expect(res.body).toEqual({ data: { authors: ids([1, 2, 4, 3, 5]) } });
  });

  test('by sum and max over an array relationship', async () => {
    const sum = await server.gql('{ authors(order_by: [{books_aggregate: {sum: {pages: asc}}}, {id: asc}]) { id } }');
    expect(sum.body).toEqual({ data: { authors: ids([4, 2, 1, 3, 5]) } });
    const max = await server.gql(
      '{ authors(order_by: [{books_aggregate: {max: {price: desc_nulls_last}}}, {id: asc}]) { id } }',
    );
    expect(max.body).toEqual({ data: { authors: ids([2, 1, 4, 3, 5]) } });
  });
});

describe('distinct_on, limit and offset', () => {
  test('distinct_on keeps the first row of each group in order_by order', async () => {
    const res = await server.gql(
      '{ books(distinct_on: [author_id], order_by: [{author_id: asc}, {pages: desc}]) { author_id title } }',
    );
    expect(res.body).toEqual({
      data: {
        books: [
          { author_id: 1, title: 'The First Light' },
          { author_id: 2, title: 'Bright Nights' },
          { author_id: 4, title: 'Autumn Poems' },
        ],
      },
    });
    const vars = await server.gql(
      'query ($d: [books_select_column!], $o: [books_order_by!]) { books(distinct_on: $d, order_by: $o) { genre pages } }',
      { d: ['genre'], o: [{ genre: 'asc' }, { pages: 'asc' }] },
    );
    expect(vars.body).toEqual({
      data: {
        books: [
          { genre: 'fiction', pages: 150 },
          { genre: 'nonfiction', pages: 210 },
          { genre: 'poetry', pages: 90 },
        ],
      },
    });
  });

  test('distinct_on must lead order_by', async () => {
    const res = await server.gql('{ books(distinct_on: [author_id], order_by: {pages: desc}) { title } }');
    expect(res.body).toEqual({
      errors: [
        {
          message: '"distinct_on" columns must match initial "order_by" columns',
          extensions: { path: '$.selectionSet.books.args.distinct_on', code: 'validation-failed' },
        },
      ],
    });
  });

  test('limit and offset page through an ordered list, as literals and as variables', async () => {
    const literal = await server.gql('{ books(order_by: {pages: asc}, limit: 2, offset: 1) { title } }');
    expect(literal.body).toEqual({ data: { books: titles(['Autumn Poems', 'Third Time']) } });
    const query = 'query ($l: Int, $o: Int) { books(order_by: {pages: asc}, limit: $l, offset: $o) { title } }';
    expect((await server.gql(query, { l: 2, o: 1 })).body).toEqual(literal.body);
    expect((await server.gql(query, { l: 3, o: 4 })).body).toEqual({
      data: { books: titles(['The First Light', 'Bright Nights']) },
    });
    expect((await server.gql(query, { l: 0 })).body).toEqual({ data: { books: [] } });
    expect((await server.gql(query, {})).body.data.books).toHaveLength(6);
  });

  test('offset without order_by, and negative values, are refused', async () => {
    const offset = await server.gql('{ books(offset: 1) { title } }');
    expect(offset.body).toEqual({
      errors: [
        {
          message: '"offset" can only be used together with "order_by"',
          extensions: { path: '$.selectionSet.books.args.offset', code: 'validation-failed' },
        },
      ],
    });
    const negative = await server.gql('{ books(limit: -1) { title } }');
    expect(negative.body).toEqual({
      errors: [
        {
          message: 'expecting a non-negative integer for "limit"',
          extensions: { path: '$.selectionSet.books.args.limit', code: 'validation-failed' },
        },
      ],
    });
    const negativeVar = await server.gql('query ($l: Int) { books(limit: $l) { title } }', { l: -2 });
    expect(negativeVar.body).toEqual({
      errors: [
        {
          message: 'expecting a non-negative integer',
          extensions: { path: '$.selectionSet.books.args.limit', code: 'validation-failed' },
        },
      ],
    });
  });
});

describe('arguments from variables give the same answers as literals', () => {
  test('where, order_by, limit and offset all from variables', async () => {
    const literal = await server.gql(
      '{ books(where: {pages: {_gte: 100}, genre: {_in: [fiction, poetry]}}, order_by: [{genre: desc}, {title: asc}], limit: 3, offset: 1) { title } }',
    );
    const variables = await server.gql(
      'query ($w: books_bool_exp, $o: [books_order_by!], $l: Int, $off: Int) { books(where: $w, order_by: $o, limit: $l, offset: $off) { title } }',
      {
        w: { pages: { _gte: 100 }, genre: { _in: ['fiction', 'poetry'] } },
        o: [{ genre: 'desc' }, { title: 'asc' }],
        l: 3,
        off: 1,
      },
    );
    expect(literal.body).toEqual({ data: { books: titles(['Bright Nights', 'The First Light', 'Third Time']) } });
    expect(variables.body).toEqual(literal.body);
  });

  test('variables inside literal objects and lists', async () => {
    const res = await server.gql(
      'query ($min: Int!, $a: Int!, $b: Int!, $dir: order_by!) { books(where: {pages: {_gt: $min}, author_id: {_in: [$a, $b]}}, order_by: {pages: $dir}) { pages } }',
      { min: 100, a: 1, b: 4, dir: 'desc' },
    );
    expect(res.body).toEqual({ data: { books: [320, 210, 150, 120].map((pages) => ({ pages })) } });
  });
});
