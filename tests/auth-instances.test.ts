import { suspendUser } from '../engine/cli/admin';
import { DEMO } from '../demo/demo-data';
import {
  authEnv,
  bearer,
  exchange,
  gqlWith,
  jwtFor,
  spawnEngine,
  startSibling,
  tokenFor,
  within,
} from './support/auth';
import { backendName, createTestDatabase, onPostgres, type TestDatabase } from './support/database';
import { ADMIN_SECRET, startTestServer, type TestServer } from './support/server';

/**
 * Deleting a token (or suspending a user) reaches every instance of the engine within a second, not
 * only the one that handled it. Each instance here keeps what it learnt about a token for
 * AUTH_RECHECK_SECONDS=300, so only the broadcast (NOTIFY platform_auth) can explain a refusal within
 * the second.
 */
const acme = DEMO.tenants.acme;
const alice = acme.users.admin;
const victor = acme.users.readonly;
const ENV = authEnv({ AUTH_RECHECK_SECONDS: '300', AUTH_MAX_FAILURES: '1000' });
const TENANT = '{ tenant { id } }';
const SKIP_REASON =
  'auth-instances: the two-process tests are skipped on PGlite, because an embedded PGlite database belongs to one process; set DATABASE_URL to run them on PostgreSQL';

type Poster = Parameters<typeof gqlWith>[0];
const refusedWithin = (target: Poster, jwt: string, ms = 1000) =>
  within(ms, async () => (await gqlWith(target, bearer(jwt), TENANT)).status === 401);

describe(`revocation across instances on ${backendName}`, () => {
  let database: TestDatabase;
  let server: TestServer;

  beforeAll(async () => {
    if (!onPostgres) console.log(SKIP_REASON);
    database = await createTestDatabase({ seeded: true });
    server = await startTestServer({ database, env: ENV });
  });
  afterAll(async () => {
    await server.close();
    await database.drop();
  });

  describe('two engines in this process, each with its own listener and memory', () => {
    let sibling: Awaited<ReturnType<typeof startSibling>>;
    beforeAll(async () => {
      sibling = await startSibling(server, ENV);
    });
    afterAll(() => sibling.stop());

    test('a JWT costs no database round trip per request once its token was checked', async () => {
      const { jwt } = await jwtFor(server, alice.username, 'hot path');
      expect((await gqlWith(sibling, bearer(jwt), TENANT)).status).toBe(200);
      const before = sibling.started.revocations.lookups;
      for (let i = 0; i < 20; i++) expect((await gqlWith(sibling, bearer(jwt), TENANT)).status).toBe(200);
      expect(sibling.started.revocations.lookups).toBe(before);
    });

    test('a token deleted by plain SQL (no engine involved) is refused by both within a second', async () => {
      const { jwt, tokenId } = await jwtFor(server, alice.username, 'sql delete');
      expect((await gqlWith(sibling, bearer(jwt), TENANT)).status).toBe(200);
      expect((await gqlWith(server, bearer(jwt), TENANT)).status).toBe(200);
      await server.started.db.query('UPDATE api_tokens SET deleted_at = now() WHERE id = $1::uuid', [tokenId]);
      const [a, b] = await Promise.all([refusedWithin(sibling, jwt), refusedWithin(server, jwt)]);
      expect(a).toBeGreaterThanOrEqual(0);
      expect(b).toBeGreaterThanOrEqual(0);
      const res = await gqlWith(sibling, bearer(jwt), TENANT);
      expect(res.body.errors[0].message).toBe('the API token this JWT was issued for has been deleted');
    });

    test('a suspended user’s JWTs are refused by both within a second', async () => {
      const { jwt } = await jwtFor(server, victor.username, 'suspend');
      expect((await gqlWith(sibling, bearer(jwt), TENANT)).status).toBe(200);
      await suspendUser(server.started.db, victor.username);
      try {
        expect(await refusedWithin(sibling, jwt)).toBeGreaterThanOrEqual(0);
        expect(await refusedWithin(server, jwt)).toBeGreaterThanOrEqual(0);
        expect((await gqlWith(sibling, bearer(jwt), TENANT)).body.errors[0].message).toContain('suspended');
      } finally {
        await server.started.db.query("UPDATE users SET status = 'active' WHERE id = $1::uuid", [victor.id]);
      }
      // Reactivated: the same JWT works again (the token was never deleted).
      expect(
        await within(1000, async () => (await gqlWith(sibling, bearer(jwt), TENANT)).status === 200),
      ).toBeGreaterThanOrEqual(0);
    });
  });

  describe(`a second engine process on the same PostgreSQL database${onPostgres ? '' : ' (skipped on PGlite)'}`, () => {
    let other: Awaited<ReturnType<typeof spawnEngine>> | undefined;

    beforeAll(async () => {
      if (!onPostgres) return;
      other = await spawnEngine({ ...database.env, ...ENV, ADMIN_SECRET, SEED_DEMO_DATA: 'false' });
    }, 180_000);
    afterAll(async () => {
      await other?.stop();
    });

    const pgTest = onPostgres ? test : test.skip;

    pgTest('a JWT minted by one process is accepted by the other', async () => {
      const t = await tokenFor(server.started.db, alice.username, 'cross');
      const jwt = (await exchange(other!, alice.username, t.secret)).body.token;
      expect((await gqlWith(server, bearer(jwt), TENANT)).body).toEqual({ data: { tenant: [{ id: acme.id }] } });
      expect((await gqlWith(other!, bearer(jwt), TENANT)).body).toEqual({ data: { tenant: [{ id: acme.id }] } });
    });

    pgTest(
      'deleted in this process through GraphQL: the other process refuses its JWTs within a second, and its exchange at once',
      async () => {
        const manager = (await jwtFor(server, alice.username, 'manager')).jwt;
        const victim = await tokenFor(server.started.db, alice.username, 'victim');
        const jwt = (await exchange(server, alice.username, victim.secret)).body.token;
        expect((await gqlWith(other!, bearer(jwt), TENANT)).status).toBe(200);
        const del = await gqlWith(
          server,
          bearer(manager),
          'mutation($id: uuid!) { delete_api_token(id: $id) { deleted } }',
          { id: victim.id },
        );
        expect(del.body).toEqual({ data: { delete_api_token: { deleted: true } } });
        const ms = await refusedWithin(other!, jwt);
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThan(1000);
        expect((await exchange(other!, alice.username, victim.secret)).status).toBe(401);
      },
    );

    pgTest('deleted in the other process: this one refuses within a second', async () => {
      const victim = await jwtFor(server, alice.username, 'victim 2');
      const manager = (
        await exchange(other!, alice.username, (await tokenFor(server.started.db, alice.username, 'manager 2')).secret)
      ).body.token;
      expect((await gqlWith(server, bearer(victim.jwt), TENANT)).status).toBe(200);
      const del = await gqlWith(
        other!,
        bearer(manager),
        'mutation($id: uuid!) { delete_api_token(id: $id) { deleted } }',
        { id: victim.tokenId },
      );
      expect(del.body).toEqual({ data: { delete_api_token: { deleted: true } } });
      const ms = await refusedWithin(server, victim.jwt);
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(1000);
    });
  });
});
