import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoginToken } from '../../src/core/auth/sessions.js';
import { ensureDemo } from '../../src/core/seed/demo.js';
import type { Settings } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createContext, startServer, type RunningServer } from '../../src/server.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { hasChromium, launchChromium, screenshotDir, seriousViolations, webhookReceiver } from './browser.js';

/**
 * The dashboard end to end in Debian's Chromium against the real server (development, simulated
 * network at a speed where a day passes in a second), from the demo workspace `npm start` makes.
 * The steps share one browser session and build on each other, as an operator's first hour would.
 * Skipped only where /usr/bin/chromium is absent (CI installs it); the security and component
 * tests cover the rest without a browser.
 */
describe.skipIf(!hasChromium)('the dashboard in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let hooks: Awaited<ReturnType<typeof webhookReceiver>>;
  const scratch = mkdtempSync(join(tmpdir(), 'outreach-dashboard-'));
  const shots = screenshotDir(join(scratch, 'shots'));
  const consoleErrors: string[] = [];
  const agentName = 'Browser test agent';
  const campaignName = 'Browser test campaign';
  let demoKey = '';

  const app = (path = '/') => `${server.url}/app${path}`;
  const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`) });
  /** Every page the dashboard has passes axe with no serious or critical violation. */
  const expectAccessible = async () => expect(await seriousViolations(page)).toEqual([]);
  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    hooks = await webhookReceiver();
    const settings: Settings = { host: '127.0.0.1', port: 0, dbPath: join(scratch, 'outreach.db'), env: 'development', simSpeed: 86_400, config: {} };
    const ctx = createContext(settings, silentLogger());
    demoKey = ensureDemo(ctx) ?? '';
    server = await startServer(settings, ctx.log, ctx);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1 });
    // Fail a step in seconds, not at the test's own timeout; slow steps pass their own.
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(err.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => hooks?.server.close(resolve));
    rmSync(scratch, { recursive: true, force: true });
  });

  it('shows no workspace data without a session, and tells how to get a link', async () => {
    await page.goto(app('/'));
    await heading('Signed out');
    expect(await page.getByText('npx outreach login', { exact: false }).first().isVisible()).toBe(true);
    await expectAccessible();
    // The session check's 401 is the expected answer here, not an error of the page.
    expect(consoleErrors.splice(0).every((e) => e.includes('401'))).toBe(true);
  });

  it('logs in with a one-time link and lands on the overview with credits and charts', async () => {
    const { token } = createLoginToken(server.ctx);
    await page.goto(`${server.url}/app/login?token=${token}`);
    expect(new URL(page.url()).pathname).toBe('/app/');
    await heading('Overview');
    await page.getByRole('heading', { name: 'Insights' }).waitFor();
    await page.getByRole('table', { name: 'Sends, acceptances and replies per day' }).waitFor({ state: 'attached' });
    await page.getByRole('article', { name: 'Campaign Demo: founders in London' }).waitFor();
    expect(await page.getByText('Credits', { exact: true }).isVisible()).toBe(true);
    await expectAccessible();
    // The link worked once: opening it again is refused.
    const again = await fetch(`${server.url}/app/login?token=${token}`, { redirect: 'manual' });
    expect(again.status).toBe(401);
  });

  it('creates an agent with a placeholder and shows its preview for a real lead', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await heading('Agents');
    await expectAccessible();
    await page.getByRole('link', { name: 'New agent' }).click();
    await heading('New agent');
    await page.getByLabel('Name').fill(agentName);
    await page.getByLabel(/Connection note/).fill('Hello {{firstName|there}}, glad to meet a {{ jobTitle }}.');
    await page.getByLabel('Message 1', { exact: true }).fill('Thanks for connecting, {{firstName}}! Shall we talk on Tuesday?');
    await page.getByLabel('Delay before message 1 (hours)').fill('1');
    await expectAccessible();
    await page.getByRole('button', { name: 'Create agent' }).click();
    await heading(agentName);
    expect(new URL(page.url()).pathname).toMatch(/^\/app\/agents\/tpl_/);
    const preview = page.getByRole('region', { name: 'Rendered sequence' });
    await preview.waitFor();
    const note = await preview.locator('p').first().textContent();
    expect(note).toMatch(/^Hello \S+, glad to meet a .+\.$/);
    expect(note).not.toContain('{{');
    expect(await preview.textContent()).toContain('Shall we talk on Tuesday?');
    await expectAccessible();
    await shot('agent');
  });

  it('creates a campaign with that agent', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await heading('Campaigns');
    await page.getByLabel('Name').fill(campaignName);
    await page.getByLabel('Agent').selectOption({ label: agentName });
    await expectAccessible();
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await heading(campaignName);
    expect(new URL(page.url()).pathname).toMatch(/^\/app\/campaigns\/cmp_/);
    await page.getByText('Ready to send').waitFor();
    await expectAccessible();
    await page.getByRole('link', { name: 'Import leads from CSV' }).click();
    await heading('Import leads');
    expect(await page.getByLabel('Campaign').locator('option:checked').textContent()).toBe(campaignName);
    await expectAccessible();
  });

  it('imports a CSV: the column mapping, the dry-run counts, then a progress bar that finishes', async () => {
    await page.getByRole('link', { name: 'Import leads' }).click();
    await heading('Import leads');
    await page.getByLabel('Campaign').selectOption({ label: campaignName });
    const rows = [
      'LinkedIn URL,First name,Last name,Company,Title,Favourite colour',
      'https://www.linkedin.com/in/mary-somerville-sim-fast-accept-sim-replies-positive,Mary,Somerville,Orbits Ltd,CTO,blue',
      'https://www.linkedin.com/in/emmy-noether-sim-fast-accept-sim-replies-question,Emmy,Noether,Symmetry GmbH,Founder,green',
      'https://www.linkedin.com/in/carl-gauss-sim-fast-accept-sim-replies-positive,Carl,Gauss,Normal AG,CEO,red',
      'not a url,Bad,Row,Nowhere,None,grey',
    ];
    await page.getByLabel(/CSV file/).setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(`${rows.join('\n')}\n`) });
    await page.getByRole('heading', { name: 'Preview of leads.csv' }).waitFor();
    expect(await page.getByLabel('Field for column LinkedIn URL').inputValue()).toBe('networkUrl');
    expect(await page.getByLabel('Field for column Favourite colour').inputValue()).toBe('');
    const counts = page.getByLabel('Dry-run counts');
    expect(await counts.getByText('New leads').locator('xpath=following-sibling::dd').textContent()).toBe('3');
    expect(await counts.getByText('Invalid rows').locator('xpath=following-sibling::dd').textContent()).toBe('1');
    await expectAccessible();
    await shot('import-preview');
    await page.getByRole('button', { name: 'Import 4 rows' }).click();
    const bar = page.getByRole('progressbar');
    await bar.waitFor();
    await page.getByText(/Import finished/).waitFor();
    expect([await bar.getAttribute('value'), await bar.getAttribute('max')]).toEqual(['4', '4']);
    expect(await page.getByLabel('Import result').getByText('New leads').locator('xpath=following-sibling::dd').textContent()).toBe('3');
    await expectAccessible();
    await shot('import');
    // The campaign's leads table shows the new leads.
    await page.getByRole('link', { name: 'See the campaign’s leads' }).click();
    await heading(campaignName);
    await page.getByRole('checkbox', { name: 'Select Mary Somerville' }).waitFor();
  }, 60_000);

  it('adds a webhook endpoint that will receive the campaign’s events', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await heading('Webhooks');
    await page.getByLabel('Endpoint URL').fill(hooks.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('button', { name: `Disable ${hooks.url}` }).waitFor();
    await expectAccessible();
  });

  it('starts the campaign and watches activity and a reply arrive', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: campaignName }).click();
    await heading(campaignName);
    await page.getByRole('checkbox', { name: 'Select Mary Somerville' }).waitFor();
    await page.getByRole('button', { name: `Start ${campaignName}` }).click();
    await page.getByRole('button', { name: `Pause ${campaignName}` }).waitFor();
    expect(await page.getByText('Running').first().isVisible()).toBe(true);

    await page.getByRole('link', { name: 'Activity' }).click();
    await heading('Activity');
    // No reload: the page polls, so the events appear while we watch.
    const timeline = page.getByRole('list', { name: 'Recent activity' });
    await timeline.getByText('Connection request sent').first().waitFor({ timeout: 20_000 });
    await timeline.getByText('Reply received').first().waitFor({ timeout: 40_000 });
    await expectAccessible();
    await shot('activity');

    // The campaign page follows too: its funnel counts the replies.
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: campaignName }).click();
    await page.getByRole('meter', { name: /^Replies: [1-9]\d*$/ }).waitFor({ timeout: 20_000 });
    await expectAccessible();
    await shot('campaign');
  }, 90_000);

  it('answers the reply from the inbox', async () => {
    await page.getByRole('link', { name: 'Inbox' }).click();
    await heading('Inbox');
    await page.getByRole('link', { name: 'All', exact: true }).click();
    const threads = page.locator('section[aria-label="Threads"]');
    const thread = threads.getByRole('link', { name: /Mary Somerville|Emmy Noether|Carl Gauss/ }).first();
    await thread.waitFor({ timeout: 20_000 });
    await thread.click();
    const messages = page.getByRole('list', { name: 'Messages, oldest first' });
    await messages.locator('li.o-msg-in').first().waitFor();
    await expectAccessible();
    const before = await messages.getByRole('listitem').count();
    await page.getByLabel('Your reply').fill('Thanks! Tuesday at 10:00 works for me.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByText('Reply sent.').waitFor();
    await messages.getByText('Thanks! Tuesday at 10:00 works for me.').waitFor();
    expect(await messages.getByRole('listitem').count()).toBe(before + 1);
    expect(await messages.getByRole('listitem').last().textContent()).toMatch(/^You ·/);
    await shot('inbox');
  });

  it('shows accounts with today’s counters against their limits, and connects another, which warms up', async () => {
    await page.getByRole('link', { name: 'Accounts' }).click();
    await heading('Accounts');
    const meter = page.getByRole('meter', { name: /^Connection requests: \d+ of 25$/ });
    await meter.waitFor();
    await page.getByLabel('Account name').fill('Second sender');
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByText('Second sender is connected.').waitFor();
    await page.getByRole('heading', { name: 'Second sender' }).waitFor();
    // A connected account warms up (a simulated day passes each second here, so its day moves on).
    const card = page.getByRole('article', { name: 'Second sender' });
    await card.getByText(/^Warm-up: day ([1-9]|1[0-4]) of 14\.$/).waitFor();
    await card.getByText('Configured: 25 requests and 50 messages a day.').waitFor();
    expect(await card.getByRole('meter', { name: /^Connection requests: 0 of \d+$/ }).getAttribute('aria-label')).not.toBe('Connection requests: 0 of 25');
    expect(await card.getByLabel('Requests per day').inputValue()).toBe('25');
    await expectAccessible();
    await shot('accounts');
  });

  it('creates an API key shown once, which works until it is revoked', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await heading('API keys');
    await page.getByLabel('Key name (optional)').fill('Browser key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('secret').textContent()) ?? '';
    expect(secret).toMatch(/^sk_test_/);
    const credits = () => fetch(`${server.url}/public/v1/credits`, { headers: { 'X-API-Key': secret } });
    expect((await credits()).status).toBe(200);
    await expectAccessible();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByTestId('secret').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke Browser key', exact: true }).click();
    await page.getByRole('button', { name: 'Revoke Browser key now' }).click();
    await page.getByText(/^Revoked /).waitFor();
    expect((await credits()).status).toBe(401);
    // The demo key still works, and never opens the dashboard.
    expect((await fetch(`${server.url}/app/api/session`, { headers: { 'X-API-Key': demoKey } })).status).toBe(401);
    await shot('keys');
  });

  it('rotates the webhook secret (shown once) and redelivers a delivery signed with it', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await heading('Webhooks');
    const log = page.getByRole('table', { name: 'Webhook deliveries, newest first' });
    const row = log
      .getByRole('row')
      .filter({ has: page.getByRole('button', { name: /^Redeliver / }) })
      .last();
    await row.waitFor({ timeout: 20_000 });
    const eventId = ((await row.getByText(/^evt_/).textContent()) ?? '').trim();
    expect(eventId).toMatch(/^evt_/);
    await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
    await page.getByRole('button', { name: 'Rotate now' }).click();
    const secret = (await page.getByRole('region', { name: 'The new signing secret' }).getByTestId('secret').textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(15);
    await expectAccessible();
    await shot('webhooks');
    // The event went out before the rotation; its redelivery carries the same id and the new secret.
    const ofEvent = () => hooks.received.filter((r) => r.headers['webhook-id'] === eventId);
    expect(ofEvent().length).toBeGreaterThan(0);
    expect(ofEvent().some((r) => r.headers['x-webhook-signature'] === secret)).toBe(false);
    await row.getByRole('button', { name: /^Redeliver / }).click();
    await row.getByText('Queued.').waitFor();
    await expect.poll(() => ofEvent().some((r) => r.headers['x-webhook-signature'] === secret), { timeout: 20_000, interval: 200 }).toBe(true);
  });

  it('charts the campaign on the overview once it has run', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await heading('Overview');
    const replies = page.locator('.o-stat', { hasText: 'Replies' }).locator('dd');
    await expect.poll(async () => Number((await replies.textContent())?.replace(/\D/g, '') || '0'), { timeout: 20_000, interval: 250 }).toBeGreaterThan(0);
    await page.getByRole('article', { name: `Campaign ${campaignName}` }).waitFor();
    await expectAccessible();
    await shot('overview');
  });

  it('raises no console error and no CSP violation on any page', () => {
    expect(consoleErrors).toEqual([]);
  });
});
