import { DEMO } from '../demo/demo-data';
import { loadConfig } from '../engine/core/config';
import { stopSchemaValidator } from '../engine/serve/saml/schema-validator';
import { connectDatabase } from '../engine/core/db/connect';
import type { Database } from '../engine/core/db/database';
import { authEnv, bearer, exchange, gqlWith, signInForm, tokenFor, withPassword, within } from './support/auth';
import { createTestDatabase, onPostgres, type TestDatabase } from './support/database';
import { startEngineProcess, type EngineProcess } from './support/engine-process';
import { makeLicense } from './support/license';
import { pgbouncerBinary, startPgBouncer, type PgBouncer } from './support/pgbouncer';
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
import { ADMIN_SECRET } from './support/server';

/**
 * Three engine processes on one database, through PgBouncer in transaction mode (LISTEN on the direct
 * DATABASE_LISTEN_URL), as behind a load balancer: what one mints (JWTs, session cookies) the others
 * accept, since the secrets are shared configuration; a token deleted through one is refused by the
 * others within a second (AUTH_RECHECK_SECONDS is 300 here, so only the NOTIFY explains it); the
 * sign-in failure counters live in PostgreSQL, so failures spread over the instances lock out as they
 * would on one; a SAML sign-in started on one finishes on another, and its replay on a third is
 * refused. PostgreSQL only: an embedded PGlite database belongs to one process.
 */
const SKIP = !onPostgres
  ? 'many-engines: skipped on PGlite, whose database belongs to one process; set DATABASE_URL to run it'
  : !pgbouncerBinary()
    ? 'many-engines: skipped, pgbouncer is not installed (apt-get install pgbouncer; .ci/run installs it)'
    : '';
if (SKIP) console.log(SKIP);
const suite = SKIP ? describe.skip : describe;

const acme = DEMO.tenants.acme;
const alice = acme.users.admin;
const TENANT = '{ tenant { id } }';
const MAX_FAILURES = 3;
// The SAML helpers validate in a worker of this process (support/saml.ts).
afterAll(() => stopSchemaValidator());

suite(SKIP || 'three engines on one database behind PgBouncer', () => {
  let database: TestDatabase;
  let bouncer: PgBouncer;
  let direct: Database;
  let engines: EngineProcess[] = [];
  let license: Awaited<ReturnType<typeof makeLicense>>;
  const idpKeys = makeCertificate();
  const idp = makeIdp(idpKeys);

  beforeAll(async () => {
    database = await createTestDatabase({ seeded: true });
    const directUrl = database.env.DATABASE_URL;
    const u = new URL(directUrl);
    bouncer = await startPgBouncer({ host: u.hostname, port: Number(u.port || 5432) }, { poolSize: 4 });
    direct = await connectDatabase(loadConfig({ DATABASE_URL: directUrl, DATABASE_POOL_SIZE: '1' }));
    license = await makeLicense({ tenant_id: acme.id });
    // What the instances must share: the secrets and the public URL (one address behind the balancer).
    const shared = {
      ADMIN_SECRET,
      SEED_DEMO_DATA: 'false',
      DATABASE_URL: bouncer.url(u.pathname.slice(1)),
      DATABASE_POOLER: 'transaction',
      DATABASE_LISTEN_URL: directUrl,
      DATABASE_POOL_SIZE: '4',
      ...authEnv({ AUTH_RECHECK_SECONDS: '300', AUTH_MAX_FAILURES: String(MAX_FAILURES) }),
      ...samlEnv(idpKeys.cert),
      ...license.env,
      SAML_GROUP_MAPPING: JSON.stringify({ 'Platform Admins': 'tenant_admin' }),
    };
    // One after the other: three start-ups at once on two cores only take longer.
    for (let i = 0; i < 3; i++) engines.push(await startEngineProcess(shared));
  }, 300_000);

  afterAll(async () => {
    await Promise.all(engines.map((e) => e.stop()));
    engines = [];
    await direct?.close();
    await bouncer?.stop();
    await database?.drop();
    license?.remove();
  });

  test('a JWT minted by one is accepted by all three', async () => {
    const [a, b, c] = engines;
    const t = await tokenFor(direct, alice.username, 'minted on a');
    const jwt = (await exchange(a, alice.username, t.secret)).body.token;
    for (const e of [a, b, c])
      expect((await gqlWith(e, bearer(jwt), TENANT)).body).toEqual({ data: { tenant: [{ id: acme.id }] } });
  });

  test('a session cookie set by one is accepted by all three', async () => {
    const [a, b, c] = engines;
    await withPassword(direct, alice.username, 'a password for three engines');
    const res = await signInForm(a, alice.username, 'a password for three engines');
    expect(res.status).toBe(303);
    const cookie = /platform_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
    for (const e of [a, b, c])
      expect((await gqlWith(e, { cookie }, TENANT)).body).toEqual({ data: { tenant: [{ id: acme.id }] } });
  });

  test('a token deleted through one is refused by the other two within a second', async () => {
    const [a, b, c] = engines;
    const manager = (await exchange(a, alice.username, (await tokenFor(direct, alice.username, 'manager')).secret)).body
      .token;
    const victim = await tokenFor(direct, alice.username, 'victim');
    const jwt = (await exchange(b, alice.username, victim.secret)).body.token;
    // Both have checked the token, and would trust that for AUTH_RECHECK_SECONDS without the notice.
    for (const e of [b, c]) expect((await gqlWith(e, bearer(jwt), TENANT)).status).toBe(200);
    const del = await gqlWith(a, bearer(manager), 'mutation($id: uuid!) { delete_api_token(id: $id) { deleted } }', {
      id: victim.id,
    });
    expect(del.body).toEqual({ data: { delete_api_token: { deleted: true } } });
    const refused = (e: EngineProcess) =>
      within(1000, async () => (await gqlWith(e, bearer(jwt), TENANT)).status === 401);
    const [mb, mc] = await Promise.all([refused(b), refused(c)]);
    expect(mb).toBeGreaterThanOrEqual(0);
    expect(mc).toBeGreaterThanOrEqual(0);
    expect((await exchange(c, alice.username, victim.secret)).status).toBe(401);
  });

  test('sign-in failures spread over the instances lock out as on one', async () => {
    const t = await tokenFor(direct, acme.users.readonly.username, 'lockout');
    const email = acme.users.readonly.username;
    const statuses: number[] = [];
    for (let i = 0; i <= MAX_FAILURES; i++)
      statuses.push((await exchange(engines[i % 3], email, `wrong secret ${i}`)).status);
    expect(statuses).toEqual([...Array(MAX_FAILURES).fill(401), 429]);
    // Locked out everywhere, even with the right secret.
    for (const e of engines) expect((await exchange(e, email, t.secret)).status).toBe(429);
  });

  test('a SAML sign-in started on one finishes on another; its replay on the third is refused', async () => {
    const [a, b, c] = engines;
    const sp = await spFromMetadata(a.url);
    const started = await startLogin(a.url);
    const response = await signedResponse(idp, sp, await requestIdOf(idp, sp, started), {
      nameId: 'three.engines@acme.example.com',
    });
    const acs = await postAcs(b.url, response, started.cookie);
    expect(acs.status).toBe(303);
    expect((await gqlWith(c, { cookie: acs.session! }, TENANT)).body).toEqual({
      data: { tenant: [{ id: acme.id }] },
    });
    const again = await postAcs(c.url, response, started.cookie);
    expect(again.status).toBe(401);
    expect(again.text).toContain('already been used');
  });
});
