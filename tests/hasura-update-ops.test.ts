import * as path from 'node:path';
import { startTestServer, type TestServer } from './support/server';
import { backendName } from './support/database';

/**
 * Hasura v2's jsonb update operators (`_append`, `_prepend`, `_delete_key`, `_delete_elem`,
 * `_delete_at_path`) on update_T and update_T_by_pk, and update_T_many. Fixture
 * tests/fixture-update-ops: `docs` with jsonb columns data, meta and secret; role `user` may update
 * its own docs' title, counter, data and meta (not secret), `updated_by` is preset from the session and
 * the check keeps counter under 100; role `editor` may update the title only. Every test starts from
 * the same rows, and reads what was stored back with SQL.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    seed: false,
    env: {
      METADATA_DIR: path.resolve(__dirname, 'fixture-update-ops/metadata'),
      MIGRATIONS_DIR: path.resolve(__dirname, 'fixture-update-ops/sql'),
    },
  });
});
afterAll(() => server?.close());

const sql = (text: string) => server.started.db.query(text, []);
beforeEach(async () => {
  await sql('DELETE FROM docs');
  await sql(`INSERT INTO docs (id, owner_id, title, data, meta, secret) VALUES
    (1, 1, 'one', '{"a": 1, "b": 2, "list": [1, 2, 3], "nested": {"x": 1, "y": 2}}', '["x", "y", "z"]', '{"s": 1}'),
    (2, 1, 'two', '{"a": 10}', '[]', NULL),
    (3, 2, 'three', '{"a": 1}', '["q"]', NULL)`);
});

const asUser = (id: number) => ({ 'x-hasura-role': 'user', 'x-hasura-user-id': String(id) });
const asEditor = { 'x-hasura-role': 'editor' };
/** A stored row as JSON (jsonb columns as values, the same text on both databases). */
const stored = async (id: number) => {
  const [r] = await sql(
    `SELECT json_build_object('title', title, 'data', data, 'meta', meta, 'secret', secret, 'counter', counter, 'updated_by', updated_by)::text AS j FROM docs WHERE id = ${id}`,
  );
  return JSON.parse(r.j as string);
};
const ROW1 = {
  title: 'one',
  data: { a: 1, b: 2, list: [1, 2, 3], nested: { x: 1, y: 2 } },
  meta: ['x', 'y', 'z'],
  secret: { s: 1 },
  counter: 0,
  updated_by: null,
};
const refusal = (res: { body: { errors?: { extensions: { code: string } }[] } }) =>
  res.body.errors?.[0].extensions.code;

describe(`jsonb update operators and update_T_many (${backendName})`, () => {
  test('the schema has Hasura’s input types, for the jsonb columns the role may update', async () => {
    const types = await server.gql(
      `{ ap: __type(name: "docs_append_input") { inputFields { name type { name } } }
         pre: __type(name: "docs_prepend_input") { inputFields { name type { name } } }
         key: __type(name: "docs_delete_key_input") { inputFields { name type { name } } }
         elem: __type(name: "docs_delete_elem_input") { inputFields { name type { name } } }
         at: __type(name: "docs_delete_at_path_input") { inputFields { name type { kind ofType { kind ofType { name } } } } }
         up: __type(name: "docs_updates") { inputFields { name } }
         m: __type(name: "mutation_root") { fields { name args { name type { kind name ofType { kind ofType { kind ofType { name } } } } }
           type { kind ofType { name } } } } }`,
      {},
      asUser(1),
    );
    const d = types.body.data;
    expect(d.ap.inputFields).toEqual([
      { name: 'data', type: { name: 'jsonb' } },
      { name: 'meta', type: { name: 'jsonb' } },
    ]);
    expect(d.pre.inputFields).toEqual(d.ap.inputFields);
    expect(d.key.inputFields.map((f: { type: { name: string } }) => f.type.name)).toEqual(['String', 'String']);
    expect(d.elem.inputFields.map((f: { type: { name: string } }) => f.type.name)).toEqual(['Int', 'Int']);
    expect(d.at.inputFields[0]).toEqual({
      name: 'data',
      type: { kind: 'LIST', ofType: { kind: 'NON_NULL', ofType: { name: 'String' } } },
    });
    const ops = ['_append', '_delete_at_path', '_delete_elem', '_delete_key', '_inc', '_prepend', '_set'];
    expect(d.up.inputFields.map((f: { name: string }) => f.name)).toEqual([...ops, 'where']);
    const field = (name: string) => d.m.fields.find((f: { name: string }) => f.name === name);
    expect(field('update_docs').args.map((a: { name: string }) => a.name)).toEqual([...ops, 'where']);
    expect(field('update_docs_by_pk').args.map((a: { name: string }) => a.name)).toEqual([...ops, 'pk_columns']);
    expect(field('update_docs_many').type).toEqual({ kind: 'LIST', ofType: { name: 'docs_mutation_response' } });
    expect(field('update_docs_many').args).toEqual([
      {
        name: 'updates',
        type: {
          kind: 'NON_NULL',
          name: null,
          ofType: { kind: 'LIST', ofType: { kind: 'NON_NULL', ofType: { name: 'docs_updates' } } },
        },
      },
    ]);
    // The editor may update no jsonb (nor numeric) column: only _set.
    const editor = await server.gql(
      `{ ap: __type(name: "docs_append_input") { name }
         up: __type(name: "docs_updates") { inputFields { name } }
         m: __type(name: "mutation_root") { fields { name args { name } } } }`,
      {},
      asEditor,
    );
    expect(editor.body.data.ap).toBeNull();
    expect(editor.body.data.up.inputFields.map((f: { name: string }) => f.name)).toEqual(['_set', 'where']);
    const upd = editor.body.data.m.fields.find((f: { name: string }) => f.name === 'update_docs');
    expect(upd.args.map((a: { name: string }) => a.name)).toEqual(['_set', 'where']);
  });

  test('update_T: _append and _prepend beside _set and _inc, in one statement, with the preset', async () => {
    const res = await server.gql(
      `mutation { update_docs(where: {id: {_eq: 1}}, _append: {data: {c: 3}}, _prepend: {meta: ["w"]},
          _set: {title: "One"}, _inc: {counter: 2}) { affected_rows returning { id data meta counter } } }`,
      {},
      asUser(1),
    );
    const after = {
      ...ROW1,
      title: 'One',
      data: { ...ROW1.data, c: 3 },
      meta: ['w', 'x', 'y', 'z'],
      counter: 2,
      updated_by: '1',
    };
    expect(res.body).toEqual({
      data: {
        update_docs: { affected_rows: 1, returning: [{ id: 1, data: after.data, meta: after.meta, counter: 2 }] },
      },
    });
    expect(await stored(1)).toEqual(after);
  });

  test('update_T: _delete_key, _delete_elem and _delete_at_path (negative indexes from the end)', async () => {
    const res = await server.gql(
      `mutation { a: update_docs(where: {id: {_eq: 1}}, _delete_key: {data: "a"}, _delete_elem: {meta: -1}) { affected_rows }
                  b: update_docs(where: {id: {_eq: 1}}, _delete_at_path: {data: ["nested", "x"]}) { affected_rows }
                  c: update_docs(where: {id: {_eq: 1}}, _delete_at_path: {data: ["list", "0"], meta: ["0"]}) { affected_rows } }`,
      {},
      asUser(1),
    );
    expect(res.body).toEqual({ data: { a: { affected_rows: 1 }, b: { affected_rows: 1 }, c: { affected_rows: 1 } } });
    expect(await stored(1)).toEqual({
      ...ROW1,
      data: { b: 2, list: [2, 3], nested: { y: 2 } },
      meta: ['y'],
      updated_by: '1',
    });
    // _delete_key on an array removes the string elements equal to it.
    await server.gql(
      `mutation { update_docs(where: {id: {_eq: 3}}, _delete_key: {meta: "q"}) { affected_rows } }`,
      {},
      asUser(2),
    );
    expect((await stored(3)).meta).toEqual([]);
  });

  test('update_T_by_pk with every operator’s value from variables (jsonb, String, Int, [String!])', async () => {
    const q = `mutation ($j: jsonb, $k: String, $p: [String!]) {
      x: update_docs_by_pk(pk_columns: {id: 1}, _append: {meta: $j}, _delete_key: {data: $k}) { id meta }
      y: update_docs_by_pk(pk_columns: {id: 2}, _prepend: {meta: $j}, _delete_at_path: {data: $p}) { id data meta } }`;
    const res = await server.gql(q, { j: ['new'], k: 'b', p: ['a'] }, asUser(1));
    expect(res.body).toEqual({
      data: { x: { id: 1, meta: ['x', 'y', 'z', 'new'] }, y: { id: 2, data: {}, meta: ['new'] } },
    });
    expect(await stored(1)).toEqual({
      ...ROW1,
      data: { a: 1, list: [1, 2, 3], nested: { x: 1, y: 2 } },
      meta: ['x', 'y', 'z', 'new'],
      updated_by: '1',
    });
    const e = await server.gql(
      `mutation ($i: Int) { update_docs_by_pk(pk_columns: {id: 1}, _delete_elem: {meta: $i}) { meta } }`,
      { i: 0 },
      asUser(1),
    );
    expect(e.body.data.update_docs_by_pk.meta).toEqual(['y', 'z', 'new']);
    expect((await stored(1)).meta).toEqual(['y', 'z', 'new']);
  });

  test('a jsonb literal with a variable inside is appended whole', async () => {
    const q = `mutation ($x: Int) { update_docs_by_pk(pk_columns: {id: 2}, _append: {data: {c: $x, d: [1, "two"]}}) { id } }`;
    for (const x of [5, 6]) {
      const res = await server.gql(q, { x }, asUser(1));
      expect(res.body).toEqual({ data: { update_docs_by_pk: { id: 2 } } });
      expect((await stored(2)).data).toEqual({ a: 10, c: x, d: [1, 'two'] });
    }
  });

  test('update_T_many: each update in order sees the one before; one response per update', async () => {
    const res = await server.gql(
      `mutation { update_docs_many(updates: [
          {where: {id: {_eq: 1}}, _append: {data: {step: 1}}, _inc: {counter: 1}},
          {where: {data: {_contains: {step: 1}}}, _delete_key: {data: "step"}, _inc: {counter: 10}, _set: {title: "done"}},
          {where: {id: {_eq: 99}}, _set: {title: "none"}},
          {where: {id: {_in: [1, 2, 3]}}, _prepend: {meta: [0]}}
        ]) { affected_rows returning { id counter title owner { name } } } }`,
      {},
      asUser(1),
    );
    // The last update's rows come back in the order PostgreSQL returns them.
    const last = res.body.data.update_docs_many[3];
    last.returning.sort((x: { id: number }, y: { id: number }) => x.id - y.id);
    expect(res.body).toEqual({
      data: {
        update_docs_many: [
          { affected_rows: 1, returning: [{ id: 1, counter: 1, title: 'one', owner: { name: 'Ann' } }] },
          { affected_rows: 1, returning: [{ id: 1, counter: 11, title: 'done', owner: { name: 'Ann' } }] },
          { affected_rows: 0, returning: [] },
          {
            affected_rows: 2,
            returning: [
              { id: 1, counter: 11, title: 'done', owner: { name: 'Ann' } },
              { id: 2, counter: 0, title: 'two', owner: { name: 'Ann' } },
            ],
          },
        ],
      },
    });
    expect(await stored(1)).toEqual({ ...ROW1, title: 'done', counter: 11, meta: [0, 'x', 'y', 'z'], updated_by: '1' });
    expect((await stored(2)).meta).toEqual([0]);
    // The permission's filter: user 2's document is untouched.
    expect((await stored(3)).meta).toEqual(['q']);
  });

  test('update_T_many from a variable, and with no updates', async () => {
    const q = `mutation ($u: [docs_updates!]!) { update_docs_many(updates: $u) { affected_rows } }`;
    const res = await server.gql(
      q,
      {
        u: [
          { where: { id: { _eq: 2 } }, _append: { data: { b: 1 } } },
          { where: { id: { _eq: 2 } }, _delete_key: { data: 'a' } },
        ],
      },
      asUser(1),
    );
    expect(res.body).toEqual({ data: { update_docs_many: [{ affected_rows: 1 }, { affected_rows: 1 }] } });
    expect((await stored(2)).data).toEqual({ b: 1 });
    const none = await server.gql(q, { u: [] }, asUser(1));
    expect(none.body).toEqual({ data: { update_docs_many: [] } });
  });

  test('update_T_many is all or nothing: a later update failing the check undoes the earlier ones', async () => {
    const res = await server.gql(
      `mutation { update_docs_many(updates: [
          {where: {id: {_eq: 1}}, _append: {data: {c: 1}}},
          {where: {id: {_eq: 1}}, _inc: {counter: 150}}
        ]) { affected_rows } }`,
      {},
      asUser(1),
    );
    expect(res.body.errors[0]).toEqual({
      message: 'check constraint of an insert/update permission has failed',
      extensions: { path: '$.selectionSet.update_docs_many', code: 'permission-error' },
    });
    expect(await stored(1)).toEqual(ROW1);
  });

  test('the permission’s filter and check apply to jsonb operators', async () => {
    const other = await server.gql(
      `mutation { update_docs_by_pk(pk_columns: {id: 3}, _append: {data: {c: 1}}) { id } }`,
      {},
      asUser(1),
    );
    expect(other.body).toEqual({ data: { update_docs_by_pk: null } });
    expect((await stored(3)).data).toEqual({ a: 1 });
    const check = await server.gql(
      `mutation { update_docs(where: {}, _append: {data: {c: 1}}, _inc: {counter: 100}) { affected_rows } }`,
      {},
      asUser(1),
    );
    expect(refusal(check)).toBe('permission-error');
    expect(await stored(1)).toEqual(ROW1);
  });

  test('columns and operators the role may not use are refused', async () => {
    const secret = await server.gql(
      `mutation { update_docs(where: {}, _append: {secret: {t: 1}}) { affected_rows } }`,
      {},
      asUser(1),
    );
    expect(refusal(secret)).toBe('validation-failed');
    const editor = await server.gql(
      `mutation { update_docs(where: {}, _append: {data: {t: 1}}) { affected_rows } }`,
      {},
      asEditor,
    );
    expect(refusal(editor)).toBe('validation-failed');
    expect(await stored(1)).toEqual(ROW1);
  });

  test('a column named by two operators is refused, as Hasura refuses it', async () => {
    const res = await server.gql(
      `mutation { update_docs(where: {}, _set: {data: {}}, _append: {data: {c: 1}}, _delete_key: {meta: "x"}) { affected_rows } }`,
      {},
      asUser(1),
    );
    expect(res.body).toEqual({
      errors: [
        {
          message: 'Column found in multiple operators: ["data"].',
          extensions: { path: '$.selectionSet.update_docs.args', code: 'validation-failed' },
        },
      ],
    });
    const many = await server.gql(
      `mutation { update_docs_many(updates: [{where: {}, _set: {title: "x"}}, {where: {}, _delete_key: {meta: "x"}, _delete_elem: {meta: 0}}]) { affected_rows } }`,
      {},
      asUser(1),
    );
    expect(many.body.errors[0]).toEqual({
      message: 'Column found in multiple operators: ["meta"].',
      extensions: { path: '$.selectionSet.update_docs_many.args.updates[1]', code: 'validation-failed' },
    });
    expect(await stored(1)).toEqual(ROW1);
  });

  test('refusals: a path that is not a list of strings, an index that is not an Int, no operator', async () => {
    for (const args of [
      '_delete_at_path: {data: 1}',
      '_delete_at_path: {data: [1, 2]}',
      '_delete_at_path: {data: ["a", null]}',
      '_delete_elem: {meta: "x"}',
      '_delete_key: {data: 1}',
    ]) {
      const res = await server.gql(`mutation { update_docs(where: {}, ${args}) { affected_rows } }`, {}, asUser(1));
      expect([args, refusal(res)]).toEqual([args, 'validation-failed']);
    }
    const vars = await server.gql(
      `mutation ($p: [String!]) { update_docs(where: {}, _delete_at_path: {data: $p}) { affected_rows } }`,
      { p: [1, { a: 1 }] },
      asUser(1),
    );
    expect(refusal(vars)).toBe('validation-failed');
    // An entry without operators: refused for the editor; for the user, its preset is the change.
    const none = await server.gql(
      `mutation { update_docs_many(updates: [{where: {id: {_eq: 2}}, _set: {title: "2"}}, {where: {}}]) { affected_rows } }`,
      {},
      asEditor,
    );
    expect(none.body.errors[0]).toEqual({
      message: 'at least any one of _set is expected',
      extensions: { path: '$.selectionSet.update_docs_many.args.updates[1]', code: 'validation-failed' },
    });
    expect((await stored(2)).title).toBe('two');
    const preset = await server.gql(
      `mutation { update_docs_many(updates: [{where: {id: {_eq: 2}}}]) { affected_rows } }`,
      {},
      asUser(1),
    );
    expect(preset.body).toEqual({ data: { update_docs_many: [{ affected_rows: 1 }] } });
    expect((await stored(2)).updated_by).toBe('1');
    // PostgreSQL refuses an index into an object: nothing is written.
    const elem = await server.gql(
      `mutation { update_docs(where: {id: {_eq: 1}}, _delete_elem: {data: 0}) { affected_rows } }`,
      {},
      asUser(1),
    );
    expect(refusal(elem)).toBe('data-exception');
    expect(await stored(1)).toEqual(ROW1);
  });
});
