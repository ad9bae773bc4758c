import * as path from 'node:path';
import { startTestServer, type TestServer } from './support/server';
import { backendName } from './support/database';

/**
 * An insert of many objects that all give the same columns binds their values as one placeholder, a
 * JSON array of the rows' texts (engine/compile/sql/mutation.ts rowsSql), where it bound a placeholder
 * per value. What is stored, returned and refused must not change: each case compares with the same
 * objects inserted one at a time, which still go through VALUES. Fixture tests/fixture-insert-rows.
 */
let server: TestServer;
const compiled: string[][] = [];
beforeAll(async () => {
  server = await startTestServer({
    seed: false,
    env: {
      METADATA_DIR: path.resolve(__dirname, 'fixture-insert-rows/metadata'),
      MIGRATIONS_DIR: path.resolve(__dirname, 'fixture-insert-rows/sql'),
      // One connection, as PGlite has: inserts sent at once are batched (engine/compile/execute/coalesce.ts).
      DATABASE_POOL_SIZE: '1',
    },
    log: (entry) => {
      if (entry.msg === 'compiled') compiled.push(entry.sql as string[]);
    },
  });
});
afterAll(() => server?.close());
beforeEach(() => sql('DELETE FROM typed_rows').then(() => sql('DELETE FROM bare_rows')));

const sql = (text: string) => server.started.db.query(text, []) as Promise<Record<string, unknown>[]>;
const user = (id: string) => ({ 'x-hasura-role': 'user', 'x-hasura-user-id': id });
const INSERT = `mutation($o: [typed_rows_insert_input!]!) {
  insert_typed_rows(objects: $o) { affected_rows returning { label n amount big ratio flag doc doc_json tags nums at day ref note owner } }
}`;

/** Every stored column but the serial id, as PostgreSQL writes it, by label. */
const stored = () =>
  sql(`SELECT label, (to_jsonb(t) - 'id')::text AS row FROM typed_rows t ORDER BY label`).then((rows) =>
    rows.map((r) => r.row),
  );

/** The objects inserted in one request, then one at a time: what each stores and returns. */
async function togetherAndAlone(objects: object[], headers?: Record<string, string>) {
  const together = await server.gql(INSERT, { o: objects }, headers);
  const rowsTogether = await stored();
  await sql('DELETE FROM typed_rows');
  const alone = [];
  for (const o of objects) alone.push(await server.gql(INSERT, { o: [o] }, headers));
  return { together, alone, rowsTogether, rowsAlone: await stored() };
}

const OBJECTS = [
  {
    label: 'a "quoted", back\\slash',
    n: 1,
    amount: '12345678901234567890.123456789',
    big: '9007199254740993',
    ratio: 1e-7,
    flag: true,
    doc: { nested: { list: [1, 'two', null] }, s: 'é€😀' },
    doc_json: [1, { b: 2 }],
    tags: '{x,"with space","comma,inside","\\"q\\""}',
    nums: '{1,2,3}',
    at: '2026-11-27T10:00:00.123+02:00',
    day: '2026-02-28',
    ref: '11111111-0000-4000-8000-000000000001',
    note: 'ünïcode ✓',
  },
  {
    label: 'b nulls',
    n: null,
    amount: null,
    big: null,
    ratio: null,
    flag: null,
    doc: null,
    doc_json: null,
    tags: null,
    nums: null,
    at: null,
    day: null,
    ref: null,
    note: '',
  },
  {
    label: 'c scalars in json',
    n: -2147483648,
    amount: 0.5,
    big: -1,
    ratio: -2.5e300,
    flag: false,
    doc: 'a jsonb string',
    doc_json: 42,
    tags: '{x,"y z"}',
    nums: '{}',
    at: '1970-01-01T00:00:00Z',
    day: '2000-01-01',
    ref: 'ffffffff-ffff-4fff-bfff-ffffffffffff',
    note: "it's",
  },
];

describe(`an insert of many objects, bound as one placeholder (${backendName})`, () => {
  test('stores and returns, for every column type, what the same objects inserted one at a time do', async () => {
    const r = await togetherAndAlone(OBJECTS);
    expect(r.together.body.errors).toBeUndefined();
    expect(r.together.body.data.insert_typed_rows.affected_rows).toBe(3);
    expect(r.rowsTogether).toHaveLength(3);
    expect(r.rowsTogether).toEqual(r.rowsAlone);
    const returnedAlone = r.alone.map((a) => a.body.data.insert_typed_rows.returning[0]);
    expect(r.together.body.data.insert_typed_rows.returning).toEqual(returnedAlone);
    // And what was stored is what was sent.
    const first = JSON.parse(r.rowsTogether[0] as string) as Record<string, unknown>;
    expect(first).toMatchObject({
      label: OBJECTS[0].label,
      doc: OBJECTS[0].doc,
      tags: ['x', 'with space', 'comma,inside', '"q"'],
    });
    expect(r.rowsTogether[0]).toContain('"big": 9007199254740993,');
  });

  test('objects sent a request each, at once (a batch of inserts), store and return what they do one at a time', async () => {
    const alone = [];
    for (const o of OBJECTS) alone.push(await server.gql(INSERT, { o: [o] }));
    const rowsAlone = await stored();
    const coalescer = server.started.engine.coalescer;
    // Until a turn's requests were batched: on a busy machine they may reach the engine a turn apart.
    for (let attempt = 0; attempt < 5; attempt++) {
      await sql('DELETE FROM typed_rows');
      const batches = coalescer.batches;
      const together = await Promise.all(OBJECTS.map((o) => server.gql(INSERT, { o: [o] })));
      expect(together.map((r) => r.body)).toEqual(alone.map((r) => r.body));
      expect(await stored()).toEqual(rowsAlone);
      if (coalescer.batches > batches) return;
    }
    throw new Error('the requests were never batched');
  });

  test('objects of scalar columns are the list variable whole, and one plan serves two objects and five', async () => {
    const run = async (count: number) => {
      compiled.length = 0;
      const objects = Array.from({ length: count }, (_, i) => ({ label: `p${count}-${i}`, n: i, amount: i / 2 }));
      const res = await server.gql(INSERT, { o: objects });
      expect(res.body.data.insert_typed_rows.affected_rows).toBe(count);
      expect(res.body.data.insert_typed_rows.returning.map((r: { n: number }) => r.n)).toEqual(objects.map((o) => o.n));
      return [...compiled];
    };
    const [two] = await run(2);
    // Each object's keys read by one json_to_recordset, as text, then cast as a placeholder's text is.
    expect(two[0]).toContain(
      'ROWS FROM (json_to_recordset($1::text::json) AS ("label" text, "n" text, "amount" text))',
    );
    expect(two[0]).toContain(`"_r"."c0"::text, "_r"."c1"::integer, "_r"."c2"::numeric`);
    expect(two[0]).not.toContain('VALUES');
    expect(await run(5)).toEqual([]);
    expect(await sql(`SELECT count(*)::int AS n FROM typed_rows`)).toEqual([{ n: 7 }]);
  });

  test('bound whole, every scalar type stores and returns what the objects inserted one at a time do', async () => {
    // No json, jsonb or array column: those keep a text per value (a jsonb string keeps its quotes).
    const keys = ['label', 'n', 'amount', 'big', 'ratio', 'flag', 'at', 'day', 'ref', 'note'] as const;
    const scalars = OBJECTS.map((o) => Object.fromEntries(keys.map((k) => [k, o[k]])));
    compiled.length = 0;
    const r = await togetherAndAlone(scalars);
    expect(compiled[0][0]).toContain(`"_r"."c2"::numeric`);
    expect(r.together.body.errors).toBeUndefined();
    expect(r.rowsTogether).toHaveLength(3);
    expect(r.rowsTogether).toEqual(r.rowsAlone);
    const returnedAlone = r.alone.map((a) => a.body.data.insert_typed_rows.returning[0]);
    expect(r.together.body.data.insert_typed_rows.returning).toEqual(returnedAlone);
    expect(r.rowsTogether[0]).toContain('"big": 9007199254740993,');
    expect(r.rowsTogether[0]).toContain('"amount": 12345678901234567890.123456789,');
  });

  test('objects with nested rows are planned for their count: two and then three each insert all theirs', async () => {
    const NESTED = `mutation($o: [typed_rows_insert_input!]!) {
      insert_typed_rows(objects: $o) { affected_rows returning { label children { label } } }
    }`;
    for (const count of [2, 3]) {
      compiled.length = 0;
      const objects = Array.from({ length: count }, (_, i) => ({
        label: `r${count}-${i}`,
        children: { data: [{ label: `c${count}-${i}` }] },
      }));
      const res = await server.gql(NESTED, { o: objects });
      expect(res.body.errors).toBeUndefined();
      expect(compiled).toHaveLength(1);
      expect(res.body.data.insert_typed_rows.affected_rows).toBe(2 * count);
      expect(res.body.data.insert_typed_rows.returning).toEqual(
        objects.map((o) => ({ label: o.label, children: [{ label: o.children.data[0].label }] })),
      );
    }
    expect(await sql(`SELECT count(*)::int AS n FROM typed_children`)).toEqual([{ n: 5 }]);
  });

  test('objects of no key have their count in the statement: each count has its own plan', async () => {
    const BARE = `mutation($o: [bare_rows_insert_input!]!) { insert_bare_rows(objects: $o) { affected_rows } }`;
    for (const count of [2, 3, 2]) {
      const res = await server.gql(BARE, { o: Array.from({ length: count }, () => ({})) });
      expect(res.body).toEqual({ data: { insert_bare_rows: { affected_rows: count } } });
    }
    expect(await sql(`SELECT count(*)::int AS n FROM bare_rows`)).toEqual([{ n: 7 }]);
  });

  test('returning lists the rows in the order of the objects', async () => {
    const labels = ['m', 'c', 'x', 'a', 'q', 'b'];
    const res = await server.gql(INSERT, { o: labels.map((label) => ({ label, n: 1 })) });
    expect(res.body.data.insert_typed_rows.returning.map((r: { label: string }) => r.label)).toEqual(labels);
  });

  test('objects that leave out different columns are VALUES: a column left out gets its DEFAULT', async () => {
    compiled.length = 0;
    const res = await server.gql(INSERT, {
      o: [
        { label: 'd1', note: 'given' },
        { label: 'd2', n: 3 },
      ],
    });
    expect(res.body.errors).toBeUndefined();
    expect(compiled[0][0]).toContain('DEFAULT');
    const rows = await sql(`SELECT label, n, note FROM typed_rows ORDER BY label`);
    expect(rows).toEqual([
      { label: 'd1', n: null, note: 'given' },
      { label: 'd2', n: 3, note: 'default note' },
    ]);
  });

  test('on_conflict updates the objects whose key is taken and inserts the others', async () => {
    await server.gql(INSERT, { o: [{ label: 'k1', n: 1 }] });
    const res = await server.gql(
      `mutation($o: [typed_rows_insert_input!]!) {
        insert_typed_rows(objects: $o, on_conflict: {constraint: typed_rows_label_key, update_columns: [n]}) { affected_rows returning { label n } }
      }`,
      {
        o: [
          { label: 'k1', n: 10 },
          { label: 'k2', n: 20 },
        ],
      },
    );
    expect(res.body.data.insert_typed_rows).toEqual({
      affected_rows: 2,
      returning: [
        { label: 'k1', n: 10 },
        { label: 'k2', n: 20 },
      ],
    });
  });

  test("a role's preset from the session is every object's, and its check refuses the whole insert", async () => {
    const ok = await togetherAndAlone(
      [
        { label: 'u1', n: 1, amount: 2 },
        { label: 'u2', n: 2, amount: 3 },
      ],
      user('7'),
    );
    expect(ok.together.body.errors).toBeUndefined();
    expect(ok.rowsTogether).toEqual(ok.rowsAlone);
    expect(ok.together.body.data.insert_typed_rows.returning.map((r: { owner: string }) => r.owner)).toEqual([
      '7',
      '7',
    ]);
    await sql('DELETE FROM typed_rows');
    const refused = await server.gql(
      INSERT,
      {
        o: [
          { label: 'v1', n: 1 },
          { label: 'v2', n: -1 },
        ],
      },
      user('7'),
    );
    expect(refused.body.errors[0].extensions.code).toBe('permission-error');
    expect(await stored()).toEqual([]);
  });

  test('a row PostgreSQL refuses in the third object fails as it does alone, and nothing is written', async () => {
    const together = await server.gql(INSERT, { o: [{ label: 'e1' }, { label: 'e2' }, { label: 'e1' }] });
    expect(await stored()).toEqual([]);
    await server.gql(INSERT, { o: [{ label: 'e1' }] });
    const alone = await server.gql(INSERT, { o: [{ label: 'e1' }] });
    expect(together.body.errors[0].extensions.code).toBe('constraint-violation');
    expect(together.body.errors[0]).toEqual(alone.body.errors[0]);
  });
});
