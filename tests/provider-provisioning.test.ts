import { providerAccount, linkedMethods, type ProviderIdentity } from '../engine/serve/auth/provider-links';
import { resolveOutsideUser, SignInRefused, type PlacementRules } from '../engine/serve/auth/provision-user';
import { DEMO } from '../demo/demo-data';
import { authEnv } from './support/auth';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * The user-resolution rules of provider and e-mail-link sign-in (auth/provision-user.ts, shared with
 * SAML), row by row, on a real database in both deployment modes: linked account, verified e-mail,
 * unverified e-mail (refused, nothing written), new user (license tenant / domain tenant), no tenant,
 * suspended user.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const ISSUER = 'https://idp.example.test';

let n = 0;
const identity = (o: Partial<ProviderIdentity> = {}): ProviderIdentity => ({
  provider: 'oidc',
  issuer: ISSUER,
  subject: `sub-${++n}`,
  email: `person${n}@acme.example.com`,
  emailVerified: true,
  displayName: `Person ${n}`,
  ...o,
});

describe(`provider user resolution on ${backendName}`, () => {
  let server: TestServer;
  const onprem: PlacementRules = {
    deploymentMode: 'onprem',
    defaultRole: 'tenant_admin_readonly',
    license: () => ({ ok: true, tenantId: acme.id }),
  };
  const saas: PlacementRules = {
    deploymentMode: 'saas',
    defaultRole: 'tenant_admin_readonly',
    license: () => undefined,
  };

  beforeAll(async () => {
    server = await startTestServer({ env: authEnv() });
    await server.started.db.query(
      `INSERT INTO tenant_attrs (tenant_id, allowed_domains, auth_default_role) VALUES ($1::uuid, '{globex.example.com}', 'tenant_admin')`,
      [globex.id],
    );
  });
  afterAll(async () => server?.close());

  const db = () => server.started.db;
  const resolve = (rules: PlacementRules, id: ProviderIdentity) => resolveOutsideUser(db(), rules, providerAccount(id));
  const links = async (id: ProviderIdentity) =>
    db().query(
      `SELECT u.username FROM user_provider_links l JOIN users u ON u.id = l.user_id WHERE l.issuer = $1 AND l.subject = $2`,
      [id.issuer, id.subject],
    );
  const usersNamed = async (email: string) => db().query(`SELECT id::text FROM users WHERE username = $1`, [email]);
  const refusal = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SignInRefused);
    return (err as SignInRefused).message;
  };

  test('an existing user with the same verified e-mail is linked, keeps their tenant and role, and is found by the link next time', async () => {
    const admin = acme.users.admin;
    const id = identity({ email: admin.username.toUpperCase() });
    const session = await resolve(onprem, id);
    expect(session).toMatchObject({ userId: admin.id, tenantId: acme.id, role: 'tenant_admin', email: admin.username });
    expect(await links(id)).toEqual([{ username: admin.username }]);
    // The provider's e-mail changes: the link, not the e-mail, decides.
    const again = await resolve(onprem, { ...id, email: 'renamed@elsewhere.test', emailVerified: false });
    expect(again.userId).toBe(admin.id);
    expect((await linkedMethods(db(), admin.id)).map((m) => m.provider)).toEqual(['oidc']);
    await db().query(`UPDATE users SET password_hash = 'set' WHERE id = $1::uuid`, [admin.id]);
    expect((await linkedMethods(db(), admin.id)).map((m) => m.provider)).toEqual(['credentials', 'oidc']);
  });

  test('an unverified e-mail of an existing user is refused: no link, no new user (account takeover)', async () => {
    const viewer = acme.users.readonly;
    const id = identity({ email: viewer.username, emailVerified: false });
    expect(await refusal(resolve(onprem, id))).toMatch(/does not say that this e-mail address is verified/);
    expect(await links(id)).toEqual([]);
    expect(await usersNamed(viewer.username)).toHaveLength(1);
    expect(await refusal(resolve(saas, id))).toMatch(/verified/);
    expect(await links(id)).toEqual([]);
  });

  test('on-premise: a new person joins the license tenant with AUTH_DEFAULT_ROLE (an unverified new e-mail links nothing else)', async () => {
    const id = identity({ email: 'new.person@anywhere.test', emailVerified: false });
    const session = await resolve(onprem, id);
    expect(session).toMatchObject({ tenantId: acme.id, role: 'tenant_admin_readonly', displayName: id.displayName });
    expect(await links(id)).toEqual([{ username: 'new.person@anywhere.test' }]);
  });

  test('on-premise without a valid license: new people are refused with the reason, nothing written', async () => {
    const rules = { ...onprem, license: () => ({ ok: false as const, problem: 'the license has expired' }) };
    const id = identity({ email: 'late@acme.example.com' });
    expect(await refusal(resolve(rules, id))).toBe('new users cannot be created: the license has expired');
    expect(await usersNamed('late@acme.example.com')).toEqual([]);
    expect(await links(id)).toEqual([]);
  });

  test('SaaS: a new person joins the tenant of their e-mail domain with its auth_default_role', async () => {
    const id = identity({ email: 'someone@GLOBEX.example.com' });
    const session = await resolve(saas, id);
    expect(session).toMatchObject({ tenantId: globex.id, role: 'tenant_admin', email: 'someone@globex.example.com' });
    // Audited as the provider's provisioning, never as SAML's.
    const events = await db().query(
      `SELECT type, method, tenant_id::text AS tenant FROM audit_events WHERE user_id = $1::uuid ORDER BY id`,
      [session.userId],
    );
    expect(events).toEqual([
      { type: 'provider_user_created', method: 'oidc', tenant: null },
      { type: 'provider_tenant_joined', method: 'oidc', tenant: globex.id },
    ]);
  });

  test('SaaS: no tenant for the domain: refused with a clear message, nothing written', async () => {
    const id = identity({ email: 'stranger@nowhere.test' });
    expect(await refusal(resolve(saas, id))).toMatch(/no tenant accepts sign-ins from the e-mail domain nowhere.test/);
    expect(await usersNamed('stranger@nowhere.test')).toEqual([]);
    expect(await links(id)).toEqual([]);
  });

  test('a suspended user is refused ("not allowed"), whether found by link or by e-mail', async () => {
    const id = identity({ email: 'to.suspend@acme.example.com' });
    const { userId } = await resolve(onprem, id);
    await db().query(`UPDATE users SET status = 'suspended' WHERE id = $1::uuid`, [userId]);
    expect(await refusal(resolve(onprem, id))).toMatch(/Sign-in not allowed: this account is suspended/);
    const other = identity({ email: 'to.suspend@acme.example.com' });
    expect(await refusal(resolve(saas, other))).toMatch(/not allowed/);
    expect(await links(other)).toEqual([]);
  });
});
