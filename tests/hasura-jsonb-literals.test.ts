import * as path from 'node:path';
import { startTestServer, type TestServer } from './support/server';
import { backendName } from './support/database';

/**
 * json and jsonb values written as GraphQL literals are kept whole, as Hasura keeps them: bare names
 * (`{first: json}`) become strings, lists, objects, null, numbers and booleans stay, variables inside
 * the literal are their values. A seeded generator writes nested literals through HTTP (insert,
 * update, `where`) and the stored rows are read back with SQL. Fixture tests/fixture-writes (table docs).
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    seed: false,
    env: {
      METADATA_DIR: path.resolve(__dirname, 'fixture-writes/metadata'),
      MIGRATIONS_DIR: path.resolve(__dirname, 'fixture-writes/sql'),
    },
  });
});
afterAll(() => server?.close());

const sql = (text: string, params: unknown[] = []) =>
  server.started.db.query(text, params as never[]) as Promise<Record<string, unknown>[]>;
const stored = async (batch: number) =>
  (await sql(`SELECT id, doc::text AS doc, doc_json::text AS dj FROM docs WHERE batch = ${batch} ORDER BY id`)).map(
    (r) => ({
      id: Number(r.id),
      doc: r.doc === null ? null : JSON.parse(String(r.doc)),
      dj: r.dj === null ? null : JSON.parse(String(r.dj)),
    }),
  );

/** mulberry32: a small seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = [
  'json',
  'murphy',
  'first',
  'last',
  '_x',
  'Open',
  'a1',
  '__proto__',
  'constructor',
  'x_Y_z',
  'TRUE',
  'Null',
];
const PIECES = [
  'a',
  'Z',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\t',
  'é',
  'ß',
  '日本',
  '😀',
  '\u0001',
  "'",
  '{',
  '}',
  '$x',
  '#',
  '\r',
];

interface Generated {
  literal: string;
  value: unknown;
}

class LiteralGenerator {
  readonly variables: Record<string, unknown> = {};
  readonly declarations: string[] = [];
  constructor(
    private readonly rnd: () => number,
    private readonly prefix = 'v',
    private readonly listType = 'jsonb',
  ) {}

  private int(n: number): number {
    return Math.floor(this.rnd() * n);
  }
  private pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  private string(): Generated {
    let s = '';
    for (let i = this.int(8); i > 0; i--) s += this.pick(PIECES);
    // Half the time non-ASCII characters are written as GraphQL \u escapes.
    const escape = this.rnd() < 0.5;
    const literal = JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) =>
      escape ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c,
    );
    return { literal, value: s };
  }

  private number(): Generated {
    const kind = this.int(4);
    if (kind === 0) {
      const n = this.int(2 ** 53) * (this.rnd() < 0.5 ? -1 : 1) || 7;
      return { literal: String(n), value: n };
    }
    if (kind === 1) {
      const n = this.int(2000) - 1000;
      return { literal: String(n), value: n };
    }
    const text =
      kind === 2 ? `${this.int(1e6) - 5e5}.${this.int(1000)}5` : `${this.int(9) + 1}.25e${this.int(20) - 10}`;
    return { literal: text, value: Number(text) };
  }

  /** A variable inside the literal, declared with one of three types (the column's type in a list). */
  private variable(depth: number, inList: boolean): Generated {
    const name = `${this.prefix}${this.declarations.length}`;
    // graphql-js types a list's element as the list's own type (jsonb), an object field's not at all.
    const type = inList ? this.listType : this.pick(['jsonb', 'String', 'Int']);
    const value = type === 'String' ? this.string().value : type === 'Int' ? this.int(1000) : this.plain(depth + 1);
    const provided = this.rnd() < 0.15 ? null : value;
    this.declarations.push(`$${name}: ${type}`);
    this.variables[name] = provided;
    return { literal: `$${name}`, value: provided };
  }

  /** Plain JSON (a variable's value). */
  private plain(depth: number): unknown {
    const g = this.value(depth, false);
    return g.value;
  }

  value(depth = 0, variables = true, inList = false): Generated {
    const roll = this.int(depth > 3 ? 7 : 10);
    switch (roll) {
      case 0:
        return this.string();
      case 1:
        return this.number();
      case 2:
        return this.rnd() < 0.5 ? { literal: 'true', value: true } : { literal: 'false', value: false };
      case 3:
        return depth === 0 ? this.string() : { literal: 'null', value: null };
      case 4:
      case 5: {
        const name = this.pick(NAMES);
        return { literal: name, value: name };
      }
      case 6:
        return variables && depth > 0 ? this.variable(depth, inList) : this.number();
      case 7:
      case 8:
        return this.object(depth, variables);
      default:
        return this.list(depth, variables);
    }
  }

  private object(depth: number, variables: boolean): Generated {
    const keys = [...new Set(Array.from({ length: this.int(5) }, () => this.pick(NAMES)))];
    const entries = keys.map((k) => [k, this.value(depth + 1, variables)] as const);
    const value = Object.create(null) as Record<string, unknown>;
    for (const [k, g] of entries) value[k] = g.value;
    return { literal: `{${entries.map(([k, g]) => `${k}: ${g.literal}`).join(', ')}}`, value };
  }

  private list(depth: number, variables: boolean): Generated {
    const items = Array.from({ length: this.int(5) }, () => this.value(depth + 1, variables, true));
    return { literal: `[${items.map((g) => g.literal).join(', ')}]`, value: items.map((g) => g.value) };
  }
}

/** The expected value as PostgreSQL hands it back (JSON text parsed again). */
const normal = (v: unknown) => JSON.parse(JSON.stringify(v));
const vars = (...gs: LiteralGenerator[]) => {
  const all = gs.flatMap((g) => g.declarations);
  return all.length ? `(${all.join(', ')})` : '';
};

describe(`json and jsonb literals (${backendName})`, () => {
  test('the example: bare names inside an object literal are stored as strings', async () => {
    const res = await server.gql(
      `mutation { insert_docs(objects: [{batch: 0, doc: {name: {first: json, last: murphy}}, doc_json: {name: [json, null, 1.5]}}]) { affected_rows returning { doc doc_json } } }`,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.insert_docs.returning[0]).toEqual({
      doc: { name: { first: 'json', last: 'murphy' } },
      doc_json: { name: ['json', null, 1.5] },
    });
    expect((await stored(0)).map((r) => [r.doc, r.dj])).toEqual([
      [{ name: { first: 'json', last: 'murphy' } }, { name: ['json', null, 1.5] }],
    ]);
    const found = await server.gql(
      `{ c: docs(where: {doc: {_contains: {name: {last: murphy}}}}) { batch } e: docs(where: {doc: {_eq: {name: {last: murphy, first: json}}}}) { batch } n: docs(where: {doc: {_contains: {name: {last: json}}}}) { batch } }`,
    );
    expect(found.body.data).toEqual({ c: [{ batch: 0 }], e: [{ batch: 0 }], n: [] });
  });

  test('600 generated literals: inserted, read back with SQL, found by _eq and _contains, updated', async () => {
    const rnd = random(20261124);
    let checked = 0;
    for (let batch = 1; batch <= 12; batch++) {
      const g = new LiteralGenerator(rnd);
      const j = new LiteralGenerator(rnd, 'w', 'json');
      const docs = Array.from({ length: 50 }, () => g.value());
      const jsons = Array.from({ length: 50 }, () => j.value());
      const objects = docs.map((d, i) => `{batch: ${batch}, doc: ${d.literal}, doc_json: ${jsons[i].literal}}`);
      const res = await server.gql(
        `mutation${vars(g, j)} { insert_docs(objects: [${objects.join(', ')}]) { affected_rows } }`,
        { ...g.variables, ...j.variables },
      );
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.insert_docs.affected_rows).toBe(50);
      const rows = await stored(batch);
      expect(rows.map((r) => r.doc)).toEqual(docs.map((d) => normal(d.value)));
      expect(rows.map((r) => r.dj)).toEqual(jsons.map((d) => normal(d.value)));
      checked += 100;

      // The same literals as `where` operands find their rows (_eq and _contains).
      const q = docs.map(
        (d, i) =>
          `e${i}: docs(where: {batch: {_eq: ${batch}}, doc: {_eq: ${d.literal}}}) { id } c${i}: docs(where: {id: {_eq: ${rows[i].id}}, doc: {_contains: ${d.literal}}}) { id }`,
      );
      const found = await server.gql(`query${vars(g)} { ${q.join(' ')} }`, g.variables);
      expect(found.body.errors).toBeUndefined();
      docs.forEach((_, i) => {
        expect(found.body.data[`e${i}`].map((r: { id: number }) => r.id)).toContain(rows[i].id);
        expect(found.body.data[`c${i}`]).toEqual([{ id: rows[i].id }]);
      });

      // Updates: a new literal per row, through _set.
      const u = new LiteralGenerator(rnd);
      const next = rows.map(() => u.value());
      const set = rows.map(
        (r, i) => `u${i}: update_docs(where: {id: {_eq: ${r.id}}}, _set: {doc: ${next[i].literal}}) { affected_rows }`,
      );
      const upd = await server.gql(`mutation${vars(u)} { ${set.join(' ')} }`, u.variables);
      expect(upd.body.errors).toBeUndefined();
      expect((await stored(batch)).map((r) => r.doc)).toEqual(next.map((d) => normal(d.value)));
      checked += 50;
    }
    expect(checked).toBe(1800);
  });

  test('a literal with variables is filled per request, not cached with the first values', async () => {
    const doc = `mutation($a: String, $b: jsonb) { insert_docs(objects: [{batch: 100, doc: {a: $a, l: [$b, x]}}]) { affected_rows } }`;
    for (const [a, b] of [
      ['one', { k: 1 }],
      ['two', [null, 'y']],
      [null, null],
    ]) {
      const res = await server.gql(doc, { a, b });
      expect(res.body.errors).toBeUndefined();
    }
    expect((await stored(100)).map((r) => r.doc)).toEqual([
      { a: 'one', l: [{ k: 1 }, 'x'] },
      { a: 'two', l: [[null, 'y'], 'x'] },
      { a: null, l: [null, 'x'] },
    ]);
  });

  test('a list of jsonb literals with variables inside (_in) is filled per request, not cached', async () => {
    await server.gql(
      `mutation { insert_docs(objects: [{batch: 102, doc: {k: 1}}, {batch: 102, doc: {k: 2}}]) { affected_rows } }`,
    );
    const doc = `query($v: jsonb, $w: Int) { docs(where: {batch: {_eq: 102}, doc: {_in: [{k: $v}, {k: $w}, {k: none}]}}, order_by: {id: asc}) { doc } }`;
    const found = [];
    for (const [v, w] of [
      [1, 5],
      [2, 5],
      [7, 2],
      [null, null],
    ])
      found.push((await server.gql(doc, { v, w })).body.data.docs.map((r: { doc: { k: number } }) => r.doc.k));
    expect(found).toEqual([[1], [2], [2], []]);
  });

  test('what cannot be kept whole is refused with validation-failed and nothing is written', async () => {
    const refused = [
      [`mutation($a: String) { insert_docs(objects: [{batch: 101, doc: {a: $a}}]) { affected_rows } }`, {}],
      [`mutation { insert_docs(objects: [{batch: 101, doc: {big: 123456789012345678901}}]) { affected_rows } }`, {}],
      [`mutation { insert_docs(objects: [{batch: 101, doc: [1e999]}]) { affected_rows } }`, {}],
      [`mutation { update_docs(where: {batch: {_eq: 0}}, _set: {doc: {n: 99999999999999999}}) { affected_rows } }`, {}],
    ] as const;
    for (const [query, variables] of refused) {
      const res = await server.gql(query, variables);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('validation-failed');
    }
    expect(await stored(101)).toEqual([]);
    expect((await stored(0)).map((r) => r.doc)).toEqual([{ name: { first: 'json', last: 'murphy' } }]);
  });
});
