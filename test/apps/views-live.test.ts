import { existsSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { recordActivity } from '../../src/core/activity/record.js';
import { waitingReaders } from '../../src/core/live/journal.js';
import { leads } from '../../src/db/schema.js';
import { requireTool } from '../optional.js';
import { CHROMIUM, liveHost, WAIT } from './host-page.js';

/**
 * The leads, insights and activity views follow the server's change feed through their host,
 * as the campaigns view does (campaigns-live.test.ts): a change made over REST shows in the
 * open view without a reload, through a fresh call of the tool the view was opened with, and
 * the user's place holds: the leads page they went to while a re-read was on its way, the older
 * events they loaded. While nothing changes, the views read nothing. Every wait is on something
 * observable (a request sent, a row shown, the table no longer busy), never on time alone.
 */

describe.runIf(requireTool('Chromium at /usr/bin/chromium', existsSync(CHROMIUM)))(
  'the leads, insights and activity views refresh from the change feed (Chromium, AppBridge, real server)',
  () => {
    const live = liveHost('');
    const { sent, calls, frame, open, close, axe } = live;
    const rest = async (method: string, path: string, body: unknown = {}) => {
      const r = await live.server.rest(path, { method, body: JSON.stringify(body) });
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
      return r.body;
    };
    const addLead = (campaignId: string, firstName: string) =>
      rest('POST', `/campaigns/${campaignId}/leads`, {
        networkUrl: `https://www.linkedin.com/in/live-${firstName.toLowerCase()}`,
        firstName,
        lastName: 'Live',
      });
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
      await expect.poll(() => waitingReaders(live.server.ctx), WAIT).toBe(1);
    };
    /**
     * Nothing is read again while nothing changes (the views have no interval). Proving a
     * negative takes a span of time: this is the one wait that is not on an event.
     */
    const quiet = async (tool: string) => {
      const from = sent.length;
      await live.page.waitForTimeout(2_000);
      expect(calls(tool, from), JSON.stringify(sent)).toBe(0);
    };

    it('leads: a lead added elsewhere shows under the filter the user chose', async () => {
      await addLead('cmp_paused', 'Leadfirst');
      const start = sent.length;
      await open('leads', 'list_leads', { campaignId: 'cmp_paused', limit: 5 });
      const table = frame('leads').getByRole('table');
      await table.waitFor(WAIT);
      await following('list_leads', start, 'cmp_paused');
      // The user narrows the table: leads that have not replied.
      const show = frame('leads').getByLabel('Show');
      await show.selectOption({ label: 'Not replied' });
      await expect.poll(() => calls('list_leads', start), WAIT).toBe(3);
      await quiet('list_leads');

      const from = sent.length;
      await addLead('cmp_paused', 'Leadprobe');
      await table.getByText(/Leadprobe/).waitFor(WAIT);
      // Read again with the user's filter, which still holds.
      expect(calls('list_leads', from)).toBeGreaterThanOrEqual(1);
      expect(await show.inputValue()).toBe('replied:false');
      expect(await axe('leads')).toEqual([]);
      await close('leads');
      await expect.poll(() => waitingReaders(live.server.ctx), WAIT).toBe(0);
    }, 90_000);

    it('leads: the next page the user asks for while a re-read of the page shown is on its way stays shown', async () => {
      // Three leads, two a page (newest first): the first page holds the two newest.
      for (const name of ['Pagea', 'Pageb', 'Pagec']) await addLead('cmp_running', name);
      const start = sent.length;
      await open('paging', 'list_leads', { campaignId: 'cmp_running', limit: 2 });
      const view = frame('paging');
      const table = view.getByRole('table');
      const rows = view.locator('tbody tr');
      await expect.poll(() => rows.count(), WAIT).toBe(2);
      await following('list_leads', start, 'cmp_running');
      await expect.poll(() => table.getAttribute('aria-busy'), WAIT).toBe('false');

      // The host holds the view's next list_leads call until the test lets it go.
      let armed = true;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let held: Request | null = null;
      const mcp = (url: URL) => url.pathname === '/mcp';
      await live.page.route(mcp, async (route) => {
        const body = route.request().postData();
        const message = body ? (JSON.parse(body) as { method?: string; params?: { name?: string } }) : null;
        if (armed && message?.method === 'tools/call' && message.params?.name === 'list_leads') {
          armed = false;
          held = route.request();
          await gate;
        }
        await route.continue();
      });
      try {
        // A lead added elsewhere: the view reads its first page again, and that read is held.
        await addLead('cmp_running', 'Paged');
        await expect.poll(() => held !== null, WAIT).toBe(true);
        const heldRead = held as unknown as Request;
        expect(JSON.parse(heldRead.postData() ?? '{}').params.arguments.cursor).toBeUndefined();

        // The user goes to the next page meanwhile: the re-read in flight does not hold the button.
        const next = view.getByRole('button', { name: 'Next page' });
        await expect.poll(() => next.isEnabled(), WAIT).toBe(true);
        await next.click();
        await view.getByRole('table', { name: /page 2/ }).waitFor(WAIT);
        await expect.poll(() => rows.count(), WAIT).toBe(1);
        await rows.getByText(/Pagea/).waitFor(WAIT);

        // The held re-read of the first page answers now, after the user moved on.
        const finished = live.page.waitForEvent('requestfinished', { predicate: (r) => r === heldRead, ...WAIT });
        release();
        await finished;
        // One more change, so the view reads the page it shows again and its answer lands after
        // the held one: the table is busy with it, then is not.
        const before = calls('list_leads');
        await addLead('cmp_running', 'Pagee');
        await expect.poll(() => calls('list_leads') > before, WAIT).toBe(true);
        await expect.poll(() => table.getAttribute('aria-busy'), WAIT).toBe('false');
        // Still the second page: its one lead, the oldest.
        expect(await view.getByRole('table', { name: /page 2/ }).count()).toBe(1);
        expect(await rows.count()).toBe(1);
        expect(await rows.first().textContent()).toContain('Pagea');
        expect(await view.getByText('Page 2', { exact: true }).count()).toBe(1);

        // Back on the first page, the two newest leads, both added while the view was open.
        await view.getByRole('button', { name: 'Previous page' }).click();
        await view.getByRole('table', { name: /page 1/ }).waitFor(WAIT);
        await rows.getByText(/Pagee/).waitFor(WAIT);
        await rows.getByText(/Paged/).waitFor(WAIT);
        expect(await rows.count()).toBe(2);
        expect(await axe('paging')).toEqual([]);
      } finally {
        release();
        await live.page.unroute(mcp);
      }
      await close('paging');
      await expect.poll(() => waitingReaders(live.server.ctx), WAIT).toBe(0);
    }, 90_000);

    it('insights: a top campaign renamed elsewhere shows under its new name', async () => {
      const overview = (await live.server.rest('/insights/overview')).body as { topCampaigns?: { id: string; name: string }[] };
      const top = JSON.stringify(overview);
      const start = sent.length;
      await open('insights', 'get_insights_overview', {});
      await frame('insights').getByRole('heading', { name: 'Insights' }).waitFor(WAIT);
      await following('get_insights_overview', start);
      await quiet('get_insights_overview');

      const from = sent.length;
      const id = /"(cmp_[a-z0-9_]+)"/.exec(top)?.[1];
      expect(id, top).toBeDefined();
      await rest('PATCH', `/campaigns/${id}`, { name: 'Renamed Live' });
      await frame('insights')
        .getByText(/Renamed Live/)
        .first()
        .waitFor(WAIT);
      expect(calls('get_insights_overview', from)).toBeGreaterThanOrEqual(1);
      expect(await axe('insights')).toEqual([]);
      await close('insights');
      await expect.poll(() => waitingReaders(live.server.ctx), WAIT).toBe(0);
    }, 90_000);

    it('activity: an event recorded elsewhere goes on top, and the older events loaded and still to load are each shown once', async () => {
      // Setup, before the view opens: four events after the fixture's one (a reply), and the
      // lead who replied marked so on her row, so a message to her hands the conversation off.
      const db = live.server.ctx.db;
      db.update(leads).set({ replied: true }).where(eq(leads.id, 'lead_ada1')).run();
      const ada = db.select().from(leads).where(eq(leads.id, 'lead_ada1')).get()!;
      const types = ['connection_request_sent', 'connection_accepted', 'message_sent', 'message_sent'] as const;
      types.forEach((type, i) => {
        recordActivity(live.server.ctx, { type, at: Date.parse('2026-11-10T09:00:00Z') + i * 3_600_000, lead: ada, text: `Step ${i + 1}`, accountId: null });
      });
      const listed = async () => ((await live.server.rest('/activity?limit=50')).body as { events: { timestamp: string }[] }).events.map((e) => e.timestamp);
      expect(await listed()).toHaveLength(5);

      const start = sent.length;
      await open('activity', 'get_recent_activity', { limit: 2 });
      const view = frame('activity');
      const times = view.getByRole('list', { name: 'Recent activity' }).locator('time');
      const shownTimes = () => times.evaluateAll((els) => els.map((e) => e.getAttribute('datetime')));
      await expect.poll(() => times.count(), WAIT).toBe(2);
      await following('get_recent_activity', start);
      // The user loads the next older page: four events of five.
      const older = view.getByRole('button', { name: 'Older events' });
      await older.click();
      await expect.poll(() => times.count(), WAIT).toBe(4);
      await quiet('get_recent_activity');

      // A person answers Ada over REST: the conversation is handed off to them, an event on top.
      await rest('POST', '/inbox/messages', { campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Thanks, here is the deck.' });
      const all = await listed();
      expect(all).toHaveLength(6);
      await expect.poll(() => times.count(), WAIT).toBe(5);
      await expect.poll(() => view.getByRole('listitem').first().textContent(), WAIT).toContain('Handed off to you');
      // The four shown before are all still there, under it: none lost at a page boundary.
      expect(await shownTimes()).toEqual(all.slice(0, 5));

      // The next older page goes on from the oldest event shown: the last one, once.
      await older.click();
      await expect.poll(() => times.count(), WAIT).toBe(6);
      expect(await shownTimes()).toEqual(all);
      await expect.poll(() => older.count(), WAIT).toBe(0);
      expect(await axe('activity')).toEqual([]);
      await close('activity');
      await expect.poll(() => waitingReaders(live.server.ctx), WAIT).toBe(0);
    }, 90_000);
  },
);
