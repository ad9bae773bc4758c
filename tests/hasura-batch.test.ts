import { ADMIN_SECRET, type TestServer } from './support/server';
import { asHasuraUser, startHasuraFixtureServer } from './support/fixture-hasura';
import { backendName } from './support/database';

/**
 * Batched requests (a JSON array of operations), as Hasura answers them: an array of responses in
 * order; the operations run one after the other, each in its own transaction, so each sees what the
 * ones before it wrote and a failing one undoes only its own changes. MAX_BATCH_SIZE bounds a batch.
 */
describe(`batched requests (${backendName})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startHasuraFixtureServer({ MAX_BATCH_SIZE: '4' });
  });
  afterAll(() => server.close());

  const batch = (ops: unknown[], headers: Record<string, string> = { 'x-hasura-admin-secret': ADMIN_SECRET }) =>
    server.post('/api/graphql', JSON.stringify(ops), headers);

  test('a query after a mutation in the same batch sees what the mutation wrote', async () => {
    const res = await batch([
      { query: 'mutation { insert_measures_one(object: {label: "batch-1", whole: 10}) { label } }' },
      { query: 'query { measures(where: {label: {_eq: "batch-1"}}) { whole } }' },
      {
        query:
          'mutation ($l: String!) { update_measures(where: {label: {_eq: $l}}, _inc: {whole: 5}) { affected_rows } }',
        variables: { l: 'batch-1' },
      },
      { query: 'query Q { measures(where: {label: {_eq: "batch-1"}}) { whole } }', operationName: 'Q' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { data: { insert_measures_one: { label: 'batch-1' } } },
      { data: { measures: [{ whole: 10 }] } },
      { data: { update_measures: { affected_rows: 1 } } },
      { data: { measures: [{ whole: 15 }] } },
    ]);
  });

  test('operations run in order: many inserts and a count between them', async () => {
    const insert = (n: number) => ({
      query: `mutation { insert_measures_one(object: {label: "order-${n}"}) { label } }`,
    });
    const count = { query: '{ measures_aggregate(where: {label: {_like: "order-%"}}) { aggregate { count } } }' };
    const res = await batch([insert(1), count, insert(2), count]);
    expect(res.body.map((r: { data: unknown }) => r.data)).toEqual([
      { insert_measures_one: { label: 'order-1' } },
      { measures_aggregate: { aggregate: { count: 1 } } },
      { insert_measures_one: { label: 'order-2' } },
      { measures_aggregate: { aggregate: { count: 2 } } },
    ]);
  });

  test('a failing operation undoes only its own changes: the ones before it stay, the ones after it run', async () => {
    const res = await batch([
      { query: 'mutation { insert_measures_one(object: {label: "kept"}) { label } }' },
      {
        query: `mutation {
          a: insert_measures_one(object: {label: "undone"}) { label }
          b: insert_measures_one(object: {label: "kept"}) { label }
        }`,
      },
      { query: '{ measures(where: {label: {_in: ["kept", "undone"]}}) { label } }' },
      { query: '{ nope }' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body[0]).toEqual({ data: { insert_measures_one: { label: 'kept' } } });
    expect(res.body[1].errors[0].extensions.code).toBe('constraint-violation');
    expect(res.body[2]).toEqual({ data: { measures: [{ label: 'kept' }] } });
    expect(res.body[3].errors[0].extensions.code).toBe('validation-failed');
  });

  test('each operation has its own role checks: the session applies to every operation', async () => {
    const res = await batch(
      [
        {
          query: 'mutation { insert_notes_one(object: {measure_id: 1, body: "mine", priority: 2}) { body owner_id } }',
        },
        { query: '{ notes { body } }' },
        { query: 'mutation { delete_measures(where: {}) { affected_rows } }' },
      ],
      { 'x-hasura-admin-secret': ADMIN_SECRET, ...asHasuraUser(7) },
    );
    expect(res.body[0]).toEqual({ data: { insert_notes_one: { body: 'mine', owner_id: 7 } } });
    expect(res.body[1]).toEqual({ data: { notes: [{ body: 'mine' }] } });
    expect(res.body[2].errors[0].extensions.code).toBe('validation-failed');
  });

  test('an empty batch is an empty answer; an element that is not an operation is refused alone', async () => {
    expect((await batch([])).body).toEqual([]);
    const res = await batch([42, { query: '{ measures(where: {label: {_eq: "a"}}) { label } }' }]);
    expect(res.body[0].errors[0].extensions.code).toBe('bad-request');
    expect(res.body[1]).toEqual({ data: { measures: [{ label: 'a' }] } });
  });

  test('a batch larger than MAX_BATCH_SIZE is refused before any operation runs', async () => {
    const insert = (n: number) => ({
      query: `mutation { insert_measures_one(object: {label: "big-${n}"}) { label } }`,
    });
    const res = await batch([1, 2, 3, 4, 5].map(insert));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        {
          message: 'a batch may hold at most 4 operations (MAX_BATCH_SIZE); this one holds 5',
          extensions: { path: '$', code: 'bad-request' },
        },
      ],
    });
    const left = await server.gql('{ measures_aggregate(where: {label: {_like: "big-%"}}) { aggregate { count } } }');
    expect(left.body).toEqual({ data: { measures_aggregate: { aggregate: { count: 0 } } } });
  });
});
