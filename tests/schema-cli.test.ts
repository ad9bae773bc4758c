import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildClientSchema, buildSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { randomBytes } from 'node:crypto';
import { cacheFileOf, type Recording } from '../engine/cli/catalogue-cache';
import { runTs } from './support/auth';
import { backendName, onPostgres } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';
import { DEMO } from '../demo/demo-data';

/**
 * `npm run schema [-- --role R]` prints the SDL of a role's schema without a running engine: the same
 * schema the engine serves that role, as introspection over HTTP shows it. Without DATABASE_URL the
 * catalogue comes from a PGlite in memory with the migrations applied; with it, from that database.
 */
const acme = DEMO.tenants.acme;

describe(`npm run schema on ${backendName}`, () => {
  let server: TestServer;
  /** The CLI's environment: the test database on PostgreSQL; nothing on PGlite (a memory database of its own). */
  let env: Record<string, string>;
  /** The admin's SDL, as the first test printed it. */
  let adminSdl = '';
  const schemaCli = (args: string[], extra: Record<string, string> = {}) =>
    runTs('engine/cli/schema.ts', args, { ...env, ...extra });

  /** The role's schema as the running engine serves it, introspected over HTTP. */
  const served = async (headers: Record<string, string>) => {
    const res = await server.gql(getIntrospectionQuery(), undefined, headers);
    return printSchema(buildClientSchema(res.body.data));
  };

  beforeAll(async () => {
    server = await startTestServer();
    const url = server.started.engine.config.databaseUrl;
    env = onPostgres ? { DATABASE_URL: url! } : {};
  });
  afterAll(() => server.close());

  test('the default role is admin: the SDL is what the engine serves the admin secret', async () => {
    const r = await schemaCli([]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(printSchema(buildSchema(r.out))).toBe(await served({}));
    expect(r.out).toMatch(
      /^schema \{\n {2}query: query_root\n {2}mutation: mutation_root\n {2}subscription: subscription_root\n\}/,
    );
    adminSdl = r.out;
  });

  test.each([
    ['--role', 'tenant_admin'],
    ['-r', 'tenant_admin_readonly'],
  ])('%s %s: that role’s schema', async (flag, role) => {
    const r = await schemaCli([flag, role]);
    expect(r.code).toBe(0);
    expect(printSchema(buildSchema(r.out))).toBe(await served(as(role, acme.id, acme.users.admin.id)));
    // The read-only role has no write at all; the admin's schema has tables the tenant roles do not.
    if (role === 'tenant_admin_readonly') expect(r.out).not.toMatch(/mutation_root/);
    expect(adminSdl.length).toBeGreaterThan(r.out.length);
  });

  test('an unknown role: exit 2, naming the roles there are; nothing on stdout', async () => {
    const r = await schemaCli(['--role', 'nobody']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe('no role "nobody" in the metadata; its roles: admin, tenant_admin, tenant_admin_readonly\n');
    const usage = await schemaCli(['--colour']);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('usage: npm run schema [-- --role <role>]');
  });

  test('the embedded database’s folder is not touched: the schema prints while another process holds it', async () => {
    if (onPostgres) return; // PGlite only: with DATABASE_URL the folder is never used.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-cli-'));
    try {
      fs.writeFileSync(path.join(dir, 'engine.lock'), JSON.stringify({ pid: process.pid, holder: 'engine' }));
      const r = await schemaCli(['--role', 'tenant_admin'], { DATA_DIR: dir });
      expect(r.code).toBe(0);
      expect(r.out).toContain('type query_root');
      expect(fs.readdirSync(dir)).toEqual(['engine.lock']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the catalogue of the migrations is kept: the next run reads it, a statement it lacks is read again', async () => {
    if (onPostgres) return; // PGlite only: a DATABASE_URL is read as it is at every run.
    // Migrations of their own (the test fixture's, small, and one more, unique), so that the cache
    // file is this test's; the fixture's metadata, whose enum table is genres.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-migrations-'));
    const sqlDir = path.join(__dirname, 'fixture', 'sql');
    for (const f of fs.readdirSync(sqlDir)) fs.copyFileSync(path.join(sqlDir, f), path.join(dir, f));
    fs.writeFileSync(path.join(dir, '9999_probe.sql'), `-- ${randomBytes(8).toString('hex')}\nSELECT 1;\n`);
    const fixture = { MIGRATIONS_DIR: dir, METADATA_DIR: path.join(__dirname, 'fixture', 'metadata') };
    const file = cacheFileOf(dir);
    const enumKey = (r: Recording) => Object.keys(r).find((k) => k.includes('FROM \\"public\\".\\"genres\\"'))!;
    try {
      expect(fs.existsSync(file)).toBe(false);
      const first = await schemaCli([], fixture);
      expect(first.code).toBe(0);
      const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as Recording;
      // Shown to be read: a value added to the kept enum rows appears in the next run's SDL. The enum
      // tables are read by one statement, each table's rows told by their `t`.
      const part = enumKey(kept)
        .split('UNION ALL')
        .find((p) => p.includes('FROM \\"public\\".\\"genres\\"'))!;
      const t = Number(/SELECT (\d+) AS t/.exec(part)![1]);
      kept[enumKey(kept)].push({ t, value: 'FromTheCache', comment: 'kept, not read' });
      fs.writeFileSync(file, JSON.stringify(kept));
      const second = await schemaCli([], fixture);
      expect(second.out).toContain('"""kept, not read"""\n  FromTheCache');
      const without = (sdl: string) =>
        sdl
          .split('\n')
          .filter((l) => !l.includes('kept, not read') && l.trim() !== 'FromTheCache')
          .join('\n')
          .replace(/\n{3,}/g, '\n\n')
          .replace(/\{\n\n/g, '{\n');
      expect(without(second.out)).toBe(without(first.out));
      // A statement the kept catalogue lacks (here: taken out): the database is read, the file made anew.
      delete kept[enumKey(kept)];
      fs.writeFileSync(file, JSON.stringify(kept));
      const third = await schemaCli([], fixture);
      expect(third.out).toBe(first.out);
      expect(enumKey(JSON.parse(fs.readFileSync(file, 'utf8')) as Recording)).toBeDefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(file, { force: true });
    }
    // Three runs of the CLI, two of which migrate an empty PGlite (the fixture's few tables, where the
    // platform's took a minute of a busy machine).
  }, 180_000);

  test('a metadata directory that does not load: exit 1 with the file and the path in it', async () => {
    const r = await schemaCli([], { METADATA_DIR: path.join(os.tmpdir(), 'no-such-metadata-dir') });
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/no-such-metadata-dir/);
  });
});
