import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Session } from '../engine/core/session';
import { spawnTs } from './support/auth';
import { backendName, createTestDatabase, type TestDatabase } from './support/database';
import { ADMIN_SECRET, poster, startTestServer, type TestServer } from './support/server';

/**
 * The metadata folder reloaded without a restart: POST /v1/metadata {"type": "reload_metadata"}
 * (Hasura's metadata API, admin secret only) and SIGHUP. A folder that does not make a model leaves
 * the old one serving and is answered with the reason; a request in flight ends on the model it began
 * with. The test edits a copy of the platform's metadata: the relationship `user` of cloud_accounts
 * becomes `creator`.
 */
const SOURCE = path.join(__dirname, '..', 'metadata');
const TABLE_FILE = path.join('databases', 'default', 'tables', 'public_cloud_accounts.yaml');
const WITH_USER = '{ cloud_accounts(limit: 1) { id user { id } } }';
const WITH_CREATOR = '{ cloud_accounts(limit: 1) { id creator { id } } }';

function copyMetadata(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-metadata-'));
  fs.cpSync(SOURCE, dir, { recursive: true });
  return dir;
}

/** Renames the relationship `user` of cloud_accounts to `creator` in the folder. */
function renameUserToCreator(dir: string): void {
  const file = path.join(dir, TABLE_FILE);
  const text = fs.readFileSync(file, 'utf8');
  const renamed = text.replace('  - name: user\n', '  - name: creator\n');
  expect(renamed).not.toBe(text);
  fs.writeFileSync(file, renamed);
}

const reload = (server: { post: TestServer['post'] }, headers: Record<string, string> = {}, body?: string) =>
  server.post('/v1/metadata', body ?? JSON.stringify({ type: 'reload_metadata', args: {} }), headers);
const ADMIN_SESSION: Session = { role: 'admin', vars: {}, isAdmin: true };
const asAdmin = { 'x-hasura-admin-secret': ADMIN_SECRET };

describe(`metadata reload on ${backendName}`, () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = copyMetadata();
    server = await startTestServer({ env: { METADATA_DIR: dir } });
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('only with the admin secret; a body that is not a command is refused in the metadata API shape', async () => {
    expect(await reload(server)).toMatchObject({
      status: 401,
      body: { code: 'access-denied', error: 'invalid x-hasura-admin-secret', path: '$' },
    });
    expect((await reload(server, { 'x-hasura-admin-secret': 'wrong' })).status).toBe(401);
    expect((await reload(server, asAdmin, 'not json')).body).toMatchObject({ code: 'invalid-json', path: '$' });
    expect((await reload(server, asAdmin, '{"args": {}}')).body).toMatchObject({ code: 'bad-request', path: '$.type' });
    const other = await reload(server, asAdmin, JSON.stringify({ type: 'replace_metadata', args: {} }));
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ code: 'not-supported', path: '$.type' });
  });

  test('reload_metadata puts the edited folder in use; a request in flight ends on the model it began with', async () => {
    expect((await server.gql(WITH_USER)).body.errors).toBeUndefined();
    renameUserToCreator(dir);
    // Not read until asked: the running model is unchanged.
    expect((await server.gql(WITH_CREATOR)).body.errors[0].extensions.code).toBe('validation-failed');
    // Begun before the reload, on the engine that was current then.
    const inFlight = server.started.engine.run({ query: WITH_USER }, ADMIN_SESSION);
    const res = await reload(server, asAdmin);
    expect(res).toMatchObject({ status: 200, body: { message: 'success', is_consistent: true } });
    expect(JSON.parse((await inFlight).body).errors).toBeUndefined();
    expect((await server.gql(WITH_CREATOR)).body.errors).toBeUndefined();
    expect((await server.gql(WITH_USER)).body.errors[0].message).toMatch(/"user"/);
  });

  test('a folder that does not make a model is answered with the reason; the old model keeps serving', async () => {
    const file = path.join(dir, TABLE_FILE);
    const good = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, good.replace('  - name: creator\n    using:\n', '  - name: creator\n    usin:\n'));
    const bad = await reload(server, asAdmin);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid-configuration');
    expect(bad.body.error).toContain('public_cloud_accounts.yaml');
    expect(bad.body.error).toContain('the previous metadata stays in use');
    expect((await server.gql(WITH_CREATOR)).body.errors).toBeUndefined();
    fs.writeFileSync(file, good.replace('name: cloud_accounts', 'name: no_such_table'));
    expect((await reload(server, asAdmin)).body.error).toMatch(/no_such_table.*does not exist/);
    fs.writeFileSync(file, good);
    expect((await reload(server, asAdmin)).status).toBe(200);
  });
});

describe(`SIGHUP reloads the metadata of a running engine process, on ${backendName}`, () => {
  let child: ChildProcess | undefined;
  let database: TestDatabase;
  let dir: string;

  beforeAll(async () => {
    dir = copyMetadata();
    database = await createTestDatabase({ persistent: true });
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the edited folder is served after SIGHUP', async () => {
    child = spawnTs('engine/main.ts', [], {
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_SECRET,
      SEED_DEMO_DATA: 'false',
      METADATA_DIR: dir,
      ...database.env,
    });
    let log = '';
    child.stderr!.on('data', (c) => (log += c));
    const url = await new Promise<string>((resolve, reject) => {
      child!.stdout!.on('data', (c) => {
        log += c;
        const m = /listening on http:\/\/localhost:(\d+)/.exec(log);
        if (m) resolve(`http://127.0.0.1:${m[1]}`);
      });
      child!.once('exit', (code) => reject(new Error(`the engine exited with ${code}:\n${log}`)));
    });
    const post = poster(url);
    const gql = (query: string) => post('/api/graphql', JSON.stringify({ query }), asAdmin);
    expect((await gql(WITH_CREATOR)).body.errors[0].extensions.code).toBe('validation-failed');
    renameUserToCreator(dir);
    child.kill('SIGHUP');
    const deadline = Date.now() + 60_000;
    while (!log.includes('metadata reloaded') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(log).toContain('metadata reloaded');
    expect((await gql(WITH_CREATOR)).body).toEqual({ data: { cloud_accounts: [] } });
  }, 180_000);
});
