import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { addMember } from '../../src/core/members/members.js';
import type { Role } from '../../src/core/members/roles.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { noteFor, reviewWorkspace } from '../drafts/helpers.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium, openDashboard, seriousViolations } from './browser.js';

/**
 * Pages hide what a role cannot do (the server refuses it anyway, see team.test.ts): a viewer
 * sees no write button, a reviewer only the draft and inbox actions, an operator no member or
 * key administration. The owner, on the same pages, sees them all: the hiding is the role's.
 */
describe.runIf(requireTool('Chromium at /usr/bin/chromium', hasChromium))('each role sees only the actions it may take', () => {
  let server: TestServer;
  let browser: Browser;
  const ids = {} as Record<Role, string>;
  const HOME: Record<Role, string> = { owner: 'Overview', admin: 'Overview', operator: 'Overview', reviewer: 'Drafts', viewer: 'Overview' };

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    server = await startTestServer({ workspace: reviewWorkspace(2) });
    draftFor(server.ctx, noteFor('lead_r0'));
    draftFor(server.ctx, noteFor('lead_r1'));
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

  /** Signs in as `role`, runs `check`, and closes the context whatever happens. */
  async function as(role: Role, check: (page: Page) => Promise<void>): Promise<void> {
    const { context, page } = await openDashboard(browser, server, { memberId: ids[role], home: HOME[role] });
    try {
      await check(page);
    } finally {
      await context.close();
    }
  }

  const open = async (page: Page, path: string, heading: string | RegExp) => {
    await page.goto(`${server.url}/app${path}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };
  const count = (page: Page, name: string | RegExp) => page.getByRole('button', { name }).count();
  const expectAccessible = async (page: Page) => expect(await seriousViolations(page)).toEqual([]);

  it('owner: every action is there (the control for the hiding below)', async () => {
    await as('owner', async (page) => {
      await open(page, '/keys', 'API keys');
      await page.getByRole('button', { name: 'Create key' }).waitFor();
      await open(page, '/webhooks', 'Webhooks');
      await page.getByRole('button', { name: 'Add endpoint' }).waitFor();
      await page.getByRole('button', { name: 'Rotate the signing secret' }).waitFor();
      await open(page, '/campaigns', 'Campaigns');
      await page.getByRole('button', { name: 'Create campaign' }).waitFor();
      await open(page, '/drafts', 'Drafts');
      await page
        .getByRole('button', { name: /^Approve the draft for/ })
        .first()
        .waitFor();
      await open(page, '/members', 'Members');
      await page.getByRole('button', { name: 'Add member' }).waitFor();
    });
  });

  it('viewer: reads the pages with no write button on them', async () => {
    await as('viewer', async (page) => {
      await open(page, '/campaigns', 'Campaigns');
      await page.getByRole('table', { name: 'Campaigns' }).waitFor();
      expect(await count(page, 'Create campaign')).toBe(0);
      await expectAccessible(page);

      await open(page, '/campaigns/cmp_running', /.+/);
      await page.getByRole('heading', { level: 2, name: 'Status and funnel' }).waitFor();
      expect(await count(page, /^(Pause|Start|Resume) /)).toBe(0);
      expect(await count(page, 'Save senders')).toBe(0);
      expect(await page.getByRole('form').count()).toBe(0);

      await open(page, '/drafts', 'Drafts');
      await page.getByText('Hi there, lead_r0').first().waitFor();
      expect(await count(page, /^(Approve|Reject|Save)\b/)).toBe(0);
      await expectAccessible(page);

      await open(page, '/webhooks', 'Webhooks');
      await page.getByRole('heading', { level: 2, name: 'Delivery log' }).waitFor();
      expect(await count(page, /Add endpoint|Rotate the signing secret|^Remove |^Disable |^Enable /)).toBe(0);

      await open(page, '/keys', 'API keys');
      await page.getByRole('table', { name: 'API keys' }).waitFor();
      expect(await count(page, /Create key|^Revoke /)).toBe(0);
      await expectAccessible(page);
    });
  });

  it('reviewer: approves and rejects drafts and marks threads done, and sees no reply box', async () => {
    await as('reviewer', async (page) => {
      await page
        .getByRole('button', { name: /^Approve the draft for/ })
        .first()
        .waitFor();
      expect(await count(page, /^Reject the draft for/)).toBeGreaterThan(0);
      await expectAccessible(page);

      await open(page, '/inbox/lead_ada1', 'Inbox');
      await page.getByRole('button', { name: 'Mark done' }).waitFor();
      expect(await count(page, 'Send reply')).toBe(0);
      expect(await page.getByLabel('Your reply').count()).toBe(0);
      // No link to a page the role cannot open: the campaign is named, the lead page is not offered.
      expect(await page.getByRole('link', { name: 'Lead page' }).count()).toBe(0);
      await page.getByText('Campaign: Q4').waitFor();
      expect(await page.getByRole('link', { name: 'Q4', exact: true }).count()).toBe(0);
      await expectAccessible(page);
    });
  });

  it('operator: runs campaigns, but administers no key, webhook or member', async () => {
    await as('operator', async (page) => {
      await open(page, '/campaigns', 'Campaigns');
      await page.getByRole('button', { name: 'Create campaign' }).waitFor();

      await open(page, '/keys', 'API keys');
      await page.getByRole('table', { name: 'API keys' }).waitFor();
      expect(await count(page, /Create key|^Revoke /)).toBe(0);
      await expectAccessible(page);

      await open(page, '/webhooks', 'Webhooks');
      await page.getByRole('heading', { level: 2, name: 'Delivery log' }).waitFor();
      expect(await count(page, /Add endpoint|Rotate the signing secret/)).toBe(0);

      await open(page, '/members', 'Not available to your role');
      expect(await count(page, /Add member|^Disable |^Enable /)).toBe(0);
      await expectAccessible(page);
    });
  });
});
