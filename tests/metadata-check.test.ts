import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runMetadataCli } from '../engine/cli/metadata';
import { runTs } from './support/auth';
import { backendName, createTestDatabase, onPostgres, type TestDatabase } from './support/database';
import { startTestServer } from './support/server';

/**
 * `npm run metadata -- check [DIR]`: a metadata folder checked as start-up checks it, without starting
 * an engine, for CI: exit code 0 for a good folder, 1 with the reason for a bad one, 2 for a usage
 * error. On PostgreSQL against the configured database (migrated), on PGlite against an in-memory one.
 */
const SOURCE = path.join(__dirname, '..', 'metadata');
const TABLE_FILE = path.join('databases', 'default', 'tables', 'public_cloud_accounts.yaml');

describe(`npm run metadata -- check, on ${backendName}`, () => {
  let database: TestDatabase;
  let dir: string;
  const check = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMetadataCli(args, {
      env: { ...database.env },
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-metadata-check-'));
    fs.cpSync(SOURCE, dir, { recursive: true });
    if (onPostgres) {
      // The check reads the database and never writes: a migrated one, as an engine leaves it.
      database = await createTestDatabase();
      const server = await startTestServer({ database, seed: false });
      await server.stop();
    } else database = { env: {}, drop: async () => undefined };
  }, 120_000);
  afterAll(async () => {
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the platform metadata is good: exit 0, with what was checked', async () => {
    const r = await check(['check', dir]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/: good \(\d{2,} tables, \d+ roles, \d+ actions; checked against /);
    expect(r.out).toContain(onPostgres ? 'PostgreSQL' : 'with the migrations applied');
    if (onPostgres) return;
    // Without a database, the migrations' catalogue is kept (catalogue-cache.ts): the next check reads no database.
    const again = await check(['check', dir]);
    expect(again.out).toContain('checked against the catalogue of the migrations, kept from an earlier check');
  }, 120_000);

  test('a table the database does not have, and a file that is not valid: exit 1 with the file and the reason', async () => {
    const file = path.join(dir, TABLE_FILE);
    const good = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, good.replace('name: cloud_accounts', 'name: no_such_table'));
    const missing = await check(['check', dir]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/public_cloud_accounts\.yaml.*"public"\."no_such_table" does not exist/);
    fs.writeFileSync(file, `${good}\nunknown_key: 1\n`);
    const invalid = await check(['check', dir]);
    expect(invalid.code).toBe(1);
    expect(invalid.err).toContain('unknown key "unknown_key"');
    fs.writeFileSync(file, good);
  }, 120_000);

  test('usage: exit 2; a folder that is not there: exit 1', async () => {
    expect((await check([])).code).toBe(2);
    expect((await check(['frobnicate'])).err).toContain('unknown command "frobnicate"');
    expect((await check(['check', 'a', 'b'])).code).toBe(2);
    const gone = await check(['check', path.join(dir, 'nothing-here')]);
    expect(gone.code).toBe(1);
    expect(gone.err).toContain('metadata directory not found');
  });

  test('as a process: the exit code is the answer', async () => {
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-metadata-bad-'));
    fs.writeFileSync(path.join(bad, 'version.yaml'), 'version: 2\n');
    try {
      const r = await runTs('engine/cli/metadata.ts', ['check', bad], {});
      expect(r.code).toBe(1);
      expect(r.err).toContain('only config version 3 is supported');
    } finally {
      fs.rmSync(bad, { recursive: true, force: true });
    }
  }, 120_000);
});
