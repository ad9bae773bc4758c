import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LOCK_FILE } from '../engine/core/db/data-lock';
import { verifyCredentials } from '../engine/serve/auth/users';
import { runTs } from './support/auth';
import { pgliteFolder } from './support/database';
import { ADMIN_SECRET, startTestServer, type TestServer } from './support/server';

/**
 * The embedded database's folder is one process's alone. `npm run admin` (a real child process) while
 * an engine runs on the folder goes through that engine with the admin secret, or is refused without
 * one; a second engine is refused; a lock left by a dead process is taken over; nothing is lost. The
 * item is about PGlite, so the test runs on a PGlite folder of its own whatever DATABASE_URL says.
 */
// Migrated and seeded already (the run's template unpacked): the folder's first start is not the subject.
const database = pgliteFolder({ seeded: true });
const dir = database.env.DATA_DIR;
const lockFile = path.join(dir, LOCK_FILE);

const admin = (args: string[], env: Record<string, string> = {}, stdin = '') =>
  runTs('engine/cli/admin.ts', args, { DATA_DIR: dir, ...env }, stdin);

const tenantNamed = async (server: TestServer, name: string) =>
  (await server.gql('query($n: String!) { tenant(where: {name: {_eq: $n}}) { id name } }', { n: name })).body.data
    .tenant;

/** The pid of a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ database });
}, 120_000);

afterAll(async () => {
  await server?.stop().catch(() => undefined);
  await database.drop();
});

describe('npm run admin and the embedded database folder (PGlite)', () => {
  test('the running engine holds the folder: its lock names its pid and port', () => {
    const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
    expect(lock).toMatchObject({ pid: process.pid, holder: 'engine', port: Number(new URL(server.url).port) });
  });

  test('with the admin secret the command goes through the running engine, which serves the new tenant', async () => {
    const r = await admin(['create-tenant', '--name', 'Initech'], { ADMIN_SECRET });
    expect(r.err).toContain('sent through the running engine');
    expect(r.code).toBe(0);
    const id = /created tenant "Initech": ([0-9a-f-]{36})/.exec(r.out)![1];
    expect(await tenantNamed(server, 'Initech')).toEqual([{ id, name: 'Initech' }]);
    // Standard input travels too: a password set through the engine works at once.
    const u = await admin(
      ['create-user', '--tenant', 'Initech', '--email', 'peter@initech.example.com', '--name', 'Peter'].concat([
        '--role',
        'tenant_admin',
        '--password-stdin',
      ]),
      { ADMIN_SECRET },
      'a long password\n',
    );
    expect(u.code).toBe(0);
    expect(u.out + u.err).not.toContain('a long password');
    expect(await verifyCredentials(server.started.db, 'peter@initech.example.com', 'a long password')).toMatchObject({
      tenantId: id,
    });
    // A command that fails inside the engine fails here, with its message.
    const again = await admin(['create-tenant', '--name', 'Initech'], { ADMIN_SECRET });
    expect(again).toMatchObject({ code: 1, out: '' });
    expect(again.err).toContain('a tenant named "Initech" exists already');
  }, 60_000);

  test('without the admin secret the command is refused, says why, and writes nothing', async () => {
    const r = await admin(['create-tenant', '--name', 'Lost Corp']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/in use by a running engine \(pid \d+, listening on port \d+\)/);
    expect(r.err).toContain('Set ADMIN_SECRET');
    const wrong = await admin(['create-tenant', '--name', 'Lost Corp'], { ADMIN_SECRET: 'not-the-secret' });
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('refused the admin secret');
    expect(await tenantNamed(server, 'Lost Corp')).toEqual([]);
    // The engine is unharmed.
    expect((await tenantNamed(server, 'Initech')).length).toBe(1);
  }, 60_000);

  test('a second engine on the folder refuses to start, in this process and in another', async () => {
    await expect(startTestServer({ database })).rejects.toThrow(/in use by a running engine/);
    const other = await runTs('engine/main.ts', [], { DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1' });
    expect(other.code).toBe(1);
    expect(other.out + other.err).toMatch(/in use by a running engine .*stop it first, or set DATA_DIR/);
    expect((await tenantNamed(server, 'Initech')).length).toBe(1);
  }, 60_000);

  test('stopped, the engine lets go; a lock of a dead process is taken over; nothing written is lost', async () => {
    await server.stop();
    expect(fs.existsSync(lockFile)).toBe(false);
    const stale = { pid: deadPid(), holder: 'engine', port: 1, since: new Date().toISOString() };
    fs.writeFileSync(lockFile, JSON.stringify(stale));
    const r = await admin(['create-tenant', '--name', 'Hooli']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(fs.existsSync(lockFile)).toBe(false);
    fs.writeFileSync(lockFile, JSON.stringify(stale));
    server = await startTestServer({ database });
    expect(JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid).toBe(process.pid);
    expect((await tenantNamed(server, 'Initech')).length).toBe(1);
    expect((await tenantNamed(server, 'Hooli')).length).toBe(1);
    expect(await verifyCredentials(server.started.db, 'peter@initech.example.com', 'a long password')).not.toBeNull();
  }, 120_000);
});
