import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse, type OperationDefinitionNode } from 'graphql';
import YAML from 'yaml';
import { compile } from '../engine/compile/execute/compile';
import { Engine } from '../engine/compile/execute/engine';
import { loadMetadata, MetadataError } from '../engine/compile/model/load';
import { buildModel } from '../engine/compile/model/model';
import { backendName } from './support/database';
import { asReader, asUser } from './support/fixture';
import { startTestServer, type TestServer } from './support/server';

/**
 * Native queries over logical models, on the test fixture: a copy of tests/fixture/metadata with two
 * native queries added. Arguments are bound, never written into the SQL; where, order_by,
 * distinct_on, limit, offset, the role's filter and MAX_ROWS apply as for tables; bad metadata is
 * refused with the file and the place.
 */
const FIXTURE = path.join(__dirname, 'fixture');

const LOGICAL_MODELS = [
  {
    name: 'book_summary',
    fields: [
      { name: 'id', type: { scalar: 'uuid', nullable: false } },
      { name: 'title', type: { scalar: 'text', nullable: false } },
      { name: 'pages', type: { scalar: 'integer', nullable: false } },
      { name: 'price', type: { scalar: 'numeric', nullable: true } },
      { name: 'author_name', type: { scalar: 'text', nullable: false } },
      { name: 'owner_id', type: { scalar: 'integer', nullable: false } },
    ],
    select_permissions: [
      {
        role: 'user',
        permission: {
          columns: ['id', 'title', 'pages', 'author_name', 'owner_id'],
          filter: { owner_id: { _eq: 'X-Hasura-User-Id' } },
        },
      },
    ],
  },
  // The track-API form of a field type (a bare name and `nullable` beside it) is accepted too.
  {
    name: 'genre_count',
    fields: [
      { name: 'genre', type: 'text', nullable: false },
      { name: 'books', type: 'bigint', nullable: false },
    ],
  },
];

const NATIVE_QUERIES = [
  {
    root_field_name: 'books_matching',
    arguments: { search: { type: 'text', nullable: false }, min_pages: { type: 'integer', nullable: true } },
    returns: 'book_summary',
    code: `SELECT b.id, b.title, b.pages, b.price, a.name AS author_name, b.owner_id
FROM books b JOIN authors a ON a.id = b.author_id
WHERE strpos(lower(b.title), lower({{search}})) > 0
  AND ({{ min_pages }} IS NULL OR b.pages >= {{min_pages}}) -- a trailing comment
`,
  },
  {
    root_field_name: 'genre_counts',
    returns: 'genre_count',
    code: 'SELECT genre, count(*) AS books FROM books GROUP BY genre;',
  },
];

type Doc = Record<string, unknown>[];
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** The fixture's metadata with logical models and native queries written by `edit` into databases.yaml. */
function metadataDir(edit: (source: Record<string, unknown>) => void = () => undefined): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nq-metadata-'));
  dirs.push(dir);
  fs.cpSync(path.join(FIXTURE, 'metadata'), dir, { recursive: true });
  const file = path.join(dir, 'databases', 'databases.yaml');
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) as Doc;
  doc[0].logical_models = structuredClone(LOGICAL_MODELS);
  doc[0].native_queries = structuredClone(NATIVE_QUERIES);
  edit(doc[0]);
  fs.writeFileSync(file, YAML.stringify(doc));
  return dir;
}

describe(`native queries on ${backendName}`, () => {
  let server: TestServer;
  const sql = (text: string, params: string[] = []) => server.started.db.query(text, params);
  const gql = async (query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const res = await server.gql(query, variables, headers);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const errorOf = async (query: string, headers: Record<string, string> = {}) =>
    (await server.gql(query, {}, headers)).body.errors?.[0];

  beforeAll(async () => {
    server = await startTestServer({
      seed: false,
      env: { METADATA_DIR: metadataDir(), MIGRATIONS_DIR: path.join(FIXTURE, 'sql') },
    });
  });
  afterAll(() => server.close());

  const MATCHING = `SELECT b.id::text, b.title, b.pages, b.price::text AS price, a.name AS author_name, b.owner_id
    FROM books b JOIN authors a ON a.id = b.author_id WHERE strpos(lower(b.title), lower($1)) > 0`;
  const asNumbers = (rows: Record<string, unknown>[]) =>
    rows.map((r) => ({ ...r, price: r.price === null ? null : Number(r.price) }));

  test('rows and every field match the SQL run by hand', async () => {
    const data = await gql(
      '{ books_matching(args: {search: "I"}, order_by: {title: asc}) { id title pages price author_name owner_id } }',
    );
    const expected = await sql(`${MATCHING} ORDER BY b.title`, ['I']);
    expect(expected.length).toBeGreaterThan(2);
    expect(asNumbers(data.books_matching)).toEqual(asNumbers(expected));
  });

  test('a nullable argument may be left out or given; where, order_by, limit and offset apply', async () => {
    const all = await gql('{ books_matching(args: {search: "t"}) { id } }');
    expect(all.books_matching).toHaveLength(6);
    const data =
      await gql(`{ books_matching(args: {search: "t", min_pages: 150}, where: {author_name: {_neq: "Bob Brown"}},
      order_by: [{pages: desc}], limit: 2, offset: 1) { title pages } }`);
    const expected = await sql(
      `${MATCHING} AND b.pages >= 150 AND a.name <> 'Bob Brown' ORDER BY b.pages DESC LIMIT 2 OFFSET 1`,
      ['t'],
    );
    expect(data.books_matching).toEqual(expected.map((r) => ({ title: r.title, pages: r.pages })));
  });

  test('distinct_on keeps the first row of each group of the order', async () => {
    const data = await gql(
      '{ books_matching(args: {search: ""}, distinct_on: [author_name], order_by: [{author_name: asc}, {pages: desc}]) { author_name title } }',
    );
    const expected = await sql(
      `SELECT DISTINCT ON (a.name) a.name AS author_name, b.title FROM books b JOIN authors a ON a.id = b.author_id ORDER BY a.name, b.pages DESC`,
    );
    expect(data.books_matching).toEqual(expected);
  });

  test('a native query without arguments has no args; its own where applies', async () => {
    const data = await gql('{ genre_counts(where: {books: {_gt: 1}}, order_by: {genre: asc}) { genre books } }');
    const expected = await sql(
      'SELECT genre, count(*)::int AS books FROM books GROUP BY genre HAVING count(*) > 1 ORDER BY genre',
    );
    expect(data.genre_counts.map((r: { genre: string; books: unknown }) => [r.genre, Number(r.books)])).toEqual(
      expected.map((r) => [r.genre, r.books]),
    );
    expect((await errorOf('{ genre_counts(args: {}) { genre } }')).extensions.code).toBe('validation-failed');
  });

  test("the role's filter and columns apply; a role without permission has no field", async () => {
    for (const user of [1, 2]) {
      const data = await gql(
        '{ books_matching(args: {search: ""}, order_by: {title: asc}) { title owner_id } }',
        {},
        asUser(user),
      );
      const expected = await sql('SELECT title, owner_id FROM books WHERE owner_id = $1 ORDER BY title', [
        String(user),
      ]);
      expect(data.books_matching).toEqual(expected);
    }
    const hidden = await errorOf('{ books_matching(args: {search: ""}) { price } }', asUser(1));
    expect(hidden.message).toMatch(/price/);
    expect((await errorOf('{ genre_counts { genre } }', asUser(1))).extensions.code).toBe('validation-failed');
    expect((await errorOf('{ books_matching(args: {search: ""}) { title } }', asReader)).extensions.code).toBe(
      'validation-failed',
    );
  });

  test('args is required when an argument is not nullable, and so is that argument', async () => {
    const missing = await errorOf('{ books_matching { title } }');
    expect(missing.extensions.code).toBe('validation-failed');
    expect(missing.message).toMatch(/args/);
    const field = await errorOf('{ books_matching(args: {min_pages: 3}) { title } }');
    expect(field.extensions.code).toBe('validation-failed');
    expect(field.message).toMatch(/search/);
    const wrongType = await errorOf('{ books_matching(args: {search: "a", min_pages: "many"}) { title } }');
    expect(wrongType.extensions.code).toBe('validation-failed');
  });

  test('argument values are bound: quotes and SQL in a value are only text', async () => {
    for (const search of ["' OR '1'='1", "x') OR true --", "'; DROP TABLE books; --"]) {
      const data = await gql('query ($s: String!) { books_matching(args: {search: $s}) { id } }', { s: search });
      expect(data.books_matching).toEqual([]);
    }
    const [{ n }] = await sql('SELECT count(*)::int AS n FROM books');
    expect(n).toBe(6);
    // The SQL text holds a cast placeholder where the code had {{search}}, never the value.
    const role = server.started.engine.schemaFor('admin');
    const op = parse(`{ books_matching(args: {search: "it's"}) { id } }`).definitions[0] as OperationDefinitionNode;
    const plan = compile(role, op, {}, {}, { maxRows: 100, maxDepth: 10 });
    expect(plan.queries[0].text).not.toContain("it's");
    expect(plan.queries[0].text).toMatch(/lower\(\$\d+::text\)/);
    expect(plan.queries[0].params.some((p) => p.source.from === 'literal' && p.source.value === "it's")).toBe(true);
  });

  // Plans are cached per shape of an object variable (its keys), so both values have the same keys.
  test('one plan serves every value of a variable', async () => {
    const query =
      'query ($a: books_matching_arguments!) { books_matching(args: $a, order_by: {title: asc}) { title } }';
    const first = await gql(query, { a: { search: 'light', min_pages: 1 } });
    const compilations = server.started.engine.compilations;
    const second = await gql(query, { a: { search: 'poems', min_pages: 100 } });
    expect(server.started.engine.compilations).toBe(compilations);
    expect(first.books_matching).toEqual([{ title: 'The First Light' }]);
    expect(second.books_matching).toEqual([{ title: 'Autumn Poems' }]);
  });

  test('MAX_ROWS caps the rows, whatever the limit', async () => {
    const { engine } = server.started;
    const capped = new Engine(engine.model, server.started.db, {
      ...engine.config,
      limits: { ...engine.config.limits, maxRows: 2 },
    });
    const res = await capped.run(
      { query: '{ books_matching(args: {search: ""}, limit: 5) { id } }' },
      { role: 'admin', vars: {}, isAdmin: true },
    );
    expect(JSON.parse(res.body).data.books_matching).toHaveLength(2);
  });

  test('introspection names the types as Hasura does', async () => {
    const data =
      await gql(`{ __schema { queryType { fields { name args { name type { kind name ofType { name } } } } } }
      e: __type(name: "book_summary_enum_name") { enumValues { name } }
      b: __type(name: "book_summary_bool_exp_bool_exp") { inputFields { name } }
      o: __type(name: "book_summary_order_by") { inputFields { name } }
      a: __type(name: "books_matching_arguments") { inputFields { name type { kind name ofType { name } } } } }`);
    const field = data.__schema.queryType.fields.find((f: { name: string }) => f.name === 'books_matching');
    const args = Object.fromEntries(
      field.args.map((a: { name: string; type: { kind: string; name: string; ofType: { name: string } } }) => [
        a.name,
        a.type.kind === 'NON_NULL' ? `${a.type.ofType.name}!` : a.type.name,
      ]),
    );
    expect(args).toEqual({
      args: 'books_matching_arguments!',
      distinct_on: null,
      limit: 'Int',
      offset: 'Int',
      order_by: null,
      where: 'book_summary_bool_exp_bool_exp',
    });
    const fields = ['id', 'title', 'pages', 'price', 'author_name', 'owner_id'];
    expect(data.e.enumValues.map((v: { name: string }) => v.name)).toEqual(fields);
    expect(data.b.inputFields.map((v: { name: string }) => v.name)).toEqual(['_and', '_not', '_or', ...fields]);
    expect(data.o.inputFields.map((v: { name: string }) => v.name)).toEqual(fields);
    expect(data.a.inputFields.map((v: { name: string; type: { kind: string } }) => [v.name, v.type.kind])).toEqual([
      ['search', 'NON_NULL'],
      ['min_pages', 'SCALAR'],
    ]);
    const genre = data.__schema.queryType.fields.find((f: { name: string }) => f.name === 'genre_counts');
    expect(genre.args.map((a: { name: string }) => a.name)).not.toContain('args');
  });

  describe('bad metadata is refused with the file and the place', () => {
    const refused = async (edit: (source: Record<string, unknown>) => void, ...fragments: string[]) => {
      const dir = metadataDir(edit);
      const err = await (async () => buildModel(server.started.db, loadMetadata(dir)))().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err).toBeInstanceOf(MetadataError);
      expect(err!.message).toContain(path.join(dir, 'databases', 'databases.yaml'));
      for (const f of fragments) expect(err!.message).toContain(f);
    };
    const query = (s: Record<string, unknown>) => (s.native_queries as Record<string, unknown>[])[0];
    const model = (s: Record<string, unknown>) => (s.logical_models as Record<string, unknown>[])[0];

    test('an unknown logical model', () =>
      refused(
        (s) => {
          query(s).returns = 'no_such_model';
        },
        '[default].native_queries[0].returns',
        'unknown logical model "no_such_model"',
      ));
    test('a placeholder without argument', () =>
      refused(
        (s) => {
          query(s).code = 'SELECT * FROM books WHERE title = {{name}}';
        },
        'native_queries[0].code',
        'placeholder {{name}}',
      ));
    test('an argument the code does not use', () =>
      refused(
        (s) => {
          (query(s).arguments as Record<string, unknown>).extra = { type: 'text' };
        },
        'native_queries[0].arguments.extra',
        'not used',
      ));
    test('an unknown argument type', () =>
      refused(
        (s) => {
          (query(s).arguments as Record<string, { type: string }>).search.type = 'no_such_type';
        },
        'arguments.search.type',
        'unknown PostgreSQL type',
      ));
    test('$1-style parameters', () =>
      refused(
        (s) => {
          query(s).code = 'SELECT * FROM books WHERE title = $1 AND {{search}} = {{search}} AND {{min_pages}} = 1';
        },
        'native_queries[0].code',
        '{{argument}}',
      ));
    test('code that does not return a field of the model', () =>
      refused(
        (s) => {
          query(s).code = "SELECT b.id FROM books b WHERE {{search}} <> '' AND {{min_pages}} > 0";
        },
        'native_queries[0].code',
        'book_summary',
      ));
    test('SQL that fails', () =>
      refused(
        (s) => {
          query(s).code = 'SELECT * FROM no_such_table WHERE {{search}} = {{min_pages}}::text';
        },
        'native_queries[0].code',
        'no_such_table',
      ));
    test('a root field that a table has', () =>
      refused(
        (s) => {
          query(s).root_field_name = 'books';
        },
        'native_queries[0].root_field_name',
        'already a root field',
      ));
    test('an unknown field type', () =>
      refused(
        (s) => {
          (model(s).fields as Record<string, unknown>[])[0].type = { scalar: 'uuuid' };
        },
        'logical_models[0].fields[0].type',
        'uuuid',
      ));
    test('a permission on a field the model lacks', () =>
      refused(
        (s) => {
          (model(s).select_permissions as { permission: { columns: string[] } }[])[0].permission.columns.push(
            'internal_note',
          );
        },
        'logical_models[0].select_permissions[0].permission.columns',
        'internal_note',
      ));
    test('a filter on a field the model lacks', () =>
      refused((s) => {
        (model(s).select_permissions as { permission: { filter: unknown } }[])[0].permission.filter = {
          owner: { _eq: 1 },
        };
      }, 'select_permissions[0].permission.filter.owner'));
    test('an unknown key', () =>
      refused(
        (s) => {
          query(s).arguments_typo = {};
        },
        'native_queries[0]',
        'unknown key "arguments_typo"',
      ));
    test('a logical model with the name of a table', () =>
      refused(
        (s) => {
          model(s).name = 'books';
          query(s).returns = 'books';
        },
        'logical_models[0].name',
        'tracked table',
      ));
  });
});
