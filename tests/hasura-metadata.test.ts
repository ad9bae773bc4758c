import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import YAML from 'yaml';
import { loadMetadata, MetadataError } from '../engine/compile/model/load';
import { backendName, createTestDatabase, type TestDatabase } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * Hasura's metadata as `hasura metadata export` writes it (config v3: version.yaml, databases.yaml
 * with `!include` lines, one file per table, functions.yaml, an empty actions.graphql and the other
 * top-level files), started on and queried through HTTP: permission shorthand, `$` operators,
 * `_exists`, every form of foreign_key_constraint_on, and the warnings for what the engine leaves aside.
 */
const FIXTURE = path.join(__dirname, 'fixture', 'hasura-export');
const METADATA = path.join(FIXTURE, 'metadata');
const TABLES = path.join('databases', 'default', 'tables');
const env = (metadataDir: string) => ({ METADATA_DIR: metadataDir, MIGRATIONS_DIR: path.join(FIXTURE, 'sql') });
type LogLine = Record<string, unknown>;

const temporaryDirs: string[] = [];
afterAll(() => {
  for (const dir of temporaryDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of the fixture's metadata with `edit` applied to it. */
function metadataWith(edit: (dir: string) => void): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hasura-export-'));
  temporaryDirs.push(dir);
  fs.cpSync(METADATA, dir, { recursive: true });
  edit(dir);
  return dir;
}

/** Parses a table file of `dir`, lets `change` edit it, writes it back. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function editTable(dir: string, file: string, change: (doc: any) => void): void {
  const target = path.join(dir, TABLES, file);
  const doc = YAML.parse(fs.readFileSync(target, 'utf8'));
  change(doc);
  fs.writeFileSync(target, YAML.stringify(doc));
}

/** The select permission of `role` in a parsed table file. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const selectOf = (doc: any, role: string) => doc.select_permissions.find((p: { role: string }) => p.role === role);

const session = (role: string, userId?: number): Record<string, string> => ({
  'x-hasura-role': role,
  ...(userId === undefined ? {} : { 'x-hasura-user-id': String(userId) }),
});

const isMetadataWarning = (line: LogLine) => line.level === 'warn' && typeof line.feature === 'string';

describe(`an exported Hasura project on ${backendName}`, () => {
  let server: TestServer;
  const logs: LogLine[] = [];
  beforeAll(async () => {
    server = await startTestServer({ seed: false, env: env(METADATA), log: (line) => logs.push(line) });
  }, 180_000);
  afterAll(() => server?.close());

  /** The ids of `table` the role sees, ordered. */
  const idsOf = async (table: string, role: string, userId?: number): Promise<number[]> => {
    const res = await server.gql(`{ ${table}(order_by: {id: asc}) { id } }`, {}, session(role, userId));
    expect(res.body.errors).toBeUndefined();
    return res.body.data[table].map((r: { id: number }) => r.id);
  };

  test('the empty files of an export are accepted: no warning, no action, no function', async () => {
    expect(logs.filter(isMetadataWarning)).toEqual([]);
    const md = loadMetadata(METADATA);
    expect(md.warnings).toEqual([]);
    expect(md.actions).toEqual([]);
    expect(md.actionsSdl).toBe('');
    expect(fs.readFileSync(path.join(METADATA, 'actions.graphql'), 'utf8')).toBe('');
    const res = await server.gql('{ __schema { mutationType { fields { name } } } }');
    const mutations = res.body.data.__schema.mutationType.fields.map((f: { name: string }) => f.name);
    expect(mutations).toContain('insert_comments');
    expect(mutations.filter((n: string) => !/^(insert|update|delete)_/.test(n))).toEqual([]);
  });

  // Articles: 1 "The Quiet Night" (published, 5, {lang: en, featured}), 2 "Draft of Dawn" (3, {lang:
  // en}), 3 "the loud day" (published, no rating, {lang: fr}), 4 "Night Shift" (1, {}).
  test.each([
    ['op_eq', '$eq', [2]],
    ['op_ne', '$ne', [1, 4]],
    ['op_neq', '$neq', [2, 4]],
    ['op_ne_underscore', '_ne', [1, 2]],
    ['op_in', '$in', [1, 3]],
    ['op_nin', '$nin', [2, 4]],
    ['op_gt', '$gt', [1]],
    ['op_lt', '$lt', [4]],
    ['op_gte', '$gte', [1, 2]],
    ['op_lte', '$lte', [2, 4]],
    ['op_like', '$like', [1, 4]],
    ['op_nlike', '$nlike', [2, 3]],
    ['op_ilike', '$ilike', [1, 3]],
    ['op_nilike', '$nilike', [2, 4]],
    ['op_similar', '$similar', [2, 4]],
    ['op_nsimilar', '$nsimilar', [1, 3]],
    ['op_regex', '$regex', [1, 2, 4]],
    ['op_nregex', '$nregex', [3]],
    ['op_iregex', '$iregex', [1, 4]],
    ['op_niregex', '$niregex', [2, 3]],
    ['op_is_null', '$is_null', [3]],
    ['op_contains', '$contains', [1, 2]],
    ['op_has_key', '$has_key', [1]],
    ['op_and', '$and', [1]],
    ['op_or', '$or (with the shorthand inside)', [2, 3]],
    ['op_not', '$not (with the shorthand inside)', [2, 4]],
  ])('role %s filters with %s', async (role, _op, expected) => {
    expect(await idsOf('articles', role)).toEqual(expected);
  });

  test('$exists: the rows show when the session user has an active membership', async () => {
    expect(await idsOf('articles', 'op_exists', 1)).toEqual([1, 2, 3, 4]);
    expect(await idsOf('articles', 'op_exists', 2)).toEqual([]);
    expect(await idsOf('articles', 'op_exists', 3)).toEqual([]);
  });

  test('_exists with _table as {schema, name} and _and inside _where', async () => {
    expect(await idsOf('articles', 'member', 1)).toEqual([1, 2, 3, 4]);
    expect(await idsOf('articles', 'member', 3)).toEqual([]);
  });

  test('_exists with _table as a bare name and shorthand (a session variable and a literal) in _where', async () => {
    expect(await idsOf('comments', 'moderator', 2)).toEqual([100, 101, 102]);
    expect(await idsOf('comments', 'moderator', 1)).toEqual([]);
  });

  test('shorthand through a relationship inside _or: published ones, and the own ones', async () => {
    expect(await idsOf('articles', 'user', 1)).toEqual([1, 2, 3]);
    expect(await idsOf('articles', 'user', 2)).toEqual([1, 3, 4]);
    expect(await idsOf('articles', 'user', 3)).toEqual([1, 3]);
  });

  test('shorthand inside _not and through an object relationship, in _and', async () => {
    expect(await idsOf('comments', 'user', 1)).toEqual([100, 101]);
    expect(await idsOf('comments', 'user', 2)).toEqual([101, 102]);
  });

  test('an insert check in shorthand: own user id, on a published article', async () => {
    const insert = (id: number, articleId: number, userId: number) =>
      server.gql(
        `mutation { insert_comments(objects: [{id: ${id}, article_id: ${articleId}, user_id: ${userId}, body: "Hi"}]) { affected_rows } }`,
        {},
        session('user', 3),
      );
    const refused = {
      errors: [
        {
          message: 'check constraint of an insert/update permission has failed',
          extensions: { path: '$.selectionSet.insert_comments', code: 'permission-error' },
        },
      ],
    };
    expect((await insert(200, 1, 1)).body).toEqual(refused);
    expect((await insert(201, 2, 3)).body).toEqual(refused);
    expect((await insert(202, 1, 3)).body).toEqual({ data: { insert_comments: { affected_rows: 1 } } });
    const rows = await server.gql('{ comments(where: {id: {_gte: 200}}, order_by: {id: asc}) { id user_id } }');
    expect(rows.body).toEqual({ data: { comments: [{ id: 202, user_id: 3 }] } });
    // The other tests read the fixture's rows as they were.
    await server.gql('mutation { delete_comments(where: {id: {_gte: 200}}) { affected_rows } }');
  });

  test('foreign_key_constraint_on on a column, and {table, column} and {table, columns: c} for arrays and objects', async () => {
    const res = await server.gql(`{
      articles(order_by: {id: asc}, where: {id: {_in: [1, 3]}}) {
        id author { name user { name } profile { bio } } comments(order_by: {id: asc}) { id }
      }
      authors(order_by: {id: asc}) { name articles(order_by: {id: asc}) { id } }
    }`);
    expect(res.body).toEqual({
      data: {
        articles: [
          {
            id: 1,
            author: { name: 'Ada Author', user: { name: 'Ada' }, profile: { bio: 'Writes about engines' } },
            comments: [{ id: 100 }, { id: 101 }],
          },
          { id: 3, author: { name: 'Ben Author', user: { name: 'Ben' }, profile: null }, comments: [{ id: 102 }] },
        ],
        authors: [
          { name: 'Ada Author', articles: [{ id: 1 }, { id: 2 }] },
          { name: 'Ben Author', articles: [{ id: 3 }, { id: 4 }] },
        ],
      },
    });
  });

  test('foreign_key_constraint_on a list of columns: a composite key, either way', async () => {
    const res = await server.gql(`{
      offices(order_by: {id: asc}) { city region { name } }
      regions(order_by: {code: asc}) { code offices(order_by: {id: asc}) { city } }
      author_profiles { bio author { name } }
    }`);
    expect(res.body).toEqual({
      data: {
        offices: [
          { city: 'Paris', region: { name: 'Ile-de-France' } },
          { city: 'Versailles', region: { name: 'Ile-de-France' } },
          { city: 'Rennes', region: { name: 'Bretagne' } },
        ],
        regions: [
          { code: 'BRE', offices: [{ city: 'Rennes' }] },
          { code: 'IDF', offices: [{ city: 'Paris' }, { city: 'Versailles' }] },
        ],
        author_profiles: [{ bio: 'Writes about engines', author: { name: 'Ada Author' } }],
      },
    });
  });

  test('manual_configuration with remote_table as a name and as {schema, name}', async () => {
    const res = await server.gql(`{
      comments(order_by: {id: asc}, where: {id: {_lt: 200}}) { id commenter { name } }
      users(order_by: {id: asc}) { name comments_written(order_by: {id: asc}) { id } }
    }`);
    expect(res.body).toEqual({
      data: {
        comments: [
          { id: 100, commenter: { name: 'Ben' } },
          { id: 101, commenter: { name: 'Cy' } },
          { id: 102, commenter: { name: 'Ada' } },
        ],
        users: [
          { name: 'Ada', comments_written: [{ id: 102 }] },
          { name: 'Ben', comments_written: [{ id: 100 }] },
          { name: 'Cy', comments_written: [{ id: 101 }] },
        ],
      },
    });
  });
});

describe(`features the engine leaves aside, and refusals, on ${backendName}`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ persistent: true });
  });
  afterAll(() => database?.drop());
  const start = (metadataDir: string, log?: (line: LogLine) => void) =>
    startTestServer({ database, seed: false, env: env(metadataDir), log });

  test("the platform's own metadata loads without a warning", () => {
    expect(loadMetadata(path.join(__dirname, '..', 'metadata')).warnings).toEqual([]);
  });

  test('each file and feature the engine does not implement: one warning naming both, and start-up goes on', async () => {
    const dir = metadataWith((d) => {
      const write = (file: string, value: unknown) => fs.writeFileSync(path.join(d, file), YAML.stringify(value));
      write('cron_triggers.yaml', [
        { name: 'nightly', webhook: 'http://example.invalid/a', schedule: '0 0 * * *', include_in_metadata: true },
        { name: 'hourly', webhook: 'http://example.invalid/b', schedule: '0 * * * *', include_in_metadata: true },
      ]);
      write('remote_schemas.yaml', [{ name: 'countries', definition: { url: 'http://example.invalid/graphql' } }]);
      write('inherited_roles.yaml', [{ role_name: 'staff', role_set: ['user', 'moderator'] }]);
      write('graphql_schema_introspection.yaml', { disabled_for_roles: ['user'] });
      write(path.join('databases', 'default', 'functions', 'functions.yaml'), [
        { function: { name: 'search_articles', schema: 'public' } },
      ]);
      editTable(d, 'public_articles.yaml', (doc) => {
        doc.event_triggers = [
          { name: 'article_created', definition: { enable_manual: false, insert: { columns: '*' } } },
        ];
        doc.computed_fields = [{ name: 'word_count', definition: { function: { name: 'word_count' } } }];
        doc.remote_relationships = [{ name: 'country', definition: { to_remote_schema: {} } }];
      });
    });
    const logs: LogLine[] = [];
    const server = await start(dir, (line) => logs.push(line));
    try {
      const warned = logs
        .filter(isMetadataWarning)
        .map((l) => [path.relative(dir, String(l.file)), l.feature, l.msg] as [string, string, string]);
      const table = path.join(TABLES, 'public_articles.yaml');
      expect(warned.map(([file, feature]) => [file, feature]).sort()).toEqual(
        [
          ['cron_triggers.yaml', 'cron triggers'],
          ['remote_schemas.yaml', 'remote schemas'],
          ['inherited_roles.yaml', 'inherited roles'],
          ['graphql_schema_introspection.yaml', 'introspection disabled for roles'],
          [path.join('databases', 'default', 'functions', 'functions.yaml'), 'tracked SQL functions'],
          [table, 'event triggers'],
          [table, 'computed fields'],
          [table, 'remote relationships'],
        ].sort(),
      );
      for (const [file, feature, msg] of warned) {
        expect(msg).toContain(file);
        expect(msg).toContain(feature);
      }
      const res = await server.gql('{ articles(order_by: {id: asc}) { id } }', {}, session('op_gt'));
      expect(res.body).toEqual({ data: { articles: [{ id: 1 }] } });
    } finally {
      await server.stop();
    }
  }, 180_000);

  /** Start-up fails with a MetadataError naming the file and every fragment. */
  const refused = async (dir: string, file: string, ...fragments: string[]) => {
    const failure = await start(dir).then(
      async (server) => {
        await server.stop();
        return undefined;
      },
      (err: unknown) => err as Error,
    );
    expect(failure).toBeInstanceOf(MetadataError);
    expect(failure!.message).toContain(path.join(dir, TABLES, file));
    for (const f of fragments) expect(failure!.message).toContain(f);
  };

  test('an unknown operator, with a $ or an underscore, still stops start-up with the file and path', async () => {
    const withOp = (op: string) =>
      metadataWith((d) =>
        editTable(
          d,
          'public_articles.yaml',
          (doc) => (selectOf(doc, 'op_gt').permission.filter = { rating: { [op]: 3 } }),
        ),
      );
    await refused(
      withOp('$greater'),
      'public_articles.yaml',
      'select_permissions[',
      '.filter.rating.$greater',
      'unknown operator "$greater"',
    );
    await refused(withOp('_greater'), 'public_articles.yaml', '.filter.rating._greater', 'unknown operator "_greater"');
  }, 180_000);

  test('a list in the shorthand, and $and that is not a list, are refused', async () => {
    const withFilter = (filter: unknown) =>
      metadataWith((d) =>
        editTable(d, 'public_articles.yaml', (doc) => (selectOf(doc, 'op_gt').permission.filter = filter)),
      );
    await refused(withFilter({ id: [1, 2] }), 'public_articles.yaml', '.filter.id', 'a list needs an operator');
    await refused(withFilter({ $and: { id: 1 } }), 'public_articles.yaml', '.filter.$and', 'expected a list');
  }, 180_000);

  test('_exists on a table the metadata does not track', async () => {
    const dir = metadataWith((d) =>
      editTable(d, 'public_comments.yaml', (doc) => {
        selectOf(doc, 'moderator').permission.filter = { _exists: { _table: 'staff', _where: {} } };
      }),
    );
    await refused(dir, 'public_comments.yaml', '.filter._exists', 'table "public"."staff" is not tracked');
  }, 180_000);

  test('foreign_key_constraint_on {table, columns} that match no foreign key', async () => {
    const dir = metadataWith((d) =>
      editTable(d, 'public_regions.yaml', (doc) => {
        doc.array_relationships[0].using.foreign_key_constraint_on.columns = ['country'];
      }),
    );
    await refused(dir, 'public_regions.yaml', 'array_relationships.offices', 'no foreign key on "offices"(country)');
  }, 180_000);
});
