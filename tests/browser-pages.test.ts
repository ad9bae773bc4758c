import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { DEMO } from '../demo/demo-data';
import { authEnv, newSecret, withPassword } from './support/auth';
import { backendName } from './support/database';
import { ADMIN_SECRET, startTestServer, type TestServer } from './support/server';

/**
 * The pages in Chromium (Debian's, driven by playwright-core) at a desktop width (1280) and a
 * phone's (390): creating a token redirects (a reload creates nothing and shows the secret no
 * more), the signed-in tenant and role in words, dates on one line, the password change on Profile
 * (other sessions end, this one stays), and the console (the Explorer plugin, the platform's first
 * query, who the queries run as, a favicon, one settings gear, the admin's role and tenant switch).
 * Screenshots go to tests/.artifacts/pages/ (ignored by git).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(__dirname, '.artifacts', 'pages');
const available = fs.existsSync(CHROMIUM);
const maybe = available || process.env.CI ? describe : describe.skip;
if (!available && !process.env.CI)
  console.warn(`browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

const alice = DEMO.tenants.acme.users.admin;
const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
type Width = keyof typeof WIDTHS;

maybe(`pages in Chromium on ${backendName}`, () => {
  let server: TestServer;
  let browser: Browser;
  let password = newSecret();
  const contexts: BrowserContext[] = [];

  const shot = (page: Page, width: Width, name: string) =>
    page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: false });

  /** A new browser signed in as Alice at the given width. */
  async function signedIn(width: Width, shoot = false): Promise<Page> {
    const context = await browser.newContext({ viewport: WIDTHS[width] });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${server.url}/signin`);
    if (shoot) {
      expect(await overflows(page)).toBe(false);
      await shot(page, width, '00-signin');
    }
    await page.fill('#email', alice.username);
    await page.fill('#password', password);
    await page.click('button[type=submit]');
    await page.waitForURL((u) => u.pathname === '/');
    return page;
  }

  /** Whether the page is wider than its viewport (something does not fit a phone). */
  const overflows = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer({ env: authEnv({ NEXTAUTH_URL: 'http://127.0.0.1' }) });
    await withPassword(server.started.db, alice.username, password);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
  });

  const tokenCount = async () =>
    Number((await server.started.db.query('SELECT count(*)::int AS n FROM api_tokens'))[0].n);

  test.each(['desktop', 'phone'] as const)(
    'Create Token redirects; the secret is shown once, never in the URL (%s)',
    async (width) => {
      const page = await signedIn(width, true);
      expect(await page.textContent('#whoami')).toContain('Acme Corp — administrator');
      expect(await page.textContent('#signed-in-as')).toBe('Signed in as Acme Corp — administrator.');
      await shot(page, width, '01-home');

      const before = await tokenCount();
      await page.click('#user-settings');
      await page.click('#api-tokens-tab');
      await page.click('#create-new-token');
      await page.fill('#token-name', `script ${width}`);
      const posted = page.waitForResponse(
        (r) => r.url().endsWith('/settings/tokens') && r.request().method() === 'POST',
      );
      await page.click('#create-token');
      expect((await posted).status()).toBe(303);
      await page.waitForURL((u) => u.pathname === '/settings/tokens/created');
      const secret = (await page.textContent('#token-secret'))!.trim();
      expect(secret).toMatch(/^plat_/);
      expect(page.url()).not.toContain(secret);
      expect(await tokenCount()).toBe(before + 1);
      expect(await overflows(page)).toBe(false);
      await shot(page, width, '02-token-created');

      // A reload asks for the GET again: no second token, and the secret is gone.
      await page.reload();
      expect(await tokenCount()).toBe(before + 1);
      expect(await page.content()).not.toContain(secret);
      expect(await page.textContent('[role=status]')).toContain('shown once only');
      const cookies = await page.context().cookies();
      expect(cookies.find((c) => c.name === 'platform_new_token')).toBeUndefined();

      // Dates on one line, whatever the width.
      const row = page.locator('#tokens tr', { hasText: `script ${width}` });
      const created = row.locator('td.date').first();
      // One line box for the text: a wrapped date would have two.
      const lines = await created.evaluate((el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      });
      expect(lines).toBe(1);
      expect(await created.textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      expect(await overflows(page)).toBe(false);
      await shot(page, width, '03-tokens');
    },
    60_000,
  );

  test.each(['desktop', 'phone'] as const)(
    'Profile: tenant and role in words, the settings dialog fits (%s)',
    async (width) => {
      const page = await signedIn(width);
      await page.goto(`${server.url}/settings?tab=profile`);
      expect(await page.textContent('#profile-tenant')).toBe('Acme Corp');
      expect(await page.textContent('#profile-role')).toBe('administrator (tenant_admin)');
      const dialog = await page.locator('[role=dialog]').boundingBox();
      expect(dialog!.x).toBeGreaterThanOrEqual(0);
      expect(dialog!.x + dialog!.width).toBeLessThanOrEqual(WIDTHS[width].width);
      expect(await overflows(page)).toBe(false);
      await shot(page, width, '04-profile');
      // The dialog scrolls when it is taller than the window: its last button can be reached.
      const last = page.locator('button', { hasText: 'Sign out everywhere' });
      await last.scrollIntoViewIfNeeded();
      const box = await last.boundingBox();
      expect(box!.y + box!.height).toBeLessThanOrEqual(WIDTHS[width].height);
      await shot(page, width, '04-profile-scrolled');
    },
    60_000,
  );

  test('Profile: a password change needs the current one, ends the other sessions, keeps this one', async () => {
    const here = await signedIn('phone');
    const elsewhere = await signedIn('desktop');
    await here.goto(`${server.url}/settings?tab=profile`);
    const next = newSecret();

    const change = async (current: string, pw: string, confirm = pw) => {
      // The server's rules, not the browser's minlength, are under test.
      await here.evaluate(() => ((document.getElementById('password-form') as HTMLFormElement).noValidate = true));
      await here.fill('#current-password', current);
      await here.fill('#new-password', pw);
      await here.fill('#confirm-password', confirm);
      await here.click('#change-password');
      await here.waitForLoadState();
    };
    await change('not the password', next);
    expect(await here.textContent('[role=alert]')).toContain('The current password is wrong');
    await change(password, 'short');
    expect(await here.textContent('[role=alert]')).toContain('at least 8 characters');
    await change(password, next, `${next}x`);
    expect(await here.textContent('[role=alert]')).toContain('differ');
    await shot(here, 'phone', '05-password-error');

    await change(password, next);
    await here.waitForURL(/changed=password/);
    expect(await here.textContent('[role=status]')).toContain('Your password was changed');
    await shot(here, 'phone', '06-password-changed');
    password = next;

    // This browser stays signed in; the other one is signed out.
    await here.goto(`${server.url}/settings`);
    expect(new URL(here.url()).pathname).toBe('/settings');
    await elsewhere.goto(`${server.url}/settings`);
    expect(new URL(elsewhere.url()).pathname).toBe('/signin');
    // The new password signs in.
    expect(new URL((await signedIn('desktop')).url()).pathname).toBe('/');
  }, 90_000);

  /** The console's identity line, once GraphiQL is there. */
  async function openConsole(page: Page) {
    await page.goto(`${server.url}/console`);
    await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
    await page.waitForSelector('.graphiql-query-editor .CodeMirror');
  }

  /** Runs the query in the editor; the response pane's text parsed. */
  async function run(page: Page): Promise<string> {
    // The response editor's text, from CodeMirror itself (its DOM holds only the visible lines).
    const value = () => {
      const el = document.querySelector('.result-window .CodeMirror') as unknown as {
        CodeMirror?: { getValue(): string; setValue(v: string): void };
      } | null;
      return el?.CodeMirror?.getValue() ?? '';
    };
    await page.evaluate(() => {
      const el = document.querySelector('.result-window .CodeMirror') as unknown as {
        CodeMirror?: { setValue(v: string): void };
      } | null;
      el?.CodeMirror?.setValue('');
    });
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(value);
    return page.evaluate(value);
  }

  test.each(['desktop', 'phone'] as const)(
    'the console: Explorer, the first query, who, favicon, one gear (%s)',
    async (width) => {
      const page = await signedIn(width);
      await openConsole(page);
      expect(await page.textContent('#console-identity')).toBe('Acme Corp — administrator');
      const editor = await page.textContent('.graphiql-query-editor');
      expect(editor).toContain('cloud_accounts');
      expect(editor).toContain('spends_aggregate');
      expect(editor).not.toContain('Welcome to GraphiQL');
      // The Explorer plugin is there (open on a desktop), GraphiQL's own settings gear is not.
      const explorerButton = page.locator('.graphiql-sidebar button[aria-label$="GraphiQL Explorer"]');
      expect(await explorerButton.count()).toBe(1);
      if (width === 'desktop') await page.waitForSelector('.graphiql-explorer-root, .docExplorerWrap');
      expect(await page.locator('button[aria-label="Open settings dialog"]').isVisible()).toBe(false);
      expect(await page.locator('svg path[d^="M19.4 15a1.7"]').count()).toBe(1); // the sidebar's gear, once
      expect(await page.locator('#user-settings').isVisible()).toBe(true);
      const icon = await page.getAttribute('link[rel=icon]', 'href');
      const favicon = await fetch(`${server.url}${icon}`);
      expect(favicon.headers.get('content-type')).toBe('image/svg+xml');
      const text = await run(page);
      expect(text).toContain('"account_name"');
      expect(JSON.parse(text).data.cloud_accounts).toHaveLength(DEMO.perTenant.cloudAccounts);
      expect(await overflows(page)).toBe(false);
      await shot(page, width, '07-console');
      if (width === 'phone') {
        // The Explorer opens on a phone too, without pushing the page wider.
        await explorerButton.click();
        await page.waitForSelector('.graphiql-plugin');
        expect(await overflows(page)).toBe(false);
        // One pane at a time on a phone: the Explorer takes the width; ticking a field writes the query.
        expect(await page.locator('.graphiql-sessions').isVisible()).toBe(false);
        await shot(page, width, '07-console-explorer');
        await explorerButton.click();
        expect(await page.locator('.graphiql-query-editor').isVisible()).toBe(true);
      }
    },
    90_000,
  );

  test('the console: with the admin secret an operator switches role and tenant', async () => {
    const page = await signedIn('desktop');
    await openConsole(page);
    await page.click('#admin-switch summary');
    await page.fill('#admin-secret', 'not the secret');
    await page.click('#admin-load');
    await page.waitForFunction(() => document.getElementById('admin-error')?.textContent !== '');
    expect(await page.textContent('#admin-error')).toContain('refused');
    await page.fill('#admin-secret', ADMIN_SECRET);
    await page.click('#admin-load');
    await page.waitForSelector('#admin-choose:not([hidden])');
    await page.selectOption('#admin-role', 'tenant_admin_readonly');
    await page.selectOption('#admin-tenant', { label: 'Globex Industries' });
    await shot(page, 'desktop', '08-console-switch');
    await page.click('#admin-apply');
    expect(await page.textContent('#console-identity')).toBe(
      'Admin secret: Globex Industries — read-only administrator',
    );
    await page.waitForTimeout(500);
    const globex = JSON.parse(await run(page)).data.cloud_accounts.map((a: { account_name: string }) => a.account_name);
    const expected = await server.gql('{ cloud_accounts(order_by: {account_name: asc}) { account_name } }', undefined, {
      'x-hasura-role': 'tenant_admin_readonly',
      'x-hasura-tenant-id': DEMO.tenants.globex.id,
    });
    expect(globex).toEqual(expected.body.data.cloud_accounts.map((a: { account_name: string }) => a.account_name));
    await shot(page, 'desktop', '09-console-as-globex');

    // Back to the session: Acme again.
    await page.click('#admin-off');
    expect(await page.textContent('#console-identity')).toBe('Acme Corp — administrator');
    await page.waitForTimeout(500);
    expect(JSON.parse(await run(page)).data.cloud_accounts).toHaveLength(DEMO.perTenant.cloudAccounts);
  }, 90_000);
});
