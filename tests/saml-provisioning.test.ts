import { mapAttributes } from '../engine/serve/saml/acs';
import { rolesFromGroups } from '../engine/serve/saml/provision';
import { stopSchemaValidator } from '../engine/serve/saml/schema-validator';
import { refuseXml } from '../engine/serve/saml/xml-guard';
import { loadConfig } from '../engine/core/config';
import { DEMO } from '../demo/demo-data';
import { authEnv, gqlWith } from './support/auth';
import { backendName } from './support/database';
import { makeLicense } from './support/license';
import {
  makeCertificate,
  makeIdp,
  postAcs,
  requestIdOf,
  samlEnv,
  signedResponse,
  spFromMetadata,
  startLogin,
  type AcsResult,
} from './support/saml';
import { startTestServer, type TestServer } from './support/server';

afterAll(() => stopSchemaValidator());
const globex = DEMO.tenants.globex;
const acme = DEMO.tenants.acme;
const keys = makeCertificate();
const configWith = (env: Record<string, string>) => loadConfig({ ...authEnv(), ...samlEnv(keys.cert), ...env });

describe('group-to-role rules', () => {
  const mapping = JSON.stringify({ Admins: 'tenant_admin', Viewers: 'tenant_admin_readonly' });

  test('exact, case-sensitive matches; only mapped groups give roles by default', () => {
    const saml = configWith({ SAML_GROUP_MAPPING: mapping }).saml;
    expect(rolesFromGroups(saml, ['Admins'])).toEqual(['tenant_admin']);
    expect(rolesFromGroups(saml, ['admins', 'ADMINS', ' Admins', 'Viewer'])).toEqual([]);
    expect(rolesFromGroups(saml, ['Viewers', 'Admins', 'Other'])).toEqual(['tenant_admin_readonly', 'tenant_admin']);
  });

  test('SAML_INCLUDE_UNMAPPED_GROUPS passes unmapped group names through unchanged', () => {
    const saml = configWith({ SAML_GROUP_MAPPING: mapping, SAML_INCLUDE_UNMAPPED_GROUPS: 'true' }).saml;
    expect(rolesFromGroups(saml, ['Admins', 'tenant_admin_readonly', 'Finance'])).toEqual([
      'tenant_admin',
      'tenant_admin_readonly',
      'Finance',
    ]);
  });

  test('an invalid mapping maps nothing ("roles not mapping")', () => {
    expect(rolesFromGroups(configWith({ SAML_GROUP_MAPPING: '{Admins: tenant_admin' }).saml, ['Admins'])).toEqual([]);
  });
});

describe('attribute mapping', () => {
  const attrs = (o: Record<string, string[]>) => new Map(Object.entries(o));

  test('e-mail from email, then mail, then the NameID', () => {
    expect(mapAttributes(attrs({ email: ['a@x.test'], mail: ['b@x.test'] }), 'c@x.test').email).toBe('a@x.test');
    expect(mapAttributes(attrs({ mail: ['b@x.test'] }), 'c@x.test').email).toBe('b@x.test');
    expect(mapAttributes(attrs({}), 'c@x.test').email).toBe('c@x.test');
  });

  test('display name from displayName, then name, then firstName + lastName', () => {
    expect(
      mapAttributes(attrs({ displayName: ['D'], name: ['N'], firstName: ['F'], lastName: ['L'] }), 'c@x.test')
        .displayName,
    ).toBe('D');
    expect(mapAttributes(attrs({ name: ['N'], firstName: ['F'], lastName: ['L'] }), 'c@x.test').displayName).toBe('N');
    expect(mapAttributes(attrs({ firstName: ['F'], lastName: ['L'] }), 'c@x.test').displayName).toBe('F L');
  });

  test('groups from the first of groups, Group, memberOf, roles, Role and the two claim URIs', () => {
    expect(mapAttributes(attrs({ Role: ['r'], groups: ['g1', 'g2'] }), 'x@y.test')).toMatchObject({
      groups: ['g1', 'g2'],
      hasGroupAttribute: true,
    });
    for (const name of [
      'Group',
      'memberOf',
      'roles',
      'Role',
      'http://schemas.xmlsoap.org/claims/Group',
      'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
    ]) {
      expect(mapAttributes(attrs({ [name]: ['G'] }), 'x@y.test')).toMatchObject({
        groups: ['G'],
        hasGroupAttribute: true,
      });
    }
    expect(mapAttributes(attrs({ department: ['G'] }), 'x@y.test')).toMatchObject({
      groups: [],
      hasGroupAttribute: false,
    });
  });
});

describe('the XML shape check', () => {
  test('one root element and no DOCTYPE; comments and the XML declaration are fine; ">" inside attribute values too', () => {
    expect(refuseXml('<?xml version="1.0"?><!-- c --><a x="1>2"><b/></a>\n')).toBeUndefined();
    expect(refuseXml('<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>')).toMatch(/DOCTYPE/);
    expect(refuseXml('<a/><b/>')).toMatch(/more than one root/);
    expect(refuseXml('<a></a>text')).toMatch(/text outside/);
    expect(refuseXml('<a>')).toMatch(/not well-formed/);
  });
});

describe(`provisioning on ${backendName}`, () => {
  let saas: TestServer;
  let onprem: TestServer;
  let badLicense: Awaited<ReturnType<typeof makeLicense>>;
  const idp = makeIdp(keys);

  beforeAll(async () => {
    saas = await startTestServer({ env: { ...authEnv(), ...samlEnv(keys.cert), DEPLOYMENT_MODE: 'saas' } });
    await saas.started.db.query(
      `INSERT INTO tenant_attrs (tenant_id, allowed_domains, auth_default_role) VALUES ($1::uuid, '{newco.test,Globex.Example.com}', 'tenant_admin'), ($2::uuid, '{acme.example.com}', NULL)`,
      [globex.id, acme.id],
    );
    badLicense = await makeLicense({ tenant_id: acme.id }, { signWithOtherKey: true });
    onprem = await startTestServer({ env: { ...authEnv(), ...samlEnv(keys.cert), ...badLicense.env }, seed: true });
  });
  afterAll(async () => {
    await saas?.close();
    await onprem?.close();
    badLicense?.remove();
  });

  const login = async (server: TestServer, nameId: string): Promise<AcsResult> => {
    const sp = await spFromMetadata(server.url);
    const started = await startLogin(server.url);
    const requestId = await requestIdOf(idp, sp, started);
    return postAcs(server.url, await signedResponse(idp, sp, requestId, { nameId }), started.cookie);
  };
  const membership = async (server: TestServer, email: string) =>
    server.started.db.query(
      `SELECT r.tenant_id::text AS tenant_id, r.role FROM users u JOIN user_roles r ON r.user_id = u.id WHERE u.username = $1`,
      [email],
    );

  test('SaaS: the e-mail domain picks the tenant (allowed_domains, any case); the role is its auth_default_role', async () => {
    const acs = await login(saas, 'first.user@newco.test');
    expect(acs.status).toBe(303);
    expect(await membership(saas, 'first.user@newco.test')).toEqual([{ tenant_id: globex.id, role: 'tenant_admin' }]);
    const tenant = await gqlWith(saas, { cookie: acs.session! }, '{ tenant { id } }');
    expect(tenant.body.data.tenant).toEqual([{ id: globex.id }]);
  });

  test('SaaS: a tenant without auth_default_role gives AUTH_DEFAULT_ROLE', async () => {
    expect((await login(saas, 'second.user@acme.example.com')).status).toBe(303);
    expect(await membership(saas, 'second.user@acme.example.com')).toEqual([
      { tenant_id: acme.id, role: 'tenant_admin_readonly' },
    ]);
  });

  test('SaaS: no tenant for the domain: a clear refusal, no user, no session', async () => {
    const acs = await login(saas, 'stranger@elsewhere.test');
    expect(acs.status).toBe(403);
    expect(acs.session).toBeUndefined();
    expect(acs.text).toContain('no tenant accepts sign-ins from the e-mail domain elsewhere.test');
    expect(await saas.started.db.query(`SELECT 1 FROM users WHERE username = 'stranger@elsewhere.test'`)).toEqual([]);
  });

  test('on-premise with a license that does not verify: existing users sign in, new users are refused with the reason', async () => {
    expect((await login(onprem, acme.users.admin.username)).status).toBe(303);
    const acs = await login(onprem, 'newcomer@acme.example.com');
    expect(acs.status).toBe(403);
    expect(acs.session).toBeUndefined();
    expect(acs.text).toContain('new users cannot be created: the license is not valid');
    const h = await (await fetch(`${onprem.url}/api/auth/saml/health`)).json();
    expect(h.messages.join(' ')).toMatch(/license: the license is not valid/);
  });
});
