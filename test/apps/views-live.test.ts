import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitingReaders } from '../../src/core/live/journal.js';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { buildHost, openHostPage, recordMcpRequests, type SentRequest, viewAxeViolations } from './host-page.js';

/**
 * The leads and insights views follow the server's change feed through their host,
 * as the campaigns view does (campaigns-live.test.ts): a change made over REST shows in the
 * open view without a reload, through a fresh call of the tool the view was opened with, and
 * keeping the user's place. While nothing changes, the views read nothing.
 */

const CHROMIUM = '/usr/bin/chromium';
const WAIT = { timeout: 20_000 };

describe.runIf(requireTool('Chromium at /usr/bin/chromium', existsSync(CHROMIUM)))(
  'the leads and insights views refresh from the change feed (Chromium, AppBridge, real server)',
  () => {
    let server: TestServer;
    let browser: Browser;
    let page: Page;
    const sent: SentRequest[] = [];

    const calls = (tool: string, from = 0) => sent.slice(from).filter((m) => m.method === 'tools/call' && m.what === tool).length;
    const frame = (id: string) => page.frameLocator(`iframe[data-view="${id}"]`);
    const open = (id: string, tool: string, args: Record<string, unknown>) =>
      page.evaluate(([i, t, a]) => (globalThis as any).outreachHost.open(i, t, a), [id, tool, args] as const);
    const close = (id: string) => page.evaluate((i) => (globalThis as any).outreachHost.close(i), id);
    const rest = async (method: string, path: string, body: unknown = {}) => {
      const r = await server.rest(path, { method, body: JSON.stringify(body) });
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
      return r.body;
    };
    /**
     * The view reads the changes after a cursor (it follows), and is the server's one waiting
     * reader. Its first answer only says where to start, so the view reads `tool` once again
     * (what the host handed may be older than the cursor): the host's call and that one.
     */
    const following = async (tool: string, start: number, campaignId?: string) => {
      await expect.poll(() => calls(tool, start), WAIT).toBe(2);
      await expect.poll(() => sent.slice(start).some((m) => m.method === 'resources/read' && m.what.includes('after=')), WAIT).toBe(true);
      const uri = sent.slice(start).find((m) => m.what.startsWith('outreach://changes'))?.what ?? '';
      if (campaignId) expect(uri).toContain(`campaignId=${campaignId}`);
      else expect(uri).not.toContain('campaignId=');
      await expect.poll(() => waitingReaders(server.ctx), WAIT).toBe(1);
    };
    /** Nothing is read again while nothing changes: the view has no interval. */
    const quiet = async (tool: string) => {
      const from = sent.length;
      await page.waitForTimeout(2_000);
      expect(calls(tool, from), JSON.stringify(sent)).toBe(0);
      return from;
    };
    const axeViolations = (id: string) => viewAxeViolations(page, id);

    beforeAll(async () => {
      let hostHtml: string;
      [server, hostHtml] = await Promise.all([startTestServer({ limits: RELAXED_LIMITS }), buildHost()]);
      ({ browser, page } = await openHostPage(server.url, hostHtml, { width: 960, height: 1400 }, recordMcpRequests(sent)));
      await page.evaluate(([url, key]) => (globalThis as any).outreachHost.connect(url, key), [`${server.url}/mcp`, TEST_KEY] as const);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    it('leads: a lead added elsewhere shows in the open table, under the filter the user chose', async () => {
      const start = sent.length;
      await open('leads', 'list_leads', { campaignId: 'cmp_paused', limit: 5 });
      const table = frame('leads').getByRole('table');
      await table.waitFor(WAIT);
      await following('list_leads', start, 'cmp_paused');
      // The user narrows the table: leads that have not replied, newest first.
      const show = frame('leads').getByLabel('Show');
      await show.selectOption({ label: 'Not replied' });
      await expect.poll(() => calls('list_leads', start), WAIT).toBe(3);
      const from = await quiet('list_leads');

      await rest('POST', '/campaigns/cmp_paused/leads', {
        networkUrl: 'https://www.linkedin.com/in/leads-live-probe',
        firstName: 'Leadprobe',
        lastName: 'Live',
      });
      await table
        .getByText(/Leadprobe/)
        .first()
        .waitFor(WAIT);
      // Read again with the user's filter, which still holds.
      expect(calls('list_leads', from)).toBeGreaterThanOrEqual(1);
      expect(await show.inputValue()).toBe('replied:false');
      expect(await axeViolations('leads')).toEqual([]);
      await close('leads');
      await expect.poll(() => waitingReaders(server.ctx), WAIT).toBe(0);
    }, 90_000);

    it('insights: a top campaign renamed elsewhere shows under its new name', async () => {
      const overview = (await server.rest('/insights/overview')).body as { topCampaigns?: { id: string; name: string }[] };
      const top = JSON.stringify(overview);
      const start = sent.length;
      await open('insights', 'get_insights_overview', {});
      await frame('insights').getByRole('heading', { name: 'Insights' }).waitFor(WAIT);
      await following('get_insights_overview', start);
      const from = await quiet('get_insights_overview');

      const id = /"(cmp_[a-z0-9_]+)"/.exec(top)?.[1];
      expect(id, top).toBeDefined();
      await rest('PATCH', `/campaigns/${id}`, { name: 'Renamed Live' });
      await frame('insights')
        .getByText(/Renamed Live/)
        .first()
        .waitFor(WAIT);
      expect(calls('get_insights_overview', from)).toBeGreaterThanOrEqual(1);
      expect(await axeViolations('insights')).toEqual([]);
      await close('insights');
      await expect.poll(() => waitingReaders(server.ctx), WAIT).toBe(0);
    }, 90_000);
  },
);
