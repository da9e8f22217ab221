import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../src/config.js';
import { createLoginToken } from '../../src/core/auth/sessions.js';
import { crmSyncOf } from '../../src/core/crm/config.js';
import { updateLead } from '../../src/core/leads/update.js';
import { addMember } from '../../src/core/members/members.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { testCtx } from '../helpers.js';
import { HubSpotStandIn } from '../network/hubspot/stand-in.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium, screenshotDir, seriousViolations } from './browser.js';

const TOKEN_ENV = 'CRM_PAGE_TEST_HUBSPOT_TOKEN';

/**
 * The CRM page in a browser, over a server whose CRM worker really pushes to the local HubSpot
 * stand-in: the connection (the variable's name, never the token), the outbox and the sync log
 * with a retried push, for the owner; refused to an operator.
 */
describe.runIf(requireTool('Chromium at /usr/bin/chromium', hasChromium))('the CRM page in a browser', () => {
  let hs: HubSpotStandIn;
  let server: RunningServer;
  let browser: Browser;
  let clock: ReturnType<typeof testCtx>['clock'];
  let ownerId = '';
  let operatorId = '';
  let reviewerId = '';
  const shots = screenshotDir(join(mkdtempSync(join(tmpdir(), 'outreach-crm-page-')), 'shots'));

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    hs = new HubSpotStandIn();
    await hs.start();
    process.env[TOKEN_ENV] = hs.token;
    const ctx = testCtx();
    clock = ctx.clock;
    const hubspot = { tokenEnv: TOKEN_ENV, basePath: hs.url };
    ctx.crm = crmSyncOf({ hubspot });
    ownerId = addMember(ctx, { name: 'Olga Owner', email: 'olga@example.com' }).id;
    operatorId = addMember(ctx, { name: 'Otto Operator', email: 'otto@example.com', role: 'operator' }).id;
    reviewerId = addMember(ctx, { name: 'Rita Reviewer', email: 'rita@example.com', role: 'reviewer' }).id;
    const settings: Settings = { host: '127.0.0.1', port: 0, dbPath: ':memory:', env: ctx.env, simSpeed: 1, config: { crm: { hubspot } } };
    server = await startServer(settings, ctx.log, ctx, { engine: false, lookalike: false });
    // The first contact search meets a HubSpot outage: the log shows the retry.
    hs.fail({ kind: 'contacts.search', status: 503 });
    updateLead(ctx, 'cmp_q4', 'lead_ada1', { tag: 'Interested' });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await hs?.stop();
    delete process.env[TOKEN_ENV];
  });

  async function signIn(memberId: string, home = 'Overview'): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await page.goto(`${server.url}/app/login?token=${createLoginToken(server.ctx, memberId).token}`);
    await page.getByRole('heading', { level: 1, name: home }).waitFor();
    return { context, page };
  }

  it('shows the owner the connection, the outbox and the sync log, filtered, and passes axe', async () => {
    const { context, page } = await signIn(ownerId);
    try {
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'CRM', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'CRM' }).waitFor();
      await page.getByText(`From the environment variable ${TOKEN_ENV}: set when the server started.`).waitFor();
      expect(await page.content()).not.toContain(hs.token);
      // The retried contact, then the note and the deal, arrive at the stand-in; the page refreshes.
      const log = page.getByRole('table', { name: 'Sync log' });
      await expect
        .poll(
          async () => {
            // The server's clock is the test's: moving it makes the retry (5 s later) due.
            clock.advance(10_000);
            await page.reload();
            await page.getByRole('heading', { level: 1, name: 'CRM' }).waitFor();
            return ((await log.textContent()) ?? '').includes('deal');
          },
          { timeout: 60_000, interval: 1_000 },
        )
        .toBe(true);
      const text = (await log.textContent()) ?? '';
      expect(text).toMatch(/retrying/);
      expect(text).toMatch(/HubSpot answered 503/);
      expect(text).toMatch(/succeeded/);
      expect(hs.associated([...hs.objects.contacts.keys()][0] as string, 'deals')).toHaveLength(1);
      const outbox = page.getByRole('table', { name: 'Outbox backlog' });
      await outbox.waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(shots, 'crm.png'), fullPage: true });
      // On a phone the tables scroll sideways, and a keyboard can reach them to scroll them.
      const size = page.viewportSize();
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await seriousViolations(page)).toEqual([]);
      if (size) await page.setViewportSize(size);

      await page.getByLabel('Outcome').selectOption('retrying');
      await expect.poll(async () => (await log.getByRole('row').allInnerTexts()).length).toBe(2);
      expect((await log.textContent()) ?? '').not.toMatch(/succeeded/);
      await page.getByLabel('Outcome').selectOption('');
      await page.getByLabel('Direction').selectOption('pull');
      await log.getByText('No sync log entry matches.').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      const bad = (await page.evaluate(`fetch('/app/api/crm?direction=sideways').then(async (r) => ({ status: r.status, body: await r.json() }))`)) as {
        status: number;
        body: { error: { code: string; message: string } };
      };
      expect(bad).toMatchObject({ status: 400, body: { error: { code: 'validation_error' } } });
      expect(bad.body.error.message).toMatch(/direction: must be one of push, pull/);
    } finally {
      await context.close();
    }
  });

  it('is in an operator’s menu (a viewer reads what an operator reads), and not in a reviewer’s, whose read the server refuses', async () => {
    const operator = await signIn(operatorId);
    try {
      const nav = operator.page.getByRole('navigation', { name: 'Dashboard' });
      expect(await nav.getByRole('link').allInnerTexts()).toContain('CRM');
      const read = (await operator.page.evaluate(`fetch('/app/api/crm').then((r) => r.status)`)) as number;
      expect(read).toBe(200);
    } finally {
      await operator.context.close();
    }
    const { context, page } = await signIn(reviewerId, 'Drafts');
    try {
      const nav = page.getByRole('navigation', { name: 'Dashboard' });
      expect(await nav.getByRole('link').allInnerTexts()).not.toContain('CRM');
      await page.goto(`${server.url}/app/crm`);
      await page.getByRole('heading', { level: 1, name: 'Not available to your role' }).waitFor();
      const refused = (await page.evaluate(`fetch('/app/api/crm').then(async (r) => ({ status: r.status, body: await r.json() }))`)) as {
        status: number;
        body: { error: { code: string } };
      };
      expect(refused).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
    } finally {
      await context.close();
    }
  });
});
