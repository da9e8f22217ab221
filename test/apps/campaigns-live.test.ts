import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { waitingReaders } from '../../src/core/live/journal.js';
import { requireTool } from '../optional.js';
import { CHROMIUM, liveHost, WAIT } from './host-page.js';

/**
 * The campaigns view follows the server's change feed through its host, as the drafts view does
 * (drafts-live.test.ts): a campaign started, paused or given leads elsewhere shows on its open
 * card without a reload, through a fresh call of the tool the view was opened with, keeping the
 * pages loaded and the step funnels opened. It never polled, and it does not start to.
 */

describe.runIf(requireTool('Chromium at /usr/bin/chromium', existsSync(CHROMIUM)))(
  'the campaigns view refreshes from the change feed (Chromium, AppBridge, real server)',
  () => {
    const live = liveHost('?toolsets=manage');
    const { sent, calls, frame, open, close, axe } = live;
    const card = (id: string, name: string) => frame(id).getByRole('article', { name: `Campaign ${name}` });
    const post = async (path: string, body: unknown = {}) => {
      const r = await live.server.rest(path, { method: 'POST', body: JSON.stringify(body) });
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
    };

    it('shows a campaign paused and given leads elsewhere, keeping the pages loaded and the funnel opened', async () => {
      const start = sent.length;
      await open('campaigns', 'list_campaigns', { limit: 3 });
      await expect.poll(() => frame('campaigns').getByRole('article').count(), WAIT).toBe(3);
      // A second page, and a card's step funnel, opened by the user.
      await frame('campaigns').getByRole('button', { name: 'More campaigns' }).click();
      await expect.poll(() => frame('campaigns').getByRole('article').count(), WAIT).toBe(6);
      await card('campaigns', 'Running').getByRole('button', { name: 'Pause Running' }).waitFor(WAIT);
      await frame('campaigns').getByRole('button', { name: 'Show the steps of Running' }).click();
      const funnel = frame('campaigns').getByRole('region', { name: 'Steps and variants of Running' });
      await funnel.getByRole('table').waitFor(WAIT);

      // The view waits on the server for the next change, for every campaign (the call named none).
      await expect.poll(() => sent.slice(start).some((m) => m.method === 'resources/read' && m.what.includes('after=')), WAIT).toBe(true);
      expect(sent.slice(start).find((m) => m.what.startsWith('outreach://changes'))?.what).not.toContain('campaignId=');
      await expect.poll(() => waitingReaders(live.server.ctx), WAIT).toBe(1);
      // While nothing changes, nothing is read again: the view has no interval.
      const quiet = sent.length;
      await live.page.waitForTimeout(2_000);
      expect(calls('list_campaigns', quiet) + calls('get_agent_stats', quiet)).toBe(0);

      // Paused over REST: the open card says so, with no reload and no click.
      await post('/campaigns/cmp_running/pause');
      await card('campaigns', 'Running').getByRole('button', { name: 'Resume Running' }).waitFor(WAIT);
      await expect.poll(() => card('campaigns', 'Running').getByText('Paused', { exact: true }).count(), WAIT).toBe(1);
      // The same tool, with the view's arguments, read the pages shown (both), and the funnel again.
      expect(calls('list_campaigns', quiet)).toBeGreaterThanOrEqual(2);
      await expect.poll(() => calls('get_agent_stats', quiet), WAIT).toBeGreaterThanOrEqual(1);
      expect(await frame('campaigns').getByRole('article').count()).toBe(6);
      expect(await funnel.getByRole('table').count()).toBe(1);

      // A lead added over REST moves the card's counter.
      const before = (await live.server.rest('/campaigns/cmp_paused')).body.totalLeads as number;
      await post('/campaigns/cmp_paused/leads', { networkUrl: 'https://www.linkedin.com/in/campaigns-live-probe', firstName: 'Probe' });
      await card('campaigns', 'Paused')
        .getByText(new RegExp(`^${(before + 1).toLocaleString('en-US')} leads`))
        .waitFor(WAIT);
      await expect.poll(() => waitingReaders(live.server.ctx), WAIT).toBe(1);
      expect(await axe('campaigns')).toEqual([]);
    }, 90_000);

    it('follows the one campaign a get_campaign view shows, and stops when torn down', async () => {
      await close('campaigns');
      const start = sent.length;
      await open('campaign', 'get_campaign', { campaignId: 'cmp_paused' });
      await card('campaign', 'Paused').getByRole('button', { name: 'Resume Paused' }).waitFor(WAIT);
      await expect.poll(() => sent.slice(start).some((m) => m.what.startsWith('outreach://changes?campaignId=cmp_paused&after=')), WAIT).toBe(true);
      await expect.poll(() => waitingReaders(live.server.ctx), WAIT).toBe(1);

      await post('/campaigns/cmp_paused/start');
      await card('campaign', 'Paused').getByRole('button', { name: 'Pause Paused' }).waitFor(WAIT);
      expect(calls('get_campaign', start)).toBeGreaterThanOrEqual(2);
      expect(await axe('campaign')).toEqual([]);

      await close('campaign');
      await expect.poll(() => waitingReaders(live.server.ctx), WAIT).toBe(0);
    });
  },
);
