import { parseOptions, parseSpec, summarise } from '../bench/statement-ab';

/**
 * The statement comparison's spec and options (bench/statement-ab.ts): what a statement runs with,
 * and the refusals that name what is wrong before anything connects.
 */
describe('bench statement-ab', () => {
  const env = { DATABASE_URL: 'postgres://u@127.0.0.1:5432/d' };

  test("a statement takes the spec's params unless it has its own; the database defaults to DATABASE_URL", () => {
    const spec = parseSpec(
      {
        params: ['t'],
        statements: {
          engine: { sql: 'SELECT $1', prepare: false },
          floor: { sql: 'SELECT $1, $2', params: ['t', 2] },
        },
      },
      env,
    );
    expect(spec).toEqual({
      database: env.DATABASE_URL,
      statements: [
        { name: 'engine', sql: 'SELECT $1', params: ['t'], prepare: false },
        { name: 'floor', sql: 'SELECT $1, $2', params: ['t', 2], prepare: true },
      ],
    });
    expect(parseSpec({ database: 'postgres://x/y', statements: { a: 'SELECT 1' }, cleanup: 'DELETE' }, {})).toEqual({
      database: 'postgres://x/y',
      statements: [{ name: 'a', sql: 'SELECT 1', params: [], prepare: true }],
      cleanup: 'DELETE',
    });
  });

  test('a spec without a database, statements or SQL is refused with what is missing', () => {
    expect(() => parseSpec({ statements: { a: 'SELECT 1' } }, {})).toThrow(/no "database"/);
    expect(() => parseSpec({ statements: {} }, env)).toThrow(/at least one statement/);
    expect(() => parseSpec({ statements: { a: { params: [] } } }, env)).toThrow(/"a" has no "sql"/);
    expect(() => parseSpec({ params: 'x', statements: { a: 'SELECT 1' } }, env)).toThrow(/"params" must be an array/);
    expect(() => parseSpec({ statements: { a: { sql: 'SELECT 1', prepare: 'no' } } }, env)).toThrow(
      /"a": "prepare" must be true or false/,
    );
  });

  test('options: defaults, positive numbers only, and the spec file required', () => {
    expect(parseOptions(['spec.json'])).toEqual({
      file: 'spec.json',
      options: { seconds: 40, connections: 1, chunk: 50 },
    });
    expect(parseOptions(['--connections', '10', 's.json', '--seconds', '5']).options).toEqual({
      seconds: 5,
      connections: 10,
      chunk: 50,
    });
    expect(() => parseOptions(['s.json', '--chunk', '0'])).toThrow(/--chunk needs a positive number/);
    expect(() => parseOptions(['s.json', '--rounds', '3'])).toThrow(/unknown option --rounds/);
    expect(() => parseOptions([])).toThrow(/usage/);
  });

  test("the summary is each statement's median wall time and its backends' CPU per statement", () => {
    const rows = summarise(
      new Map([
        ['engine', { wall: [510, 600, 480], backendMicros: 90_000, runs: 200 }],
        ['floor', { wall: [470], backendMicros: 0, runs: 0 }],
      ]),
    );
    expect(rows).toEqual([
      ['engine', '3', '510', '450'],
      ['floor', '1', '470', '-'],
    ]);
  });
});
