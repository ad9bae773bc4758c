import type { TestServer } from './support/server';
import { startHasuraFixtureServer } from './support/fixture-hasura';
import { backendName } from './support/database';

/**
 * STRINGIFY_NUMERIC_TYPES=true, as Hasura's stringify-numeric-types: bigint, numeric, double precision
 * (and money) values come out as JSON strings, in selections, aggregates and mutation output; real,
 * integer and counts stay numbers. Off (the default), they are JSON numbers.
 */
describe(`stringified numeric types (${backendName})`, () => {
  let on: TestServer;
  let off: TestServer;
  beforeAll(async () => {
    on = await startHasuraFixtureServer({ STRINGIFY_NUMERIC_TYPES: 'true' });
    off = await startHasuraFixtureServer();
  });
  afterAll(async () => {
    await on.close();
    await off.close();
  });

  const ROW = '{ measures(where: {label: {_eq: "a"}}) { id big amount ratio approx whole } }';

  test('selections: bigint, numeric and double precision as strings, exactly as PostgreSQL writes them', async () => {
    const res = await on.gql(ROW);
    expect(res.body).toEqual({
      data: {
        measures: [
          {
            id: 1,
            big: '9007199254740993',
            amount: '12345678901234567890.123456789',
            ratio: '0.1',
            approx: 1.5,
            whole: 7,
          },
        ],
      },
    });
  });

  test('without the setting they are JSON numbers (a bigint beyond 2^53 is written as PostgreSQL has it)', async () => {
    const res = await off.gql(ROW);
    expect(res.text).toMatch(/"big" ?: ?9007199254740993[,}]/);
    expect(res.text).toMatch(/"amount" ?: ?12345678901234567890.123456789[,}]/);
    expect(res.body.data.measures[0]).toMatchObject({ id: 1, ratio: 0.1, approx: 1.5, whole: 7 });
  });

  test('aggregates of those types are strings too; count and aggregates of integer and real are numbers', async () => {
    const q = `{ measures_aggregate(where: {label: {_in: ["a", "b"]}}) { aggregate {
      count
      sum { big amount ratio whole approx }
      max { big amount ratio whole }
      min { big }
      avg { amount ratio }
    } } }`;
    const res = await on.gql(q);
    const agg = res.body.data.measures_aggregate.aggregate;
    expect(agg.count).toBe(2);
    expect(agg.sum).toEqual({
      big: '9007199254740994',
      amount: '12345678901234567890.623456789',
      ratio: '2.35',
      whole: 10,
      approx: 4,
    });
    expect(agg.max).toEqual({
      big: '9007199254740993',
      amount: '12345678901234567890.123456789',
      ratio: '2.25',
      whole: 7,
    });
    expect(agg.min).toEqual({ big: '1' });
    expect(typeof agg.avg.amount).toBe('string');
    expect(agg.avg.ratio).toBe('1.175');
    const plain = (await off.gql(q)).body.data.measures_aggregate.aggregate;
    expect(plain.sum.ratio).toBe(2.35);
    expect(plain.min).toEqual({ big: 1 });
  });

  test('mutation output (returning, and the row of *_one) is stringified the same way', async () => {
    const res = await on.gql(`mutation {
      insert_measures(objects: [{label: "m1", big: "9007199254740995", amount: 1.25, ratio: 3, whole: 1}]) {
        affected_rows
        returning { big amount ratio whole }
      }
      update_measures_by_pk(pk_columns: {id: 2}, _inc: {big: 1}) { big }
    }`);
    expect(res.body).toEqual({
      data: {
        insert_measures: {
          affected_rows: 1,
          returning: [{ big: '9007199254740995', amount: '1.25', ratio: '3', whole: 1 }],
        },
        update_measures_by_pk: { big: '2' },
      },
    });
  });

  test('through relationships (the nested rows read in the mutation output too)', async () => {
    const res = await on.gql(`mutation {
      insert_notes_one(object: {measure_id: 1, body: "n", owner_id: 1}) { body measure { big ratio } }
    }`);
    expect(res.body).toEqual({
      data: { insert_notes_one: { body: 'n', measure: { big: '9007199254740993', ratio: '0.1' } } },
    });
  });
});
