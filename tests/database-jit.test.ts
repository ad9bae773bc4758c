import { loadConfig as loadEngineConfig } from '../engine/core/config';
import { backendName, onPostgres } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * DATABASE_JIT: PostgreSQL's JIT only cost the engine's statements (`npm run bench -- v2`: it came into
 * the large analytic ones and took longer to compile than it saved), so the engine turns it off on its
 * connections unless told to leave the server's setting.
 */
describe(`DATABASE_JIT on ${backendName}`, () => {
  test('off by default; DATABASE_JIT=true leaves the server its own setting', () => {
    expect(loadEngineConfig({}).databaseJit).toBe(false);
    expect(loadEngineConfig({ DATABASE_JIT: 'true' }).databaseJit).toBe(true);
  });

  (onPostgres ? describe : describe.skip)('on the connections', () => {
    let server: TestServer;
    afterEach(() => server?.close());

    const jit = async () =>
      (await server.started.db.query(`SELECT setting, source FROM pg_settings WHERE name = 'jit'`))[0];

    test('the engine runs its statements with jit off, set by the client at connect time', async () => {
      server = await startTestServer();
      expect(await jit()).toEqual({ setting: 'off', source: 'client' });
    });

    test("with DATABASE_JIT=true, the server's own setting stays", async () => {
      server = await startTestServer({ env: { DATABASE_JIT: 'true' } });
      expect((await jit()).source).not.toBe('client');
    });
  });
});
