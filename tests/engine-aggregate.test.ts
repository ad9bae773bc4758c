// PostgreSQL's numeric results are written with all their digits, as the answer carries them.
/* eslint-disable no-loss-of-precision */
import type { TestServer } from './support/server';
import { startFixtureServer } from './support/fixture';

/**
 * T_aggregate and R_aggregate: every aggregate function, count variants, nodes, the rows arguments
 * applied before aggregating, empty and one-row sets, aggregates of array relationships in rows.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server?.close());

// Books: pages 320, 210, 150, 480, 90, 120; prices 19.99, 12.50, NULL, 25.00, 9.95, 15.00.
describe('every aggregate function over a table', () => {
  test('count, sum, avg, the deviations and variances, max and min', async () => {
    const res = await server.gql(`{ books_aggregate { aggregate {
      count
      sum { pages price } avg { pages price }
      stddev { pages price } stddev_pop { pages price } stddev_samp { pages price }
      var_pop { pages price } var_samp { pages price } variance { pages price }
      max { pages price published title } min { pages price published title }
    } } }`);
    expect(res.body).toEqual({
      data: {
        books_aggregate: {
          aggregate: {
            count: 6,
            sum: { pages: 1370, price: 82.44 },
            avg: { pages: 228.3333333333333333, price: 16.488 },
            stddev: { pages: 147.70466027403, price: 6.0328658198239417 },
            stddev_pop: { pages: 134.835290467873, price: 5.3959592289045328 },
            stddev_samp: { pages: 147.70466027403, price: 6.0328658198239417 },
            var_pop: { pages: 18180.555555555556, price: 29.116376 },
            var_samp: { pages: 21816.666666666667, price: 36.39547 },
            variance: { pages: 21816.666666666667, price: 36.39547 },
            max: { pages: 480, price: 25, published: '2015-07-04T18:45:30.5', title: 'Third Time' },
            min: { pages: 90, price: 9.95, published: '1999-10-10T10:10:10', title: 'Autumn Poems' },
          },
        },
      },
    });
    // Integer sums stay integers, numeric keeps its scale, averages are numbers.
    expect(res.text).toContain('"max":{"pages":480,"price":25.00');
  });

  test('numeric with a NULL, date, timestamptz and text columns', async () => {
    const res = await server.gql(`{ authors_aggregate { aggregate {
      count(columns: [rating]) sum { id rating } avg { rating } stddev { rating }
      max { birth_date created_at rating name } min { birth_date created_at rating name }
    } } }`);
    expect(res.body).toEqual({
      data: {
        authors_aggregate: {
          aggregate: {
            count: 4,
            sum: { id: 15, rating: 14.75 },
            avg: { rating: 3.6875 },
            stddev: { rating: 1.3443554837418066 },
            max: { birth_date: '1990-03-03', created_at: '2024-05-01T10:00:00+00:00', rating: 5, name: 'eve evans' },
            min: { birth_date: '1965-12-01', created_at: '2024-01-01T10:00:00+00:00', rating: 2, name: 'Alice Archer' },
          },
        },
      },
    });
  });

  test('an empty set: count 0, every other function null, no nodes', async () => {
    const res = await server.gql(
      '{ books_aggregate(where: {pages: {_gt: 1000}}) { aggregate { count sum { pages } avg { pages } stddev { pages } variance { pages } max { title } min { published } } nodes { title } } }',
    );
    expect(res.body).toEqual({
      data: {
        books_aggregate: {
          aggregate: {
            count: 0,
            sum: { pages: null },
            avg: { pages: null },
            stddev: { pages: null },
            variance: { pages: null },
            max: { title: null },
            min: { published: null },
          },
          nodes: [],
        },
      },
    });
  });

  test('one row: sample deviation and variance null, population ones 0', async () => {
    const res = await server.gql(
      '{ books_aggregate(where: {author_id: {_eq: 4}}) { aggregate { count stddev { pages } stddev_samp { pages } var_samp { pages } stddev_pop { pages } var_pop { pages } } } }',
    );
    expect(res.body).toEqual({
      data: {
        books_aggregate: {
          aggregate: {
            count: 1,
            stddev: { pages: null },
            stddev_samp: { pages: null },
            var_samp: { pages: null },
            stddev_pop: { pages: 0 },
            var_pop: { pages: 0 },
          },
        },
      },
    });
  });
});

describe('count with columns and distinct', () => {
  test('count(*), count(column) skips NULLs, distinct counts distinct values', async () => {
    const res = await server.gql(`{ books_aggregate { aggregate {
      all: count
      priced: count(columns: [price])
      genres: count(columns: [genre], distinct: true)
      authors: count(columns: [author_id], distinct: true)
      nonDistinct: count(columns: [author_id], distinct: false)
      pairs: count(columns: [author_id, genre], distinct: true)
      distinctRows: count(distinct: true)
    } } }`);
    expect(res.body).toEqual({
      data: {
        books_aggregate: {
          aggregate: { all: 6, priced: 5, genres: 3, authors: 3, nonDistinct: 6, pairs: 5, distinctRows: 6 },
        },
      },
    });
  });

  test('columns and distinct from variables', async () => {
    const query =
      'query ($c: [books_select_column!], $d: Boolean) { books_aggregate { aggregate { count(columns: $c, distinct: $d) } } }';
    expect((await server.gql(query, { c: ['genre'], d: true })).body).toEqual({
      data: { books_aggregate: { aggregate: { count: 3 } } },
    });
    expect((await server.gql(query, { c: ['genre'], d: false })).body).toEqual({
      data: { books_aggregate: { aggregate: { count: 6 } } },
    });
    expect((await server.gql(query, { c: ['price'] })).body).toEqual({
      data: { books_aggregate: { aggregate: { count: 5 } } },
    });
    expect((await server.gql(query, {})).body).toEqual({ data: { books_aggregate: { aggregate: { count: 6 } } } });
  });
});

describe('where, order_by, distinct_on, limit and offset apply before aggregating', () => {
  test('where, with a literal and with a variable', async () => {
    const expected = { data: { books_aggregate: { aggregate: { count: 3, sum: { pages: 680 } } } } };
    const lit = await server.gql(
      '{ books_aggregate(where: {author: {name: {_eq: "Alice Archer"}}}) { aggregate { count sum { pages } } } }',
    );
    expect(lit.body).toEqual(expected);
    const vars = await server.gql(
      'query ($w: books_bool_exp) { books_aggregate(where: $w) { aggregate { count sum { pages } } } }',
      { w: { author_id: { _eq: 1 } } },
    );
    expect(vars.body).toEqual(expected);
  });

  test('limit and offset choose the rows that are aggregated; nodes keep the order', async () => {
    const res = await server.gql(`{
      top: books_aggregate(order_by: {pages: desc}, limit: 2) { aggregate { count sum { pages } } nodes { title pages } }
      next: books_aggregate(order_by: {pages: desc}, limit: 2, offset: 1) { aggregate { count sum { pages } } nodes { title } }
    }`);
    expect(res.body).toEqual({
      data: {
        top: {
          aggregate: { count: 2, sum: { pages: 800 } },
          nodes: [
            { title: 'Bright Nights', pages: 480 },
            { title: 'The First Light', pages: 320 },
          ],
        },
        next: {
          aggregate: { count: 2, sum: { pages: 530 } },
          nodes: [{ title: 'The First Light' }, { title: 'Second Thoughts' }],
        },
      },
    });
  });

  test('distinct_on', async () => {
    const res = await server.gql(
      '{ books_aggregate(distinct_on: [author_id], order_by: [{author_id: asc}, {pages: desc}]) { aggregate { count sum { pages } } nodes { author_id title } } }',
    );
    expect(res.body).toEqual({
      data: {
        books_aggregate: {
          aggregate: { count: 3, sum: { pages: 920 } },
          nodes: [
            { author_id: 1, title: 'The First Light' },
            { author_id: 2, title: 'Bright Nights' },
            { author_id: 4, title: 'Autumn Poems' },
          ],
        },
      },
    });
  });

  test('nodes with nested relationships', async () => {
    const res = await server.gql(
      '{ editions_aggregate(order_by: [{year: desc}]) { aggregate { count max { year } } nodes { year book { title author { name } } } } }',
    );
    expect(res.body).toEqual({
      data: {
        editions_aggregate: {
          aggregate: { count: 4, max: { year: 2010 } },
          nodes: [
            { year: 2010, book: { title: 'Bright Nights', author: { name: 'Bob Brown' } } },
            { year: 2008, book: { title: 'Third Time', author: { name: 'Alice Archer' } } },
            { year: 2003, book: { title: 'The First Light', author: { name: 'Alice Archer' } } },
            { year: 2001, book: { title: 'The First Light', author: { name: 'Alice Archer' } } },
          ],
        },
      },
    });
  });
});

describe('aggregates of array relationships inside rows', () => {
  test('per author, with and without arguments', async () => {
    const res = await server.gql(`{ authors(order_by: {id: asc}) {
      id
      books_aggregate { aggregate { count sum { pages } avg { price } max { published } } }
      long: books_aggregate(where: {pages: {_gte: 200}}, order_by: {pages: asc}) { aggregate { count } nodes { pages } }
    } }`);
    expect(res.body).toEqual({
      data: {
        authors: [
          {
            id: 1,
            books_aggregate: {
              aggregate: {
                count: 3,
                sum: { pages: 680 },
                avg: { price: 16.245 },
                max: { published: '2005-09-10T08:30:00' },
              },
            },
            long: { aggregate: { count: 2 }, nodes: [{ pages: 210 }, { pages: 320 }] },
          },
          {
            id: 2,
            books_aggregate: {
              aggregate: {
                count: 2,
                sum: { pages: 570 },
                avg: { price: 17.475 },
                max: { published: '2015-07-04T18:45:30.5' },
              },
            },
            long: { aggregate: { count: 1 }, nodes: [{ pages: 480 }] },
          },
          {
            id: 3,
            books_aggregate: {
              aggregate: { count: 0, sum: { pages: null }, avg: { price: null }, max: { published: null } },
            },
            long: { aggregate: { count: 0 }, nodes: [] },
          },
          {
            id: 4,
            books_aggregate: {
              aggregate: {
                count: 1,
                sum: { pages: 120 },
                avg: { price: 15 },
                max: { published: '1999-10-10T10:10:10' },
              },
            },
            long: { aggregate: { count: 0 }, nodes: [] },
          },
          {
            id: 5,
            books_aggregate: {
              aggregate: { count: 0, sum: { pages: null }, avg: { price: null }, max: { published: null } },
            },
            long: { aggregate: { count: 0 }, nodes: [] },
          },
        ],
      },
    });
  });

  test('through a manual relationship, two levels down, and in a by_pk row', async () => {
    const res = await server.gql(`{
      countries(order_by: {code: asc}) { code authors_aggregate { aggregate { count avg { rating } } } }
      authors_by_pk(id: 1) { books(order_by: {title: asc}) { title editions_aggregate { aggregate { count min { year } } } } }
    }`);
    expect(res.body).toEqual({
      data: {
        countries: [
          { code: 'FR', authors_aggregate: { aggregate: { count: 1, avg: { rating: 5 } } } },
          { code: 'GB', authors_aggregate: { aggregate: { count: 1, avg: { rating: 4.5 } } } },
          { code: 'JP', authors_aggregate: { aggregate: { count: 0, avg: { rating: null } } } },
          { code: 'US', authors_aggregate: { aggregate: { count: 2, avg: { rating: 3.25 } } } },
        ],
        authors_by_pk: {
          books: [
            { title: 'Second Thoughts', editions_aggregate: { aggregate: { count: 0, min: { year: null } } } },
            { title: 'The First Light', editions_aggregate: { aggregate: { count: 2, min: { year: 2001 } } } },
            { title: 'Third Time', editions_aggregate: { aggregate: { count: 1, min: { year: 2008 } } } },
          ],
        },
      },
    });
  });

  test('aggregates beside a list of the same relationship', async () => {
    const res = await server.gql(
      '{ authors_by_pk(id: 2) { books(order_by: {pages: asc}) { pages } books_aggregate { aggregate { count } } } }',
    );
    expect(res.body).toEqual({
      data: { authors_by_pk: { books: [{ pages: 90 }, { pages: 480 }], books_aggregate: { aggregate: { count: 2 } } } },
    });
  });
});
