import { JsonRows, TextRowsWriter, type JsonKind, type TextForm } from '../engine/core/json-rows';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * The analytic operations return each value's text and the engine writes the rows' JSON
 * (core/json-rows.ts TextRowsWriter). Its JSON must read as the JSON PostgreSQL writes of the same
 * values (to_json): every column form, with the values that are awkward in JSON.
 */
const COLUMNS: { sql: string; form: TextForm; kind: JsonKind; values: string[] }[] = [
  {
    sql: 'text',
    form: 'string',
    kind: 'string',
    values: [
      `'plain'`,
      `''`,
      `'a "quoted" \\ backslash'`,
      `E'tab\\tnew\\nline\\u0001 and \\u001f'`,
      `'ünïcødé 😀 \u2028'`,
      `'{"looks": "like json"}'`,
      `'null'`,
      `'12'`,
    ],
  },
  {
    sql: 'float8',
    form: 'literal',
    kind: 'number',
    values: [`1.5`, `'-0'`, `'NaN'`, `'Infinity'`, `'-Infinity'`, `1e300`, `0.1::float8 + 0.2`, `'1e-7'`],
  },
  {
    sql: 'numeric',
    form: 'literal',
    kind: 'number',
    values: [`12345678901234567890.123456789`, `'NaN'`, `0.000`, `-5`, `'1e20'`, `2`, `3`, `4`],
  },
  {
    sql: 'bigint',
    form: 'literal',
    kind: 'integer',
    values: [`9223372036854775807`, `-9223372036854775808`, `0`, `1`, `2`, `3`, `4`, `5`],
  },
  {
    sql: 'boolean',
    form: 'literal',
    kind: 'boolean',
    values: [`true`, `false`, `true`, `false`, `true`, `false`, `true`, `false`],
  },
  {
    sql: 'jsonb',
    form: 'json',
    kind: 'any',
    values: [
      `'{"a": [1, "x\\"y"], "b": null}'`,
      `'"just a string"'`,
      `'null'`,
      `'[]'`,
      `'12.50'`,
      `'{"ü": "tab\\t and \\u00e9"}'`,
      `'true'`,
      `'{"k":null}'`,
    ],
  },
];

/** The values whose JSON to_json writes as the text written: timestamps (to_json(x)::text, as the builder returns them). */
const TIMESTAMPS = [
  `'2024-02-29 12:34:56.789012+00'::timestamptz`,
  `'1999-12-31 23:59:59+05:30'::timestamptz`,
  `'2024-01-01 00:00:00'::timestamp`,
  `'infinity'::timestamptz`,
  `'2024-06-01'::date`,
  `'0044-03-15 12:00:00 BC'::timestamp`,
  `'10000-01-01 00:00:00'::timestamp`,
  `'2024-01-01 00:00:00.5'::timestamp`,
];

describe(`rows' JSON written from their columns' texts, on ${backendName}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  /** Each value of each column in a row of its own, as the statement's text and as PostgreSQL's JSON of the row. */
  async function rowsOfValues(): Promise<{ texts: Record<string, unknown>[]; json: unknown[] }> {
    const rows = COLUMNS[0].values.map((_, r) => {
      const values = COLUMNS.map((c, i) => `(${c.values[r]})::${c.sql} AS v${i}`);
      values.push(`${TIMESTAMPS[r]} AS v${COLUMNS.length}`, `NULL::text AS v${COLUMNS.length + 1}`);
      return `SELECT ${r} AS n, ${values.join(', ')}`;
    });
    const all = [...COLUMNS.keys(), COLUMNS.length, COLUMNS.length + 1];
    const texts = all.map((i) => (i === COLUMNS.length ? `to_json(v${i})::text AS c${i}` : `v${i}::text AS c${i}`));
    const keys = all.map((i) => `v${i} AS "k${i}"`);
    const source = `(${rows.join(' UNION ALL ')}) AS s`;
    const db = server.started.db;
    return {
      texts: await db.query(`SELECT ${texts.join(', ')} FROM ${source} ORDER BY n`),
      json: (
        await db.query(`SELECT row_to_json(x)::text AS r FROM (SELECT ${keys.join(', ')} FROM ${source} ORDER BY n) x`)
      ).map((row) => JSON.parse(String(row.r))),
    };
  }

  test('every form reads as to_json writes it, as one valid, byte-compact JSON text', async () => {
    const { texts, json } = await rowsOfValues();
    const forms: TextForm[] = [...COLUMNS.map((c) => c.form), 'json', 'string'];
    const kinds: JsonKind[] = [...COLUMNS.map((c) => c.kind), 'string', 'string'];
    const keys = forms.map((_, i) => `k${i}`);
    const writer = new TextRowsWriter(
      keys.map((key, i) => ({ key, kind: kinds[i], nullable: true })),
      keys.map((_, i) => `c${i}`),
      forms,
    );
    const rows = writer.rows(texts);
    expect(rows).toBeInstanceOf(JsonRows);
    expect(JSON.parse(rows.text)).toEqual(json);
    // float8's NaN and Infinity are strings in to_json's JSON, as in the writer's.
    expect(JSON.parse(rows.text)[2]).toMatchObject({ k1: 'NaN', k2: 0, k7: null });
    // Compact between values: the only spaces are inside strings or jsonb's own text.
    expect(rows.text.startsWith('[{"k0":"plain","k1":1.5,"k2":12345678901234567890.123456789,')).toBe(true);
  });

  test('a count cuts the rows; no rows and no columns are still JSON', async () => {
    const { texts, json } = await rowsOfValues();
    const writer = new TextRowsWriter([{ key: 'k0', kind: 'string', nullable: true }], ['c0'], ['string']);
    expect(JSON.parse(writer.rows(texts, 3).text)).toEqual(
      json.slice(0, 3).map((r) => ({ k0: (r as { k0: string }).k0 })),
    );
    expect(writer.rows([], 5).text).toBe('[]');
    expect(new TextRowsWriter([], [], []).rows(texts, 2).text).toBe('[{},{}]');
  });
});
