import type { TestServer } from './support/server';
import { asHasuraUser, startHasuraFixtureServer } from './support/fixture-hasura';
import { backendName } from './support/database';

/**
 * The error codes of refused requests, as Hasura gives them for the same situations: integrity
 * violations are `constraint-violation` but a CHECK constraint is `permission-error` (as a failed
 * insert/update permission check is), data exceptions are `data-exception` but a bad escape in a LIKE
 * pattern is `bad-request`, a missing session variable is `not-found`, a subscription `not-supported`.
 */
describe(`Hasura's error codes (${backendName})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startHasuraFixtureServer();
  });
  afterAll(() => server.close());

  const refused = async (query: string, headers: Record<string, string> = {}) => {
    const res = await server.gql(query, undefined, headers);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toHaveLength(1);
    return { status: res.status, code: res.body.errors[0].extensions.code, message: res.body.errors[0].message };
  };

  test('a unique violation: constraint-violation', async () => {
    const e = await refused('mutation { insert_measures_one(object: {label: "a"}) { id } }');
    expect(e).toMatchObject({ status: 200, code: 'constraint-violation' });
    expect(e.message).toContain('measures_label_key');
  });

  test('a foreign key violation: constraint-violation', async () => {
    const e = await refused('mutation { insert_notes_one(object: {measure_id: 999, body: "x", owner_id: 1}) { id } }');
    expect(e).toMatchObject({ status: 200, code: 'constraint-violation' });
    expect(e.message).toContain('notes_measure_id_fkey');
  });

  test('a NOT NULL violation: constraint-violation', async () => {
    const e = await refused('mutation { insert_notes_one(object: {measure_id: 1, owner_id: 1}) { id } }');
    expect(e).toMatchObject({ status: 200, code: 'constraint-violation' });
    expect(e.message).toContain('"body"');
  });

  test('a CHECK constraint of the table: permission-error', async () => {
    const e = await refused(
      'mutation { update_measures(where: {label: {_eq: "b"}}, _set: {score: -1}) { affected_rows } }',
    );
    expect(e).toMatchObject({ status: 200, code: 'permission-error' });
    expect(e.message).toContain('measures_score_check');
  });

  test("an insert permission's check that fails: permission-error", async () => {
    const e = await refused(
      'mutation { insert_notes_one(object: {measure_id: 1, body: "urgent", priority: 9}) { id } }',
      asHasuraUser(3),
    );
    expect(e).toEqual({
      status: 200,
      code: 'permission-error',
      message: 'check constraint of an insert/update permission has failed',
    });
  });

  test('a value out of range for its type: data-exception', async () => {
    const e = await refused(
      'mutation { update_measures(where: {label: {_eq: "a"}}, _inc: {big: "9223372036854775807"}) { affected_rows } }',
    );
    expect(e).toMatchObject({ status: 200, code: 'data-exception' });
    expect(e.message).toMatch(/out of range/);
  });

  test('a LIKE pattern ending in the escape character: bad-request', async () => {
    // On a column without an index: on an indexed one the planner may turn the pattern into an equality.
    const e = await refused('{ categories(where: {name: {_like: "\\\\"}}) { id } }');
    expect(e).toMatchObject({ status: 200, code: 'bad-request' });
    expect(e.message).toMatch(/escape/);
  });

  test('a missing session variable: not-found', async () => {
    const e = await refused('{ notes { id } }', { 'x-hasura-role': 'user' });
    expect(e).toEqual({ status: 400, code: 'not-found', message: 'missing session variable: "x-hasura-user-id"' });
  });

  test('a field that does not exist: validation-failed; a subscription: not-supported', async () => {
    expect(await refused('{ measures { nope } }')).toMatchObject({ code: 'validation-failed' });
    expect(await refused('subscription { measures { id } }')).toMatchObject({ code: 'not-supported' });
  });
});
