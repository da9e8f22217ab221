import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoginToken } from '../../src/core/auth/sessions.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/core/events.js';
import { listEndpoints } from '../../src/core/webhooks/endpoints.js';
import { ensureDemo } from '../../src/core/seed/demo.js';
import type { Settings } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createContext, startServer, type RunningServer } from '../../src/server.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { hasChromium, launchChromium, openDashboard, screenshotDir, seriousViolations, webhookReceiver } from './browser.js';

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
  let page: Page;
  let hooks: Awaited<ReturnType<typeof webhookReceiver>>;
  const scratch = mkdtempSync(join(tmpdir(), 'outreach-dashboard-'));
  const shots = screenshotDir(join(scratch, 'shots'));
  const consoleErrors: string[] = [];
  const agentName = 'Browser test agent';
  const campaignName = 'Browser test campaign';
  let demoKey = '';
  let campaignId = '';
  /** A name with a right-to-left override in it; a company that is one word as long as a company may be (200 characters); a 500-character word. */
  const trickyName = '\u202eMallory Evil';
  const longCompany = 'Supercalifragilistic'.repeat(10);
  const longWord = 'Supercalifragilistic'.repeat(25);
  /** The events the test's webhook endpoint subscribes to: the campaign's lead events, not the drafts' or email's. */
  const subscribed = ['lead.tagged', 'lead.replied', 'lead.connection_accepted', 'lead.handed_off'];

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
    // Signed out first: the first test checks that page, the next signs in with a link.
    ({ page } = await openDashboard(browser, server, {
      signIn: false,
      viewport: { width: 1280, height: 860 },
      deviceScaleFactor: 1,
      errors: consoleErrors,
      console: true,
    }));
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

  it('logs in with a one-time link and lands on the overview with credits, saying what to do before anything is sent', async () => {
    const { token } = createLoginToken(server.ctx);
    await page.goto(`${server.url}/app/login?token=${token}`);
    expect(new URL(page.url()).pathname).toBe('/app/');
    await heading('Overview');
    await page.getByRole('heading', { name: 'Insights' }).waitFor();
    const demo = page.getByRole('article', { name: 'Campaign Demo: founders in London' });
    await demo.waitFor();
    expect(await page.getByText('Credits', { exact: true }).isVisible()).toBe(true);
    // Nothing has been sent: the next step instead of flat lines at zero, on the chart and on the card.
    await page.getByText('No sends, acceptances or replies in the last 30 days.').waitFor();
    expect(await page.getByRole('table', { name: 'Sends, acceptances and replies per day' }).count()).toBe(0);
    expect(await demo.getByRole('meter').count()).toBe(0);
    await demo.getByText('Nothing sent yet.').waitFor();
    // The card names its agent, never its id.
    await demo.getByText('agent Friendly intro').waitFor();
    expect(await demo.textContent()).not.toMatch(/tpl_/);
    await expectAccessible();
    await shot('overview-empty');
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
    await page.getByLabel('Name', { exact: true }).fill(agentName);
    // A new agent starts as an invitation, then a message an hour after it is accepted (else a withdrawal).
    const step = (name: string) => page.getByRole('group', { name, exact: true });
    await step('Step 1: Invitation').getByLabel('Note').fill('Hello {{firstName|there}}, glad to meet a {{ jobTitle }}.');
    await step('Step 3: Wait').getByLabel('Hours to wait').fill('1');
    await step('Step 4: Message').getByLabel('Text').fill('Thanks for connecting, {{firstName}}! Shall we talk on Tuesday?');
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
    campaignId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
    await page.getByText('Ready to send').waitFor();
    // No leads yet: the table says how to get some.
    await page.getByText('This campaign has no leads yet.').waitFor();
    await page
      .getByRole('article', { name: `Campaign ${campaignName}` })
      .getByText(`agent ${agentName}`)
      .waitFor();
    await expectAccessible();
    await page.getByRole('link', { name: 'Import leads from CSV' }).click();
    await heading('Import leads');
    // The campaign list refreshes in the background after the create; the link's campaign is chosen once it is in.
    await expect.poll(() => page.getByLabel('Campaign').locator('option:checked').textContent(), { timeout: 10_000, interval: 100 }).toBe(campaignName);
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

  it('finds a lead of the campaign by name, company or profile URL', async () => {
    // Leads of untrusted text join the campaign through the API, as an integration would add them.
    const add = async (lead: Record<string, string>) => {
      const res = await fetch(`${server.url}/public/v1/campaigns/${campaignId}/leads`, {
        method: 'POST',
        headers: { 'X-API-Key': demoKey, 'content-type': 'application/json' },
        body: JSON.stringify(lead),
      });
      expect(res.status).toBe(200);
    };
    await add({ networkUrl: 'https://www.linkedin.com/in/mallory-evil-sim-fast-accept-sim-replies-positive', fullName: trickyName, companyName: 'Evil Corp' });
    await add({ networkUrl: 'https://www.linkedin.com/in/wide-wanda', fullName: 'Wide Wanda', jobTitle: 'Chief', companyName: longCompany });
    await page.reload();
    await heading(campaignName);
    const search = page.getByRole('search', { name: 'Find a lead' });
    const box = search.getByLabel('Find a lead by name, company or profile URL');
    // The leads table's rows (the page's step funnel is a table too).
    const rows = page.getByRole('table', { name: /^Leads (of this campaign|matching)/ }).locator('tbody tr');
    /** The rows are exactly these leads, in this order. */
    const find = async (query: string, names: string[]) => {
      await box.fill(query);
      await search.getByRole('button', { name: 'Find' }).click();
      await expect
        .poll(
          async () => {
            const texts = await rows.allTextContents();
            return texts.length === names.length && names.every((n, i) => texts[i]?.includes(n));
          },
          { timeout: 10_000 },
        )
        .toBe(true);
    };
    await find('emmy', ['Emmy Noether']);
    await page.getByText('1 lead found for “emmy”.').waitFor();
    await find('Orbits', ['Mary Somerville']);
    await find('gauss', ['Carl Gauss']);
    await find('linkedin.com/in/mary-somerville-sim-fast-accept-sim-replies-positive', ['Mary Somerville']);
    await find('supercali', ['Wide Wanda']);
    // "Evil" starts both the last name and the company of one lead: it is listed once.
    await find('evil', ['Mallory Evil']);
    await expectAccessible();
    await shot('campaign-search');
    await search.getByRole('button', { name: 'Show all leads' }).click();
    await page.getByRole('combobox', { name: 'Show' }).waitFor();
    await expect.poll(() => rows.count()).toBe(5);
  });

  it('unticks the leads a bulk action was done on, so a Delete next asks about only the leads ticked since', async () => {
    const rows = page.getByRole('table', { name: /^Leads of this campaign/ }).locator('tbody tr');
    const bulk = page.getByRole('group', { name: 'Bulk actions on selected leads' });
    const box = (i: number) => rows.nth(i).getByRole('checkbox');
    const tagOf = (i: number) => rows.nth(i).locator('td').nth(4).textContent();
    await expect.poll(() => rows.count()).toBe(5);
    const tagRowsOneAndTwo = async (tag: string, shown: string) => {
      await box(0).check();
      await box(1).check();
      await bulk.getByText('2 selected').waitFor();
      await bulk.getByLabel('Tag to apply').selectOption(tag);
      await bulk.getByRole('button', { name: 'Apply tag' }).click();
      await page.getByRole('status').filter({ hasText: 'Tagged 2 of 2 leads.' }).waitFor();
      await expect.poll(async () => [await tagOf(0), await tagOf(1)], { timeout: 10_000 }).toEqual([shown, shown]);
      // Done: the two are unticked.
      await bulk.getByText('0 selected').waitFor();
      expect([await box(0).isChecked(), await box(1).isChecked()]).toEqual([false, false]);
    };
    await tagRowsOneAndTwo('To be defined', 'To be defined');
    // The next Delete is on the third lead alone, as the question says.
    await box(2).check();
    await bulk.getByText('1 selected').waitFor();
    await bulk.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText(/^Delete 1 lead permanently\?/).waitFor();
    await expectAccessible();
    await shot('campaign-bulk-delete');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await box(2).uncheck();
    // The two back as they were, untagged, for the steps after this one.
    await tagRowsOneAndTwo('__clear', '—');
    await expect.poll(() => rows.count()).toBe(5);
  });

  it('adds a webhook endpoint for the events ticked, which will receive the campaign’s events', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await heading('Webhooks');
    const events = page.getByRole('group', { name: /^Events it receives/ });
    const box = (type: string) => events.getByRole('checkbox', { name: type, exact: true });
    // Every event type is offered, all ticked to begin with.
    expect(await events.getByRole('checkbox').count()).toBe(WEBHOOK_EVENT_TYPES.length);
    for (const type of WEBHOOK_EVENT_TYPES) expect(await box(type).isChecked()).toBe(true);
    await page.getByLabel('Endpoint URL').fill(hooks.url);
    // None ticked: the form says so and adds nothing.
    await events.getByRole('button', { name: 'Untick all events' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').filter({ hasText: 'Tick at least one event' }).waitFor();
    await expectAccessible();
    expect(listEndpoints(server.ctx).some((e) => e.url === hooks.url)).toBe(false);
    for (const type of subscribed) await box(type).check();
    expect(await page.getByRole('alert').filter({ hasText: 'Tick at least one event' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('button', { name: `Disable ${hooks.url}` }).waitFor();
    // The endpoint has exactly the events ticked, and the list says which.
    expect(listEndpoints(server.ctx).find((e) => e.url === hooks.url)?.events).toEqual(subscribed);
    await page
      .getByRole('listitem')
      .filter({ hasText: hooks.url })
      .getByText(`${subscribed.join(', ')} · 0 pending`)
      .waitFor();
    // The form is ready for the next endpoint: no URL, every event ticked again.
    expect(await page.getByLabel('Endpoint URL').inputValue()).toBe('');
    for (const type of WEBHOOK_EVENT_TYPES) expect(await box(type).isChecked()).toBe(true);
    await expectAccessible();
  });

  it('starts the campaign and watches activity and a reply arrive', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: campaignName }).click();
    await heading(campaignName);
    await page.getByRole('checkbox', { name: 'Select Mary Somerville' }).waitFor();
    await page.getByRole('button', { name: `Start ${campaignName}` }).click();
    // Start asks first, naming who sends to how many leads.
    await page
      .getByRole('alertdialog', { name: `Start campaign ${campaignName}?` })
      .getByRole('button', { name: 'Start sending' })
      .click();
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
    // The demo workspace has no signing secret: the button creates one, as the page's words say, at once (there is none to replace).
    await page.getByText('No signing secret yet: deliveries go unsigned until you create one.').waitFor();
    expect(await page.getByRole('button', { name: 'Rotate the signing secret' }).count()).toBe(0);
    await expectAccessible();
    await page.getByRole('button', { name: 'Create the signing secret' }).click();
    const created = (await page.getByRole('region', { name: 'The new signing secret' }).getByTestId('secret').textContent()) ?? '';
    expect(created).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    // Now there is one, the button rotates it, after a confirmation.
    await page.getByText('A signing secret is set.').waitFor();
    expect(await page.getByRole('button', { name: 'Create the signing secret' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
    await page.getByRole('button', { name: 'Rotate now' }).click();
    const secret = (await page.getByRole('region', { name: 'The new signing secret' }).getByTestId('secret').textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(15);
    expect(secret).not.toBe(created);
    await expectAccessible();
    await shot('webhooks');
    // The event went out before the rotation; its redelivery carries the same id and the new secret.
    const ofEvent = () => hooks.received.filter((r) => r.headers['webhook-id'] === eventId);
    expect(ofEvent().length).toBeGreaterThan(0);
    expect(ofEvent().some((r) => r.headers['x-webhook-signature'] === secret)).toBe(false);
    await row.getByRole('button', { name: /^Redeliver / }).click();
    await row.getByText('Queued.').waitFor();
    await expect.poll(() => ofEvent().some((r) => r.headers['x-webhook-signature'] === secret), { timeout: 20_000, interval: 200 }).toBe(true);
    // The endpoint got only the events it subscribes to.
    const types = new Set(hooks.received.map((r) => (JSON.parse(r.body) as { type: string }).type));
    expect([...types].every((t) => subscribed.includes(t))).toBe(true);
  });

  it('charts the campaign on the overview once it has run', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await heading('Overview');
    const replies = page.locator('.o-stat', { hasText: 'Replies' }).locator('dd');
    await expect.poll(async () => Number((await replies.textContent())?.replace(/\D/g, '') || '0'), { timeout: 20_000, interval: 250 }).toBeGreaterThan(0);
    await page.getByRole('article', { name: `Campaign ${campaignName}` }).waitFor();
    await page.getByRole('table', { name: 'Sends, acceptances and replies per day' }).waitFor({ state: 'attached' });
    await page.getByRole('table', { name: /Top campaigns/ }).waitFor();
    await expectAccessible();
    await shot('overview');
  });

  it('keeps an exclusion list: add profiles, import a file, remove one', async () => {
    await page.getByRole('link', { name: 'Exclusions' }).click();
    await heading('Exclusions');
    await page.getByText('No profile is excluded yet.').waitFor();
    await expectAccessible();
    // Carl Gauss is a lead of the campaign: excluding his profile excludes him there.
    await page
      .getByLabel('Profile URLs, one a line')
      .fill('https://www.linkedin.com/in/carl-gauss-sim-fast-accept-sim-replies-positive\nhttps://www.linkedin.com/in/not-a-lead-yet/\n');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await page.getByText('Added 2 profiles to the list; 1 lead newly excluded.').waitFor();
    const list = page.getByRole('table', { name: 'Excluded profiles, newest first' });
    await list.getByRole('cell', { name: 'https://www.linkedin.com/in/not-a-lead-yet', exact: true }).waitFor();
    const file = ['LinkedIn URL,Reason', 'https://www.linkedin.com/in/from-a-file,asked us', 'https://www.linkedin.com/in/not-a-lead-yet,again', ''].join('\n');
    await page.getByLabel('Exclusion file (.csv or .txt)').setInputFiles({ name: 'do-not-contact.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
    await page.getByRole('button', { name: 'Import do-not-contact.csv' }).click();
    await page.getByText('do-not-contact.csv: Added 1 profile to the list (1 already on the list); 0 leads newly excluded.').waitFor();
    await list.getByRole('cell', { name: 'https://www.linkedin.com/in/from-a-file', exact: true }).waitFor();
    await expectAccessible();
    await shot('exclusions');
    await list.getByRole('button', { name: 'Remove https://www.linkedin.com/in/from-a-file' }).click();
    await expect.poll(() => list.getByRole('cell', { name: 'https://www.linkedin.com/in/from-a-file', exact: true }).count()).toBe(0);
    // The campaign's table shows Carl excluded.
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: campaignName }).click();
    await page
      .getByRole('row', { name: /Carl Gauss/ })
      .locator('.o-badge', { hasText: 'excluded' })
      .waitFor();
  });

  it('keeps a right-to-left override in a name from reordering the fields around it, and a long word from widening the page', async () => {
    const fitsWidth = async () => {
      const [content, viewport] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
      expect(content).toBeLessThanOrEqual(viewport);
    };
    type Box = { left: number; right: number; top: number };
    const lastBox = (l: Locator) => l.evaluate((el: any) => [...el.getClientRects()].at(-1) as Box);
    const firstBox = (l: Locator) => l.evaluate((el: any) => [...el.getClientRects()][0] as Box);
    /**
     * Where `second` starts, after where `first` ends, reading left to right: on the same line,
     * to its right (an override leaking out of `first` would put it to the left); or on a later line.
     */
    const inOrder = async (first: Locator, second: Locator, sameLine = false) => {
      const [a, b] = [await lastBox(first), await firstBox(second)];
      const oneLine = Math.abs(a.top - b.top) < 4;
      if (sameLine) expect(oneLine, `${JSON.stringify(a)} and ${JSON.stringify(b)} on one line`).toBe(true);
      expect(oneLine ? b.left >= a.right - 1 : b.top > a.top, `${JSON.stringify(a)} before ${JSON.stringify(b)}`).toBe(true);
    };
    // Activity: the lead was contacted; its company stays after its name, on the same line.
    await page.getByRole('link', { name: 'Activity' }).click();
    await heading('Activity');
    const item = page.getByRole('listitem').filter({ hasText: 'Mallory Evil' }).first();
    await item.waitFor({ timeout: 20_000 });
    await inOrder(item.getByRole('link', { name: /Mallory Evil/ }), item.locator('span.o-muted').first(), true);
    await fitsWidth();
    // The inbox: a 500-character word in a reply wraps inside the thread.
    await page.getByRole('link', { name: 'Inbox' }).click();
    await heading('Inbox');
    await page.getByRole('link', { name: 'All', exact: true }).click();
    const thread = page.locator('section[aria-label="Threads"]').getByRole('link', { name: /Mallory Evil/ });
    await thread.waitFor({ timeout: 20_000 });
    await thread.click();
    await page.getByLabel('Your reply').fill(`A word to test the layout: ${longWord}.`);
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByRole('list', { name: 'Messages, oldest first' }).getByText(longWord).waitFor();
    await fitsWidth();
    await shot('untrusted-inbox');
    // The campaign's table: exclude the lead, and its badge stays after its name.
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: campaignName }).click();
    await heading(campaignName);
    const row = page.getByRole('row', { name: /Mallory Evil/ });
    await row.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Exclude' }).click();
    await row.locator('.o-badge', { hasText: 'excluded' }).waitFor();
    await inOrder(row.getByRole('link', { name: /Mallory Evil/ }).first(), row.locator('.o-badge', { hasText: 'excluded' }));
    await fitsWidth();
    await shot('untrusted-text');
    for (const where of ['Overview', 'Campaigns']) {
      await page.getByRole('link', { name: where, exact: true }).click();
      await heading(where);
      await fitsWidth();
    }
  });

  it('fills the window at any scroll, with the navigation in view', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await heading('Overview');
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    const layout = (await page.evaluate(`(() => {
      const shell = document.querySelector('.d-shell').getBoundingClientRect();
      const nav = document.querySelector('.d-nav').getBoundingClientRect();
      const bottomLeft = document.elementFromPoint(10, window.innerHeight - 2);
      const bottomRight = document.elementFromPoint(window.innerWidth - 10, window.innerHeight - 2);
      return {
        scrolled: window.scrollY > 0,
        shellReachesBottom: shell.bottom >= window.innerHeight - 1,
        navInView: nav.top <= 0 && nav.top > -1,
        leftIsNav: !!bottomLeft && bottomLeft.closest('.d-shell') !== null && bottomLeft.closest('.d-main') === null,
        rightIsPage: !!bottomRight && bottomRight.closest('.d-main') !== null,
      };
    })()`)) as Record<string, boolean>;
    expect(layout).toEqual({ scrolled: true, shellReachesBottom: true, navInView: true, leftIsNav: true, rightIsPage: true });
    await page.evaluate('window.scrollTo(0, 0)');
  });

  it('keeps each word of a stat tile whole, on Settings and the overview', async () => {
    /** Words of the tiles that are cut across two lines, or run past their tile. */
    const cutWords = `(() => {
      const cut = [];
      for (const el of document.querySelectorAll('.o-stat dt, .o-stat dd')) {
        const tile = el.closest('.o-stat').getBoundingClientRect();
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          for (const m of n.data.matchAll(/\\S+/g)) {
            const r = document.createRange();
            r.setStart(n, m.index);
            r.setEnd(n, m.index + m[0].length);
            const lines = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
            if (lines.size > 1 || r.getBoundingClientRect().right > tile.right + 0.5) cut.push(m[0]);
          }
        }
      }
      return cut;
    })()`;
    for (const [where, width] of [
      ['Settings', 1280],
      ['Settings', 390],
      ['Overview', 390],
    ] as const) {
      await page.setViewportSize({ width, height: 860 });
      await page.getByRole('link', { name: where, exact: true }).click();
      await heading(where);
      await page.locator('.o-stat').first().waitFor();
      expect(await page.evaluate(cutWords), `${where} at ${width} px`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('fits a 390 px window: the navigation a row above the page, the chart’s labels readable and whole', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.getByRole('link', { name: 'Overview', exact: true }).click();
      await heading('Overview');
      // The page starts near the top: the links are one row that scrolls sideways in its own box.
      const nav = (await page.evaluate(`(() => {
        const list = document.querySelector('.d-nav ul');
        const current = list.querySelector('[aria-current="page"]').getBoundingClientRect();
        const box = list.getBoundingClientRect();
        return {
          headingTop: document.querySelector('main h1').getBoundingClientRect().top,
          rows: new Set([...list.querySelectorAll('a')].map((a) => Math.round(a.getBoundingClientRect().top))).size,
          scrollsInItsBox: list.scrollWidth > list.clientWidth && document.documentElement.scrollWidth <= innerWidth,
          currentInView: current.left >= box.left - 1 && current.right <= box.right + 1,
        };
      })()`)) as { headingTop: number; rows: number; scrollsInItsBox: boolean; currentInView: boolean };
      expect(nav.headingTop, 'the heading within the first 200 px').toBeLessThan(200);
      expect(nav).toMatchObject({ rows: 1, scrollsInItsBox: true, currentInView: true });
      // On another page, its link is scrolled into the row.
      await page.getByRole('link', { name: 'Settings', exact: true }).click();
      await heading('Settings');
      expect(
        await page.evaluate(`(() => {
          const list = document.querySelector('.d-nav ul');
          const a = list.querySelector('[aria-current="page"]').getBoundingClientRect();
          const box = list.getBoundingClientRect();
          return a.left >= box.left - 1 && a.right <= box.right + 1;
        })()`),
      ).toBe(true);
      // The skip link is the first stop on a page load, and still leads past the links into the page.
      await page.reload();
      await heading('Settings');
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      expect(await page.evaluate("!!document.activeElement.closest('main')")).toBe(true);
      await expectAccessible();
      await page.getByRole('link', { name: 'Overview', exact: true }).click();
      await heading('Overview');
      await page.locator('.o-chart-svg').waitFor();
      // The chart draws a pixel a unit: labels at their size, the last day's whole inside the chart.
      const chart = (await page.evaluate(`(() => {
        const svg = document.querySelector('.o-chart-svg').getBoundingClientRect();
        const labels = [...document.querySelectorAll('.o-chart-label')].map((t) => t.getBoundingClientRect());
        return { smallest: Math.min(...labels.map((b) => b.height)), outside: labels.filter((b) => b.left < svg.left || b.right > svg.right).length };
      })()`)) as { smallest: number; outside: number };
      expect(chart.smallest).toBeGreaterThanOrEqual(11);
      expect(chart.outside).toBe(0);
      await expectAccessible();
      await shot('overview-390');
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  it('raises no console error and no CSP violation on any page', () => {
    expect(consoleErrors).toEqual([]);
  });
});
