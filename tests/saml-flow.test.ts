import { activateUser, suspendUser } from '../engine/cli/admin';
import { stopSchemaValidator } from '../engine/serve/saml/schema-validator';
import { STATE_COOKIE, stateCookieValue } from '../engine/serve/saml/state';
import * as samlify from 'samlify';
import { DEMO } from '../demo/demo-data';
import { authEnv, gqlWith, startSibling } from './support/auth';
import { backendName } from './support/database';
import { makeLicense } from './support/license';
import {
  decode,
  encode,
  makeCertificate,
  makeIdp,
  postAcs,
  unsignedResponse,
  type AcsResult,
  requestIdOf,
  samlEnv,
  signedResponse,
  spFromMetadata,
  startLogin,
} from './support/saml';
import { startTestServer, type TestServer } from './support/server';

const acme = DEMO.tenants.acme;
afterAll(() => stopSchemaValidator());

describe(`SAML SP-initiated sign-in on ${backendName}`, () => {
  let server: TestServer;
  let license: Awaited<ReturnType<typeof makeLicense>>;
  const idpKeys = makeCertificate();
  const idp = makeIdp(idpKeys);
  let sp: Awaited<ReturnType<typeof spFromMetadata>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    license = await makeLicense({ tenant_id: acme.id });
    env = {
      ...authEnv(),
      ...samlEnv(idpKeys.cert),
      ...license.env,
      SAML_GROUP_MAPPING: JSON.stringify({ 'Platform Admins': 'tenant_admin' }),
    };
    server = await startTestServer({ env });
    sp = await spFromMetadata(server.url);
  });
  afterAll(async () => {
    await server.close();
    license.remove();
  });

  test('login redirects to the IdP; the IdP answers; the ACS sets a session that reaches /api/graphql', async () => {
    const started = await startLogin(server.url);
    expect(started.location.origin + started.location.pathname).toBe('https://idp.test/sso');
    expect(started.location.searchParams.get('SAMLRequest')).toBeTruthy();
    expect(started.setCookie).toMatch(/HttpOnly/);
    expect(started.setCookie).toMatch(/Max-Age=60/);
    const requestId = await requestIdOf(idp, sp, started);
    const response = await signedResponse(idp, sp, requestId, {
      nameId: 'new.person@acme.example.com',
      attributes: { displayName: 'New Person' },
    });
    const acs = await postAcs(server.url, response, started.cookie);
    expect(acs.status).toBe(303);
    expect(acs.location).toBe('/');
    expect(acs.session).toBeDefined();
    const res = await gqlWith(server, { cookie: acs.session! }, '{ tenant { id name } }');
    expect(res.status).toBe(200);
    expect(res.body.data.tenant).toEqual([{ id: acme.id, name: expect.any(String) }]);
  });

  test('another instance with the same secret finishes a login this one started; the replay store is shared', async () => {
    const sibling = await startSibling(server, env);
    try {
      const started = await startLogin(server.url);
      const response = await signedResponse(idp, sp, await requestIdOf(idp, sp, started), {
        nameId: 'two.instances@acme.example.com',
      });
      const acs = await postAcs(sibling.url, response, started.cookie);
      expect(acs.status).toBe(303);
      expect(acs.session).toBeDefined();
      const again = await postAcs(server.url, response, started.cookie);
      expect(again.status).toBe(401);
      expect(again.text).toContain('already been used');
    } finally {
      await sibling.stop();
    }
  });
});

describe(`SAML responses that are refused, on ${backendName}`, () => {
  let server: TestServer;
  let license: Awaited<ReturnType<typeof makeLicense>>;
  const idpKeys = makeCertificate();
  const idp = makeIdp(idpKeys);
  const intruder = makeIdp(makeCertificate({ cn: 'intruder.test' }));
  let sp: Awaited<ReturnType<typeof spFromMetadata>>;
  const alice = acme.users.admin;
  const victor = acme.users.readonly;

  beforeAll(async () => {
    license = await makeLicense({ tenant_id: acme.id });
    server = await startTestServer({
      env: {
        ...authEnv(),
        ...samlEnv(idpKeys.cert),
        ...license.env,
        SAML_GROUP_MAPPING: JSON.stringify({ 'Platform Admins': 'tenant_admin' }),
      },
    });
    sp = await spFromMetadata(server.url);
  });
  afterAll(async () => {
    await server.close();
    license.remove();
  });

  /** A started login and the ID of its AuthnRequest. */
  const begin = async () => {
    const started = await startLogin(server.url);
    return { started, requestId: await requestIdOf(idp, sp, started) };
  };
  const refused = (acs: AcsResult, message: string | RegExp) => {
    expect(acs.status).toBeGreaterThanOrEqual(400);
    expect(acs.session).toBeUndefined();
    expect(acs.location).toBeNull();
    expect(acs.text).toContain('SAML sign-in failed');
    if (typeof message === 'string') expect(acs.text).toContain(message);
    else expect(acs.text).toMatch(message);
  };
  const user = { nameId: 'someone@acme.example.com' };

  test('a response signed as a whole (the assertion itself unsigned) is accepted too', async () => {
    const { started, requestId } = await begin();
    const messageSp = samlify.ServiceProvider({
      entityID: 'http://platform.test',
      wantAssertionsSigned: false,
      assertionConsumerService: [
        {
          Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
          Location: 'http://platform.test/api/auth/saml/acs',
        },
      ],
    });
    const response = await signedResponse(idp, messageSp, requestId, { nameId: 'whole.message@acme.example.com' });
    const xml = decode(response);
    expect(xml.indexOf('<ds:Signature')).toBeLessThan(xml.indexOf('<saml:Assertion'));
    const acs = await postAcs(server.url, response, started.cookie);
    expect(acs.status).toBe(303);
    expect(acs.session).toBeDefined();
  });

  test('an unsigned response', async () => {
    const { started, requestId } = await begin();
    refused(await postAcs(server.url, unsignedResponse(requestId, user), started.cookie), 'Signature validation fails');
  });

  test('a signed response whose NameID was changed afterwards', async () => {
    const { started, requestId } = await begin();
    const xml = decode(await signedResponse(idp, sp, requestId, user));
    const tampered = xml.replace('>someone@acme.example.com<', `>${alice.username}<`);
    expect(tampered).not.toBe(xml);
    refused(await postAcs(server.url, encode(tampered), started.cookie), 'Signature validation fails');
  });

  test("an assertion signed by another key, with that key's certificate in KeyInfo", async () => {
    const { started, requestId } = await begin();
    const xml = decode(await signedResponse(intruder, sp, requestId, { nameId: alice.username }));
    expect(xml).toContain('X509Certificate');
    refused(await postAcs(server.url, encode(xml), started.cookie), 'Signature validation fails');
  });

  describe('signature wrapping: an extra unsigned assertion beside or around the signed one', () => {
    /** The signed assertion copied without its signature, its ID changed and its NameID made alice's. */
    const forgedAssertion = (xml: string) => {
      const signed = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(xml)![0];
      return signed
        .replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '')
        .replace(/ID="[^"]+"/, 'ID="_forged_assertion"')
        .replace('>someone@acme.example.com<', `>${alice.username}<`);
    };
    test.each([
      [
        'before the signed assertion',
        (xml: string, forged: string) => xml.replace('<saml:Assertion', `${forged}<saml:Assertion`),
      ],
      [
        'after the signed assertion',
        (xml: string, forged: string) => xml.replace('</saml:Assertion>', `</saml:Assertion>${forged}`),
      ],
      [
        'in place of the signed one, which is moved into its Extensions',
        (xml: string, forged: string) => {
          const signed = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(xml)![0];
          return xml.replace(signed, `<samlp:Extensions>${signed}</samlp:Extensions>${forged}`);
        },
      ],
    ])('%s', async (_where, wrap) => {
      const { started, requestId } = await begin();
      const xml = decode(await signedResponse(idp, sp, requestId, user));
      const wrapped = wrap(xml, forgedAssertion(xml));
      expect(wrapped).toContain(`>${alice.username}<`);
      const acs = await postAcs(server.url, encode(wrapped), started.cookie);
      refused(acs, /Signature validation fails|not a valid SAML 2.0 response/);
      // Whatever the reason given, nobody was signed in as the forged NameID.
      const signedIn = await server.started.db.query(
        `SELECT count(*)::int AS n FROM user_saml_links l JOIN users u ON u.id = l.user_id WHERE u.username = $1`,
        [alice.username],
      );
      expect(signedIn[0].n).toBe(0);
    });
  });

  test('a wrong audience', async () => {
    const { started, requestId } = await begin();
    refused(
      await postAcs(
        server.url,
        await signedResponse(idp, sp, requestId, { ...user, values: { Audience: 'https://another.service.test' } }),
        started.cookie,
      ),
      'Audience is not SAML_AUDIENCE',
    );
  });

  test('a wrong Destination', async () => {
    const { started, requestId } = await begin();
    refused(
      await postAcs(
        server.url,
        await signedResponse(idp, sp, requestId, {
          ...user,
          values: { Destination: 'https://another.service.test/acs' },
        }),
        started.cookie,
      ),
      'Destination is not this ACS URL',
    );
  });

  test('a wrong SubjectConfirmationData Recipient', async () => {
    const { started, requestId } = await begin();
    refused(
      await postAcs(
        server.url,
        await signedResponse(idp, sp, requestId, {
          ...user,
          values: { SubjectRecipient: 'https://another.service.test/acs' },
        }),
        started.cookie,
      ),
      'Recipient is not this ACS URL',
    );
  });

  test('an unsolicited response (no InResponseTo) and one answering another request', async () => {
    const a = await begin();
    refused(
      await postAcs(
        server.url,
        await signedResponse(idp, sp, a.requestId, { ...user, values: { InResponseTo: null } }),
        a.started.cookie,
      ),
      'unsolicited',
    );
    const b = await begin();
    const other = await begin();
    refused(
      await postAcs(server.url, await signedResponse(idp, sp, other.requestId, user), b.started.cookie),
      'answers another sign-in request',
    );
  });

  test('an expired assertion', async () => {
    const { started, requestId } = await begin();
    const past = (min: number) => new Date(Date.now() - min * 60_000).toISOString();
    const values = {
      IssueInstant: past(20),
      ConditionsNotBefore: past(20),
      ConditionsNotOnOrAfter: past(10),
      SubjectConfirmationDataNotOnOrAfter: past(10),
    };
    refused(
      await postAcs(server.url, await signedResponse(idp, sp, requestId, { ...user, values }), started.cookie),
      'expired',
    );
  });

  test('a replayed response: accepted once, refused the second time', async () => {
    const { started, requestId } = await begin();
    const response = await signedResponse(idp, sp, requestId, { nameId: 'replay.person@acme.example.com' });
    const first = await postAcs(server.url, response, started.cookie);
    expect(first.status).toBe(303);
    refused(await postAcs(server.url, response, started.cookie), 'already been used');
  });

  test('a DOCTYPE with an entity, refused before parsing', async () => {
    const { started, requestId } = await begin();
    const xml = decode(await signedResponse(idp, sp, requestId, user));
    const withDoctype = `<?xml version="1.0"?><!DOCTYPE samlp:Response [<!ENTITY who "${alice.username}">]>${xml.replace(/^<\?xml[^>]*\?>/, '')}`;
    refused(await postAcs(server.url, encode(withDoctype), started.cookie), 'DOCTYPE');
  });

  test('two root elements, refused before parsing', async () => {
    const { started, requestId } = await begin();
    const xml = decode(await signedResponse(idp, sp, requestId, user));
    refused(
      await postAcs(
        server.url,
        encode(`${xml}<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>`),
        started.cookie,
      ),
      'more than one root element',
    );
  });

  test('a login slower than 60 seconds, and one without its state cookie: Invalid session data', async () => {
    const { requestId } = await begin();
    const config = server.started.engine.config;
    const stale = `${STATE_COOKIE}=${stateCookieValue(config.auth, { requestId, relayState: '/', startedAt: Date.now() - 61_000 })}`;
    refused(await postAcs(server.url, await signedResponse(idp, sp, requestId, user), stale), 'Invalid session data');
    const again = await begin();
    refused(await postAcs(server.url, await signedResponse(idp, sp, again.requestId, user)), 'Invalid session data');
    // A state cookie signed with another secret is no state at all.
    const forged = `${STATE_COOKIE}=${stateCookieValue({ ...config.auth, sessionSecret: 'x'.repeat(40) }, { requestId: again.requestId, relayState: '/', startedAt: Date.now() })}`;
    refused(
      await postAcs(server.url, await signedResponse(idp, sp, again.requestId, user), forged),
      'Invalid session data',
    );
  });

  test('a suspended user: not allowed', async () => {
    await suspendUser(server.started.db, victor.username);
    try {
      const { started, requestId } = await begin();
      refused(
        await postAcs(
          server.url,
          await signedResponse(idp, sp, requestId, { nameId: victor.username }),
          started.cookie,
        ),
        'not allowed',
      );
    } finally {
      await activateUser(server.started.db, victor.username);
    }
  });

  test('an existing user with the same e-mail is linked; later sign-ins find the link first', async () => {
    const login = async (nameId: string, attributes: Record<string, string | string[]> = {}) => {
      const { started, requestId } = await begin();
      return postAcs(server.url, await signedResponse(idp, sp, requestId, { nameId, attributes }), started.cookie);
    };
    const first = await login(alice.username.toUpperCase());
    expect(first.status).toBe(303);
    const links = await server.started.db.query(
      'SELECT user_id::text AS user_id FROM user_saml_links WHERE name_id = $1',
      [alice.username.toUpperCase()],
    );
    expect(links).toEqual([{ user_id: alice.id }]);
    // The account's e-mail changes; the IdP account still leads to the same user.
    await server.started.db.query("UPDATE users SET username = 'alice.renamed@acme.example.com' WHERE id = $1::uuid", [
      alice.id,
    ]);
    try {
      const second = await login(alice.username.toUpperCase(), { email: 'someone.else@acme.example.com' });
      expect(second.status).toBe(303);
      const me = await gqlWith(
        server,
        { cookie: second.session! },
        '{ users(where: {username: {_eq: "alice.renamed@acme.example.com"}}) { id } }',
      );
      expect(me.body.data.users).toEqual([{ id: alice.id }]);
    } finally {
      await server.started.db.query('UPDATE users SET username = $2 WHERE id = $1::uuid', [alice.id, alice.username]);
    }
  });

  test('groups sync roles on every login and remove the old ones; no group attribute leaves them', async () => {
    const roles = async () =>
      (
        await server.started.db.query(
          "SELECT role FROM user_roles WHERE user_id = $1::uuid AND entity_type = 'tenant' ORDER BY role",
          [victor.id],
        )
      ).map((r) => r.role);
    const login = async (attributes: Record<string, string | string[]>) => {
      const { started, requestId } = await begin();
      const acs = await postAcs(
        server.url,
        await signedResponse(idp, sp, requestId, { nameId: victor.username, attributes }),
        started.cookie,
      );
      expect(acs.status).toBe(303);
      return acs;
    };
    expect(await roles()).toEqual(['tenant_admin_readonly']);
    await login({ memberOf: ['Everyone', 'Platform Admins'] });
    expect(await roles()).toEqual(['tenant_admin']);
    await login({});
    expect(await roles()).toEqual(['tenant_admin']);
    await login({ groups: 'platform admins' }); // case-sensitive: no role comes from it, nothing changes
    expect(await roles()).toEqual(['tenant_admin']);
    await server.started.db.query(
      "UPDATE user_roles SET role = 'tenant_admin_readonly' WHERE user_id = $1::uuid AND entity_type = 'tenant'",
      [victor.id],
    );
  });

  test('a new user gets AUTH_DEFAULT_ROLE (tenant_admin_readonly) in the license tenant; display name from firstName + lastName', async () => {
    const { started, requestId } = await begin();
    const acs = await postAcs(
      server.url,
      await signedResponse(idp, sp, requestId, {
        nameId: 'opaque-id-123',
        attributes: { mail: 'fresh.face@acme.example.com', firstName: 'Fresh', lastName: 'Face' },
      }),
      started.cookie,
    );
    expect(acs.status).toBe(303);
    const [row] = await server.started.db.query(
      `SELECT u.display_name, r.role, r.tenant_id::text AS tenant_id FROM users u JOIN user_roles r ON r.user_id = u.id WHERE u.username = 'fresh.face@acme.example.com'`,
    );
    expect(row).toEqual({ display_name: 'Fresh Face', role: 'tenant_admin_readonly', tenant_id: acme.id });
    const mutation = await gqlWith(
      server,
      { cookie: acs.session! },
      'mutation { delete_tenant(where: {}) { affected_rows } }',
    );
    expect(mutation.body.errors).toBeDefined();
  });
});
