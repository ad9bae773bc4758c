import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import YAML from 'yaml';
import { loadMetadata, MetadataError } from '../engine/compile/model/load';
import { backendName, createTestDatabase, type TestDatabase } from './support/database';
import { startTestServer } from './support/server';

/**
 * Start-up refuses bad metadata with a message that names the file and the place inside it. Each case
 * is a temporary copy of the project's metadata/ with one edit; all start on one database, migrated once.
 */
const PROJECT_METADATA = path.join(__dirname, '..', 'metadata');
const TABLES_DIR = path.join('databases', 'default', 'tables');

const temporaryDirs: string[] = [];
afterAll(() => {
  for (const dir of temporaryDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temporaryDirs.push(dir);
  return dir;
}

/** A copy of the project's metadata with `edit` applied to it. */
function metadataWith(edit: (dir: string) => void): string {
  const dir = tempDir('metadata-');
  fs.cpSync(PROJECT_METADATA, dir, { recursive: true });
  edit(dir);
  return dir;
}

const tableFile = (dir: string, name: string) => path.join(dir, TABLES_DIR, name);

/** Parses a table file, lets `change` edit the document, writes it back. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function editTable(dir: string, name: string, change: (doc: any) => void): void {
  const file = tableFile(dir, name);
  const doc = YAML.parse(fs.readFileSync(file, 'utf8'));
  change(doc);
  fs.writeFileSync(file, YAML.stringify(doc, { aliasDuplicateObjects: false }));
}

const indexOfRole = (list: { role: string }[], role: string) => {
  const i = list.findIndex((p) => p.role === role);
  if (i < 0) throw new Error(`no permission for ${role}`);
  return i;
};

describe(`start-up refuses bad metadata on ${backendName}`, () => {
  let database: TestDatabase;
  const start = (metadataDir: string) => startTestServer({ database, seed: false, env: { METADATA_DIR: metadataDir } });
  /** Start-up fails, and the message names the file and every given fragment. */
  const refused = async (metadataDir: string, file: string, ...fragments: (string | RegExp)[]) => {
    const failure = await start(metadataDir).then(
      async (server) => {
        await server.stop();
        return undefined;
      },
      (err: unknown) => err as Error,
    );
    expect(failure).toBeInstanceOf(MetadataError);
    const message = failure!.message;
    expect(message).toContain(file);
    for (const f of fragments) {
      if (f instanceof RegExp) expect(message).toMatch(f);
      else expect(message).toContain(f);
    }
    return message;
  };

  beforeAll(async () => {
    database = await createTestDatabase({ persistent: true });
    // A first start migrates the database and proves an unedited copy is good metadata; then two
    // tables that no metadata tracks, for the relationship cases.
    const server = await start(metadataWith(() => undefined));
    await server.started.db.exec(`
      CREATE TABLE untracked_notes (id uuid PRIMARY KEY, body text);
      CREATE TABLE untracked_ticket_links (id uuid PRIMARY KEY, ticket_id uuid NOT NULL REFERENCES tickets (id));`);
    await server.stop();
  }, 180_000);
  afterAll(() => database?.drop());

  test('invalid YAML in a table file: its name, and the line and column', async () => {
    const dir = metadataWith((d) =>
      fs.writeFileSync(tableFile(d, 'public_spends.yaml'), 'table:\n  name: spends\n  schema: [public\n'),
    );
    await refused(dir, path.join(TABLES_DIR, 'public_spends.yaml'), 'invalid YAML', /line \d+, column \d+/);
  });

  test('invalid YAML in tables.yaml itself', async () => {
    const dir = metadataWith((d) => fs.appendFileSync(tableFile(d, 'tables.yaml'), '- [oops\n'));
    await refused(dir, path.join(TABLES_DIR, 'tables.yaml'), 'invalid YAML', /line \d+, column \d+/);
  });

  test('a select permission that lists a write-only secret column', async () => {
    const dir = metadataWith((d) =>
      editTable(d, 'public_cloud_accounts.yaml', (doc) => {
        const i = indexOfRole(doc.select_permissions, 'tenant_admin');
        doc.select_permissions[i].permission.columns.push('access_secret');
      }),
    );
    await refused(dir, 'public_cloud_accounts.yaml', 'select_permissions', '"access_secret" holds a secret');
  });

  test('tracking a sign-in table that holds secret material: api_tokens', async () => {
    const dir = metadataWith((d) => {
      fs.writeFileSync(tableFile(d, 'public_api_tokens.yaml'), 'table:\n  name: api_tokens\n  schema: public\n');
      fs.appendFileSync(tableFile(d, 'tables.yaml'), '- "!include public_api_tokens.yaml"\n');
    });
    await refused(dir, 'public_api_tokens.yaml', '"public"."api_tokens" holds secret sign-in material');
  });

  test('an unknown key at the top of a table file: select_permission', async () => {
    const dir = metadataWith((d) =>
      editTable(d, 'public_cloud_accounts.yaml', (doc) => {
        doc.select_permission = doc.select_permissions;
        delete doc.select_permissions;
      }),
    );
    await refused(dir, 'public_cloud_accounts.yaml', 'unknown key "select_permission"');
  });

  test('an unknown key inside a permission, with its path', async () => {
    let at = '';
    const dir = metadataWith((d) =>
      editTable(d, 'public_cloud_accounts.yaml', (doc) => {
        const i = indexOfRole(doc.select_permissions, 'tenant_admin_readonly');
        doc.select_permissions[i].permission.filters = {};
        at = `at select_permissions[${i}].permission:`;
      }),
    );
    await refused(dir, 'public_cloud_accounts.yaml', at, 'unknown key "filters"');
  });

  test('a table that does not exist in the database', async () => {
    const dir = metadataWith((d) => editTable(d, 'public_tickets.yaml', (doc) => (doc.table.name = 'ticketz')));
    await refused(dir, 'public_tickets.yaml', 'at table:', '"ticketz"', 'does not exist');
  });

  test("a column that does not exist, in a permission's columns", async () => {
    let at = '';
    const dir = metadataWith((d) =>
      editTable(d, 'public_spends.yaml', (doc) => {
        const i = indexOfRole(doc.select_permissions, 'tenant_admin_readonly');
        doc.select_permissions[i].permission.columns = ['id', 'amount', 'amount_usd'];
        at = `at select_permissions[${i}].permission.columns:`;
      }),
    );
    await refused(dir, 'public_spends.yaml', at, '"amount_usd"', 'does not exist');
  });

  test("a column that does not exist, deep in a permission's filter", async () => {
    let at = '';
    const dir = metadataWith((d) =>
      editTable(d, 'public_spends.yaml', (doc) => {
        const i = indexOfRole(doc.select_permissions, 'tenant_admin');
        doc.select_permissions[i].permission.filter = {
          _and: [{ date: { _is_null: false } }, { tenant_id: { _eq: 'X-Hasura-Tenant-Id' } }],
        };
        at = `at select_permissions[${i}].permission.filter._and[1].tenant_id:`;
      }),
    );
    await refused(dir, 'public_spends.yaml', at, '"tenant_id"');
  });

  test('a column that does not exist, in an insert preset', async () => {
    let at = '';
    const dir = metadataWith((d) =>
      editTable(d, 'public_spends.yaml', (doc) => {
        const i = indexOfRole(doc.insert_permissions, 'tenant_admin');
        doc.insert_permissions[i].permission.set = { tenant_id: 'X-Hasura-Tenant-Id' };
        at = `at insert_permissions[${i}].permission.set.tenant_id:`;
      }),
    );
    await refused(dir, 'public_spends.yaml', at, '"tenant_id"');
  });

  test('an array relationship (foreign key) to a table the metadata does not track', async () => {
    const dir = metadataWith((d) =>
      editTable(d, 'public_tickets.yaml', (doc) => {
        doc.array_relationships = [
          ...(doc.array_relationships ?? []),
          {
            name: 'links',
            using: {
              foreign_key_constraint_on: {
                column: 'ticket_id',
                table: { schema: 'public', name: 'untracked_ticket_links' },
              },
            },
          },
        ];
      }),
    );
    await refused(
      dir,
      'public_tickets.yaml',
      'at array_relationships.links:',
      '"public.untracked_ticket_links"',
      'not tracked',
    );
  });

  test('an object relationship (manual) to a table the metadata does not track', async () => {
    const dir = metadataWith((d) =>
      editTable(d, 'public_tickets.yaml', (doc) => {
        doc.object_relationships = [
          ...(doc.object_relationships ?? []),
          {
            name: 'note',
            using: {
              manual_configuration: {
                remote_table: { schema: 'public', name: 'untracked_notes' },
                column_mapping: { id: 'id' },
              },
            },
          },
        ];
      }),
    );
    await refused(
      dir,
      'public_tickets.yaml',
      'at object_relationships.note:',
      '"public.untracked_notes"',
      'not tracked',
    );
  });

  test('a missing !include in tables.yaml: the including file and the entry', async () => {
    let at = '';
    const dir = metadataWith((d) => {
      const lines = fs
        .readFileSync(tableFile(d, 'tables.yaml'), 'utf8')
        .split('\n')
        .filter((l) => l.trim().startsWith('-'));
      at = `at [${lines.length}]:`;
      fs.appendFileSync(tableFile(d, 'tables.yaml'), '- "!include public_gadgets.yaml"\n');
    });
    await refused(dir, path.join(TABLES_DIR, 'tables.yaml'), at, 'public_gadgets.yaml', 'file not found');
  });

  test('a missing !include in databases.yaml', async () => {
    const dir = metadataWith((d) => {
      const file = path.join(d, 'databases', 'databases.yaml');
      fs.writeFileSync(
        file,
        fs.readFileSync(file, 'utf8').replace('default/tables/tables.yaml', 'default/tables/all-tables.yaml'),
      );
    });
    await refused(dir, path.join('databases', 'databases.yaml'), 'at [0].tables:', 'all-tables.yaml', 'file not found');
  });

  test('a missing !include inside a table file', async () => {
    const dir = metadataWith((d) =>
      editTable(
        d,
        'public_tickets.yaml',
        (doc) => (doc.select_permissions = '!include permissions/tickets_select.yaml'),
      ),
    );
    await refused(
      dir,
      'public_tickets.yaml',
      'at select_permissions:',
      'permissions/tickets_select.yaml',
      'file not found',
    );
  });
});

describe('loadMetadata resolves !include', () => {
  /** Writes `files` (relative path -> text) under a new temporary folder. */
  const tree = (files: Record<string, string>) => {
    const dir = tempDir('metadata-unit-');
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    return dir;
  };
  const databases =
    '- name: default\n  kind: postgres\n  configuration: {}\n  tables: "!include default/tables/tables.yaml"\n';

  test("the project's metadata: every line of tables.yaml is a table, each from its own file", () => {
    const md = loadMetadata(PROJECT_METADATA);
    const lines = fs
      .readFileSync(path.join(PROJECT_METADATA, TABLES_DIR, 'tables.yaml'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('!include'));
    expect(md.sources.map((s) => s.name)).toEqual(['default']);
    expect(md.sources[0].tables).toHaveLength(lines.length);
    for (const t of md.sources[0].tables) {
      const ref = typeof t.table === 'string' ? { name: t.table, schema: 'public' } : { schema: 'public', ...t.table };
      const file = md.tableFiles.get(`${ref.schema}.${ref.name}`)!;
      expect(path.basename(file)).toBe(`${ref.schema}_${ref.name}.yaml`);
      expect(fs.existsSync(file)).toBe(true);
    }
  });

  test('string and tag forms, relative to the including file, in lists and as values, nested', () => {
    const dir = tree({
      'version.yaml': 'version: 3\n',
      'databases/databases.yaml': databases,
      'databases/default/tables/tables.yaml': [
        '- "!include public_alpha.yaml"',
        '- !include more/public_beta.yaml',
        '- table: { name: gamma, schema: public }',
        '',
      ].join('\n'),
      'databases/default/tables/public_alpha.yaml':
        'table:\n  name: alpha\n  schema: public\nselect_permissions: !include permissions/alpha_select.yaml\n',
      'databases/default/tables/permissions/alpha_select.yaml':
        '- role: reader\n  permission:\n    columns: "*"\n    filter: {}\n',
      'databases/default/tables/more/public_beta.yaml': [
        'table:',
        '  name: beta',
        'object_relationships:',
        '  - "!include ../relationships/beta_alpha.yaml"',
        '',
      ].join('\n'),
      'databases/default/tables/relationships/beta_alpha.yaml':
        'name: alpha\nusing:\n  foreign_key_constraint_on: alpha_id\n',
    });
    const md = loadMetadata(dir);
    const [alpha, beta, gamma] = md.sources[0].tables;
    expect(alpha.select_permissions).toEqual([{ role: 'reader', permission: { columns: '*', filter: {} } }]);
    expect(beta.object_relationships).toEqual([{ name: 'alpha', using: { foreign_key_constraint_on: 'alpha_id' } }]);
    expect(gamma.table).toEqual({ name: 'gamma', schema: 'public' });
    const tablesDir = path.join(dir, 'databases', 'default', 'tables');
    expect(md.tableFiles.get('public.alpha')).toBe(path.join(tablesDir, 'public_alpha.yaml'));
    expect(md.tableFiles.get('public.beta')).toBe(path.join(tablesDir, 'more', 'public_beta.yaml'));
    expect(md.tableFiles.get('public.gamma')).toBe(path.join(tablesDir, 'tables.yaml'));
  });

  test('an error in an included file is reported against the file the table came from', () => {
    const dir = tree({
      'databases/databases.yaml': databases,
      'databases/default/tables/tables.yaml': '- "!include public_alpha.yaml"\n',
      'databases/default/tables/public_alpha.yaml':
        'table: { name: alpha }\nselect_permissions: "!include alpha_select.yaml"\n',
      'databases/default/tables/alpha_select.yaml':
        '- role: reader\n  permission: { columns: "*", filter: {}, limt: 5 }\n',
    });
    expect(() => loadMetadata(dir)).toThrow(
      /public_alpha\.yaml at select_permissions\[0\]\.permission: unknown key "limt"/,
    );
  });

  test('a circular !include is refused with the chain of files', () => {
    const dir = tree({
      'databases/databases.yaml': databases,
      'databases/default/tables/tables.yaml': '- "!include public_alpha.yaml"\n',
      'databases/default/tables/public_alpha.yaml':
        'table: { name: alpha }\nselect_permissions: "!include loop_a.yaml"\n',
      'databases/default/tables/loop_a.yaml': '- "!include loop_b.yaml"\n',
      'databases/default/tables/loop_b.yaml': '- "!include loop_a.yaml"\n',
    });
    expect(() => loadMetadata(dir)).toThrow(/circular !include through .*loop_a\.yaml -> loop_b\.yaml/);
  });

  test('a metadata directory that does not exist', () => {
    const missing = path.join(os.tmpdir(), 'no-such-metadata-dir');
    expect(() => loadMetadata(missing)).toThrow(MetadataError);
    expect(() => loadMetadata(missing)).toThrow(/metadata directory not found/);
  });
});
