import { backendName } from './support/database';
import { startFixtureServer } from './support/fixture';
import type { TestServer } from './support/server';

/**
 * A cached plan serves every value of a scalar variable, so a null value must mean the same thing
 * whether or not a plan already exists: a NULL parameter (no row equals NULL), never an error in one
 * order and rows in the other.
 */
describe(`scalar variables and cached plans on ${backendName}`, () => {
  let server: TestServer;
  const Q = `query Q($pages: Int, $limit: Int) { books(where: {pages: {_gt: $pages}}, order_by: {pages: asc}, limit: $limit) { pages } }`;
  const pages = async (vars: Record<string, unknown>) => (await server.gql(Q, vars)).body;

  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(() => server.close());

  test('null first, then a value, then null again', async () => {
    expect(await pages({ pages: null })).toEqual({ data: { books: [] } });
    expect(await pages({ pages: 300 })).toEqual({ data: { books: [{ pages: 320 }, { pages: 480 }] } });
    expect(await pages({ pages: null })).toEqual({ data: { books: [] } });
  });

  test('a given limit and a left-out limit each get the right plan', async () => {
    expect(await pages({ pages: 100, limit: 2 })).toEqual({ data: { books: [{ pages: 120 }, { pages: 150 }] } });
    expect((await pages({ pages: 100 })).data.books).toHaveLength(5);
    expect((await pages({ pages: 100, limit: null })).data.books).toHaveLength(5);
  });

  test('a null literal for a comparison is refused, naming the operator', async () => {
    const res = await server.gql(`{ books(where: {pages: {_eq: null}}) { pages } }`);
    expect(res.body.errors[0]).toMatchObject({ extensions: { code: 'validation-failed' } });
    expect(res.body.errors[0].message).toContain('_eq');
  });
});
