import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoginToken } from '../../src/core/auth/sessions.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { reviewWorkspace } from '../drafts/helpers.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium, screenshotDir, seriousViolations } from './browser.js';

/**
 * The Drafts page in Chromium against the real server: a campaign whose approval is required,
 * with a queue of notes and messages. The operator edits one in place, approves a selection,
 * rejects one with the keyboard, and the server holds exactly that.
 */
describe.runIf(requireTool('Chromium at /usr/bin/chromium', hasChromium))('the Drafts page in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const scratch = mkdtempSync(join(tmpdir(), 'outreach-drafts-ui-'));
  const shots = screenshotDir(join(scratch, 'shots'));
  const consoleErrors: string[] = [];
  const ids: string[] = [];

  const rest = async (path: string) => (await server.rest(path)).body;
  const draft = async (n: number) => (await rest('/drafts?campaignId=cmp_review&limit=100')).drafts.find((d: any) => d.id === ids[n]);
  const expectAccessible = async () => expect(await seriousViolations(page)).toEqual([]);

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    server = await startTestServer({ workspace: reviewWorkspace(5) });
    const kinds = ['invite', 'invite', 'message', 'message', 'inmail'] as const;
    kinds.forEach((kind, i) => {
      const d = draftFor(server.ctx, {
        campaignId: 'cmp_review',
        leadId: `lead_r${i}`,
        stepId: `stp_${kind}`,
        variant: i % 2 === 0 ? 'A' : 'B',
        kind,
        accountId: 'acc_ada',
        text: kind === 'invite' ? `Hi, glad to connect with you (${i}).` : `Thanks for connecting. A question about your work (${i}).`,
        subject: kind === 'inmail' ? 'A question' : null,
      });
      ids.push(d.id);
    });
    // A model (or the assistant) rewrote one already: the page shows the template beside it.
    updateDrafts(server.ctx, [{ id: ids[3]!, text: 'Edsger, your note on structured programming is why I write. Could we talk?' }]);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(err.message));
    const { token } = createLoginToken(server.ctx);
    await page.goto(`${server.url}/app/login?token=${token}`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('counts the waiting drafts in the navigation and opens the campaign queue, each lead beside its words', async () => {
    const nav = page.getByRole('link', { name: /^Drafts\W+5 waiting$/ });
    await nav.waitFor();
    await nav.click();
    await page.getByRole('heading', { level: 1, name: 'Drafts' }).waitFor();
    expect(await page.getByLabel('Campaign').locator('option:checked').textContent()).toBe('Review (5 waiting)');
    const items = page.getByRole('list', { name: 'Drafts, oldest first' }).getByRole('article');
    await expect.poll(() => items.count()).toBe(5);
    const grace = page.getByRole('article', { name: 'Draft for Grace Hopper' });
    await grace.getByText('VP Engineering at Navy Labs').waitFor();
    expect(await grace.getByRole('link', { name: 'Grace Hopper' }).getAttribute('href')).toBe('https://www.linkedin.com/in/grace-hopper-0');
    // The rewritten draft shows the rendered template beside it; the others do not.
    const edsger = page.getByRole('article', { name: 'Draft for Edsger Dijkstra' });
    await edsger.getByRole('figure').getByText('Thanks for connecting. A question about your work (3).').waitFor();
    expect(await grace.getByRole('figure').count()).toBe(0);
    // The shortcuts are written on the page.
    await page.getByText('Keyboard shortcuts').click();
    await page.getByText('approve every selected draft').waitFor();
    await expectAccessible();
  });

  it('edits a note in place, and saves exactly those words', async () => {
    const grace = page.getByRole('article', { name: 'Draft for Grace Hopper' });
    const text = grace.getByLabel('Invitation note for Grace Hopper');
    await text.fill('Grace, your compiler work changed how we build software. Glad to connect!');
    await grace.getByText('73 of 300 characters').waitFor();
    // The template appears beside the edit as soon as the words differ from it.
    await grace.getByRole('figure').getByText('Hi, glad to connect with you (0).').waitFor();
    await grace.getByRole('button', { name: 'Save the draft for Grace Hopper' }).click();
    await expect.poll(async () => (await draft(0)).text).toBe('Grace, your compiler work changed how we build software. Glad to connect!');
    expect((await draft(0)).status).toBe('pending');
    // Over the note's limit, approving is refused before anything is sent.
    await text.fill('x'.repeat(301));
    await grace.getByText('301 of 300 characters').waitFor();
    expect(await grace.getByRole('button', { name: 'Approve the draft for Grace Hopper' }).isDisabled()).toBe(true);
    await text.fill('Grace, your compiler work changed how we build software. Glad to connect!');
    await page.screenshot({ path: join(shots, 'drafts.png') });
  });

  it('approves a selection, edited words included', async () => {
    await page.getByRole('checkbox', { name: 'Select Grace Hopper' }).check();
    await page.getByRole('checkbox', { name: 'Select Edsger Dijkstra' }).check();
    await page.getByRole('button', { name: 'Approve selected (2)' }).click();
    await page.getByText('Approved: 2 of 2.').waitFor();
    expect((await draft(0)).status).toBe('approved');
    expect(await draft(3)).toMatchObject({ status: 'approved', text: 'Edsger, your note on structured programming is why I write. Could we talk?' });
    // They leave the queue; the count in the navigation follows.
    const items = page.getByRole('list', { name: 'Drafts, oldest first' }).getByRole('article');
    await expect.poll(() => items.count()).toBe(3);
    await page.getByRole('link', { name: /^Drafts\W+3 waiting$/ }).waitFor({ timeout: 20_000 });
    await expectAccessible();
  });

  it('rejects a draft with the keyboard, and approves the next with a key', async () => {
    const alan = page.getByRole('article', { name: 'Draft for Alan Turing' });
    await alan.focus();
    await page.keyboard.press('r');
    await expect.poll(async () => (await draft(1)).status).toBe('rejected');
    const items = page.getByRole('list', { name: 'Drafts, oldest first' }).getByRole('article');
    await expect.poll(() => items.count()).toBe(2);
    // j moves to the next draft; e opens its text, Esc leaves it; a approves it.
    const first = items.first();
    await first.focus();
    await page.keyboard.press('j');
    const barbara = page.getByRole('article', { name: 'Draft for Barbara Liskov' });
    await expect.poll(() => barbara.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('e');
    await expect.poll(() => barbara.getByLabel('InMail for Barbara Liskov').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('Escape');
    await page.keyboard.press('a');
    await expect.poll(async () => (await draft(4)).status).toBe('approved');
    await expect.poll(() => items.count()).toBe(1);
    await expectAccessible();
  });

  it('shows what was rejected and approved under the other filters, read only', async () => {
    await page.getByLabel('Show').selectOption('rejected');
    const alan = page.getByRole('article', { name: 'Draft for Alan Turing' });
    await alan.getByText('Rejected', { exact: true }).waitFor();
    expect(await alan.getByRole('button', { name: /Approve/ }).count()).toBe(0);
    await expectAccessible();
    await page.getByLabel('Show').selectOption('pending');
  });

  it('raised no console error and no CSP violation', () => {
    expect(consoleErrors).toEqual([]);
  });
});
