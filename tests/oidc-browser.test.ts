import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import * as path from 'node:path';
import { serve } from '@hono/node-server';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { SESSION_COOKIE } from '../engine/serve/auth/session-cookie';
import { FLOW_COOKIE, flowCookieValue, readFlowValue } from '../engine/serve/oauth/flow-state';
import { loadConfig, type EngineConfig } from '../engine/core/config';
import { startEngine, type Started } from '../engine/main';
import { DEMO } from '../demo/demo-data';
import { authEnv, spawnTs } from './support/auth';
import { backendName, createTestDatabase, onPostgres, type TestDatabase } from './support/database';
import { makeLicense } from './support/license';
import { ADMIN_SECRET } from './support/server';
import { freePort } from './support/ports';

/**
 * Sign-in with OpenID Connect providers as a person does it: headless Chromium opens the sign-in
 * page, presses a provider's button, lands on the login page of a real OpenID Connect provider (the
 * `oidc-provider` package, in a process of its own: tests/support/oidc-op/server.ts), presses its
 * button and comes back signed in; User Settings' Profile lists the linked method. The generic
 * provider (OIDC_*), and the Auth0- and OneLogin-style configurations pointed at the same provider.
 * Then every bad answer: no or wrong state, a replayed callback (the code used twice), ID tokens from
 * another issuer, for another audience, with another nonce, expired, signed with another key; the
 * provider's error answer; an unverified e-mail of an existing user; each refused with a clear page,
 * no session and nothing written. Unreachable and half-configured providers have their own engine.
 *
 * The engine is reached as http://platform.test:<port> (Chromium maps the name to loopback) and the
 * provider as http://127.0.0.1:<port>: two sites, as in a deployment. Screenshots go to tests/.artifacts/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(__dirname, '.artifacts');
const HOST = 'platform.test';
const acme = DEMO.tenants.acme;
const newcomer = { sub: 'op-user-1', email: 'oidc.person@newco.test', email_verified: true, name: 'Oidc Person' };

interface Engine {
  /** The address the browser uses (NEXTAUTH_URL). */
  url: string;
  /** The same engine for this process's fetch (which cannot resolve platform.test). */
  direct: string;
  started: Started;
  config: EngineConfig;
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
  database: TestDatabase;
}

/**
 * The engine in this process on a port chosen beforehand, so that NEXTAUTH_URL is the browser's address.
 * `shared`: the database of another engine (a second instance), left to that engine to drop.
 */
async function startEngineAt(port: number, env: Record<string, string>, shared?: TestDatabase): Promise<Engine> {
  const database: TestDatabase = shared ?? (await createTestDatabase({ seeded: true }));
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
    url: env.NEXTAUTH_URL,
    direct: `http://127.0.0.1:${port}`,
    started,
    config,
    logs,
    close: async () => {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await started.close();
      if (!shared) await database.drop();
    },
    database,
  };
}

interface Op {
  issuer: string;
  log(): string;
  setUser(user: Record<string, unknown>): Promise<void>;
  tamper(t: { claim?: string; value?: unknown; key?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

/** The OpenID Connect provider process; resolves once it listens. */
async function startOp(port: number, clients: object[], user: object): Promise<Op> {
  const child: ChildProcess = spawnTs('tests/support/oidc-op/server.ts', [], {
    OP_PORT: String(port),
    OP_CLIENTS: JSON.stringify(clients),
    OP_USER: JSON.stringify(user),
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the provider did not start within 30 s:\n${err}`)), 30_000);
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('op listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the provider exited with ${code}:\n${err}`));
    });
  });
  const issuer = `http://127.0.0.1:${port}`;
  const post = async (p: string, body: object) => {
    const res = await fetch(`${issuer}${p}`, { method: 'POST', body: JSON.stringify(body) });
    if (res.status !== 204) throw new Error(`${p}: ${res.status}`);
  };
  return {
    issuer,
    log: () => err,
    setUser: (u) => post('/test/user', u),
    tamper: (t) => post('/test/tamper', t),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

describe(`OpenID Connect sign-in in Chromium with a provider process, on ${backendName}`, () => {
  let engine: Engine | undefined;
  let op: Op | undefined;
  let browser: Browser | undefined;
  let license: Awaited<ReturnType<typeof makeLicense>> | undefined;
  /** The engine's environment: a second instance with the same configuration shares it. */
  let engineEnv: Record<string, string> = {};

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(SHOTS, `oidc-${name}.png`), fullPage: true });
  const cookieNames = async (context: BrowserContext) => (await context.cookies()).map((c) => c.name);
  const counts = async () =>
    (
      await engine!.started.db.query(
        `SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM user_provider_links)::int AS links,
                (SELECT count(*) FROM tenant_users)::int AS members`,
      )
    )[0];

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM))
      throw new Error(
        `no Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium) or set CHROMIUM_PATH`,
      );
    fs.mkdirSync(SHOTS, { recursive: true });
    const [opPort, port] = [await freePort(), await freePort()];
    const url = `http://${HOST}:${port}`;
    const client = (id: string, provider: string) => ({
      client_id: id,
      client_secret: `${id}-secret`,
      redirect_uris: [`${url}/api/auth/callback/${provider}`],
    });
    op = await startOp(
      opPort,
      [client('platform-oidc', 'oidc'), client('platform-auth0', 'auth0'), client('platform-onelogin', 'onelogin')],
      newcomer,
    );
    license = await makeLicense({ tenant_id: acme.id });
    engineEnv = {
      ...authEnv({ NEXTAUTH_URL: url }),
      ...license.env,
      OIDC_ISSUER: op.issuer,
      OIDC_CLIENT_ID: 'platform-oidc',
      OIDC_CLIENT_SECRET: 'platform-oidc-secret',
      OIDC_NAME: 'Test IdP',
      AUTH0_ISSUER: op.issuer,
      AUTH0_CLIENT_ID: 'platform-auth0',
      AUTH0_CLIENT_SECRET: 'platform-auth0-secret',
      ONELOGIN_ISSUER: `${op.issuer}/`,
      ONELOGIN_CLIENT_ID: 'platform-onelogin',
      ONELOGIN_CLIENT_SECRET: 'platform-onelogin-secret',
    };
    engine = await startEngineAt(port, engineEnv);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await op?.stop();
    await browser?.close().catch(() => undefined);
    await engine?.close();
    license?.remove();
  });

  /** A fresh browser: sign-in page, the provider's button, the provider's login page. */
  async function toProviderLogin(name: string, prefix: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${engine!.url}/signin`);
    await page.click(`text=Sign in with ${name}`);
    await page.waitForURL((u) => u.origin === op!.issuer && u.pathname.startsWith('/interaction/'));
    if (!(await page.$('#op-request')))
      throw new Error(`the provider did not show its login page:\n${await page.textContent('body')}\n${op!.log()}`);
    await shot(page, `${prefix}-provider`);
    return { context, page };
  }

  /** The whole sign-in, up to User Settings' Profile: the rows of its sign-in methods table. */
  async function signInAndProfile(name: string, prefix: string): Promise<{ methods: string; context: BrowserContext }> {
    const { context, page } = await toProviderLogin(name, prefix);
    await page.click('#op-sign-in');
    await page.waitForURL(`${engine!.url}/`);
    await page.goto(`${engine!.url}/settings?tab=profile`);
    await shot(page, `${prefix}-profile`);
    const methods = (await page.textContent('table.sign-in-methods')) ?? '';
    return { methods, context };
  }

  test('generic provider: its button, its login page, back signed in; the Profile lists the method', async () => {
    const before = await counts();
    const page = await browser!.newPage();
    await page.goto(`${engine!.url}/signin`);
    // Every enabled method at once: the credentials form and a button per provider.
    expect(await page.$$eval('a.provider', (as) => as.map((a) => a.textContent))).toEqual([
      'Sign in with Auth0',
      'Sign in with OneLogin',
      'Sign in with Test IdP',
    ]);
    expect(await page.$('#password')).not.toBeNull();
    await shot(page, '1-signin');
    await page.close();

    const { methods, context } = await signInAndProfile('Test IdP', '1');
    try {
      expect(methods).toContain('OpenID Connect');
      expect(methods).toContain(newcomer.email);
      const cookies = await context.cookies();
      expect(cookies.find((c) => c.name === SESSION_COOKIE)).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      expect(cookies.map((c) => c.name)).not.toContain(FLOW_COOKIE);
      // A new person, on-premise: the license's tenant with AUTH_DEFAULT_ROLE.
      const rows = await engine!.started.db.query(
        `SELECT u.display_name, r.role, r.tenant_id::text AS tenant, l.provider, l.issuer, l.subject
           FROM users u JOIN user_roles r ON r.user_id = u.id JOIN user_provider_links l ON l.user_id = u.id
          WHERE u.username = $1`,
        [newcomer.email],
      );
      expect(rows).toEqual([
        {
          display_name: newcomer.name,
          role: 'tenant_admin_readonly',
          tenant: acme.id,
          provider: 'oidc',
          issuer: op!.issuer,
          subject: newcomer.sub,
        },
      ]);
      expect(await counts()).toEqual({
        ...before,
        users: before.users + 1,
        links: before.links + 1,
        members: before.members + 1,
      });
    } finally {
      await context.close();
    }
  });

  test('Auth0-style configuration: an existing user with a verified e-mail is linked and signs in as themself', async () => {
    const viewer = acme.users.readonly;
    await op!.setUser({ sub: 'auth0|viewer', email: viewer.username, email_verified: true, name: 'Victor V' });
    const { methods, context } = await signInAndProfile('Auth0', '2');
    await context.close();
    expect(methods).toContain('Auth0');
    expect(methods).toContain(viewer.username);
    const links = await engine!.started.db.query(
      `SELECT user_id::text AS id, provider FROM user_provider_links WHERE subject = 'auth0|viewer'`,
    );
    expect(links).toEqual([{ id: viewer.id, provider: 'auth0' }]);
  });

  test('OneLogin-style configuration (issuer with a trailing slash): signs in', async () => {
    await op!.setUser({ sub: 'onelogin-7', email: 'ol.person@newco.test', email_verified: true, name: 'Ol Person' });
    const { methods, context } = await signInAndProfile('OneLogin', '3');
    await context.close();
    expect(methods).toContain('OneLogin');
    expect(methods).toContain('ol.person@newco.test');
  });

  test("the provider's error answer (the person cancels): the sign-in page says so, no session", async () => {
    const before = await counts();
    const { context, page } = await toProviderLogin('Test IdP', '4');
    try {
      await page.click('#op-deny');
      await page.waitForURL((u) => u.pathname === '/api/auth/callback/oidc');
      expect(await page.textContent('[role=alert]')).toBe(
        'Test IdP did not sign you in: access_denied (the person cancelled)',
      );
      await shot(page, '4-refused');
      expect(await cookieNames(context)).not.toContain(SESSION_COOKIE);
      expect(await cookieNames(context)).not.toContain(FLOW_COOKIE);
      expect(await counts()).toEqual(before);
    } finally {
      await context.close();
    }
  });

  test('an unverified e-mail that belongs to a user is refused: no link, no session (account takeover)', async () => {
    const before = await counts();
    await op!.setUser({ sub: 'mallory', email: acme.users.admin.username, email_verified: false, name: 'Mallory' });
    const { context, page } = await toProviderLogin('Test IdP', '5');
    try {
      await page.click('#op-sign-in');
      await page.waitForURL((u) => u.pathname === '/api/auth/callback/oidc');
      expect(await page.textContent('[role=alert]')).toContain('does not say that this e-mail address is verified');
      expect(await cookieNames(context)).not.toContain(SESSION_COOKIE);
      expect(await counts()).toEqual(before);
    } finally {
      await context.close();
    }
  });

  /**
   * A sign-in up to the provider's redirect back, which is held: the callback URL and the flow cookie,
   * for this process to send (again, or after the provider tampered with the ID token).
   */
  async function heldCallback(): Promise<{ url: string; cookie: string }> {
    const { context, page } = await toProviderLogin('Test IdP', 'held');
    try {
      // Playwright routes only the first request of a redirect chain: the login form's POST is held,
      // and its redirects (to the provider's resume URL, then to the callback) followed by hand.
      let held = '';
      const wasHeld = new Promise<void>((resolve, reject) =>
        page.route(`${op!.issuer}/interaction/**`, async (route) => {
          if (route.request().method() !== 'POST') return route.continue();
          try {
            const login = await route.fetch({ maxRedirects: 0 });
            const resume = new URL(login.headers()['location'], op!.issuer).toString();
            held = (await page.request.get(resume, { maxRedirects: 0 })).headers()['location'] ?? '';
            await route.fulfill({ status: 200, body: 'held' });
            resolve();
          } catch (err) {
            reject(err as Error);
          }
        }),
      );
      await page.click('#op-sign-in');
      await wasHeld;
      const flow = (await context.cookies(`${engine!.url}/api/auth/callback/oidc`)).find((c) => c.name === FLOW_COOKIE);
      if (!held || !flow) throw new Error('the callback was not held');
      return { url: held.replace(engine!.url, engine!.direct), cookie: `${FLOW_COOKIE}=${flow.value}` };
    } finally {
      await context.close();
    }
  }
  const callback = async (url: string, cookie?: string) => {
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    const setCookie = res.headers.getSetCookie().join('\n');
    return { status: res.status, text: await res.text(), session: setCookie.includes(`${SESSION_COOKIE}=`) };
  };
  const alertOf = (text: string) => /role="alert">([^<]*)</.exec(text)?.[1];

  test('a callback without the flow cookie, or with another state, is refused', async () => {
    await op!.setUser({ ...newcomer, sub: 'state-person', email: 'state.person@newco.test' });
    const held = await heldCallback();
    const before = await counts();
    const noCookie = await callback(held.url);
    expect(noCookie.status).toBe(401);
    expect(alertOf(noCookie.text)).toMatch(/^Invalid sign-in state: .*not started in this browser/);
    const wrong = new URL(held.url);
    wrong.searchParams.set('state', 'another-state');
    const other = await callback(wrong.toString(), held.cookie);
    expect(other.status).toBe(401);
    expect(alertOf(other.text)).toMatch(/belongs to another sign-in/);
    const missing = new URL(held.url);
    missing.searchParams.delete('state');
    expect((await callback(missing.toString(), held.cookie)).status).toBe(401);
    // The same state, signed right, but started 11 minutes ago: too old.
    const flow = readFlowValue(engine!.config.auth, held.cookie.slice(FLOW_COOKIE.length + 1))!;
    const stale = flowCookieValue(engine!.config.auth, { ...flow, startedAt: Date.now() - 11 * 60_000 });
    const old = await callback(held.url, `${FLOW_COOKIE}=${stale}`);
    expect(old.status).toBe(401);
    expect(alertOf(old.text)).toMatch(/^Invalid sign-in state: the sign-in took longer than 10 minutes/);
    expect(await counts()).toEqual(before);
  });

  test('a replayed callback: the first use signs in, the code used again is refused', async () => {
    await op!.setUser({ ...newcomer, sub: 'replay-person', email: 'replay.person@newco.test' });
    const held = await heldCallback();
    const first = await callback(held.url, held.cookie);
    expect(first.status).toBe(303);
    expect(first.session).toBe(true);
    const before = await counts();
    const again = await callback(held.url, held.cookie);
    expect(again.status).toBe(401);
    expect(again.session).toBe(false);
    expect(alertOf(again.text)).toMatch(/^Test IdP did not sign you in: invalid_grant/);
    expect(await counts()).toEqual(before);
  });

  // Many engines behind one address (PostgreSQL: two engines cannot share an embedded database).
  (onPostgres ? test : test.skip)(
    'a sign-in started on one instance finishes on another with the same configuration',
    async () => {
      await op!.setUser({ ...newcomer, sub: 'other-instance', email: 'other.instance@newco.test' });
      const held = await heldCallback();
      const second = await startEngineAt(await freePort(), engineEnv, engine!.database);
      try {
        const answer = await callback(held.url.replace(engine!.direct, second.direct), held.cookie);
        expect(answer.status).toBe(303);
        expect(answer.session).toBe(true);
        // The flow cookie was made by the first instance; the second read it, and the code is spent.
        expect((await callback(held.url, held.cookie)).status).toBe(401);
      } finally {
        await second.close();
      }
    },
  );

  const now = () => Math.floor(Date.now() / 1000);
  test.each([
    ['another issuer', { claim: 'iss', value: 'http://127.0.0.1:1' }, 'its ID token comes from another issuer'],
    [
      'another audience',
      { claim: 'aud', value: 'someone-else' },
      'its ID token is meant for another application (audience)',
    ],
    ['another nonce', { claim: 'nonce', value: 'not-the-nonce' }, 'its ID token answers another sign-in (nonce)'],
    ['expired', { claim: 'exp', value: now() - 3600 }, 'its ID token has expired'],
    ['signed with another key', { key: true }, 'its ID token is not signed with a key of the provider'],
  ])('an ID token from %s is refused, nothing written', async (_what, tamper, message) => {
    await op!.setUser({ ...newcomer, sub: `tampered-${_what}`, email: 'tampered@newco.test' });
    const held = await heldCallback();
    const before = await counts();
    await op!.tamper(tamper);
    const answer = await callback(held.url, held.cookie);
    expect(answer.status).toBe(401);
    expect(answer.session).toBe(false);
    expect(alertOf(answer.text)).toBe(`Test IdP sign-in refused: ${message}`);
    expect(await counts()).toEqual(before);
  });

  // Last: the provider goes away.
  test('the provider is gone when its answer comes back: a clear page, nothing written', async () => {
    await op!.setUser({ ...newcomer, sub: 'gone-person', email: 'gone.person@newco.test' });
    const held = await heldCallback();
    await op!.stop();
    const before = await counts();
    const answer = await callback(held.url, held.cookie);
    expect(answer.status).toBe(502);
    expect(answer.session).toBe(false);
    expect(alertOf(answer.text)).toMatch(/^Test IdP cannot be reached right now \(.*\); try again later$/);
    expect(await counts()).toEqual(before);
  });
});

describe('providers that cannot be used', () => {
  let engine: Engine | undefined;
  let hanging: Server | undefined;
  let hangingPort = 0;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    // A provider that accepts connections and never answers; another where nothing listens.
    hanging = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hanging!.listen(0, '127.0.0.1', () => resolve()));
    hangingPort = (hanging.address() as { port: number }).port;
    const [dead, port] = [await freePort(), await freePort()];
    engine = await startEngineAt(port, {
      ...authEnv({ NEXTAUTH_URL: `http://127.0.0.1:${port}` }),
      AUTH_PROVIDER_TIMEOUT_SECONDS: '1',
      OIDC_ISSUER: `http://127.0.0.1:${dead}`,
      OIDC_CLIENT_ID: 'c',
      OIDC_CLIENT_SECRET: 's',
      AUTH0_ISSUER: `http://127.0.0.1:${hangingPort}`,
      AUTH0_CLIENT_ID: 'c',
      AUTH0_CLIENT_SECRET: 's',
      ONELOGIN_CLIENT_ID: 'half-set',
      AZURE_AD_CLIENT_ID: 'a',
      AZURE_AD_CLIENT_SECRET: 'b',
      AZURE_AD_TENANT_ID: 'contoso',
    });
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
    for (const socket of sockets) socket.destroy();
    hanging?.close();
  });

  const start = async (provider: string) => {
    const t = Date.now();
    const res = await fetch(`${engine!.direct}/api/auth/signin/${provider}`, { redirect: 'manual' });
    const text = await res.text();
    return { status: res.status, alert: /role="alert">([^<]*)</.exec(text)?.[1], ms: Date.now() - t, res };
  };

  test('nothing listens: a clear page, no flow cookie', async () => {
    const r = await start('oidc');
    expect(r.status).toBe(502);
    expect(r.alert).toMatch(/^OpenID Connect cannot be reached right now \(.*\); try again later$/);
    expect(r.res.headers.getSetCookie().join()).not.toMatch(new RegExp(`${FLOW_COOKIE}=[^;]`));
  });

  test('the provider does not answer: given up after AUTH_PROVIDER_TIMEOUT_SECONDS', async () => {
    const r = await start('auth0');
    expect(r.status).toBe(502);
    expect(r.alert).toMatch(/^Auth0 cannot be reached right now/);
    expect(r.ms).toBeLessThan(5000);
  });

  test('half-set variables: start-up says which is missing, and so does the sign-in route', async () => {
    const message = 'OneLogin sign-in not configured: ONELOGIN_CLIENT_SECRET, ONELOGIN_ISSUER missing';
    expect(engine!.logs).toContainEqual({ level: 'error', msg: message });
    const r = await start('onelogin');
    expect(r.status).toBe(503);
    expect(r.alert).toBe(message);
  });

  test('not enabled, or no such provider: 404; the sign-in page shows only the enabled ones', async () => {
    expect(await start('google')).toMatchObject({
      status: 404,
      alert: expect.stringMatching(/^Google sign-in is not enabled/),
    });
    expect(await start('nope')).toMatchObject({ status: 404, alert: 'there is no sign-in provider named nope' });
    const page = await (await fetch(`${engine!.direct}/signin`)).text();
    const buttons = [...page.matchAll(/data-provider="([^"]+)"/g)].map((m) => m[1]);
    expect(buttons).toEqual(['azure-ad', 'auth0', 'oidc']);
  });

  test('a flow cookie of another provider does not finish this one', async () => {
    const flow = {
      provider: 'auth0',
      state: 'st',
      nonce: 'n',
      codeVerifier: 'v'.repeat(43),
      next: '/',
      startedAt: Date.now(),
    };
    const cookie = `${FLOW_COOKIE}=${flowCookieValue(engine!.config.auth, flow)}`;
    const res = await fetch(`${engine!.direct}/api/auth/callback/oidc?code=x&state=st`, {
      redirect: 'manual',
      headers: { cookie },
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('Invalid sign-in state');
  });
});
