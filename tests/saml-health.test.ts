import { loadConfig, normaliseCertificate } from '../engine/core/config';
import { samlHealth } from '../engine/serve/saml/health';
import { readLicense } from '../engine/serve/saml/license';
import { DEMO } from '../demo/demo-data';
import { authEnv } from './support/auth';
import { backendName } from './support/database';
import { makeLicense } from './support/license';
import { certBody, makeCertificate, samlEnv } from './support/saml';
import { startTestServer, type TestServer } from './support/server';

/** GET /api/auth/saml/health and the configuration behind it: certificates made here with the lifetimes each case needs. */
const healthy = makeCertificate({ toDays: 365 });
const soon = makeCertificate({ toDays: 10 });
const expired = makeCertificate({ fromDays: -400, toDays: -2 });
const base = authEnv();
const configWith = (env: Record<string, string>) => loadConfig({ ...base, ...env });

describe('SAML health: the certificate table', () => {
  test('more than 30 days left: healthy', () => {
    const h = samlHealth(configWith(samlEnv(healthy.cert)), undefined);
    expect(h.status).toBe('healthy');
    expect(h.enabled).toBe(true);
    expect(h.certificate).toEqual({
      expired: false,
      expiringSoon: false,
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      daysUntilExpiry: expect.any(Number),
    });
    expect(h.certificate.daysUntilExpiry).toBeGreaterThanOrEqual(363);
    expect(h.config).toEqual({
      entryPoint: 'https://idp.test/sso',
      issuer: 'https://idp.test/metadata',
      callbackUrl: 'http://platform.test/api/auth/saml/acs',
    });
    expect(h.messages).toEqual([]);
  });

  test('expires within 30 days: warning', () => {
    const h = samlHealth(configWith(samlEnv(soon.cert)), undefined);
    expect(h.status).toBe('warning');
    expect(h.certificate.expiringSoon).toBe(true);
    expect(h.certificate.expired).toBe(false);
    expect([9, 10]).toContain(h.certificate.daysUntilExpiry);
    expect(h.messages.join(' ')).toMatch(/expires in \d+ days/);
  });

  test('expired: error', () => {
    const h = samlHealth(configWith(samlEnv(expired.cert)), undefined);
    expect(h.status).toBe('error');
    expect(h.certificate.expired).toBe(true);
    expect(h.certificate.daysUntilExpiry).toBeLessThan(0);
    expect(h.messages.join(' ')).toMatch(/expired/);
  });

  test('the clock decides: the healthy certificate is a warning 340 days later and an error after it ends', () => {
    const config = configWith(samlEnv(healthy.cert));
    const later = (days: number) => new Date(Date.now() + days * 86400_000);
    expect(samlHealth(config, undefined, later(340)).status).toBe('warning');
    expect(samlHealth(config, undefined, later(366)).status).toBe('error');
  });

  test('SAML_CERT with or without BEGIN/END lines, on one line or escaped, reads the same', () => {
    const pem = normaliseCertificate(healthy.cert);
    expect(normaliseCertificate(certBody(healthy.cert))).toBe(pem);
    expect(normaliseCertificate(healthy.cert.replace(/\n/g, '\\n'))).toBe(pem);
    expect(pem).toMatch(
      /^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=]{64}\n)+[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE-----\n$/,
    );
    expect(samlHealth(configWith(samlEnv(healthy.cert, { SAML_CERT: healthy.cert })), undefined).status).toBe(
      'healthy',
    );
  });

  test('a certificate that is not one: error with the reason', () => {
    const h = samlHealth(configWith(samlEnv(healthy.cert, { SAML_CERT: 'not a certificate' })), undefined);
    expect(h.status).toBe('error');
    expect(h.messages.join(' ')).toMatch(/SAML_CERT is not a readable X\.509 certificate/);
  });
});

describe('SAML health: configuration', () => {
  test.each(['SAML_ENTRY_POINT', 'SAML_ISSUER', 'SAML_CERT', 'SAML_AUDIENCE'])(
    '%s missing: SAML not configured (error)',
    (name) => {
      const env = samlEnv(healthy.cert);
      delete env[name];
      const h = samlHealth(configWith(env), undefined);
      expect(h.status).toBe('error');
      expect(h.messages).toContain(`SAML not configured: ${name} is missing`);
    },
  );

  test('SAML_GROUP_MAPPING that is not JSON: a clear message, no crash; a mapping to another role is ignored', () => {
    const config = configWith(samlEnv(healthy.cert, { SAML_GROUP_MAPPING: '{"Admins": tenant_admin}' }));
    expect(config.saml.groupMapping).toEqual({});
    const h = samlHealth(config, undefined);
    expect(h.status).toBe('warning');
    expect(h.messages.join(' ')).toMatch(/SAML_GROUP_MAPPING is not a valid JSON object/);
    const other = configWith(
      samlEnv(healthy.cert, { SAML_GROUP_MAPPING: '{"Admins":"tenant_admin","Owners":"superuser"}' }),
    );
    expect(other.saml.groupMapping).toEqual({ Admins: 'tenant_admin' });
    expect(samlHealth(other, undefined).messages.join(' ')).toMatch(
      /"Owners" maps to "superuser", which is not one of tenant_admin, tenant_admin_readonly/,
    );
  });

  test('defaults: sync and remove on, unmapped groups off, AUTH_DEFAULT_ROLE tenant_admin_readonly, community edition, ACS from NEXTAUTH_URL', () => {
    const c = loadConfig({ ...base });
    expect(c.edition).toBe('community');
    expect(c.deploymentMode).toBe('onprem');
    expect(loadConfig({ ...base, EDITION: 'cloud' }).deploymentMode).toBe('saas');
    expect(c.saml).toMatchObject({
      enabled: false,
      syncRolesOnLogin: true,
      removeOldRoles: true,
      includeUnmappedGroups: false,
      defaultRole: 'tenant_admin_readonly',
      groupMapping: {},
      callbackUrl: 'http://platform.test/api/auth/saml/acs',
    });
    expect(() => loadConfig({ ...base, AUTH_DEFAULT_ROLE: 'admin' })).toThrow(
      /AUTH_DEFAULT_ROLE must be one of tenant_admin, tenant_admin_readonly/,
    );
    expect(() => loadConfig({ ...base, EDITION: 'platinum' })).toThrow(
      /EDITION must be one of community, enterprise, cloud/,
    );
  });

  test('Community edition: not enabled, and says SAML is not in this edition', () => {
    const h = samlHealth(configWith(samlEnv(healthy.cert, { EDITION: 'community' })), undefined);
    expect(h.enabled).toBe(false);
    expect(h.messages.join(' ')).toMatch(/not available in the Community edition/);
  });

  test('on-premise license: a valid one names the tenant; a forged or expired one is refused with its reason', async () => {
    const good = await makeLicense({ tenant_id: DEMO.tenants.acme.id });
    const forged = await makeLicense({ tenant_id: DEMO.tenants.acme.id }, { signWithOtherKey: true });
    const old = await makeLicense({ tenant_id: DEMO.tenants.acme.id }, { expiresIn: '-1h' });
    try {
      const read = (env: Record<string, string>) => readLicense(configWith(samlEnv(healthy.cert, env)).saml);
      expect(await read(good.env)).toMatchObject({ ok: true, tenantId: DEMO.tenants.acme.id });
      expect(await read(forged.env)).toEqual({ ok: false, problem: expect.stringMatching(/signature does not match/) });
      expect(await read(old.env)).toEqual({ ok: false, problem: 'the license has expired' });
      const bad = await read(forged.env);
      const h = samlHealth(configWith(samlEnv(healthy.cert, forged.env)), bad);
      expect(h.status).toBe('warning');
      expect(h.messages.join(' ')).toMatch(/license: the license is not valid/);
    } finally {
      good.remove();
      forged.remove();
      old.remove();
    }
  });
});

describe(`SAML over HTTP on ${backendName}`, () => {
  let community: TestServer;
  let enterprise: TestServer;
  beforeAll(async () => {
    community = await startTestServer({
      env: { ...authEnv(), ...samlEnv(soon.cert), EDITION: 'community' },
      seed: false,
    });
    enterprise = await startTestServer({
      env: { ...authEnv(), ...samlEnv(soon.cert, { SAML_GROUP_MAPPING: 'not json' }) },
      seed: false,
    });
  });
  afterAll(async () => {
    await community?.close();
    await enterprise?.close();
  });

  test("GET /api/auth/saml/health answers the spec's shape", async () => {
    const res = await fetch(`${enterprise.url}/api/auth/saml/health`);
    expect(res.status).toBe(200);
    const h = await res.json();
    expect(Object.keys(h).sort()).toEqual(['certificate', 'config', 'enabled', 'messages', 'status']);
    expect(h.enabled).toBe(true);
    expect(h.status).toBe('warning');
    expect(Object.keys(h.certificate).sort()).toEqual(['daysUntilExpiry', 'expired', 'expiresAt', 'expiringSoon']);
    expect(h.config.callbackUrl).toBe('http://platform.test/api/auth/saml/acs');
    expect(h.messages.join(' ')).toMatch(/SAML_GROUP_MAPPING is not a valid JSON object/);
  });

  test('the sign-in page shows the SSO button only where SAML is on', async () => {
    expect(await (await fetch(`${enterprise.url}/signin`)).text()).toContain('href="/api/auth/saml/login"');
    expect(await (await fetch(`${community.url}/signin`)).text()).not.toContain('/api/auth/saml/login');
  });

  test('Community edition: health says so; login and the ACS are not there', async () => {
    const h = await (await fetch(`${community.url}/api/auth/saml/health`)).json();
    expect(h.enabled).toBe(false);
    expect(h.messages.join(' ')).toMatch(/not available in the Community edition/);
    const login = await fetch(`${community.url}/api/auth/saml/login`, { redirect: 'manual' });
    expect(login.status).toBe(404);
    expect(await login.text()).toContain('not available in the Community edition');
  });

  test('the SP metadata: entity ID, ACS URL (HTTP-POST) and the emailAddress NameID format', async () => {
    const res = await fetch(`${enterprise.url}/api/auth/saml/metadata`);
    expect(res.headers.get('content-type')).toMatch(/samlmetadata\+xml/);
    const xml = await res.text();
    expect(xml).toContain('entityID="http://platform.test"');
    expect(xml).toMatch(/AssertionConsumerService[^>]*Location="http:\/\/platform\.test\/api\/auth\/saml\/acs"/);
    expect(xml).toContain('urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress');
  });
});
