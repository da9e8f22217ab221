import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { noteFor, reviewWorkspace } from '../drafts/helpers.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium, openDashboard, seriousViolations } from './browser.js';

/**
 * The dashboard's live refresh in Chromium: an open Drafts page hears the server's change
 * stream (GET /app/api/events) and shows a new draft, and drops an approved one, without a
 * reload; the stream asks for the session like every dashboard endpoint.
 */
describe.runIf(requireTool('Chromium at /usr/bin/chromium', hasChromium))('live refresh of the dashboard', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const items = () => page.getByRole('list', { name: 'Drafts, oldest first' }).getByRole('article');

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    server = await startTestServer({ workspace: reviewWorkspace(4) });
    draftFor(server.ctx, noteFor('lead_r0'));
    draftFor(server.ctx, noteFor('lead_r1'));
    browser = await launchChromium();
    ({ page } = await openDashboard(browser, server));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('refuses the change stream without a session', async () => {
    const res = await fetch(`${server.url}/app/api/events`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(401);
  });

  it('shows a draft the engine writes, and drops one approved elsewhere, on an open Drafts page without a reload', async () => {
    const stream = page.waitForResponse((r) => r.url().endsWith('/app/api/events') && r.status() === 200);
    await page.goto(`${server.url}/app/drafts`);
    await page.getByRole('heading', { level: 1, name: 'Drafts' }).waitFor();
    await stream;
    await expect.poll(() => items().count()).toBe(2);
    const loads: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) loads.push(frame.url());
    });

    // The engine writes a draft for Katherine Johnson (lead_r2): it appears.
    const fresh = draftFor(server.ctx, noteFor('lead_r2', { text: 'A new note, written while the page was open' }));
    await page.getByRole('article', { name: 'Draft for Katherine Johnson' }).waitFor();
    await page.getByText('A new note, written while the page was open').waitFor();
    expect(await items().count()).toBe(3);

    // Someone approves it through the API: it leaves the pending queue.
    const r = await server.rest('/drafts/batch-update', { method: 'POST', body: JSON.stringify({ drafts: [{ id: fresh.id, status: 'approved' }] }) });
    expect(r.status).toBe(200);
    await page.getByRole('article', { name: 'Draft for Katherine Johnson' }).waitFor({ state: 'detached' });
    expect(loads).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
