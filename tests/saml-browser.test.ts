import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { serve } from '@hono/node-server';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { SESSION_COOKIE } from '../engine/serve/auth/session-cookie';
import { loadConfig } from '../engine/core/config';
import { stopSchemaValidator } from '../engine/serve/saml/schema-validator';
import { STATE_COOKIE } from '../engine/serve/saml/state';
import { startEngine, type Started } from '../engine/main';
import { DEMO } from '../demo/demo-data';
import { authEnv, spawnTs } from './support/auth';
import { backendName, createTestDatabase, type TestDatabase } from './support/database';
import { makeLicense } from './support/license';
import { IDP_ENTITY_ID, makeCertificate, samlEnv, type KeyAndCert } from './support/saml';
import { ADMIN_SECRET } from './support/server';
import { freePort } from './support/ports';

/**
 * SP-initiated SAML sign-in as a person does it: headless Chromium (Debian's package, driven by
 * playwright-core) opens the sign-in page, presses the SAML button, lands on the login page of an IdP
 * that runs in a process of its own (tests/support/idp/server.ts), presses its button, is posted back
 * to the ACS by the IdP's auto-submitting form and ends signed in, in User Settings; the session then
 * answers /api/graphql from the page. Then the IdP rotates its signing key without the engine's
 * SAML_CERT following: the same clicks end on the sign-in page's error and no session.
 *
 * The IdP is reached as http://idp.test:<port> (Chromium maps the name to loopback), so that it is
 * another site than the engine, as it is in a deployment: the ACS POST is a cross-site form post.
 * Screenshots go to tests/.artifacts/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(__dirname, '.artifacts');
const IDP_HOST = 'idp.test';
const acme = DEMO.tenants.acme;
const person = { email: 'sso.person@acme.example.com', name: 'Sso Person', groups: ['Everyone', 'Platform Admins'] };

afterAll(() => stopSchemaValidator());

interface Engine {
  url: string;
  started: Started;
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * The engine in this process, as startTestServer makes it, but on a port chosen beforehand so that
 * NEXTAUTH_URL is the address the browser uses (startTestServer listens on an ephemeral port), and with
 * its log kept for the assertions.
 */
async function startEngineAt(port: number, env: Record<string, string>): Promise<Engine> {
  const database: TestDatabase = await createTestDatabase({ seeded: true });
  const logs: Array<Record<string, unknown>> = [];
  const config = loadConfig({ ADMIN_SECRET, SEED_DEMO_DATA: 'true', ...database.env, ...env });
  config.dataDirSnapshot = database.snapshot;
  const started = await startEngine(config, (entry) => logs.push(entry));
  const http = serve({ fetch: started.app.fetch, createServer: started.createServer, port, hostname: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => {
    if (http.listening) return resolve();
    http.once('listening', () => resolve());
    http.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    started,
    logs,
    close: async () => {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await started.close();
      await database.drop();
    },
  };
}

interface Idp {
  port: number;
  /** What the process wrote on stderr (shown when a step fails). */
  log(): string;
  stop(): Promise<void>;
}

/** The IdP process (tests/support/idp/server.ts); resolves once it listens. */
async function startIdp(keys: KeyAndCert, spMetadataUrl: string, port = 0): Promise<Idp> {
  const child: ChildProcess = spawnTs('tests/support/idp/server.ts', [], {
    IDP_KEY: keys.key,
    IDP_CERT: keys.cert,
    IDP_ENTITY_ID,
    IDP_SP_METADATA_URL: spMetadataUrl,
    IDP_USER_EMAIL: person.email,
    IDP_USER_NAME: person.name,
    IDP_USER_GROUPS: person.groups.join(','),
    IDP_PORT: String(port),
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const listening = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the IdP process did not start within 30 s:\n${err}`)), 30_000);
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /idp listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the IdP process exited with ${code}:\n${err}`));
    });
  });
  return { port: listening, log: () => err, stop: () => stopChild(child) };
}

/** Every IdP process still running: afterAll ends them whatever happened. */
const children = new Set<ChildProcess>();

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const hard = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(hard);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

describe(`SAML sign-in in Chromium with an IdP process, on ${backendName}`, () => {
  const idpKeys = makeCertificate({ cn: IDP_HOST });
  let engine: Engine | undefined;
  let idp: Idp | undefined;
  let browser: Browser | undefined;
  let license: Awaited<ReturnType<typeof makeLicense>> | undefined;
  let idpUrl: string;

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(SHOTS, `saml-${name}.png`), fullPage: true });
  const cookieNames = async (context: BrowserContext) => (await context.cookies()).map((c) => c.name);

  beforeAll(async () => {
    // Not skipped when the browser is missing: this is the only test of the flow in a real browser.
    if (!fs.existsSync(CHROMIUM))
      throw new Error(
        `no Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH`,
      );
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    const engineUrl = `http://127.0.0.1:${port}`;
    // The IdP first: the engine's SAML_ENTRY_POINT is the IdP's address; the IdP reads the engine's
    // metadata only when the first AuthnRequest arrives.
    idp = await startIdp(idpKeys, `${engineUrl}/api/auth/saml/metadata`);
    idpUrl = `http://${IDP_HOST}:${idp.port}`;
    license = await makeLicense({ tenant_id: acme.id });
    engine = await startEngineAt(port, {
      ...authEnv({ NEXTAUTH_URL: engineUrl }),
      ...samlEnv(idpKeys.cert, { SAML_ENTRY_POINT: `${idpUrl}/sso`, SAML_AUDIENCE: engineUrl }),
      ...license.env,
      SAML_GROUP_MAPPING: JSON.stringify({ 'Platform Admins': 'tenant_admin' }),
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        `--host-resolver-rules=MAP ${IDP_HOST} 127.0.0.1`,
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([...children].map(stopChild));
    await browser?.close().catch(() => undefined);
    await engine?.close();
    license?.remove();
  });

  /** Sign-in page, SAML button, the IdP's page, its button: where the browser ends after the ACS. */
  async function signInThroughIdp(page: Page, prefix: string) {
    await page.goto(`${engine!.url}/signin`);
    await shot(page, `${prefix}-1-signin`);
    await page.click('text=Sign in with SSO (SAML)');
    await page.waitForURL((u) => u.origin === idpUrl && u.pathname === '/sso');
    if (!(await page.$('#idp-request')))
      throw new Error(`the IdP did not show its login page:\n${await page.textContent('body')}\n${idp!.log()}`);
    expect(await page.textContent('#idp-request')).toContain(`${engine!.url} asks who you are`);
    await shot(page, `${prefix}-2-idp`);
    const acs = page.waitForResponse(
      (r) => r.url() === `${engine!.url}/api/auth/saml/acs` && r.request().method() === 'POST',
    );
    await page.click('#idp-sign-in');
    return acs;
  }

  test('sign-in page, SAML button, IdP login, ACS: signed in, User Settings show the user, /api/graphql answers', async () => {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      const acs = await signInThroughIdp(page, '1');
      expect(acs.status()).toBe(303);
      await page.waitForURL(`${engine!.url}/`);
      expect(await page.textContent('h1')).toBe(`Welcome, ${person.name}`);
      expect(await page.textContent('main')).toMatch(/Signed in as .+ — (read-only )?administrator/);
      await shot(page, '1-3-home');

      // The gear opens User Settings; its Profile tab names the user the IdP signed in.
      await page.click('#user-settings');
      await page.waitForURL(`${engine!.url}/settings`);
      await page.click('text=Profile');
      await page.waitForURL(/tab=profile/);
      const profile = await page.textContent('[role=dialog] section');
      expect(profile).toContain(person.email);
      expect(profile).toContain(person.name);
      expect(profile).toContain('tenant_admin');
      await shot(page, '1-4-settings');

      // The session cookie is HttpOnly (the page cannot read it); the login state cookie is gone.
      const cookies = await context.cookies();
      expect(cookies.find((c) => c.name === SESSION_COOKIE)).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      expect(cookies.map((c) => c.name)).not.toContain(STATE_COOKIE);
      expect(await page.evaluate(() => document.cookie)).not.toContain(SESSION_COOKIE);

      // The page's own fetch carries the session: the tenant is the license's (on-premise), the data its.
      const answer = await page.evaluate(async () => {
        const res = await fetch('/api/graphql', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            query: '{ tenant { id } users { username display_name } cloud_accounts_aggregate { aggregate { count } } }',
          }),
        });
        return { status: res.status, body: await res.json() };
      });
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data.tenant).toEqual([{ id: acme.id }]);
      expect(answer.body.data.users).toContainEqual({ username: person.email, display_name: person.name });
      expect(answer.body.data.cloud_accounts_aggregate.aggregate.count).toBe(DEMO.perTenant.cloudAccounts);
      expect(engine!.logs).toContainEqual(
        expect.objectContaining({ level: 'info', msg: 'SAML sign-in', tenant: acme.id, role: 'tenant_admin' }),
      );
    } finally {
      await context.close();
    }
    // A browser flow through two processes: the first one here took more than 60 s in a CI run where the
    // three browser test files shared two cores (oidc-browser's flows have 120 s too).
  }, 120_000);

  test('the IdP signs with another key than SAML_CERT: the sign-in page shows why, and there is no session', async () => {
    // The IdP rotates its key and the engine was not given the new certificate: restart it, same
    // address and entity ID, another key pair.
    const port = idp!.port;
    await idp!.stop();
    idp = await startIdp(makeCertificate({ cn: IDP_HOST }), `${engine!.url}/api/auth/saml/metadata`, port);

    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      const acs = await signInThroughIdp(page, '2');
      expect(acs.status()).toBe(401);
      await page.waitForLoadState();
      expect(new URL(page.url()).pathname).toBe('/api/auth/saml/acs');
      const alert = await page.textContent('[role=alert]');
      expect(alert).toContain('SAML sign-in failed: Signature validation fails');
      expect(alert).toContain('SAML_CERT');
      await shot(page, '2-3-refused');
      expect(await cookieNames(context)).not.toContain(SESSION_COOKIE);
      expect(await cookieNames(context)).not.toContain(STATE_COOKIE);
      // Still signed out: a signed-in page sends the browser back to the sign-in page.
      await page.goto(`${engine!.url}/settings`);
      expect(new URL(page.url()).pathname).toBe('/signin');
      expect(engine!.logs).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          msg: expect.stringContaining('SAML sign-in refused: Signature validation fails'),
        }),
      );
    } finally {
      await context.close();
    }
  }, 120_000);
});
