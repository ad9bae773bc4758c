import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DEMO } from '../demo/demo-data';
import { authEnv, bearer, exchange, gqlWith, newSecret, withPassword } from './support/auth';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * A person in a browser (Debian's chromium, driven by playwright-core; no browser is downloaded):
 * sign in, create an API token in User Settings, see its secret once, exchange it with a plain HTTP
 * call, see Last Used change, delete it, see the exchange fail. Screenshots go to tests/.artifacts/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(__dirname, '.artifacts');
const available = fs.existsSync(CHROMIUM);
// In CI the browser must be there (.ci/run installs it); elsewhere a missing browser skips, loudly.
const maybe = available || process.env.CI ? describe : describe.skip;
if (!available && !process.env.CI)
  console.warn(`browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

const alice = DEMO.tenants.acme.users.admin;

maybe(`settings page in Chromium on ${backendName}`, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const password = newSecret();
  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer({ env: authEnv({ NEXTAUTH_URL: 'http://127.0.0.1' }) });
    await withPassword(server.started.db, alice.username, password);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test('sign in, create a token, exchange it, watch Last Used, delete it', async () => {
    await page.goto(`${server.url}/signin`);
    await page.fill('#email', alice.username);
    await page.fill('#password', 'not the password');
    await page.click('button[type=submit]');
    expect(await page.textContent('[role=alert]')).toContain('Wrong e-mail or password');

    await page.fill('#password', password);
    await page.click('button[type=submit]');
    await page.waitForURL((u) => u.pathname === '/');
    await shot('01-signed-in');

    // The settings icon at the bottom of the sidebar opens User Settings; then API Tokens.
    await page.click('#user-settings');
    await page.click('#api-tokens-tab');
    await page.click('#create-new-token');
    await page.fill('#token-name', 'browser script');
    await page.click('#create-token');
    const secret = (await page.textContent('#token-secret'))!.trim();
    expect(secret).toMatch(/^plat_/);
    expect(await page.textContent('#new-token')).toContain('will not be shown again');
    await shot('02-token-created');

    // Shown once: after a reload the secret is nowhere on the page.
    await page.goto(`${server.url}/settings?tab=tokens`);
    expect(await page.content()).not.toContain(secret);
    const row = page.locator('#tokens tr', { hasText: 'browser script' });
    expect(await row.locator('.last-used').textContent()).toBe('Never');

    // A script exchanges it with plain HTTP and queries as Alice.
    const ex = await exchange(server, alice.username, secret);
    expect(ex.status).toBe(200);
    const q = await gqlWith(server, bearer(ex.body.token), '{ cloud_accounts_aggregate { aggregate { count } } }');
    expect(q.body).toEqual({
      data: { cloud_accounts_aggregate: { aggregate: { count: DEMO.perTenant.cloudAccounts } } },
    });

    await page.reload();
    expect(await row.locator('.last-used').textContent()).toMatch(/UTC$/);
    await shot('03-last-used');

    // Delete: the icon, then confirm.
    await row.locator('.delete-token').click();
    expect(await page.textContent('#confirm-delete')).toContain('browser script');
    await shot('04-confirm-delete');
    await page.click('#confirm-delete-button');
    await page.waitForURL(/tab=tokens/);
    expect(await page.locator('#tokens tr', { hasText: 'browser script' }).count()).toBe(0);

    const again = await exchange(server, alice.username, secret);
    expect(again.status).toBe(401);
  });

  test('the GraphQL console loads GraphiQL and sends the session', async () => {
    await page.goto(`${server.url}/console`);
    await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
    await shot('05-console');
    // What the console's fetcher does: same-origin fetch, so the session cookie is the credential.
    const answer = await page.evaluate(async () => {
      const res = await fetch('/api/graphql', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ cloud_accounts_aggregate { aggregate { count } } }' }),
      });
      return res.json();
    });
    expect(answer).toEqual({
      data: { cloud_accounts_aggregate: { aggregate: { count: DEMO.perTenant.cloudAccounts } } },
    });
  });

  test('signing out ends the session', async () => {
    await page.goto(`${server.url}/settings`);
    await page.click('button[aria-label="Sign out"]');
    await page.waitForURL(/\/signin/);
    await page.goto(`${server.url}/settings`);
    expect(page.url()).toMatch(/\/signin$/);
  });
});
