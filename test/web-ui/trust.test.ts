import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateCampaign } from '../../src/core/campaigns/manage.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { recordStep, startSequence } from '../../src/core/sequences/store.js';
import { leads } from '../../src/db/schema.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium, openDashboard, screenshotDir, seriousViolations } from './browser.js';

/**
 * The dashboard's side of trusting approval, in Chromium against the real server: the approval
 * switch on a new campaign and in its settings, Start asking first, Connect giving a simulated
 * account Sales Navigator, and a lead's own page.
 */
describe.runIf(requireTool('Chromium at /usr/bin/chromium', hasChromium))('approval, Start and the lead page in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const scratch = mkdtempSync(join(tmpdir(), 'outreach-trust-ui-'));
  const shots = screenshotDir(join(scratch, 'shots'));
  const consoleErrors: string[] = [];
  const rest = async (path: string) => (await server.rest(path)).body;
  const expectAccessible = async () => expect(await seriousViolations(page)).toEqual([]);

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    server = await startTestServer();
    browser = await launchChromium();
    ({ page } = await openDashboard(browser, server, { deviceScaleFactor: 1, errors: consoleErrors, console: true }));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('creates a campaign with approval required, and turns it off in its settings', async () => {
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Campaigns' }).waitFor();
    const form = page.getByRole('form', { name: 'New campaign' });
    await form.getByLabel('Name').fill('Reviewed outreach');
    await form.getByRole('switch', { name: 'Require approval before anything is sent' }).check();
    await expectAccessible();
    await form.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { level: 1, name: 'Reviewed outreach' }).waitFor();
    const id = page.url().split('/').pop() as string;
    expect((await rest(`/campaigns/${id}`)).approval).toBe('required');
    const settings = page.getByRole('form', { name: 'Settings' });
    const approval = settings.getByRole('switch', { name: 'Require approval before anything is sent' });
    expect(await approval.isChecked()).toBe(true);
    await approval.uncheck();
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(async () => (await rest(`/campaigns/${id}`)).approval).toBe('off');
  });

  it('asks before Start, naming the sender and the leads; Cancel sends nothing', async () => {
    await page.goto(`${server.url}/app/campaigns/cmp_q4`);
    await page.getByRole('heading', { level: 1, name: 'Q4' }).waitFor();
    await page.getByRole('button', { name: 'Start Q4' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Start campaign Q4?' });
    await dialog.getByText(/from Ada\.$/).waitFor();
    await dialog.getByText('Approval is off: notes and messages go out as the agent writes them.').waitFor();
    await expectAccessible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await rest('/campaigns/cmp_q4')).status).toBe('READY_TO_SEND');
    await page.getByRole('button', { name: 'Start Q4' }).click();
    await page.getByRole('alertdialog', { name: 'Start campaign Q4?' }).getByRole('button', { name: 'Start sending' }).click();
    await expect.poll(async () => (await rest('/campaigns/cmp_q4')).status).toBe('CAMPAIGN_IN_PROGRESS');
  });

  it('asks before Start on the overview too, as on the campaign page; Cancel starts nothing', async () => {
    // The failed campaign gets a lead, which makes it ready to send again.
    const added = await server.rest('/campaigns/cmp_failed/leads', {
      method: 'POST',
      body: JSON.stringify({ networkUrl: 'https://www.linkedin.com/in/overview-start', firstName: 'Olive', lastName: 'Overview' }),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect((await rest('/campaigns/cmp_failed')).status).toBe('READY_TO_SEND');
    await page.goto(`${server.url}/app/`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const card = page.getByRole('article', { name: 'Campaign Failed' });
    await card.getByText('Ready to send').waitFor();
    await card.getByRole('button', { name: 'Start Failed' }).click();
    const dialog = card.getByRole('alertdialog', { name: 'Start campaign Failed?' });
    // The campaign page's question, from the same read: who sends to how many leads, and the approval.
    await dialog.getByText(/^It will send connection requests and messages to its 1 lead from Ada\.$/).waitFor();
    await dialog.getByText('Approval is off: notes and messages go out as the agent writes them.').waitFor();
    // It takes the focus on its confirm button, as the campaign page's does.
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Start sending');
    await expectAccessible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await card.getByRole('alertdialog').count()).toBe(0);
    expect((await rest('/campaigns/cmp_failed')).status).toBe('READY_TO_SEND');
    // Escape declines too.
    await card.getByRole('button', { name: 'Start Failed' }).click();
    await dialog.getByRole('button', { name: 'Start sending' }).waitFor();
    await page.keyboard.press('Escape');
    expect(await card.getByRole('alertdialog').count()).toBe(0);
    expect((await rest('/campaigns/cmp_failed')).status).toBe('READY_TO_SEND');
    // Accepting starts it.
    await card.getByRole('button', { name: 'Start Failed' }).click();
    await dialog.getByRole('button', { name: 'Start sending' }).click();
    await card.getByRole('button', { name: 'Pause Failed' }).waitFor();
    await expect.poll(async () => (await rest('/campaigns/cmp_failed')).status).toBe('CAMPAIGN_IN_PROGRESS');
  });

  it('names the leads per sender when a campaign has several: pinned leads under their sender, the rest shared', async () => {
    const added = await server.rest('/campaigns/cmp_paused/leads/batch', {
      method: 'POST',
      headers: { 'Idempotency-Key': 'trust-start-per-sender' },
      body: JSON.stringify({
        leads: Array.from({ length: 5 }, (_, i) => ({ networkUrl: `https://www.linkedin.com/in/per-sender-${i}`, firstName: 'Per', lastName: `${i}` })),
      }),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    updateCampaign(server.ctx, 'cmp_paused', { senderAccountIds: ['acc_ada', 'acc_nav'] });
    server.ctx.db.update(leads).set({ accountId: null }).where(eq(leads.campaignId, 'cmp_paused')).run();
    const ids = server.ctx.db
      .select({ id: leads.id })
      .from(leads)
      .where(eq(leads.campaignId, 'cmp_paused'))
      .all()
      .map((r) => r.id)
      .sort();
    // Two leads already fixed on Navigator (as at their first step); the rest have no sender yet.
    server.ctx.db
      .update(leads)
      .set({ accountId: 'acc_nav' })
      .where(inArray(leads.id, ids.slice(0, 2)))
      .run();
    const unpinned = ids.length - 2;

    await page.goto(`${server.url}/app/campaigns/cmp_paused`);
    await page.getByRole('heading', { level: 1, name: 'Paused' }).waitFor();
    await page.getByRole('button', { name: 'Resume Paused' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Resume campaign Paused?' });
    const perSender = dialog.getByRole('list', { name: 'Leads per sender' });
    await perSender.waitFor();
    expect(await perSender.getByRole('listitem').allInnerTexts()).toEqual([
      'Navigator: 2 leads',
      `${unpinned} leads shared among the senders Ada, Navigator (each goes to the sender with the most invitations left that day)`,
    ]);
    await dialog.getByText(`It will send connection requests and messages to its ${ids.length} leads, each sender within its own daily limits:`).waitFor();
    await expectAccessible();
    await page.screenshot({ path: join(shots, 'start-confirm-per-sender.png') });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await rest('/campaigns/cmp_paused')).status).toBe('CAMPAIGN_PAUSED');
  });

  it('connects a simulated account with Sales Navigator', async () => {
    await page.getByRole('link', { name: 'Accounts', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor();
    await page.getByLabel('Account name').fill('Navigator two');
    await page.getByLabel('Has Sales Navigator (simulated account)').check();
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByText('Navigator two is connected.').waitFor();
    const accounts = (await rest('/accounts?limit=100')).accounts as { name: string; hasSalesNavigator: boolean }[];
    expect(accounts.find((a) => a.name === 'Navigator two')?.hasSalesNavigator).toBe(true);
    await expectAccessible();
  });

  it('shows a lead’s own page: profile, sequence with why a step was skipped, conversation', async () => {
    const at = Date.parse('2026-11-02T09:00:00Z');
    const [first, second] = (await rest('/agents/tpl_intro')).steps as [{ id: string }, { id: string }];
    startSequence(server.ctx, { leadId: 'lead_ada1', campaignId: 'cmp_q4', agentId: 'tpl_intro', stepId: second.id, at });
    const skipped = { leadId: 'lead_ada1', campaignId: 'cmp_q4', agentId: 'tpl_intro', stepId: first.id, kind: 'invite', variant: 'A' } as const;
    recordStep(server.ctx, { ...skipped, event: 'skipped', reason: 'already_invited', at });
    // The if and the wait it went through: steps without variants, which the page names without one.
    type Tree = { id: string; kind: string; then?: Tree[]; else?: Tree[] };
    const all = (list: Tree[]): Tree[] => list.flatMap((s) => [s, ...all(s.then ?? []), ...all(s.else ?? [])]);
    const steps = all((await rest('/agents/tpl_intro')).steps as Tree[]);
    const unvaried = steps.filter((s) => s.kind === 'if' || s.kind === 'wait');
    expect(unvaried.map((s) => s.kind).sort()).toEqual(['if', 'wait']);
    unvaried.forEach((s, i) => {
      recordStep(server.ctx, { ...skipped, stepId: s.id, kind: s.kind as 'if' | 'wait', event: 'sent', at: at + 1_000 * (i + 1) });
    });
    const text = 'Thanks for connecting, Ada. How do you test the engines?';
    draftFor(server.ctx, { campaignId: 'cmp_q4', leadId: 'lead_ada1', stepId: second.id, variant: 'A', kind: 'message', accountId: 'acc_ada', text });
    await page.goto(`${server.url}/app/campaigns/cmp_q4`);
    await page.getByRole('link', { name: 'Details of Ada Lovelace' }).click();
    await page.getByRole('heading', { level: 1, name: 'Ada Lovelace' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Profile' }).waitFor();
    await page.getByText('Engines', { exact: true }).waitFor();
    await page.getByText('why: already invited').waitFor();
    await page.getByText(/^At step 2, /).waitFor();
    const events = page.getByRole('list', { name: 'Steps, oldest first' }).getByRole('listitem');
    await expect.poll(() => events.count()).toBe(3);
    const texts = (await events.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(texts[0]).toMatch(/^Skipped · step 1, Invitation · .+ · why: already invited$/);
    expect(texts.filter((t) => /^Sent · step \d+, (If|Wait) · /.test(t))).toHaveLength(2);
    for (const t of texts) expect(t).not.toContain('variant');
    await page.getByText('Thanks for connecting, Ada. How do you test the engines?').waitFor();
    await page.getByRole('heading', { level: 2, name: 'Conversation' }).waitFor();
    await page.screenshot({ path: join(shots, 'lead.png'), fullPage: true });
    await expectAccessible();
  });

  it('keeps a campaign page with its leads table inside a 390 px window: the table scrolls in its own box', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${server.url}/app/campaigns/cmp_q4`);
      await page.getByRole('heading', { level: 1, name: 'Q4' }).waitFor();
      await page.getByRole('link', { name: 'Details of Ada Lovelace' }).waitFor();
      // The table is wider than the window; its hidden labels ("Actions", " of Ada Lovelace") stay in its box.
      const scrolls = `(() => {
        const wrap = [...document.querySelectorAll('.o-table-wrap')].find((w) => w.querySelector('a[href*="/leads/"]'));
        return wrap.scrollWidth > wrap.clientWidth;
      })()`;
      expect(await page.evaluate(scrolls)).toBe(true);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await expectAccessible();
      await page.screenshot({ path: join(shots, 'campaign-390.png'), fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('raised no console error and no CSP violation', () => {
    expect(consoleErrors).toEqual([]);
  });
});
