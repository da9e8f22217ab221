import { existsSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { waitingReaders } from '../../src/core/live/journal.js';
import { noteFor, reviewWorkspace } from '../drafts/helpers.js';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { buildHost, CHROMIUM, openHostPage, recordMcpRequests, type SentRequest, WAIT } from './host-page.js';

/**
 * The drafts view learns of changes from the server's change feed, through its host: it reads
 * the changes resource (outreach://changes), a read the server answers when something changes,
 * instead of reading its queue every few seconds. A host that passes on no resource read leaves
 * it polling as before.
 */

/** The queue's poll interval where it polls, read from its source (ui/shared is outside this project's type check). */
const DRAFTS_POLL_MS = Number(
  /DRAFTS_POLL_MS = ([\d_]+)/.exec(readFileSync(new URL('../../ui/shared/draftsFeed.ts', import.meta.url), 'utf8'))?.[1]?.replaceAll('_', '') ?? Number.NaN,
);

describe.runIf(requireTool('Chromium at /usr/bin/chromium', existsSync(CHROMIUM)))(
  'the drafts view refreshes from the change feed (Chromium, AppBridge, real server)',
  () => {
    let server: TestServer;
    let browser: Browser;
    let page: Page;
    const ids: string[] = [];
    /** Each MCP request the host made for its views, in order: the method, and the tool or the URI. */
    const sent: SentRequest[] = [];

    const listDraftsCalls = () => sent.filter((m) => m.method === 'tools/call' && m.what === 'list_drafts').length;
    const changesReads = () => sent.filter((m) => m.method === 'resources/read' && m.what.startsWith('outreach://changes')).length;
    const frame = (id: string) => page.frameLocator(`iframe[data-view="${id}"]`);
    const queueOf = (id: string) => frame(id).getByRole('list', { name: 'Drafts, oldest first' }).getByRole('article');
    const approveOverRest = async (id: string) => {
      const r = await server.rest('/drafts/batch-update', { method: 'POST', body: JSON.stringify({ drafts: [{ id, status: 'approved' }] }) });
      expect(r.body.results[0].status).toBe('updated');
    };

    beforeAll(async () => {
      let hostHtml: string;
      [server, hostHtml] = await Promise.all([startTestServer({ limits: RELAXED_LIMITS, workspace: reviewWorkspace(4) }), buildHost()]);
      for (let i = 0; i < 4; i++) ids.push(draftFor(server.ctx, noteFor(`lead_r${i}`, { text: `Hello (${i}).` })).id);
      ({ browser, page } = await openHostPage(server.url, hostHtml, { width: 960, height: 1400 }, recordMcpRequests(sent)));
      await page.evaluate(([url, key]) => (globalThis as any).outreachHost.connect(url, key), [`${server.url}/mcp?toolsets=drafts`, TEST_KEY] as const);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    it('shows a draft approved elsewhere, with no periodic read of its queue', async () => {
      expect(DRAFTS_POLL_MS).toBeGreaterThan(0);
      await page.evaluate(([t, a]) => (globalThis as any).outreachHost.open('drafts', t, a), [
        'list_drafts',
        { campaignId: 'cmp_review', status: 'pending' },
      ] as const);
      await expect.poll(() => queueOf('drafts').count(), WAIT).toBe(4);
      // The view reads the changes resource through the host, and one read waits on the server.
      await expect.poll(() => sent.some((m) => m.method === 'resources/read' && m.what.includes('after=')), WAIT).toBe(true);
      expect(sent.find((m) => m.what.startsWith('outreach://changes'))?.what).toContain('campaignId=cmp_review');
      await expect.poll(() => waitingReaders(server.ctx), WAIT).toBe(1);
      // Connecting re-reads the queue once (the handed result may be older than the first cursor);
      // after that, nothing reads it while nothing changes, for longer than the old poll interval.
      await expect.poll(() => listDraftsCalls(), WAIT).toBeGreaterThanOrEqual(2);
      const quiet = listDraftsCalls();
      await page.waitForTimeout(DRAFTS_POLL_MS + 2_000);
      expect(listDraftsCalls()).toBe(quiet);

      await approveOverRest(ids[0] as string);
      // The approved draft leaves the open queue, with no reload and no interval.
      await frame('drafts')
        .getByRole('article', { name: 'Draft for Grace Hopper' })
        .waitFor({ state: 'detached', ...WAIT });
      expect(await queueOf('drafts').count()).toBe(3);
      const reads = listDraftsCalls() - quiet;
      expect(reads).toBeGreaterThanOrEqual(1);
      // One re-read per answer of the changes resource that named the queue: never a stream of them.
      expect(reads).toBeLessThanOrEqual(2);
      // And it waits again for the next change.
      await expect.poll(() => waitingReaders(server.ctx), WAIT).toBe(1);
    }, 120_000);

    it('stops reading when the host tears the view down', async () => {
      const before = changesReads();
      await page.evaluate(() => (globalThis as any).outreachHost.close('drafts'));
      await expect.poll(() => waitingReaders(server.ctx), WAIT).toBe(0);
      // A change now wakes nothing: the view is gone, and so are its reads.
      await approveOverRest(ids[1] as string);
      await page.waitForTimeout(1_500);
      expect(changesReads()).toBe(before);
    });

    it('polls as before in a host that passes on no resource read', async () => {
      const start = sent.length;
      await page.evaluate(([t, a]) => (globalThis as any).outreachHost.open('polled', t, a, { proxyResources: false }), [
        'list_drafts',
        { campaignId: 'cmp_review', status: 'pending' },
      ] as const);
      await expect.poll(() => queueOf('polled').count(), WAIT).toBe(2);
      // Two reads of its own beyond the host's call: the interval is running.
      await expect
        .poll(() => sent.slice(start).filter((m) => m.method === 'tools/call' && m.what === 'list_drafts').length, { timeout: DRAFTS_POLL_MS * 4 })
        .toBeGreaterThanOrEqual(3);
      expect(sent.slice(start).filter((m) => m.what.startsWith('outreach://changes'))).toEqual([]);
      // And it still shows a change, at the next poll.
      await approveOverRest(ids[2] as string);
      await expect.poll(() => queueOf('polled').count(), WAIT).toBe(1);
    }, 120_000);
  },
);
