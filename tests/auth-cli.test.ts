import { runAdmin, type AdminIo } from '../engine/cli/admin';
import { verifyCredentials } from '../engine/serve/auth/users';
import { DEMO } from '../demo/demo-data';
import { authEnv, bearer, exchange, gqlWith, newSecret, runTs } from './support/auth';
import { backendName, createTestDatabase } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * `npm run admin -- <command>`: operators create a tenant, a user in it with a role and a password,
 * suspend a user, and create an API token whose secret is printed once. The commands run in this
 * process on the test server's database, and once as a real process on a database of their own.
 */
const ENV = authEnv({ AUTH_MAX_FAILURES: '1000' });
const acme = DEMO.tenants.acme;

describe(`npm run admin on ${backendName}`, () => {
  let server: TestServer;
  const admin = async (args: string[], stdin = '') => {
    const out: string[] = [];
    const err: string[] = [];
    const io: AdminIo = {
      env: {},
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      readStdin: async () => stdin,
      database: server.started.db,
    };
    const code = await runAdmin(args, io);
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
  });
  afterAll(() => server.close());

  test('create-tenant, create-user with a password, create-token: the secret is printed once and works', async () => {
    const t = await admin(['create-tenant', '--name', 'Initech']);
    expect(t.code).toBe(0);
    const tenantId = /: ([0-9a-f-]{36})$/.exec(t.out)![1];
    const password = `pw-${newSecret()}`;
    const u = await admin(
      [
        'create-user',
        '--tenant',
        'initech',
        '--email',
        'peter@initech.example.com',
        '--name',
        'Peter Gibbons',
        '--role',
        'tenant_admin',
        '--password-stdin',
      ],
      `${password}\n`,
    );
    expect(u.code).toBe(0);
    expect(u.out).not.toContain(password);
    expect(await verifyCredentials(server.started.db, 'peter@initech.example.com', password)).toMatchObject({
      tenantId,
      role: 'tenant_admin',
      displayName: 'Peter Gibbons',
    });

    const k = await admin(['create-token', '--email', 'peter@initech.example.com', '--name', 'nightly export']);
    expect(k.code).toBe(0);
    const secrets = k.out.match(/plat_[\w-]{43}/g)!;
    expect(secrets).toHaveLength(1);
    expect(k.out).toContain('shown this once');
    const res = await exchange(server, 'peter@initech.example.com', secrets[0]);
    expect(res.status).toBe(200);
    // The new tenant is empty and separate: its JWT sees its own tenant only.
    expect(
      (await gqlWith(server, bearer(res.body.token), '{ tenant { id name } cloud_accounts { id } }')).body,
    ).toEqual({
      data: { tenant: [{ id: tenantId, name: 'Initech' }], cloud_accounts: [] },
    });
  });

  test('create-user with --password and a read-only role; suspend-user stops exchanges', async () => {
    const password = `pw-${newSecret()}`;
    const u = await admin([
      'create-user',
      '--tenant',
      acme.id,
      '--email',
      'milton@acme.example.com',
      '--name',
      'Milton',
      '--role',
      'tenant_admin_readonly',
      '--password',
      password,
    ]);
    expect(u.code).toBe(0);
    const k = await admin(['create-token', '--email', 'milton@acme.example.com', '--name', 'stapler']);
    const secret = /plat_[\w-]{43}/.exec(k.out)![0];
    const res = await exchange(server, 'milton@acme.example.com', secret);
    expect(res.status).toBe(200);
    expect(
      (await gqlWith(server, bearer(res.body.token), '{ __schema { mutationType { name } } }')).body.data.__schema
        .mutationType,
    ).toBeNull();

    const s = await admin(['suspend-user', '--email', 'milton@acme.example.com']);
    expect(s).toEqual({ code: 0, out: 'suspended milton@acme.example.com', err: '' });
    expect((await exchange(server, 'milton@acme.example.com', secret)).status).toBe(401);
    expect(await verifyCredentials(server.started.db, 'milton@acme.example.com', password)).toBeNull();
    expect((await admin(['create-token', '--email', 'milton@acme.example.com', '--name', 'x'])).code).toBe(1);
  });

  test('a user without a password signs in through SSO only', async () => {
    const u = await admin([
      'create-user',
      '--tenant',
      'Acme Corp',
      '--email',
      'sso@acme.example.com',
      '--name',
      'Sso',
      '--role',
      'tenant_admin',
    ]);
    expect(u.code).toBe(0);
    expect(u.out).toContain('no password');
    const [row] = await server.started.db.query(
      "SELECT password_hash FROM users WHERE username = 'sso@acme.example.com'",
    );
    expect(row.password_hash).toBeNull();
  });

  test.each([
    [
      [
        'create-user',
        '--tenant',
        'acme corp',
        '--email',
        'x@acme.example.com',
        '--name',
        'X',
        '--role',
        'admin',
        '--password',
        'long enough',
      ],
      '--role must be one of tenant_admin, tenant_admin_readonly',
    ],
    [
      ['create-user', '--tenant', 'nope', '--email', 'x@acme.example.com', '--name', 'X', '--role', 'tenant_admin'],
      'no tenant "nope"',
    ],
    [
      ['create-user', '--tenant', 'acme corp', '--email', 'not-an-email', '--name', 'X', '--role', 'tenant_admin'],
      '--email must be an e-mail address',
    ],
    [
      [
        'create-user',
        '--tenant',
        'acme corp',
        '--email',
        DEMO.tenants.acme.users.admin.username.toUpperCase(),
        '--name',
        'X',
        '--role',
        'tenant_admin',
      ],
      'exists already',
    ],
    [
      [
        'create-user',
        '--tenant',
        'acme corp',
        '--email',
        'y@acme.example.com',
        '--name',
        'Y',
        '--role',
        'tenant_admin',
        '--password',
        'short',
      ],
      'at least 8 characters',
    ],
    [['create-tenant', '--name', 'acme corp'], 'exists already'],
    [['suspend-user', '--email', 'ghost@acme.example.com'], 'no user with the e-mail ghost@acme.example.com'],
    [['create-token', '--email', DEMO.tenants.acme.users.admin.username], '--name (the token name) is required'],
  ])('%j fails with a clear message', async (args, message) => {
    const r = await admin(args);
    expect(r.code).toBe(1);
    expect(r.err).toContain(message);
    expect(r.out).toBe('');
  });

  test('usage errors exit 2 with the usage', async () => {
    for (const args of [[], ['frobnicate'], ['create-tenant', '--colour', 'red']]) {
      const r = await admin(args);
      expect(r.code).toBe(2);
      expect(`${r.out}${r.err}`).toContain('usage: npm run admin -- <command>');
    }
  });

  test('as a process of its own, on its own database: the printed secret works against a server started afterwards', async () => {
    const database = await createTestDatabase({ persistent: true });
    // PGlite belongs to one process at a time: the command runs, then the server starts.
    const env = { ...database.env, SEED_DEMO_DATA: 'false' };
    try {
      expect((await runTs('engine/cli/admin.ts', ['create-tenant', '--name', 'Hooli'], env)).code).toBe(0);
      const password = `pw-${newSecret()}`;
      const u = await runTs(
        'engine/cli/admin.ts',
        [
          'create-user',
          '--tenant',
          'Hooli',
          '--email',
          'gavin@hooli.example.com',
          '--name',
          'Gavin',
          '--role',
          'tenant_admin',
          '--password-stdin',
        ],
        env,
        `${password}\n`,
      );
      expect(u).toMatchObject({ code: 0, err: '' });
      const k = await runTs(
        'engine/cli/admin.ts',
        ['create-token', '--email', 'gavin@hooli.example.com', '--name', 'ops'],
        env,
      );
      expect(k.code).toBe(0);
      const secret = /plat_[\w-]{43}/.exec(k.out)![0];
      const hooli = await startTestServer({ database, env: { ...ENV, SEED_DEMO_DATA: 'false' } });
      try {
        expect((await exchange(hooli, 'gavin@hooli.example.com', secret)).status).toBe(200);
      } finally {
        await hooli.stop();
      }
      expect(
        (await runTs('engine/cli/admin.ts', ['suspend-user', '--email', 'gavin@hooli.example.com'], env)).code,
      ).toBe(0);
      const again = await startTestServer({ database, env: { ...ENV, SEED_DEMO_DATA: 'false' } });
      try {
        expect((await exchange(again, 'gavin@hooli.example.com', secret)).status).toBe(401);
      } finally {
        await again.stop();
      }
    } finally {
      await database.drop();
    }
  }, 300_000);
});
