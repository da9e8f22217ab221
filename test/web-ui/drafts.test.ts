import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { findDraftRow } from '../../src/core/drafts/store.js';
import { updateCampaign } from '../../src/core/campaigns/manage.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { addMember } from '../../src/core/members/members.js';
import { operatorTools } from '../../src/tools/operator/index.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { reviewWorkspace } from '../drafts/helpers.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium, openDashboard, screenshotDir, seriousViolations } from './browser.js';

/** The long URL that made a 390 px card 766 px wide. */
const LONG_URL = `https://example.com/${'a-very-long-path-segment-without-any-space-'.repeat(8)}end`;
const RTL_FIRST = 'مريم';
const RTL_LAST = 'الحسن';
const LONG_HEADLINE = `${'Engineering leader building reliable payment systems for fintechs across Europe. '.repeat(7).slice(0, 493)}THE-END`;

/**
 * The Drafts page in Chromium against the real server: a campaign whose approval is required,
 * with a queue of notes and messages. The operator edits one in place, approves a selection
 * after a confirmation, rejects one with the keyboard (and undoes another), and the server
 * holds exactly that. Then the queue at 390 px with a long URL and a right-to-left lead, two
 * tabs racing over one draft, and "approve all matching" across pages.
 */
describe.runIf(requireTool('Chromium at /usr/bin/chromium', hasChromium))('the Drafts page in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const scratch = mkdtempSync(join(tmpdir(), 'outreach-drafts-ui-'));
  const shots = screenshotDir(join(scratch, 'shots'));
  const consoleErrors: string[] = [];
  const ids: string[] = [];
  /** Whether the server's drafts carry a revision (the server half of issue 34). */
  let revisions = false;
  const bulkApproval = operatorTools.some((t) => t.name === 'preview_approve_drafts');

  const rest = async (path: string) => (await server.rest(path)).body;
  const allDrafts = async (): Promise<any[]> => {
    const out: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await rest(`/drafts?campaignId=cmp_review&limit=100&status=pending${cursor ? `&cursor=${cursor}` : ''}`);
      out.push(...page.drafts);
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  };
  /** A draft as stored (read in process: a REST read per poll would spend the rate limit). */
  const draft = async (n: number) => {
    const row = findDraftRow(server.ctx, ids[n]!);
    if (!row) throw new Error(`draft ${ids[n]} is gone`);
    return row;
  };
  const expectAccessible = async (p: Page = page) => expect(await seriousViolations(p)).toEqual([]);
  const items = (p: Page = page) => p.getByRole('list', { name: 'Drafts, oldest first' }).getByRole('article');
  const isFocused = (p: Page, name: string) => p.getByRole('article', { name }).evaluate((el) => el === el.ownerDocument.activeElement);

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    const ws = reviewWorkspace(40) as any;
    const review = ws.campaigns.find((c: any) => c.id === 'cmp_review');
    // A right-to-left lead with a 500-character headline, whose draft holds one long URL.
    Object.assign(review.leads[5], { firstName: RTL_FIRST, lastName: RTL_LAST, companyName: 'شركة', headline: LONG_HEADLINE });
    server = await startTestServer({ workspace: ws });
    const kinds = ['invite', 'invite', 'message', 'message', 'inmail', 'invite'] as const;
    kinds.forEach((kind, i) => {
      const d = draftFor(server.ctx, {
        campaignId: 'cmp_review',
        leadId: `lead_r${i}`,
        stepId: `stp_${kind}`,
        variant: i % 2 === 0 ? 'A' : 'B',
        kind,
        accountId: 'acc_ada',
        text:
          i === 5
            ? `مرحبا ${RTL_FIRST}, read this first: ${LONG_URL}`
            : kind === 'invite'
              ? `Hi, glad to connect with you (${i}).`
              : `Thanks for connecting. A question about your work (${i}).`,
        subject: kind === 'inmail' ? 'A question' : null,
      });
      ids.push(d.id);
    });
    // A model (or the assistant) rewrote one already: the page shows the template beside it.
    updateDrafts(server.ctx, [{ id: ids[3]!, text: 'Edsger, your note on structured programming is why I write. Could we talk?' }]);
    revisions = typeof (await rest('/drafts?campaignId=cmp_review&limit=1')).drafts[0]?.revision === 'number';
    browser = await launchChromium();
    ({ context, page } = await openDashboard(browser, server, { deviceScaleFactor: 1, errors: consoleErrors, console: true }));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('counts the waiting drafts in the navigation and opens the campaign queue, each lead beside its words', async () => {
    const nav = page.getByRole('link', { name: /^Drafts\W+6 waiting$/ });
    await nav.waitFor();
    await nav.click();
    await page.getByRole('heading', { level: 1, name: 'Drafts' }).waitFor();
    expect(await page.getByLabel('Campaign').locator('option:checked').textContent()).toBe('Review (6 waiting)');
    await expect.poll(() => items().count()).toBe(6);
    const grace = page.getByRole('article', { name: 'Draft for Grace Hopper' });
    await grace.getByText('VP Engineering at Navy Labs').waitFor();
    // The name opens the lead's page; the profile link goes to LinkedIn.
    expect(await grace.getByRole('link', { name: 'Grace Hopper', exact: true }).getAttribute('href')).toBe('/app/leads/cmp_review/lead_r0');
    expect(await grace.getByRole('link', { name: 'LinkedIn profile of Grace Hopper' }).getAttribute('href')).toBe('https://www.linkedin.com/in/grace-hopper-0');
    // The rewritten draft shows the rendered template beside it; the others do not.
    const edsger = page.getByRole('article', { name: 'Draft for Edsger Dijkstra' });
    await edsger.getByRole('figure').getByText('Thanks for connecting. A question about your work (3).').waitFor();
    expect(await grace.getByRole('figure').count()).toBe(0);
    // The shortcuts are written on the page.
    await page.getByText('Keyboard shortcuts').click();
    await page.getByText('approve every selected draft (asks first)').waitFor();
    await expectAccessible();
  });

  it('isolates a right-to-left lead, cuts a 500-character headline, and keeps a long URL inside its card at 390 px', async () => {
    const rtlName = `${RTL_FIRST} ${RTL_LAST}`;
    const card = page.getByRole('article', { name: `Draft for ${rtlName}` });
    // The name sits in a <bdi>, the words in a box whose direction follows its text.
    expect(await card.locator('h3 bdi').first().textContent()).toBe(rtlName);
    expect(await card.getByLabel(`Invitation note for ${rtlName}`).getAttribute('dir')).toBe('auto');
    expect(await card.getByText(/THE-END/).count()).toBe(0);
    await card.getByRole('button', { name: 'Show all' }).waitFor();
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: join(shots, 'drafts-rtl.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => card.evaluate((el) => Math.round(el.getBoundingClientRect().width))).toBeLessThanOrEqual(390);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, 'drafts-390.png') });
    await card.getByRole('button', { name: 'Show all' }).click();
    await card.getByText(/THE-END/).waitFor();
    await expectAccessible();
    await page.setViewportSize({ width: 1280, height: 900 });
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
    // Its own save is no "change under the reviewer".
    expect(await grace.getByText('Changed since you opened it').count()).toBe(0);
    await page.screenshot({ path: join(shots, 'drafts.png') });
  });

  it('approves a selection after a confirmation naming the counts per sender, edited words included', async () => {
    await page.getByRole('checkbox', { name: 'Select Grace Hopper' }).check();
    await page.getByRole('checkbox', { name: 'Select Edsger Dijkstra' }).check();
    await page.getByRole('button', { name: 'Approve selected (2)' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Approve 2 drafts?' });
    await dialog.getByText('2 from Ada').waitFor();
    expect((await draft(0)).status).toBe('pending');
    await expectAccessible();
    await dialog.getByRole('button', { name: 'Approve and send 1 invitation and 1 message' }).click();
    await page.getByText('Approved: 2 of 2.').waitFor();
    expect((await draft(0)).status).toBe('approved');
    expect(await draft(3)).toMatchObject({ status: 'approved', text: 'Edsger, your note on structured programming is why I write. Could we talk?' });
    // They leave the queue; the count in the navigation follows.
    await expect.poll(() => items().count()).toBe(4);
    await page.getByRole('link', { name: /^Drafts\W+4 waiting$/ }).waitFor({ timeout: 20_000 });
    await expectAccessible();
  });

  it('rejects with the keyboard after an Undo window, keeps the focus on the queue, and approves the next with a key', async () => {
    const alan = page.getByRole('article', { name: 'Draft for Alan Turing' });
    await alan.focus();
    await page.keyboard.press('r');
    // The draft leaves the list at once, with Undo; the focus goes to the next draft, not <body>.
    await page.getByText('Rejected the draft for Alan Turing.').waitFor();
    await expect.poll(() => isFocused(page, 'Draft for Katherine Johnson')).toBe(true);
    expect((await draft(1)).status).toBe('pending');
    await page.keyboard.press('u');
    await alan.waitFor();
    await expect.poll(() => isFocused(page, 'Draft for Alan Turing')).toBe(true);
    // Rejected again and left alone, the rejection is sent when the window ends.
    await page.keyboard.press('r');
    await expect.poll(async () => (await draft(1)).status, { timeout: 20_000 }).toBe('rejected');
    await expect.poll(() => items().count()).toBe(3);
    // j moves to the next draft; e opens its text, Esc leaves it; a approves it, and the focus moves on.
    await expect.poll(() => isFocused(page, 'Draft for Katherine Johnson')).toBe(true);
    await page.keyboard.press('j');
    const barbara = page.getByRole('article', { name: 'Draft for Barbara Liskov' });
    await expect.poll(() => isFocused(page, 'Draft for Barbara Liskov')).toBe(true);
    await page.keyboard.press('e');
    await expect.poll(() => barbara.getByLabel('InMail for Barbara Liskov').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('Escape');
    await page.keyboard.press('a');
    await expect.poll(async () => (await draft(4)).status).toBe('approved');
    await expect.poll(() => items().count()).toBe(2);
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName")).toMatch(/^Draft for /);
    await expectAccessible();
  }, 120_000);

  it('shows what was rejected and approved under the other filters, read only', async () => {
    await page.getByLabel('Show').selectOption('rejected');
    const alan = page.getByRole('article', { name: 'Draft for Alan Turing' });
    await alan.getByText('Rejected', { exact: true }).waitFor();
    expect(await alan.getByRole('button', { name: /Approve/ }).count()).toBe(0);
    await expectAccessible();
    await page.getByLabel('Show').selectOption('pending');
    await expect.poll(() => items().count()).toBe(2);
  });

  it('marks a draft another writer changed while the queue is open, and asks for a fresh look', async () => {
    const katherine = page.getByRole('article', { name: 'Draft for Katherine Johnson' });
    updateDrafts(server.ctx, [{ id: ids[2]!, text: 'Katherine, a new version an assistant just wrote.' }]);
    // No reload: the queue reads itself again while it is open.
    await katherine.getByText('Changed since you opened it').waitFor({ timeout: 20_000 });
    expect(await katherine.getByLabel('Message for Katherine Johnson').inputValue()).toBe('Katherine, a new version an assistant just wrote.');
    expect(await katherine.getByRole('button', { name: 'Approve the draft for Katherine Johnson' }).isDisabled()).toBe(true);
    await katherine.getByRole('button', { name: /^I have read the new text/ }).click();
    expect(await katherine.getByRole('button', { name: 'Approve the draft for Katherine Johnson' }).isDisabled()).toBe(false);
    await expectAccessible();
  });

  it('two tabs approve one draft: one approval, and the stale tab shows the conflict with the new text and keeps its words', async (ctx) => {
    if (!revisions) ctx.skip();
    const stale = await context.newPage();
    await stale.goto(`${server.url}/app/drafts`);
    const card = stale.getByRole('article', { name: 'Draft for Katherine Johnson' });
    await card.waitFor();
    // The stale tab reads nothing more from here on: it approves what it showed.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    await stale.route('**/app/api/call', async (route) => {
      if ((route.request().postData() ?? '').includes('"name":"list_drafts"')) await held;
      await route.continue();
    });
    await card.getByLabel('Message for Katherine Johnson').fill('Katherine, my own words from the stale tab.');
    // The fresh tab changes the words and approves them.
    const fresh = page.getByRole('article', { name: 'Draft for Katherine Johnson' });
    await fresh.getByLabel('Message for Katherine Johnson').fill('Katherine, the words the fresh tab approved.');
    await fresh.getByRole('button', { name: 'Approve the draft for Katherine Johnson' }).click();
    await expect.poll(async () => (await draft(2)).status).toBe('approved');
    await card.getByRole('button', { name: 'Approve the draft for Katherine Johnson' }).click();
    await card.getByRole('alert').waitFor();
    await card.getByText('Changed since you opened it').waitFor();
    await card.getByText('Katherine, the words the fresh tab approved.', { exact: true }).waitFor();
    expect(await card.getByLabel('Message for Katherine Johnson').inputValue()).toBe('Katherine, my own words from the stale tab.');
    expect(await draft(2)).toMatchObject({ status: 'approved', text: 'Katherine, the words the fresh tab approved.' });
    await stale.screenshot({ path: join(shots, 'drafts-conflict.png') });
    await expectAccessible(stale);
    release();
    await stale.close();
  });

  it('approves all matching drafts across pages after a confirmation naming the counts per sender and kind', async (ctx) => {
    if (!bulkApproval) ctx.skip();
    for (let i = 10; i < 40; i++) {
      draftFor(server.ctx, {
        campaignId: 'cmp_review',
        leadId: `lead_r${i}`,
        stepId: 'stp_invite',
        variant: 'A',
        kind: 'invite',
        accountId: 'acc_ada',
        text: `Hi (${i}).`,
      });
    }
    const waiting = (await allDrafts()).length;
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Drafts' }).waitFor();
    await expect.poll(() => items().count()).toBe(25);
    await page.getByText('Select all on this page (25)').waitFor();
    await page.getByRole('button', { name: `Approve all ${waiting} matching…` }).click();
    const dialog = page.getByRole('alertdialog', { name: `Approve all ${waiting} waiting drafts of this campaign?` });
    await dialog.getByText(`${waiting} from Ada`).waitFor();
    await page.screenshot({ path: join(shots, 'drafts-approve-all.png') });
    await expectAccessible();
    await dialog.getByRole('button', { name: /^Approve and send \d+ invitations?/ }).click();
    await page.getByText(`Approved ${waiting}.`).waitFor();
    expect(await allDrafts()).toEqual([]);
    await page.getByText('Nothing waits for approval here.').waitFor();
  });

  it('says nothing waits when the queues are empty, and mentions turning approval on only where it is off, to a role that may', async () => {
    const left = await allDrafts();
    if (left.length > 0)
      updateDrafts(
        server.ctx,
        left.map((d) => ({ id: d.id, status: 'rejected' as const })),
      );
    const NOTHING = 'Nothing waits for approval now: drafts appear here as leads reach steps that need approval.';
    const empty = (p: Page) => p.locator('p').filter({ hasText: /^Nothing waits for approval now/ });
    const campaign = (p: Page) => p.getByLabel('Campaign', { exact: true });
    await page.goto(`${server.url}/app/drafts`);
    await page.getByRole('heading', { level: 1, name: 'Drafts' }).waitFor();
    // Review requires approval: nothing waits now, and there is nothing to turn on.
    await campaign(page).selectOption({ label: 'Review' });
    await expect.poll(async () => (await empty(page).textContent())?.trim()).toBe(NOTHING);
    expect(await page.getByText('Require approval before anything is sent').count()).toBe(0);
    await expectAccessible();
    // Q4 sends without approval: the owner, who may change its settings, is told where to turn it on.
    await campaign(page).selectOption({ label: 'Q4' });
    await empty(page).getByText('This campaign sends without approval').waitFor();
    expect(await empty(page).getByRole('link', { name: 'its settings' }).getAttribute('href')).toBe('/app/campaigns/cmp_q4');
    await expectAccessible();
    // A reviewer cannot change a campaign's settings: told only that nothing waits, whichever campaign.
    const reviewer = addMember(server.ctx, { name: 'Rita Reviewer', email: 'rita-drafts@example.com', role: 'reviewer' });
    const { context: theirs, page: theirPage } = await openDashboard(browser, server, { memberId: reviewer.id, home: 'Drafts' });
    try {
      await campaign(theirPage).selectOption({ label: 'Q4' });
      await expect.poll(async () => (await empty(theirPage).textContent())?.trim()).toBe(NOTHING);
      await campaign(theirPage).selectOption({ label: 'Review' });
      expect((await empty(theirPage).textContent())?.trim()).toBe(NOTHING);
    } finally {
      await theirs.close();
    }
    // No campaign requires approval any more: the owner is told to turn it on in a campaign's settings.
    updateCampaign(server.ctx, 'cmp_review', { approval: 'off' });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Drafts' }).waitFor();
    await empty(page).getByText('No campaign requires approval', { exact: false }).waitFor();
    await expectAccessible();
  });

  it('raised no console error and no CSP violation', () => {
    expect(consoleErrors).toEqual([]);
  });
});
