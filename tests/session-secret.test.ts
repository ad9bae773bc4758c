import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEMO } from '../demo/demo-data';
import { SESSION_SECRET_FILE } from '../engine/core/session-secret';
import { bearer, gqlWith, jwtFor, newSecret } from './support/auth';
import type { TestDatabase } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * The embedded default without NEXTAUTH_SECRET keeps a generated session secret in its data folder
 * (mode 0600, told in the log without its value): a restart keeps JWTs. A JWT signed with a key the
 * server no longer has (the secret replaced) is refused saying so. The item is about the embedded
 * database's folder, so the test runs on a PGlite folder of its own whatever DATABASE_URL says.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-secret-'));
const database: TestDatabase = { env: { DATA_DIR: dir }, drop: async () => undefined };
const secretFile = path.join(dir, SESSION_SECRET_FILE);
const alice = DEMO.tenants.acme.users.admin;
const ENV = { NEXTAUTH_URL: 'http://platform.test', NEXTAUTH_SECRET: '', JWT_SECRET: '', DATABASE_URL: '' };

/** A server on the folder, with the log lines it wrote while starting. */
async function start(): Promise<{ server: TestServer; log: Record<string, unknown>[] }> {
  const log: Record<string, unknown>[] = [];
  const server = await startTestServer({ database, env: ENV, log: (e) => log.push(e) });
  return { server, log };
}

let server: TestServer | undefined;

afterAll(async () => {
  await server?.stop().catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the session secret of the embedded database (PGlite folder)', () => {
  let jwt: string;

  test('first start: a secret is generated into the data folder, mode 0600, told in the log without its value', async () => {
    const first = await start();
    server = first.server;
    expect(fs.existsSync(secretFile)).toBe(true);
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
    const secret = fs.readFileSync(secretFile, 'utf8').trim();
    expect(secret.length).toBeGreaterThanOrEqual(43);
    const told = first.log.find((e) => String(e.msg).includes('generated a session secret'));
    expect(told).toMatchObject({ level: 'info' });
    expect(String(told!.msg)).toContain(SESSION_SECRET_FILE);
    expect(JSON.stringify(first.log)).not.toContain(secret);
    // Where start-up time went: one line with each step.
    const started = first.log.find((e) => String(e.msg).startsWith('engine started in'));
    expect(Object.keys(started!.steps as object)).toEqual(
      expect.arrayContaining(['database and metadata files', 'migrations', 'demo data', 'model']),
    );
    jwt = (await jwtFor(server, alice.username)).jwt;
    expect((await gqlWith(server, bearer(jwt), '{ tenant { name } }')).body).toEqual({
      data: { tenant: [{ name: 'Acme Corp' }] },
    });
  });

  test('a restart keeps the secret: the JWT of before still works', async () => {
    const before = fs.readFileSync(secretFile, 'utf8');
    await server!.stop();
    const second = await start();
    server = second.server;
    expect(fs.readFileSync(secretFile, 'utf8')).toBe(before);
    expect(second.log.some((e) => String(e.msg).includes('using the session secret saved'))).toBe(true);
    expect((await gqlWith(server, bearer(jwt), '{ tenant { name } }')).status).toBe(200);
  });

  test('the secret replaced: the old JWT is refused because its key is gone, in words that say so', async () => {
    await server!.stop();
    fs.writeFileSync(secretFile, `${newSecret()}\n`, { mode: 0o644 });
    fs.chmodSync(secretFile, 0o644);
    server = (await start()).server;
    // A file readable by others is made the owner's alone.
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
    const res = await gqlWith(server, bearer(jwt), '{ tenant { name } }');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('invalid-jwt');
    expect(res.body.errors[0].message).toMatch(/signed with a key this server no longer has/);
    // A new exchange works with the new secret; its signature edited is plain "invalid" (its key id is this server's).
    const fresh = (await jwtFor(server, alice.username)).jwt;
    expect((await gqlWith(server, bearer(fresh), '{ tenant { name } }')).status).toBe(200);
    const last = fresh.slice(-2, -1) === 'A' ? 'B' : 'A';
    const edited = await gqlWith(server, bearer(`${fresh.slice(0, -2)}${last}${fresh.slice(-1)}`), '{ tenant { id } }');
    expect(edited.body.errors[0].message).toBe('the JWT signature is invalid');
  });

  test('a secret file that holds no usable secret stops start-up saying what to do', async () => {
    await server!.stop();
    server = undefined;
    fs.writeFileSync(secretFile, 'short\n');
    await expect(start()).rejects.toThrow(/holds no usable secret.*delete it/);
    fs.rmSync(secretFile);
  });

  test('NEXTAUTH_SECRET set: no file is made or read; in memory: a warning, no file', async () => {
    const log: Record<string, unknown>[] = [];
    server = await startTestServer({
      database,
      env: { ...ENV, NEXTAUTH_SECRET: newSecret() },
      log: (e) => log.push(e),
    });
    expect(fs.existsSync(secretFile)).toBe(false);
    expect(log.some((e) => String(e.msg).includes('NEXTAUTH_SECRET'))).toBe(false);
    await server.stop();
    server = undefined;
    const memLog: Record<string, unknown>[] = [];
    const mem = await startTestServer({ env: { ...ENV, DATA_DIR: 'memory://' }, log: (e) => memLog.push(e) });
    await mem.close();
    expect(memLog.find((e) => String(e.msg).includes('NEXTAUTH_SECRET is not set'))).toMatchObject({ level: 'warn' });
  });
});
