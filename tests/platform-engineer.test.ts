import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEMO } from '../demo/demo-data';
import { backendName, createTestDatabase, type TestDatabase } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * A platform engineer adds a table: a migration in sql/, a file in metadata/ and its include line,
 * a restart, and the table is in the API with its permissions. No engine code changes. The project's
 * own sql/ and metadata/ are copied to a temporary folder first and left untouched.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
/** A first start on a new on-disk PGlite database (initdb, migrations, demo data) takes a while. */
const STARTUP_MS = 180_000;

const MIGRATION = `-- Widgets: a table a platform engineer adds.
CREATE TABLE widgets (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id  uuid NOT NULL REFERENCES tenant (id),
  name       text NOT NULL,
  size       integer NOT NULL DEFAULT 1,
  created_at timestamp NOT NULL DEFAULT now()
);
CREATE INDEX widgets_tenant_id_idx ON widgets (tenant_id);
`;

const METADATA = `table:
  name: widgets
  schema: public
object_relationships:
  - name: tenant
    using:
      foreign_key_constraint_on: tenant_id
insert_permissions:
  - role: tenant_admin
    permission:
      check:
        tenant_id:
          _eq: X-Hasura-Tenant-Id
      set:
        tenant_id: X-Hasura-Tenant-Id
      columns:
        - name
        - size
select_permissions:
  - role: tenant_admin
    permission:
      columns: "*"
      filter:
        tenant_id:
          _eq: X-Hasura-Tenant-Id
      allow_aggregations: true
`;

describe(`a platform engineer adds a table on ${backendName}`, () => {
  let work: string;
  let metadataDir: string;
  let migrationsDir: string;
  let database: TestDatabase;
  let server: TestServer | undefined;

  const start = async () => {
    server = await startTestServer({ database, env: { METADATA_DIR: metadataDir, MIGRATIONS_DIR: migrationsDir } });
    return server;
  };
  const stop = async () => {
    await server?.stop();
    server = undefined;
  };
  const rootFields = async (role: string) => {
    const res = await server!.gql(
      '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }',
      {},
      as(role, acme.id),
    );
    const names = (t: { fields: { name: string }[] } | null) => (t?.fields ?? []).map((f) => f.name);
    return { query: names(res.body.data.__schema.queryType), mutation: names(res.body.data.__schema.mutationType) };
  };

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-engineer-'));
    metadataDir = path.join(work, 'metadata');
    migrationsDir = path.join(work, 'sql');
    fs.cpSync(path.join(__dirname, '..', 'metadata'), metadataDir, { recursive: true });
    fs.cpSync(path.join(__dirname, '..', 'sql'), migrationsDir, { recursive: true });
    // Migrated and seeded already, from the run's template: the copies of sql/ bear the same names, so
    // the restart after the engineer's change applies the new migration alone.
    database = await createTestDatabase({ persistent: true, seeded: true });
  });

  afterAll(async () => {
    await stop();
    await database?.drop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  test(
    'before: the engine runs on the copies and knows no widgets',
    async () => {
      await start();
      const fields = await rootFields('tenant_admin');
      expect(fields.query).toContain('cloud_accounts');
      expect(fields.query.filter((f) => f.startsWith('widgets'))).toEqual([]);
      const res = await server!.gql('{ widgets { id } }', {}, as('tenant_admin', acme.id));
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      expect(res.body.errors[0].message).toContain('widgets');
      const [table] = await server!.started.db.query("SELECT to_regclass('public.widgets') IS NULL AS absent");
      expect(table.absent).toBe(true);
      await stop();
    },
    STARTUP_MS,
  );

  test('the engineer adds a migration, a metadata file and its include line', () => {
    fs.writeFileSync(path.join(migrationsDir, '0100_widgets.sql'), MIGRATION);
    const tablesDir = path.join(metadataDir, 'databases', 'default', 'tables');
    fs.writeFileSync(path.join(tablesDir, 'public_widgets.yaml'), METADATA);
    fs.appendFileSync(path.join(tablesDir, 'tables.yaml'), '- "!include public_widgets.yaml"\n');
    // The project's own folders are left as they were.
    expect(fs.existsSync(path.join(__dirname, '..', 'sql', '0100_widgets.sql'))).toBe(false);
    expect(
      fs.existsSync(path.join(__dirname, '..', 'metadata', 'databases', 'default', 'tables', 'public_widgets.yaml')),
    ).toBe(false);
  });

  describe('after a restart on the same database', () => {
    beforeAll(start, STARTUP_MS);
    afterAll(stop);

    test('the migration ran once and the data that was there is still there', async () => {
      const applied = await server!.started.db.query(
        "SELECT name FROM engine_migrations WHERE name = '0100_widgets.sql'",
      );
      expect(applied).toHaveLength(1);
      const [n] = await server!.started.db.query('SELECT count(*)::int AS n FROM tenant');
      expect(n.n).toBe(Object.keys(DEMO.tenants).length);
    });

    test('tenant_admin has widgets, widgets_aggregate, widgets_by_pk, insert_widgets and insert_widgets_one', async () => {
      const fields = await rootFields('tenant_admin');
      expect(fields.query).toEqual(expect.arrayContaining(['widgets', 'widgets_aggregate', 'widgets_by_pk']));
      expect(fields.mutation).toEqual(expect.arrayContaining(['insert_widgets', 'insert_widgets_one']));
      // No update or delete permission was written, so there are none.
      expect(fields.mutation.filter((f) => /^(update|delete)_widgets/.test(f))).toEqual([]);
    });

    test('tenant_admin_readonly, who got no permission, has no widgets at all', async () => {
      const fields = await rootFields('tenant_admin_readonly');
      expect([...fields.query, ...fields.mutation].filter((f) => f.includes('widgets'))).toEqual([]);
    });

    test('insert_widgets stores rows under the session tenant', async () => {
      for (const [tenant, names] of [
        [acme, ['anvil', 'rocket']],
        [globex, ['gizmo']],
      ] as const) {
        const res = await server!.gql(
          'mutation($objects: [widgets_insert_input!]!) { insert_widgets(objects: $objects) { affected_rows returning { name tenant_id } } }',
          { objects: names.map((name, i) => ({ name, size: i + 1 })) },
          as('tenant_admin', tenant.id),
        );
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.insert_widgets.affected_rows).toBe(names.length);
        expect(
          res.body.data.insert_widgets.returning.every((w: { tenant_id: string }) => w.tenant_id === tenant.id),
        ).toBe(true);
      }
      const rows = await server!.started.db.query(
        'SELECT name, tenant_id::text AS tenant_id FROM widgets ORDER BY name',
      );
      expect(rows).toEqual([
        { name: 'anvil', tenant_id: acme.id },
        { name: 'gizmo', tenant_id: globex.id },
        { name: 'rocket', tenant_id: acme.id },
      ]);
    });

    test('widgets, widgets_aggregate and widgets_by_pk answer within the tenant, relationship included', async () => {
      const [gizmo] = await server!.started.db.query("SELECT id::text AS id FROM widgets WHERE name = 'gizmo'");
      const [anvil] = await server!.started.db.query("SELECT id::text AS id FROM widgets WHERE name = 'anvil'");
      const res = await server!.gql(
        `query($mine: uuid!, $theirs: uuid!) {
           widgets(order_by: {name: asc}) { name size tenant { name } }
           widgets_aggregate { aggregate { count sum { size } } }
           mine: widgets_by_pk(id: $mine) { name }
           theirs: widgets_by_pk(id: $theirs) { name }
         }`,
        { mine: anvil.id, theirs: gizmo.id },
        as('tenant_admin', acme.id),
      );
      expect(res.body).toEqual({
        data: {
          widgets: [
            { name: 'anvil', size: 1, tenant: { name: acme.name } },
            { name: 'rocket', size: 2, tenant: { name: acme.name } },
          ],
          widgets_aggregate: { aggregate: { count: 2, sum: { size: 3 } } },
          mine: { name: 'anvil' },
          theirs: null,
        },
      });
    });

    test('the tenant column is not part of the insert input', async () => {
      const res = await server!.gql(
        '{ __type(name: "widgets_insert_input") { inputFields { name } } }',
        {},
        as('tenant_admin', acme.id),
      );
      expect(res.body.data.__type.inputFields.map((f: { name: string }) => f.name).sort()).toEqual(['name', 'size']);
    });
  });

  test(
    'a third start applies nothing again and keeps the widgets',
    async () => {
      await start();
      const applied = await server!.started.db.query(
        "SELECT count(*)::int AS n FROM engine_migrations WHERE name = '0100_widgets.sql'",
      );
      expect(applied[0].n).toBe(1);
      const res = await server!.gql('{ widgets_aggregate { aggregate { count } } }', {}, as('tenant_admin', globex.id));
      expect(res.body).toEqual({ data: { widgets_aggregate: { aggregate: { count: 1 } } } });
      await stop();
    },
    STARTUP_MS,
  );
});
