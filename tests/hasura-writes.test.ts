import * as path from 'node:path';
import { startTestServer, type TestServer } from './support/server';
import { backendName } from './support/database';

/**
 * Edges of Hasura v2's write API: an empty insert, an update made of permission presets alone,
 * on_conflict with `where` and with no column to update, _inc on integer, numeric and bigint, deletes
 * filtered through relationships, views written through INSTEAD OF triggers (with a primary key
 * declared in metadata and without one) and a table without a primary key. Fixture
 * tests/fixture-writes. The tests run in order on one database.
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

const sql = (text: string) => server.started.db.query(text, []) as Promise<Record<string, unknown>[]>;
const asUser = (id: number) => ({ 'x-hasura-role': 'user', 'x-hasura-user-id': String(id) });
const counter = async (label: string) =>
  (
    await sql(`SELECT n, amount::text AS amount, big::text AS big, touched_by FROM counters WHERE label = '${label}'`)
  )[0];

describe(`the write API's edges (${backendName})`, () => {
  test('insert with an empty list of objects: nothing written, affected_rows 0', async () => {
    const before = await sql('SELECT count(*)::int AS c FROM counters');
    const res = await server.gql('mutation { insert_counters(objects: []) { affected_rows returning { id label } } }');
    expect(res.body).toEqual({ data: { insert_counters: { affected_rows: 0, returning: [] } } });
    const v = await server.gql(
      'mutation($o: [counters_insert_input!]!) { insert_counters(objects: $o, on_conflict: {constraint: counters_label_key, update_columns: [n]}) { affected_rows returning { id } } }',
      { o: [] },
    );
    expect(v.body).toEqual({ data: { insert_counters: { affected_rows: 0, returning: [] } } });
    expect(await sql('SELECT count(*)::int AS c FROM counters')).toEqual(before);
  });

  test('an update whose permission presets columns may have no _set or _inc', async () => {
    const res = await server.gql(
      'mutation { update_counters(where: {label: {_eq: "b"}}) { affected_rows returning { label touched_by n } } }',
      {},
      asUser(7),
    );
    expect(res.body).toEqual({
      data: { update_counters: { affected_rows: 1, returning: [{ label: 'b', touched_by: '7', n: 10 }] } },
    });
    const pk = await server.gql(
      'mutation { update_counters_by_pk(pk_columns: {id: 1}) { touched_by } }',
      {},
      asUser(8),
    );
    expect(pk.body).toEqual({ data: { update_counters_by_pk: { touched_by: '8' } } });
    expect(await counter('a')).toMatchObject({ n: 1, touched_by: '8' });
    expect(await counter('b')).toMatchObject({ n: 10, touched_by: '7' });
    // Without presets (the admin) an update with nothing to change is still refused.
    const admin = await server.gql('mutation { update_counters(where: {}) { affected_rows } }');
    expect(admin.body.errors?.[0]?.extensions?.code).toBe('validation-failed');
  });

  test('_inc on integer, numeric and bigint columns', async () => {
    const res = await server.gql(
      'mutation { update_counters(where: {label: {_eq: "a"}}, _inc: {n: 2, amount: 0.25, big: "2"}) { returning { n amount big } } }',
    );
    expect(res.body.errors).toBeUndefined();
    expect(await counter('a')).toMatchObject({ n: 3, amount: '1.75', big: '9007199254740995' });
    const neg = await server.gql(
      'mutation($d: bigint, $a: numeric) { update_counters(where: {label: {_eq: "a"}}, _inc: {n: -3, amount: $a, big: $d}) { affected_rows } }',
      { d: -5, a: '-0.75' },
    );
    expect(neg.body.errors).toBeUndefined();
    expect(await counter('a')).toMatchObject({ n: 0, amount: '1.00', big: '9007199254740990' });
  });

  test('on_conflict with where updates only the rows it selects; update_columns [] does nothing', async () => {
    const upsert = (n: number, where: string) =>
      server.gql(
        `mutation { insert_counters(objects: [{label: "a", n: ${n}}, {label: "b", n: ${n}}], on_conflict: {constraint: counters_label_key, update_columns: [n], where: ${where}}) { affected_rows returning { label n } } }`,
      );
    const res = await upsert(50, '{n: {_lt: 5}}');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.insert_counters).toEqual({ affected_rows: 1, returning: [{ label: 'a', n: 50 }] });
    expect((await counter('a')).n).toBe(50);
    expect((await counter('b')).n).toBe(10);

    const nothing = await server.gql(
      'mutation { insert_counters(objects: [{label: "a", n: 1}, {label: "c", n: 3}], on_conflict: {constraint: counters_label_key, update_columns: []}) { affected_rows returning { label n } } }',
    );
    expect(nothing.body.errors).toBeUndefined();
    expect(nothing.body.data.insert_counters).toEqual({ affected_rows: 1, returning: [{ label: 'c', n: 3 }] });
    expect((await counter('a')).n).toBe(50);
    expect((await counter('c')).n).toBe(3);
  });

  test('delete_T with a where through an object relationship', async () => {
    const res = await server.gql(
      'mutation { delete_pets(where: {owner: {name: {_eq: "ann"}}}) { affected_rows returning { name } } }',
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.delete_pets.affected_rows).toBe(2);
    expect(await sql('SELECT name FROM pets ORDER BY name')).toEqual([{ name: 'fido' }]);
  });

  test('a table without a primary key: no _by_pk fields; insert, update and delete work', async () => {
    const fields = await server.gql('{ __schema { mutationType { fields { name } } queryType { fields { name } } } }');
    const names = [...fields.body.data.__schema.mutationType.fields, ...fields.body.data.__schema.queryType.fields].map(
      (f: { name: string }) => f.name,
    );
    expect(names).toEqual(
      expect.arrayContaining(['insert_log_lines', 'update_log_lines', 'delete_log_lines', 'log_lines']),
    );
    expect(names.filter((n: string) => n.includes('log_lines') && n.endsWith('_by_pk'))).toEqual([]);
    expect(names.filter((n: string) => n.includes('counters') && n.endsWith('_by_pk')).length).toBe(3);
    const ins = await server.gql(
      'mutation { insert_log_lines(objects: [{line: "three", level: 3}]) { affected_rows returning { line } } }',
    );
    expect(ins.body.data.insert_log_lines).toEqual({ affected_rows: 1, returning: [{ line: 'three' }] });
    const upd = await server.gql(
      'mutation { update_log_lines(where: {level: {_gte: 2}}, _inc: {level: 10}) { affected_rows } }',
    );
    expect(upd.body.data.update_log_lines.affected_rows).toBe(2);
    const del = await server.gql('mutation { delete_log_lines(where: {line: {_eq: "one"}}) { affected_rows } }');
    expect(del.body.data.delete_log_lines.affected_rows).toBe(1);
    expect(await sql('SELECT line, level FROM log_lines ORDER BY line')).toEqual([
      { line: 'three', level: 13 },
      { line: 'two', level: 12 },
    ]);
  });

  test('a view written through INSTEAD OF triggers, with a primary key declared in metadata', async () => {
    const ins = await server.gql(
      'mutation { insert_note_view_one(object: {body: "hello", owner_name: "bob"}) { body owner_name } }',
    );
    expect(ins.body).toEqual({ data: { insert_note_view_one: { body: 'hello', owner_name: 'bob' } } });
    const [{ id }] = await sql("SELECT id FROM notes WHERE body = 'hello'");
    const upd = await server.gql(
      `mutation { update_note_view_by_pk(pk_columns: {id: ${Number(id)}}, _set: {body: "hi"}) { id body } }`,
    );
    expect(upd.body).toEqual({ data: { update_note_view_by_pk: { id: Number(id), body: 'hi' } } });
    expect(await sql('SELECT body, owner_id FROM notes')).toEqual([{ body: 'hi', owner_id: 2 }]);
    const del = await server.gql(`mutation { delete_note_view_by_pk(id: ${Number(id)}) { body } }`);
    expect(del.body).toEqual({ data: { delete_note_view_by_pk: { body: 'hi' } } });
    expect(await sql('SELECT count(*)::int AS c FROM notes')).toEqual([{ c: 0 }]);
  });

  test('a view written through INSTEAD OF triggers, without a primary key', async () => {
    const fields = await server.gql('{ __type(name: "mutation_root") { fields { name } } }');
    const names = fields.body.data.__type.fields.map((f: { name: string }) => f.name);
    expect(names).toEqual(
      expect.arrayContaining(['insert_note_view_nokey', 'update_note_view_nokey', 'delete_note_view_nokey']),
    );
    expect(names).not.toContain('update_note_view_nokey_by_pk');
    const ins = await server.gql(
      'mutation { insert_note_view_nokey(objects: [{body: "x", owner_name: "ann"}, {body: "y", owner_name: "bob"}]) { affected_rows returning { body owner_name } } }',
    );
    expect(ins.body.errors).toBeUndefined();
    expect(ins.body.data.insert_note_view_nokey.affected_rows).toBe(2);
    const upd = await server.gql(
      'mutation { update_note_view_nokey(where: {owner_name: {_eq: "ann"}}, _set: {body: "xx"}) { affected_rows returning { body } } }',
    );
    expect(upd.body.data.update_note_view_nokey).toEqual({ affected_rows: 1, returning: [{ body: 'xx' }] });
    const del = await server.gql(
      'mutation { delete_note_view_nokey(where: {owner_name: {_eq: "bob"}}) { affected_rows } }',
    );
    expect(del.body.data.delete_note_view_nokey.affected_rows).toBe(1);
    expect(await sql('SELECT body, owner_id FROM notes')).toEqual([{ body: 'xx', owner_id: 1 }]);
  });
});
