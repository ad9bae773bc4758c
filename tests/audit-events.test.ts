import { DEMO } from '../demo/demo-data';
import { stopSchemaValidator } from '../engine/serve/saml/schema-validator';
import { authEnv, bearer, exchange, gqlWith, signInForm, tokenFor, withPassword } from './support/auth';
import { backendName } from './support/database';
import {
  makeCertificate,
  makeIdp,
  postAcs,
  requestIdOf,
  samlEnv,
  signedResponse,
  spFromMetadata,
  startLogin,
} from './support/saml';
import { ADMIN_SECRET, startTestServer, type TestServer } from './support/server';

/**
 * Issue 17: audit events (sign-ins and their failures, token exchanges, lockouts, API tokens created and
 * deleted, SAML provisioning) are logged and stored in `audit_events`, which the admin role reads through
 * GraphQL and no tenant role sees. No password or secret in either.
 */
afterAll(() => stopSchemaValidator());
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const ALICE = acme.users.admin.username;
const PASSWORD = 'correct horse battery staple 42';
const keys = makeCertificate();

type Row = Record<string, unknown>;

describe(`audit events on ${backendName}`, () => {
  let server: TestServer;
  const lines: Row[] = [];
  const secrets: string[] = [PASSWORD];
  const ADMIN = { 'x-hasura-admin-secret': ADMIN_SECRET };

  beforeAll(async () => {
    server = await startTestServer({
      env: { ...authEnv(), ...samlEnv(keys.cert), DEPLOYMENT_MODE: 'saas', AUTH_MAX_FAILURES: '2' },
      log: (entry) => void lines.push(entry),
    });
    await server.started.db.query(
      `INSERT INTO tenant_attrs (tenant_id, allowed_domains, auth_default_role) VALUES ($1::uuid, '{newco.test}', 'tenant_admin')`,
      [globex.id],
    );
    await withPassword(server.started.db, ALICE, PASSWORD);
  });
  afterAll(() => server?.close());

  /** The events since `after` (an id), oldest first, through GraphQL as the admin role. */
  const events = async (after = 0): Promise<Row[]> => {
    const res = await gqlWith(
      server,
      ADMIN,
      `query Audit($after: bigint!) { audit_events(where: {id: {_gt: $after}}, order_by: {id: asc}) {
         id type outcome method email user_id tenant_id token_id reason client_address request_id detail occurred_at } }`,
      { after },
    );
    expect(res.body.errors).toBeUndefined();
    return res.body.data.audit_events;
  };
  const lastId = async () => {
    const all = await events();
    return all.length ? Number(all[all.length - 1].id) : 0;
  };

  test('password sign-in: failure then success, each stored and logged with the request id', async () => {
    const from = await lastId();
    const wrong = await signInForm(server, ALICE, 'not the password', { 'x-request-id': 'signin-wrong-1' });
    expect(wrong.status).toBe(401);
    const right = await signInForm(server, ALICE, PASSWORD, { 'x-request-id': 'signin-right-1' });
    expect(right.status).toBe(303);
    const got = await events(from);
    expect(got).toMatchObject([
      {
        type: 'signin',
        outcome: 'failure',
        method: 'password',
        email: ALICE,
        user_id: null,
        reason: 'wrong e-mail or password',
        request_id: 'signin-wrong-1',
      },
      {
        type: 'signin',
        outcome: 'success',
        method: 'password',
        user_id: acme.users.admin.id,
        tenant_id: acme.id,
        request_id: 'signin-right-1',
        detail: { role: 'tenant_admin' },
      },
    ]);
    expect(got[0].client_address).toBeTruthy();
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'audit',
        event: 'signin',
        outcome: 'failure',
        level: 'warn',
        request_id: 'signin-wrong-1',
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'request', request_id: 'signin-right-1', status: 303 }),
    );
  });

  test('lockout: the refusal past AUTH_MAX_FAILURES is an event of its own', async () => {
    const from = await lastId();
    const email = 'locked.out@acme.example.com';
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await signInForm(server, email, `guess-${i}`)).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
    const got = await events(from);
    expect(got.map((e) => `${e.type}:${e.outcome}`)).toEqual([
      'signin:failure',
      'signin:failure',
      'lockout:failure',
      'lockout:failure',
    ]);
    expect(got[2]).toMatchObject({ email, method: 'password', reason: 'too many failed attempts' });
    expect((got[2].detail as Row).retry_after_seconds).toBeGreaterThan(0);
  });

  test('API tokens: created (CLI and GraphQL), exchanged, a wrong exchange, deleted', async () => {
    const from = await lastId();
    const t = await tokenFor(server.started.db, ALICE, 'audited token');
    secrets.push(t.secret);
    const ok = await exchange(server, ALICE, t.secret);
    expect(ok.status).toBe(200);
    secrets.push(ok.body.token);
    const bad = await exchange(server, ALICE, `${t.secret}x`);
    expect(bad.status).toBe(401);
    // A browser session creates one through GraphQL; the JWT deletes it.
    const session = (await signInForm(server, ALICE, PASSWORD)).headers
      .getSetCookie()
      .find((c) => c.startsWith('platform_session='))!
      .split(';')[0];
    // Each with its request id: the browser's request goes through Hono, the JWT's through the
    // GraphQL lane, and the action's audit event carries it either way.
    const created = await gqlWith(
      server,
      { cookie: session, 'x-request-id': 'gql-create-1' },
      'mutation { create_api_token(name: "from graphql") { id secret } }',
    );
    expect(created.body.errors).toBeUndefined();
    secrets.push(created.body.data.create_api_token.secret);
    const id = created.body.data.create_api_token.id;
    const deleted = await gqlWith(
      server,
      { ...bearer(ok.body.token), 'x-request-id': 'gql-delete-1' },
      `mutation { delete_api_token(id: "${id}") { deleted } }`,
    );
    expect(deleted.body.data.delete_api_token.deleted).toBe(true);
    const got = (await events(from)).filter((e) => e.type !== 'signin');
    expect(got).toMatchObject([
      {
        type: 'api_token_created',
        method: 'cli',
        token_id: t.id,
        user_id: acme.users.admin.id,
        detail: { name: 'audited token' },
      },
      { type: 'token_exchange', outcome: 'success', method: 'api_token', token_id: t.id, tenant_id: acme.id },
      {
        type: 'token_exchange',
        outcome: 'failure',
        email: ALICE,
        token_id: null,
        reason: 'invalid e-mail or API token',
      },
      {
        type: 'api_token_created',
        method: 'graphql',
        token_id: id,
        detail: { name: 'from graphql' },
        request_id: 'gql-create-1',
      },
      { type: 'api_token_deleted', method: 'graphql', token_id: id, tenant_id: acme.id, request_id: 'gql-delete-1' },
    ]);
  });

  test('SAML: a new user provisioned (user created, tenant joined, signed in); a refusal is a failure', async () => {
    const from = await lastId();
    const idp = makeIdp(keys);
    const login = async (nameId: string) => {
      const sp = await spFromMetadata(server.url);
      const started = await startLogin(server.url);
      const requestId = await requestIdOf(idp, sp, started);
      return postAcs(server.url, await signedResponse(idp, sp, requestId, { nameId }), started.cookie);
    };
    expect((await login('new.person@newco.test')).status).toBe(303);
    expect((await login('stranger@elsewhere.test')).status).toBe(403);
    const got = await events(from);
    const [user] = await server.started.db.query(
      `SELECT id::text AS id FROM users WHERE username = 'new.person@newco.test'`,
    );
    expect(got).toMatchObject([
      { type: 'saml_user_created', method: 'saml', email: 'new.person@newco.test', user_id: user.id },
      { type: 'saml_tenant_joined', user_id: user.id, tenant_id: globex.id, detail: { roles: ['tenant_admin'] } },
      { type: 'signin', outcome: 'success', method: 'saml', user_id: user.id, tenant_id: globex.id },
      { type: 'signin', outcome: 'failure', method: 'saml', reason: expect.stringContaining('elsewhere.test') },
    ]);
    // A refused provisioning leaves no event of a user that was never created.
    expect(got.filter((e) => e.email === 'stranger@elsewhere.test' && e.type === 'saml_user_created')).toEqual([]);
  });

  test('no password, API token secret or JWT in the table or the log', async () => {
    const [rows] = await server.started.db.query(`SELECT coalesce(json_agg(a), '[]')::text AS all FROM audit_events a`);
    const stored = String(rows.all);
    const logged = JSON.stringify(lines);
    for (const s of secrets) {
      expect(stored).not.toContain(s);
      expect(logged).not.toContain(s);
    }
  });

  test('admin only: no tenant role sees audit_events; events cannot be changed or deleted', async () => {
    for (const role of ['tenant_admin', 'tenant_admin_readonly']) {
      const res = await gqlWith(
        server,
        { ...ADMIN, 'x-hasura-role': role, 'x-hasura-tenant-id': acme.id, 'x-hasura-user-id': acme.users.admin.id },
        '{ audit_events { id } }',
      );
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      expect(res.body.errors[0].message).toMatch(/audit_events/);
    }
    const del = await gqlWith(server, ADMIN, 'mutation { delete_audit_events(where: {}) { affected_rows } }');
    expect(del.body.errors[0]).toMatchObject({
      message: expect.stringContaining('audit events cannot be changed or deleted'),
      extensions: { code: 'permission-error' },
    });
    expect((await events()).length).toBeGreaterThan(10);
  });
});
