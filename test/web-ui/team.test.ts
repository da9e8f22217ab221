import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/core/members/members.js';
import type { Role } from '../../src/core/members/roles.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium, openDashboard, seriousViolations } from './browser.js';

/** What each role finds in the menu, and the heading it lands on. */
const MENU: Record<Role, { home: string; menu: string[] }> = {
  owner: {
    home: 'Overview',
    menu: [
      'Overview',
      'Campaigns',
      'Drafts',
      'Agents',
      'Inbox',
      'Accounts',
      'Mailboxes',
      'Import leads',
      'Exclusions',
      'Activity',
      'Webhooks',
      'API keys',
      'Members',
      'Audit',
      'CRM',
      'Settings',
    ],
  },
  admin: {
    home: 'Overview',
    menu: [
      'Overview',
      'Campaigns',
      'Drafts',
      'Agents',
      'Inbox',
      'Accounts',
      'Mailboxes',
      'Import leads',
      'Exclusions',
      'Activity',
      'Webhooks',
      'API keys',
      'Audit',
      'CRM',
      'Settings',
    ],
  },
  operator: {
    home: 'Overview',
    menu: [
      'Overview',
      'Campaigns',
      'Drafts',
      'Agents',
      'Inbox',
      'Accounts',
      'Mailboxes',
      'Import leads',
      'Exclusions',
      'Activity',
      'Webhooks',
      'API keys',
      'CRM',
      'Settings',
    ],
  },
  reviewer: { home: 'Drafts', menu: ['Drafts', 'Inbox'] },
  viewer: {
    home: 'Overview',
    menu: ['Overview', 'Campaigns', 'Drafts', 'Agents', 'Inbox', 'Accounts', 'Mailboxes', 'Exclusions', 'Activity', 'Webhooks', 'API keys', 'CRM', 'Settings'],
  },
};

/** A call each role may not make, made from its own signed-in page, as a hand-written fetch would. */
const FORBIDDEN: Record<Exclude<Role, 'owner'>, { name: string; arguments: Record<string, unknown> }> = {
  admin: { name: 'add_member', arguments: { name: 'Mallory', email: 'mallory@example.com', role: 'admin' } },
  operator: { name: 'revoke_api_key', arguments: { keyId: 'key_any' } },
  reviewer: { name: 'start_campaign', arguments: { campaignId: 'cmp_q4' } },
  viewer: { name: 'pause_campaign', arguments: { campaignId: 'cmp_running' } },
};

describe.runIf(requireTool('Chromium at /usr/bin/chromium', hasChromium))('each role in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  const ids = {} as Record<Role, string>;

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    server = await startTestServer();
    ids.owner = addMember(server.ctx, { name: 'Olga Owner', email: 'olga@example.com' }).id;
    for (const role of ['admin', 'operator', 'reviewer', 'viewer'] as const) {
      ids[role] = addMember(server.ctx, { name: `Pat ${role}`, email: `${role}@example.com`, role }).id;
    }
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signIn(role: Role): Promise<{ context: BrowserContext; page: Page }> {
    return openDashboard(browser, server, { memberId: ids[role], home: MENU[role].home });
  }

  /** A call made from the page's own origin with its session cookie: what a curious member could type in the console. */
  const callFromPage = (page: Page, body: unknown) =>
    page.evaluate(
      `fetch('/app/api/call', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(JSON.stringify(body))} })
        .then(async (r) => ({ status: r.status, body: await r.json() }))`,
    ) as Promise<{ status: number; body: { error?: { code: string; details: Record<string, unknown> } } }>;

  for (const role of Object.keys(MENU) as Role[]) {
    it(`${role}: the menu shows what the role may use, and the server refuses the rest when called directly`, async () => {
      const { context, page } = await signIn(role);
      try {
        const nav = page.getByRole('navigation', { name: 'Dashboard' });
        expect(await nav.getByRole('link').allInnerTexts()).toEqual(MENU[role].menu);
        await nav.getByText(`Pat ${role}`).or(nav.getByText('Olga Owner')).first().waitFor();
        expect(await seriousViolations(page)).toEqual([]);
        if (role === 'owner') return;
        const refused = await callFromPage(page, FORBIDDEN[role]);
        expect(refused.status).toBe(403);
        expect(refused.body.error).toMatchObject({ code: 'forbidden', details: { role, tool: FORBIDDEN[role].name } });
        if (role !== 'reviewer') {
          // A page outside the role says so instead of failing.
          await page.goto(`${server.url}/app/members`);
          await page.getByRole('heading', { level: 1, name: 'Not available to your role' }).waitFor();
        }
      } finally {
        await context.close();
      }
    });
  }

  it('the owner adds a member, changes the role, disables and enables them on the Members page; the Audit page shows each step', async () => {
    const { context, page } = await signIn('owner');
    try {
      await page.getByRole('link', { name: 'Members', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
      const form = page.getByRole('form', { name: 'Add a member' });
      await form.getByLabel('Name').fill('Rita Reviewer');
      await form.getByLabel('Email').fill('rita@example.com');
      await form.getByLabel('Role').selectOption('reviewer');
      await form.getByRole('button', { name: 'Add member' }).click();
      await form
        .getByRole('status')
        .getByText(/outreach login --member usr_/)
        .waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      const rita = server.ctx.db.$client.prepare("SELECT id FROM members WHERE email = 'rita@example.com'").pluck().get() as string;
      await page.getByLabel('Role of Rita Reviewer').selectOption('viewer');
      await expect.poll(() => server.ctx.db.$client.prepare('SELECT role FROM members WHERE id = ?').pluck().get(rita)).toBe('viewer');
      await page.getByRole('button', { name: 'Disable Rita Reviewer' }).click();
      await page.getByRole('alertdialog', { name: 'Disable Rita Reviewer?' }).getByRole('button', { name: 'Disable' }).click();
      await expect.poll(() => server.ctx.db.$client.prepare('SELECT disabled_at FROM members WHERE id = ?').pluck().get(rita)).not.toBeNull();
      // Enabled again: a new login link is needed, and the page says so.
      await page.getByRole('button', { name: 'Enable Rita Reviewer' }).click();
      await page.getByRole('table', { name: 'Members' }).getByRole('status').getByText(`outreach login --member ${rita}`).waitFor();
      expect(server.ctx.db.$client.prepare('SELECT disabled_at FROM members WHERE id = ?').pluck().get(rita)).toBeNull();
      await page.getByRole('button', { name: 'Disable Rita Reviewer' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByRole('link', { name: 'Audit', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
      const filters = page.getByRole('form', { name: 'Filters' });
      await filters.getByLabel('Target id').fill(rita);
      await filters.getByRole('button', { name: 'Apply filters' }).click();
      const rows = page.getByRole('table', { name: 'Audit events' }).getByRole('row');
      await expect.poll(async () => (await rows.allInnerTexts()).length).toBe(5);
      const text = (await rows.allInnerTexts()).join('\n');
      for (const action of ['enable_member', 'disable_member', 'update_member', 'add_member']) expect(text).toContain(action);
      expect(text).toContain('Olga Owner');
      expect(await seriousViolations(page)).toEqual([]);

      const download = page.waitForEvent('download');
      await filters.getByRole('button', { name: 'Export CSV' }).click();
      const csv = await (await download).createReadStream();
      let body = '';
      for await (const chunk of csv) body += chunk.toString();
      const lines = body.trim().split('\r\n');
      expect(lines[0]).toBe('"at","actorType","actorId","actorName","action","targetIds","summary"');
      expect(lines.length).toBe(5);
      expect(lines.slice(1).every((l) => l.includes(`"${ids.owner}"`) && l.includes(rita))).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('the Members page fits a 390 px window: the role select stays in its card, and the table scrolls in its own box with each email on one line', async () => {
    const { context, page } = await signIn('owner');
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('link', { name: 'Members', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
      const table = page.getByRole('table', { name: 'Members' });
      await table.getByRole('cell', { name: 'operator@example.com' }).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      const box = (l: Locator) => l.evaluate((el) => el.getBoundingClientRect().toJSON() as { left: number; right: number; height: number });
      const form = page.getByRole('form', { name: 'Add a member' });
      const [card, role] = [await box(form), await box(form.getByLabel('Role'))];
      expect(role.right).toBeLessThanOrEqual(card.right);
      expect(card.right).toBeLessThanOrEqual(390);
      // An address reads on one line (not a letter per line): its text makes one line box.
      const email = table.getByRole('cell', { name: 'operator@example.com' });
      const lines = await email.evaluate((el) => {
        const range = el.ownerDocument.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((r: { top: number }) => Math.round(r.top))).size;
      });
      expect(lines).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
