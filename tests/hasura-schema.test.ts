import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MetadataError } from '../engine/compile/model/load';
import { backendName, createTestDatabase, type TestDatabase } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * The per-role schema as Hasura shapes it, on the fixture in tests/fixture-hasura-schema: enum tables
 * as GraphQL enums, tables a role may select no column of left out, the `no_queries_available`
 * placeholder of an empty schema, and introspection in a stable order.
 */
const FIXTURE = path.join(__dirname, 'fixture-hasura-schema');
const TABLES_DIR = path.join('databases', 'default', 'tables');
const agent = { 'x-hasura-role': 'agent' };
const outsider = { 'x-hasura-role': 'outsider' };
const nobody = { 'x-hasura-role': 'nobody' };

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface Field {
  name: string;
  description: string | null;
  args?: { name: string; type: TypeRef }[];
  type: TypeRef;
}
interface FullType {
  kind: string;
  name: string;
  description: string | null;
  fields: Field[] | null;
  inputFields: Field[] | null;
  enumValues: { name: string; description: string | null }[] | null;
}

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
const FULL_TYPE = `kind name description
  fields { name description args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } }
  inputFields { name description type { ${TYPE_REF} } }
  enumValues { name description }`;

const named = (t: TypeRef): TypeRef => (t.ofType ? named(t.ofType) : t);
const typeText = (t: TypeRef): string =>
  t.kind === 'NON_NULL' ? `${typeText(t.ofType!)}!` : t.kind === 'LIST' ? `[${typeText(t.ofType!)}]` : t.name!;
const names = (list: { name: string }[] | null) => (list ?? []).map((x) => x.name);
const codePointSorted = (list: string[]) => [...list].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

let database: TestDatabase;
let server: TestServer;
const temporaryDirs: string[] = [];

function start(metadataDir = path.join(FIXTURE, 'metadata'), on = database): Promise<TestServer> {
  return startTestServer({
    database: on,
    seed: false,
    env: { METADATA_DIR: metadataDir, MIGRATIONS_DIR: path.join(FIXTURE, 'sql') },
  });
}

/**
 * `run` with an engine on a database of its own (the shared one is held by `server`: an embedded
 * database's folder is opened by one engine at a time), or with the error its start-up gave.
 */
async function withOwnEngine<T>(metadataDir: string, run: (s: TestServer | Error) => Promise<T>): Promise<T> {
  const own = await createTestDatabase();
  try {
    const s = await start(metadataDir, own).catch((err: unknown) => err as Error);
    try {
      return await run(s);
    } finally {
      if (!(s instanceof Error)) await s.stop();
    }
  } finally {
    await own.drop();
  }
}

/** The fixture's metadata with tables.yaml replaced. */
function metadataTracking(tablesYaml: string, extraFiles: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hasura-schema-'));
  temporaryDirs.push(dir);
  fs.cpSync(path.join(FIXTURE, 'metadata'), dir, { recursive: true });
  fs.writeFileSync(path.join(dir, TABLES_DIR, 'tables.yaml'), tablesYaml);
  for (const [name, text] of Object.entries(extraFiles)) fs.writeFileSync(path.join(dir, TABLES_DIR, name), text);
  return dir;
}

async function data(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await server.gql(query, variables, headers);
  expect([res.status, res.body.errors]).toEqual([200, undefined]);
  return res.body.data;
}

async function errorOf(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await server.gql(query, variables, headers);
  expect(res.status).toBe(200);
  expect(res.body.data).toBeUndefined();
  return res.body.errors[0] as { message: string; extensions: { code: string; path: string } };
}

async function allTypes(headers: Record<string, string>): Promise<FullType[]> {
  return (await data(`{ __schema { types { ${FULL_TYPE} } } }`, {}, headers)).__schema.types;
}

beforeAll(async () => {
  database = await createTestDatabase({ persistent: true });
  server = await start();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await database?.drop();
  for (const dir of temporaryDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe(`enum tables are GraphQL enums on ${backendName}`, () => {
  test('introspection: kind ENUM, the table values sorted, described by the comment column', async () => {
    const d = await data(`{
      s: __type(name: "ticket_status_enum") { ${FULL_TYPE} }
      p: __type(name: "priority_enum") { ${FULL_TYPE} } }`);
    expect(d.s).toEqual({
      kind: 'ENUM',
      name: 'ticket_status_enum',
      description: null,
      fields: null,
      inputFields: null,
      enumValues: [
        { name: 'Closed', description: null },
        { name: 'In_progress', description: 'Someone works on it' },
        { name: 'Open', description: 'Waiting for someone to take it' },
      ],
    });
    // A table without a comment column: no descriptions.
    expect(d.p.kind).toBe('ENUM');
    expect(d.p.enumValues).toEqual([
      { name: '_urgent', description: null },
      { name: 'high', description: null },
      { name: 'low', description: null },
    ]);
  });

  test('codegen: every field typed by an enum table, in output, input and where types, is that ENUM with its values', async () => {
    const types = await allTypes(agent);
    const byName = new Map(types.map((t) => [t.name, t]));
    // The values as the enum tables hold them, read through the API.
    const rows = await data('{ ticket_status { value } priority { value } }', {}, agent);
    const tableValues: Record<string, string[]> = {
      ticket_status_enum: rows.ticket_status.map((r: { value: string }) => r.value),
      priority_enum: rows.priority.map((r: { value: string }) => r.value),
    };
    expect(types.filter((t) => t.name.endsWith('_enum') && t.kind !== 'ENUM')).toEqual([]);
    const uses: string[] = [];
    for (const t of types) {
      for (const f of [...(t.fields ?? []), ...(t.inputFields ?? [])]) {
        const target = named(f.type);
        if (!target.name || !(target.name in tableValues)) continue;
        uses.push(`${t.name}.${f.name}: ${typeText(f.type)}`);
        expect([f.name, target.kind]).toEqual([f.name, 'ENUM']);
        expect(codePointSorted(names(byName.get(target.name)!.enumValues))).toEqual(
          codePointSorted(tableValues[target.name]),
        );
      }
    }
    expect(uses.sort()).toEqual(
      [
        'tickets.status: ticket_status_enum!',
        'tickets.priority: priority_enum',
        'tickets_insert_input.status: ticket_status_enum',
        'tickets_insert_input.priority: priority_enum',
        'tickets_set_input.status: ticket_status_enum',
        'tickets_set_input.priority: priority_enum',
        // The cursor of a streaming subscription (tickets_stream).
        'tickets_stream_cursor_value_input.status: ticket_status_enum',
        'tickets_stream_cursor_value_input.priority: priority_enum',
        'ticket_status_enum_comparison_exp._eq: ticket_status_enum',
        'ticket_status_enum_comparison_exp._neq: ticket_status_enum',
        'ticket_status_enum_comparison_exp._in: [ticket_status_enum!]',
        'ticket_status_enum_comparison_exp._nin: [ticket_status_enum!]',
        'priority_enum_comparison_exp._eq: priority_enum',
        'priority_enum_comparison_exp._neq: priority_enum',
        'priority_enum_comparison_exp._in: [priority_enum!]',
        'priority_enum_comparison_exp._nin: [priority_enum!]',
      ].sort(),
    );
  });

  test('where: <enum>_comparison_exp offers _eq, _neq, _in, _nin, _is_null and no ordering or pattern', async () => {
    const d = await data(`{ t: __type(name: "tickets_bool_exp") { ${FULL_TYPE} }
      c: __type(name: "ticket_status_enum_comparison_exp") { ${FULL_TYPE} } }`);
    const status = d.t.inputFields.find((f: Field) => f.name === 'status');
    expect(typeText(status.type)).toBe('ticket_status_enum_comparison_exp');
    const ops = Object.fromEntries(d.c.inputFields.map((f: Field) => [f.name, typeText(f.type)]));
    expect(ops).toMatchObject({
      _eq: 'ticket_status_enum',
      _neq: 'ticket_status_enum',
      _in: '[ticket_status_enum!]',
      _nin: '[ticket_status_enum!]',
      _is_null: 'Boolean',
    });
    for (const absent of ['_gt', '_gte', '_lt', '_lte', '_like', '_ilike', '_regex'])
      expect(Object.keys(ops)).not.toContain(absent);
  });

  test('filters take the values bare, as strings (the one leniency), in lists and from variables', async () => {
    const titles = (rows: { title: string }[]) => rows.map((r) => r.title);
    const d = await data(
      `query ($s: ticket_status_enum!, $many: [ticket_status_enum!]) {
        bare: tickets(where: {status: {_eq: Open}}) { title status }
        quoted: tickets(where: {status: {_eq: "Open"}}) { title }
        neq: tickets(where: {status: {_neq: Open}}, order_by: {id: asc}) { title }
        mixed: tickets(where: {status: {_in: [Open, "Closed"]}}, order_by: {id: asc}) { title }
        nin: tickets(where: {status: {_nin: [Open, Closed]}}) { title }
        none: tickets(where: {priority: {_is_null: true}}) { title priority }
        fromVar: tickets(where: {status: {_eq: $s}}) { title }
        fromList: tickets(where: {status: {_in: $many}}, order_by: {id: asc}) { title }
      }`,
      { s: 'In_progress', many: ['In_progress', 'Closed'] },
      agent,
    );
    expect(d.bare).toEqual([{ title: 'Printer jam', status: 'Open' }]);
    expect(titles(d.quoted)).toEqual(['Printer jam']);
    expect(titles(d.neq)).toEqual(['VPN down', 'New laptop']);
    expect(titles(d.mixed)).toEqual(['Printer jam', 'New laptop']);
    expect(titles(d.nin)).toEqual(['VPN down']);
    expect(d.none).toEqual([{ title: 'New laptop', priority: null }]);
    expect(titles(d.fromVar)).toEqual(['VPN down']);
    expect(titles(d.fromList)).toEqual(['VPN down', 'New laptop']);
  });

  test('a value outside the table is refused, as a literal, a string or a variable, with the allowed values', async () => {
    const allowed = 'allowed values: Closed, In_progress, Open';
    const bare = await errorOf('{ tickets(where: {status: {_eq: Pending}}) { id } }', {}, agent);
    expect(bare).toEqual({
      message: `unexpected value "Pending" for ticket_status_enum; ${allowed}`,
      extensions: { code: 'validation-failed', path: '$.selectionSet.tickets.args.where.status._eq' },
    });
    const spaced = await errorOf('{ tickets(where: {status: {_in: ["in progress"]}}) { id } }', {}, agent);
    expect(spaced.message).toBe(`unexpected value "in progress" for ticket_status_enum; ${allowed}`);
    const number = await errorOf('{ tickets(where: {status: {_eq: 3}}) { id } }', {}, agent);
    expect(number.message).toBe(`unexpected value "3" for ticket_status_enum; ${allowed}`);
    const variable = await errorOf(
      'query ($s: ticket_status_enum) { tickets(where: {status: {_eq: $s}}) { id } }',
      { s: 'open' },
      agent,
    );
    expect(variable.message).toBe(
      `Variable "$s" got invalid value "open"; unexpected value "open" for ticket_status_enum; ${allowed}`,
    );
  });

  test('inserts and updates take the values bare or as strings and answer them as strings', async () => {
    const inserted = await data(
      `mutation { a: insert_tickets_one(object: {id: 10, title: "Screen flickers", status: In_progress, priority: "low"}) { id status priority }
        b: insert_tickets(objects: [{id: 11, title: "Mouse", status: "Closed"}]) { returning { status priority } } }`,
      {},
      agent,
    );
    expect(inserted).toEqual({
      a: { id: 10, status: 'In_progress', priority: 'low' },
      b: { returning: [{ status: 'Closed', priority: null }] },
    });
    const updated = await data(
      'mutation ($p: priority_enum) { update_tickets_by_pk(pk_columns: {id: 10}, _set: {status: Closed, priority: $p}) { status priority } }',
      { p: '_urgent' },
      agent,
    );
    expect(updated.update_tickets_by_pk).toEqual({ status: 'Closed', priority: '_urgent' });
    const refused = await errorOf(
      'mutation { update_tickets_by_pk(pk_columns: {id: 10}, _set: {status: Reopened}) { id } }',
      {},
      agent,
    );
    expect(refused.extensions.code).toBe('validation-failed');
    await data('mutation { delete_tickets(where: {id: {_in: [10, 11]}}) { affected_rows } }');
  });
});

describe(`a table the role may select no column of does not exist for it on ${backendName}`, () => {
  test('no root field, no relationship to it, no returning; the rest of the schema works', async () => {
    const d = await data(
      `{ q: __type(name: "query_root") { fields { name } }
         m: __type(name: "mutation_root") { fields { name } }
         notes: __type(name: "notes") { fields { name } }
         where: __type(name: "notes_bool_exp") { inputFields { name } }
         tickets: __type(name: "tickets") { name }
         response: __type(name: "tickets_mutation_response") { fields { name } } }`,
      {},
      outsider,
    );
    expect(names(d.q.fields)).toEqual(['notes', 'notes_by_pk']);
    expect(names(d.m.fields)).toEqual(['insert_tickets']);
    expect(names(d.notes.fields)).toEqual(['id', 'body']);
    expect(names(d.where.inputFields)).toEqual(['_and', '_not', '_or', 'id', 'body']);
    expect(d.tickets).toBeNull();
    expect(names(d.response.fields)).toEqual(['affected_rows']);
    expect(await data('{ notes(order_by: {id: asc}) { id body } }', {}, outsider)).toEqual({
      notes: [
        { id: 1, body: 'Paper stuck in tray 2' },
        { id: 2, body: 'Router restarted' },
      ],
    });
  });

  test('asking for it is a validation error, not a server error', async () => {
    expect(await errorOf('{ tickets { id } }', {}, outsider)).toEqual({
      message: 'Cannot query field "tickets" on type "query_root".',
      extensions: { code: 'validation-failed', path: '$.selectionSet.tickets' },
    });
    const rel = await errorOf('{ notes { ticket { id } } }', {}, outsider);
    expect(rel.extensions.code).toBe('validation-failed');
  });

  test('it may still insert what its insert permission allows', async () => {
    const d = await data(
      'mutation { insert_tickets(objects: [{id: 20, title: "From outside", status: Open}]) { affected_rows } }',
      {},
      outsider,
    );
    expect(d).toEqual({ insert_tickets: { affected_rows: 1 } });
    await data('mutation { delete_tickets_by_pk(id: 20) { id } }');
  });
});

describe(`a role that may set no column has no insert or update fields on ${backendName}`, () => {
  const stamper = { 'x-hasura-role': 'stamper' };

  test('its schema builds: reads and deletes are there, inserts and updates are not', async () => {
    const d = await data(
      `{ m: __type(name: "mutation_root") { fields { name } }
         insert: __type(name: "notes_insert_input") { name }
         set: __type(name: "notes_set_input") { name } }`,
      {},
      stamper,
    );
    expect(names(d.m.fields)).toEqual(['delete_notes', 'delete_notes_by_pk']);
    expect(d.insert).toBeNull();
    expect(d.set).toBeNull();
    expect(await data('{ notes(order_by: {id: asc}) { id } }', {}, stamper)).toEqual({ notes: [{ id: 1 }, { id: 2 }] });
  });

  test('asking to insert is a validation error, not a server error', async () => {
    const err = await errorOf('mutation { insert_notes(objects: [{}]) { affected_rows } }', {}, stamper);
    expect(err.extensions.code).toBe('validation-failed');
  });
});

describe(`an empty schema answers with no_queries_available on ${backendName}`, () => {
  const PLACEHOLDER =
    "There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn't have the required permissions.";

  test('a role that can see nothing: the placeholder field, no mutation root', async () => {
    const d = await data(
      '{ __schema { queryType { name fields { name description args { name } type { kind ofType { name } } } } mutationType { name } } }',
      {},
      nobody,
    );
    expect(d.__schema).toEqual({
      queryType: {
        name: 'query_root',
        fields: [
          {
            name: 'no_queries_available',
            description: PLACEHOLDER,
            args: [],
            type: { kind: 'NON_NULL', ofType: { name: 'String' } },
          },
        ],
      },
      mutationType: null,
    });
    expect(await data('{ __typename no_queries_available }', {}, nobody)).toEqual({
      __typename: 'query_root',
      no_queries_available: PLACEHOLDER,
    });
    expect((await errorOf('{ tickets { id } }', {}, nobody)).extensions.code).toBe('validation-failed');
  });

  test('metadata that tracks no table: the admin gets the placeholder too', async () => {
    await withOwnEngine(metadataTracking('[]\n'), async (empty) => {
      if (empty instanceof Error) throw empty;
      const res = await empty.gql('{ no_queries_available __schema { mutationType { name } } }');
      expect(res.body).toEqual({ data: { no_queries_available: PLACEHOLDER, __schema: { mutationType: null } } });
    });
  });
});

describe(`introspection order on ${backendName}`, () => {
  test('types and arguments by name; fields as the metadata and the database order them', async () => {
    const types = await allTypes({});
    const typeNames = names(types);
    expect(typeNames).toEqual(codePointSorted(typeNames));
    for (const t of types)
      for (const f of t.fields ?? [])
        expect([t.name, f.name, names(f.args!)]).toEqual([t.name, f.name, codePointSorted(names(f.args!))]);
    const byName = new Map(types.map((t) => [t.name, t]));
    // Root fields: tables in tables.yaml order, each with select, aggregate, by_pk.
    expect(names(byName.get('query_root')!.fields)).toEqual([
      'tickets',
      'tickets_aggregate',
      'tickets_by_pk',
      'notes',
      'notes_aggregate',
      'notes_by_pk',
      'ticket_status',
      'ticket_status_aggregate',
      'ticket_status_by_pk',
      'priority',
      'priority_aggregate',
      'priority_by_pk',
    ]);
    // Columns in database order, then relationships in metadata order.
    expect(names(byName.get('tickets')!.fields)).toEqual([
      'id',
      'title',
      'status',
      'priority',
      'notes',
      'notes_aggregate',
    ]);
    // Mutations: per table in the same order, insert, then update.
    expect(names(byName.get('mutation_root')!.fields).slice(0, 4)).toEqual([
      'insert_tickets',
      'insert_tickets_one',
      'update_tickets',
      'update_tickets_by_pk',
    ]);
  });

  test('the same metadata gives the same introspection after a restart', async () => {
    const query = `{ __schema { types { ${FULL_TYPE} } } }`;
    const before = (await server.gql(query)).text;
    await server.stop();
    server = await start();
    expect((await server.gql(query)).text).toBe(before);
  });
});

describe(`enum tables Hasura refuses stop start-up on ${backendName}`, () => {
  const refused = async (metadataDir: string) => {
    const failure = await withOwnEngine(metadataDir, async (s) => (s instanceof Error ? s : undefined));
    expect(failure).toBeInstanceOf(MetadataError);
    return failure!.message;
  };
  const enumTable = (name: string) => `table:\n  name: ${name}\n  schema: public\nis_enum: true\n`;

  test('values that are not GraphQL names: each one named', async () => {
    const dir = metadataTracking('- "!include public_bad_status.yaml"\n', {
      'public_bad_status.yaml': enumTable('bad_status'),
    });
    const message = await refused(dir);
    expect(message).toContain('public_bad_status.yaml');
    expect(message).toContain(
      'enum table "bad_status" has values that are not valid GraphQL enum names: "2fa", "in progress", "true"',
    );
    expect(message).not.toContain('"Fine"');
  });

  test('an enum table without rows', async () => {
    const dir = metadataTracking('- "!include public_empty_status.yaml"\n', {
      'public_empty_status.yaml': enumTable('empty_status'),
    });
    expect(await refused(dir)).toContain('enum table "empty_status" has no rows');
  });
});
