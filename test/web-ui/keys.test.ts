import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { authorizeUrl, pkce, registerClient } from '../oauth/helpers.js';
import { hasChromium, launchChromium, openDashboard, seriousViolations } from './browser.js';

/**
 * Scoped keys where a person sets them, in Chromium against the real server: the dashboard's
 * Keys page makes a read-only key held to one campaign that expires, which the server then
 * holds to exactly that, and shows the scope in the list; the OAuth consent page offers the
 * same choices. Both pages pass axe-core.
 */
describe.runIf(requireTool('Chromium at /usr/bin/chromium', hasChromium))('scoped keys in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const expectAccessible = async (p: Page = page) => expect(await seriousViolations(p)).toEqual([]);

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    server = await startTestServer();
    browser = await launchChromium();
    ({ context, page } = await openDashboard(browser, server, { deviceScaleFactor: 1 }));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('the Keys page makes a read-only key held to one campaign, and the server holds it there', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByLabel('Key name (optional)').fill('Client report');
    await page.getByLabel('Read-only: every write is refused').check();
    await page.getByLabel('Paused', { exact: true }).check();
    await page.getByLabel('Expires (optional)').fill('2030-01-01T12:00');
    await expectAccessible();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('secret').textContent()) ?? '';
    expect(secret).toMatch(/^sk_test_/);

    const call = async (path: string, method = 'GET') =>
      fetch(`${server.url}/public/v1${path}`, {
        method,
        headers: { 'X-API-Key': secret, 'content-type': 'application/json' },
        ...(method === 'GET' ? {} : { body: '{}' }),
      });
    const list = (await (await call('/campaigns')).json()) as { campaigns: { id: string }[] };
    expect(list.campaigns.map((c) => c.id)).toEqual(['cmp_paused']);
    expect((await call('/campaigns/cmp_q4')).status).toBe(404);
    const pause = await call('/campaigns/cmp_paused/pause', 'POST');
    expect([pause.status, ((await pause.json()) as { error: { code: string } }).error.code]).toEqual([403, 'forbidden']);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    const row = page.getByRole('row', { name: /Client report/ });
    await row.getByRole('cell', { name: /^Read-only · Campaigns: Paused · Expires / }).waitFor();
    await expectAccessible();
  });

  it('the consent page offers the scope choices, each labelled, and passes axe', async () => {
    const client = await registerClient(server, { client_name: 'Chat Assistant', redirect_uris: ['http://127.0.0.1:9/callback'] });
    const consent = await context.newPage();
    await consent.goto(authorizeUrl(server, client.client_id, pkce().challenge, { redirect_uri: 'http://127.0.0.1:9/callback' }));
    await consent.getByRole('heading', { level: 1, name: /Connect Chat Assistant/ }).waitFor();
    expect(await consent.getByLabel('Read and change (add leads, send, start campaigns)').isChecked()).toBe(true);
    await consent.getByLabel('Read only: every change is refused').check();
    await consent.getByLabel('Drafts: list and review').check();
    await consent.getByLabel('Only these campaigns (optional)').fill('cmp_paused');
    await consent.getByLabel('Access lasts').selectOption('7');
    await expectAccessible(consent);
    await consent.close();
  });
});
