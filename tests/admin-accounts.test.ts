import { runAdmin, type AdminIo } from '../engine/cli/admin';
import { DEMO } from '../demo/demo-data';
import { authEnv, bearer, exchange, gqlWith, newSecret, tokenFor } from './support/auth';
import { backendName } from './support/database';
import { ADMIN_SECRET, startTestServer, type TestServer } from './support/server';

/**
 * `npm run admin -- list-users | list-tokens | delete-token | clear-lockout`: run on the database
 * directly (in this process, on the test server's database) and through the running engine's admin
 * command route (POST /api/admin/command, what the CLI sends when an engine holds the embedded folder).
 * Nothing they print holds a secret or a hash.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const alice = acme.users.admin;
const ENV = authEnv({ AUTH_MAX_FAILURES: '2', AUTH_MAX_FAILURES_PER_EMAIL: '4', TRUST_PROXY: 'true' });
const wrong = 'plat_' + 'A'.repeat(43);

describe(`admin commands on accounts, on ${backendName}`, () => {
  let server: TestServer;
  const direct = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const io: AdminIo = {
      env: {},
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      readStdin: async () => '',
      database: server.started.db,
    };
    const code = await runAdmin(args, io);
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  /** The same command through the running engine, as the CLI sends it. */
  const viaEngine = async (args: string[]) => {
    const res = await server.post('/api/admin/command', JSON.stringify({ args }), {
      'x-hasura-admin-secret': ADMIN_SECRET,
    });
    expect(res.status).toBe(200);
    return { code: res.body.code as number, out: (res.body.out as string[]).join('\n'), err: res.body.err.join('\n') };
  };

  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
  });
  afterAll(() => server.close());

  test('list-users: every user with status, password and roles by tenant; --tenant narrows', async () => {
    for (const run of [direct, viaEngine]) {
      const all = await run(['list-users']);
      expect(all.code).toBe(0);
      const lines = all.out.split('\n');
      expect(lines[0]).toMatch(/^E-MAIL\s+NAME\s+STATUS\s+PASSWORD\s+ROLES$/);
      const aliceLine = lines.find((l) => l.startsWith(alice.username))!;
      expect(aliceLine).toContain('active');
      expect(aliceLine).toContain(`${acme.name}: tenant_admin`);
      expect(all.out).toContain(globex.users.admin.username);
      const only = await run(['list-users', '--tenant', globex.name]);
      expect(only.out).toContain(globex.users.admin.username);
      expect(only.out).not.toContain(alice.username);
      expect(only.out).toMatch(/\d+ users?$/);
    }
    const none = await direct(['list-users', '--tenant', 'no such tenant']);
    expect(none.out).toMatch(/0 users$/);
  });

  test('list-tokens shows ids and prefixes, never secrets; delete-token stops the token and its JWT at once', async () => {
    const t = await tokenFor(server.started.db, alice.username, `cli ${newSecret().slice(0, 6)}`);
    const jwt = (await exchange(server, alice.username, t.secret)).body.token as string;
    expect((await gqlWith(server, bearer(jwt), '{ tenant { id } }')).status).toBe(200);

    const listed = await direct(['list-tokens', '--email', alice.username.toUpperCase()]);
    expect(listed.code).toBe(0);
    const line = listed.out.split('\n').find((l) => l.startsWith(t.id))!;
    const shown = /\s(plat_\S+)\.\.\.\s/.exec(line)![1];
    expect(t.secret.startsWith(shown) && shown.length < 16).toBe(true);
    expect(line).toContain(acme.name);
    // Created and last used (by the exchange above), in UTC.
    expect(line).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d\s+\d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(listed.out).not.toContain(t.secret);
    expect((await viaEngine(['list-tokens', '--tenant', globex.id])).out).not.toContain(t.id);

    const deleted = await viaEngine(['delete-token', '--id', t.id]);
    expect(deleted).toMatchObject({ code: 0 });
    expect(deleted.out).toContain(`of ${alice.username}`);
    const audited = await server.started.db.query(
      `SELECT method FROM audit_events WHERE type = 'api_token_deleted' AND token_id = $1::uuid`,
      [t.id],
    );
    expect(audited).toEqual([{ method: 'cli' }]);
    const refused = await gqlWith(server, bearer(jwt), '{ tenant { id } }');
    expect(refused.status).toBe(401);
    expect((await exchange(server, alice.username, t.secret)).status).toBe(401);
    expect((await direct(['list-tokens'])).out).not.toContain(t.id);

    const again = await direct(['delete-token', '--id', t.id]);
    expect(again).toMatchObject({ code: 1, err: `error: no live API token with the id ${t.id}` });
    expect((await direct(['delete-token', '--id', 'nope'])).err).toContain('must be a token id');
    expect((await direct(['delete-token'])).err).toContain('--id is required');
  });

  test('clear-lockout --email ends a lockout from any address; --address and --all too', async () => {
    const t = await tokenFor(server.started.db, alice.username, `lockout ${newSecret().slice(0, 6)}`);
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const lockOut = async (ip: string) => {
      for (let i = 0; i < 3; i++) await exchange(server, alice.username, wrong, from(ip));
      expect((await exchange(server, alice.username, t.secret, from(ip))).status).toBe(429);
    };
    await lockOut('10.9.0.1');
    const cleared = await direct(['clear-lockout', '--email', alice.username]);
    expect(cleared.code).toBe(0);
    expect(cleared.out).toMatch(/^cleared [1-9]\d* failed-sign-in counters?$/);
    // The counter of the address and e-mail together is cleared too, without naming the address.
    expect((await exchange(server, alice.username, t.secret, from('10.9.0.1'))).status).toBe(200);

    await lockOut('10.9.0.2');
    expect((await viaEngine(['clear-lockout', '--all'])).out).toMatch(/^cleared [1-9]\d* failed-sign-in counters?$/);
    expect((await exchange(server, alice.username, t.secret, from('10.9.0.2'))).status).toBe(200);

    await exchange(server, 'nobody@acme.example.com', wrong, from('10.9.0.3'));
    expect((await direct(['clear-lockout', '--address', '10.9.0.3'])).out).toBe('cleared 1 failed-sign-in counter');
    const bad = await direct(['clear-lockout']);
    expect(bad).toMatchObject({ code: 1 });
    expect(bad.err).toContain('--all is required');
    expect((await direct(['clear-lockout', '--all', '--email', alice.username])).err).toContain('give it alone');
  });

  test('the usage names the new commands', async () => {
    const help = await direct(['help']);
    for (const c of ['list-users', 'list-tokens', 'delete-token', 'clear-lockout']) expect(help.out).toContain(c);
  });
});
