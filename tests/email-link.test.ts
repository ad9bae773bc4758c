import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { providersConfig } from '../engine/core/sign-in-providers';
import { SESSION_COOKIE } from '../engine/serve/auth/session-cookie';
import { CSRF_COOKIE } from '../engine/serve/web/csrf';
import { MAX_LINKS_PER_EMAIL } from '../engine/serve/oauth/email-link';
import { DEMO } from '../demo/demo-data';
import { authEnv } from './support/auth';
import { backendName } from './support/database';
import { makeLicense } from './support/license';
import { startTestServer, type TestServer } from './support/server';

/**
 * Sign-in by e-mail link with a real SMTP server in the test (the `smtp-server` package): the sign-in
 * page's form asks for a link, the message arrives over SMTP, Chromium follows the link from it and is
 * signed in; the same link again, an expired one and an unknown one are refused with a clear page; the
 * answer does not tell whether the address belongs to a user; requests are rate-limited; the token is
 * stored hashed.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(__dirname, '.artifacts');
const acme = DEMO.tenants.acme;

interface Mail {
  to: string;
  raw: string;
}

/** The sign-in link of a message: its quoted-printable text decoded. */
const linkIn = (raw: string) => {
  const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const m = /(https?:\/\/\S+\/api\/auth\/callback\/email\?token=[A-Za-z0-9_-]+)/.exec(text);
  if (!m) throw new Error(`no link in the message:\n${raw}`);
  return m[1];
};

describe(`e-mail link sign-in with an SMTP server, on ${backendName}`, () => {
  let server: TestServer;
  let smtp: SMTPServer;
  let browser: Browser | undefined;
  let license: Awaited<ReturnType<typeof makeLicense>>;
  const inbox: Mail[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
        stream.on('end', () => {
          inbox.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), raw });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    license = await makeLicense({ tenant_id: acme.id });
    server = await startTestServer({
      env: {
        ...authEnv(),
        ...license.env,
        EMAIL_SERVER: `smtp://127.0.0.1:${smtpPort}`,
        EMAIL_FROM: 'Platform <no-reply@platform.test>',
      },
    });
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await server?.close();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
    license?.remove();
  });

  /** The sign-in page's form, as a browser posts it (with its CSRF cookie and field). */
  async function askForLink(email: string) {
    const page = await fetch(`${server.url}/signin`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1];
    const res = await fetch(`${server.url}/api/auth/signin/email`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${CSRF_COOKIE}=${csrf}` },
      body: new URLSearchParams({ csrf, email }).toString(),
    });
    const text = await res.text();
    const said = /role="(?:status|alert)">([^<]*)</.exec(text)?.[1];
    return { status: res.status, said };
  }
  /** The last message to `to`, waited for. */
  async function mailTo(to: string): Promise<string> {
    for (let i = 0; i < 50; i++) {
      const m = [...inbox].reverse().find((x) => x.to === to);
      if (m) return m.raw;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no message to ${to}`);
  }
  const follow = async (link: string) => {
    const res = await fetch(link.replace('http://platform.test', server.url), { redirect: 'manual' });
    const text = await res.text();
    return {
      status: res.status,
      alert: /role="alert">([^<]*)</.exec(text)?.[1],
      session: res.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`)),
    };
  };

  test('the form on the sign-in page, the message over SMTP, the link in Chromium: signed in; the Profile lists it', async () => {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/signin`);
      await page.fill('#link-email', 'Link.Person@Acme.example.com');
      await page.click('text=Send sign-in link');
      expect(await page.textContent('[role=status]')).toBe(
        'If link.person@acme.example.com can sign in, a sign-in link is on its way. It works once, for 10 minutes.',
      );
      await page.screenshot({ path: path.join(SHOTS, 'email-1-sent.png'), fullPage: true });
      const raw = await mailTo('link.person@acme.example.com');
      expect(raw).toMatch(/^From: Platform <no-reply@platform.test>/m);
      expect(raw).toMatch(/^Subject: Your sign-in link/m);
      const link = linkIn(raw);
      expect(link.startsWith('http://platform.test/api/auth/callback/email?token=')).toBe(true);
      await page.goto(link.replace('http://platform.test', server.url));
      if (new URL(page.url()).pathname !== '/') throw new Error(`not signed in: ${await page.textContent('body')}`);
      await page.goto(`${server.url}/settings?tab=profile`);
      const methods = await page.textContent('table.sign-in-methods');
      expect(methods).toContain('E-mail link');
      expect(methods).toContain('link.person@acme.example.com');
      await page.screenshot({ path: path.join(SHOTS, 'email-2-profile.png'), fullPage: true });
      // A new person, on-premise: the license's tenant, AUTH_DEFAULT_ROLE.
      const rows = await server.started.db.query(
        `SELECT r.role, r.tenant_id::text AS tenant FROM users u JOIN user_roles r ON r.user_id = u.id WHERE u.username = 'link.person@acme.example.com'`,
      );
      expect(rows).toEqual([{ role: 'tenant_admin_readonly', tenant: acme.id }]);
      // The same link again: refused, a clear page, no session.
      const again = await follow(link);
      expect(again).toEqual({
        status: 401,
        alert: 'This sign-in link has already been used. Ask for a new one.',
        session: false,
      });
    } finally {
      await context.close();
    }
  });

  test('the token is stored hashed: no row holds it', async () => {
    await askForLink(acme.users.admin.username);
    const token = new URL(linkIn(await mailTo(acme.users.admin.username))).searchParams.get('token')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits
    const rows = await server.started.db.query(`SELECT token_hash FROM email_sign_in_tokens`);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => String(r.token_hash).includes(token))).toBe(false);
    // An existing user signs in as themself.
    const res = await follow(`http://platform.test/api/auth/callback/email?token=${token}`);
    expect(res).toMatchObject({ status: 303, session: true });
  });

  test('an expired link and an unknown one are refused, no session', async () => {
    await askForLink('late.person@acme.example.com');
    const link = linkIn(await mailTo('late.person@acme.example.com'));
    await server.started.db.query(
      `UPDATE email_sign_in_tokens SET expires_at = now() - interval '1 second' WHERE email = 'late.person@acme.example.com'`,
    );
    expect(await follow(link)).toEqual({
      status: 401,
      alert: 'This sign-in link has expired (links last 10 minutes). Ask for a new one.',
      session: false,
    });
    expect(
      await server.started.db.query(`SELECT 1 FROM users WHERE username = 'late.person@acme.example.com'`),
    ).toEqual([]);
    const unknown = await follow(`http://platform.test/api/auth/callback/email?token=${'A'.repeat(43)}`);
    expect(unknown).toEqual({
      status: 401,
      alert: 'This sign-in link is not valid. Ask for a new one.',
      session: false,
    });
    expect((await follow('http://platform.test/api/auth/callback/email?token=short')).status).toBe(401);
  });

  test('the answer is the same whether or not the address belongs to a user', async () => {
    const known = await askForLink(acme.users.readonly.username);
    const unknown = await askForLink('nobody.here@elsewhere.test');
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.said!.replace(acme.users.readonly.username, 'X')).toBe(
      unknown.said!.replace('nobody.here@elsewhere.test', 'X'),
    );
  });

  test('rate-limited per e-mail: past the limit a 429 and no message', async () => {
    const to = 'busy.person@acme.example.com';
    for (let i = 0; i < MAX_LINKS_PER_EMAIL; i++) expect((await askForLink(to)).status).toBe(200);
    const sent = inbox.filter((m) => m.to === to).length;
    const over = await askForLink(to);
    expect(over.status).toBe(429);
    expect(over.said).toBe('Too many sign-in links were asked for. Try again in 15 minutes.');
    await new Promise((r) => setTimeout(r, 300));
    expect(inbox.filter((m) => m.to === to).length).toBe(sent);
  });

  test('bad requests: no CSRF token, not an e-mail address', async () => {
    const res = await fetch(`${server.url}/api/auth/signin/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40b.test',
    });
    expect(res.status).toBe(403);
    expect((await askForLink('not-an-address')).status).toBe(400);
  });
});

test('EMAIL_SERVER or EMAIL_FROM alone: e-mail sign-in is off, and the problem says which is missing', () => {
  const c = providersConfig({ EMAIL_SERVER: 'smtp://127.0.0.1:25' }, 'http://x.test');
  expect(c.email).toBeUndefined();
  expect(c.problems).toEqual([{ provider: 'email', message: 'E-mail sign-in not configured: EMAIL_FROM missing' }]);
  const bad = providersConfig({ EMAIL_SERVER: 'http://mail', EMAIL_FROM: 'a@b.test' }, 'http://x.test');
  expect(bad.problems[0].message).toBe(
    'E-mail sign-in not configured: EMAIL_SERVER must be an smtp:// or smtps:// URL',
  );
});
