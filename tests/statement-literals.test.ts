import { inlineParams, sqlLiteral } from '../engine/core/db/literals';
import { backendName, onPostgres } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * A statement planned anew on each call (`prepare: false`) goes to PostgreSQL with its values written
 * as literals (engine/core/db/literals.ts), so that postgres.js sends it in one round trip. What must
 * hold: a placeholder is replaced only where PostgreSQL's lexer would see one, and no value, whatever
 * it holds, means anything but itself.
 */
const HOSTILE = [
  "it's",
  "''",
  'back\\slash',
  "\\'; SELECT 1; --",
  "x'); DROP TABLE logs; --",
  '$1',
  '$$ $tag$',
  '/* not a comment',
  'Éclair ✓ 𝄞',
  '',
  "E'\\x41'",
];

describe('placeholders as literals', () => {
  test('values: quoted, a backslash making an escape string, null as NULL', () => {
    expect(sqlLiteral("it's")).toBe("'it''s'");
    expect(sqlLiteral('a\\b')).toBe("E'a\\\\b'");
    expect(sqlLiteral("\\'")).toBe("E'\\\\'''");
    expect(sqlLiteral(null)).toBe('NULL');
  });

  test('only the placeholders the lexer would see', () => {
    const text = [
      'SELECT $1::text, \'$1\' AS a, "$2" AS "b""$1", $$ $1 $$ AS c, $tag$ $2 $tag$ AS d,',
      "E'\\' $1' AS e, a$1 AS f, -- $1",
      '/* $1 /* nested $2 */ $1 */ $2::int, $10::text',
    ].join('\n');
    const params = ['one', '2', null, null, null, null, null, null, null, 'ten'];
    expect(inlineParams(text, params)).toBe(
      [
        'SELECT \'one\'::text, \'$1\' AS a, "$2" AS "b""$1", $$ $1 $$ AS c, $tag$ $2 $tag$ AS d,',
        "E'\\' $1' AS e, a$1 AS f, -- $1",
        "/* $1 /* nested $2 */ $1 */ '2'::int, 'ten'::text",
      ].join('\n'),
    );
  });

  test('a value holding NUL, a placeholder without a value, a backslash in a plain string: left as parameters', () => {
    expect(inlineParams('SELECT $1::text', ['a\0b'])).toBeUndefined();
    expect(inlineParams('SELECT $2::text', ['a'])).toBeUndefined();
    expect(inlineParams('SELECT $0::text', ['a'])).toBeUndefined();
    // Where a plain string with a backslash ends depends on standard_conforming_strings.
    expect(inlineParams("SELECT '\\' AS a, $1::text", ['a'])).toBeUndefined();
    expect(inlineParams("SELECT E'\\'' AS a, $1::text", ['a'])).toBe("SELECT E'\\'' AS a, 'a'::text");
  });
});

describe(`statements planned for their values on ${backendName}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const echo = `SELECT ${HOSTILE.map((_, i) => `$${i + 1}::text AS v${i + 1}`).join(', ')}, $${HOSTILE.length + 1}::text AS none`;
  const expected = Object.fromEntries([...HOSTILE.map((v, i) => [`v${i + 1}`, v]), ['none', null]]);

  test('every value comes back as it was sent', async () => {
    const [row] = await server.started.db.query(echo, [...HOSTILE, null], { prepare: false });
    expect(row).toEqual(expected);
  });

  (onPostgres ? test : test.skip)('and the same with standard_conforming_strings off', async () => {
    const row = await server.started.db.transaction(async (tx) => {
      await tx.query('SET LOCAL standard_conforming_strings = off', [], { prepare: false });
      return (await tx.query(echo, [...HOSTILE, null], { prepare: false }))[0];
    });
    expect(row).toEqual(expected);
  });

  (onPostgres ? test : test.skip)('PostgreSQL gets the statement with its values written in', async () => {
    const [row] = await server.started.db.query(
      'SELECT $1::text AS v, query FROM pg_stat_activity WHERE pid = pg_backend_pid()',
      ["it's here"],
      { prepare: false },
    );
    expect(row.query).toBe("SELECT 'it''s here'::text AS v, query FROM pg_stat_activity WHERE pid = pg_backend_pid()");
    // A prepared statement keeps its placeholders.
    const [prepared] = await server.started.db.query(
      'SELECT $1::text AS v, query FROM pg_stat_activity WHERE pid = pg_backend_pid()',
      ['x'],
    );
    expect(prepared.query).toContain('$1::text');
  });

  test('a value holding NUL is refused by PostgreSQL as a parameter would be, and nothing else runs', async () => {
    await expect(server.started.db.query('SELECT $1::text AS v', ['a\0b'], { prepare: false })).rejects.toThrow();
    const [row] = await server.started.db.query('SELECT 1 AS ok', [], { prepare: false });
    expect(row).toEqual({ ok: 1 });
  });
});
