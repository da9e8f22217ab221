import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triagePendingByModel } from '../../src/core/triage/suggest.js';
import { createTriager } from '../../src/network/drafter/index.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { Engine } from '../../src/workers/outreach/index.js';
import { StandInModel } from '../drafts/stand-in-model.js';
import { engineSettings, engineWorkspace, MINUTE } from '../engine/helpers.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium, openDashboard, seriousViolations } from './browser.js';

/**
 * The inbox's triage in Chromium against the real server: simulated leads reply, a rule and the
 * stand-in model suggest tags, the inbox shows each suggestion beside its thread, filters by it,
 * and one key (Y) confirms it as the lead's tag.
 */
describe.runIf(requireTool('Chromium at /usr/bin/chromium', hasChromium))('triage in the inbox, in a browser', () => {
  let server: TestServer;
  let model: StandInModel;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    model = await new StandInModel().start();
    model.behaviour = { kind: 'reply', text: '{"tag":"Meeting request","confidence":0.9,"reason":"proposes a call"}' };
    server = await startTestServer({
      workspace: engineWorkspace([
        { slug: 'olive-sim-fast-accept-sim-out-of-office', firstName: 'Olive' },
        { slug: 'pat-sim-fast-accept-sim-replies-positive', firstName: 'Pat' },
      ]),
    });
    server.ctx.triager = createTriager({ baseUrl: model.url, model: 'stand-in-1' });
    const engine = new Engine(server.ctx, { settings: engineSettings(), random: () => 0, holder: 'triage-ui' });
    const lead = (id: string) =>
      server.ctx.db.$client.prepare('SELECT replied, tag FROM leads WHERE id = ?').get(id) as { replied: number; tag: string | null };
    for (let i = 0; i < 2000 && !(lead('lead_1').replied && lead('lead_2').replied); i++) {
      await engine.tick();
      server.ctx.clock.advance(MINUTE);
    }
    await engine.stop();
    expect(await triagePendingByModel(server.ctx)).toEqual({ suggested: 1, failed: 0 });
    browser = await launchChromium();
    ({ page } = await openDashboard(browser, server, { errors }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await model?.close();
  });

  it('shows each suggestion beside its thread, filters by it, and confirms with one key', async () => {
    await page.getByRole('link', { name: 'Inbox' }).click();
    await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
    await page.getByRole('link', { name: 'All', exact: true }).click();
    const threads = page.locator('section[aria-label="Threads"]');
    await threads.getByText('suggested: Meeting request').waitFor();
    await threads.getByText('suggested: To be defined').waitFor();

    // The filter keeps the threads whose suggestion is the chosen tag.
    await page.getByRole('combobox', { name: 'Suggested tag' }).selectOption('Meeting request');
    await expect.poll(() => threads.getByRole('link').count()).toBe(1);
    await threads.getByRole('link', { name: /Pat Test/ }).click();
    const card = page.getByRole('region', { name: 'Suggested tag: Meeting request' });
    await card.getByText('By the model, 90% sure').waitFor();
    await card.getByText('proposes a call').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Y confirms: the lead is tagged through the tag API, and the card says so.
    await page.getByRole('heading', { level: 2, name: /Pat Test/ }).click();
    await page.keyboard.press('y');
    await card.getByRole('status').getByText('Tagged Meeting request.').waitFor();
    const tagOf = (id: string) => (server.ctx.db.$client.prepare('SELECT tag FROM leads WHERE id = ?').get(id) as { tag: string | null }).tag;
    expect(tagOf('lead_2')).toBe('Meeting request');

    // Y typed in the reply box is a letter, not a confirmation.
    await page.getByRole('combobox', { name: 'Suggested tag' }).selectOption('');
    await threads.getByRole('link', { name: /Olive Test/ }).click();
    const olive = page.getByRole('region', { name: 'Suggested tag: To be defined' });
    await olive.getByText('By a rule, 90% sure').waitFor();
    await page.getByLabel('Your reply').fill('');
    await page.getByLabel('Your reply').press('y');
    expect(await page.getByLabel('Your reply').inputValue()).toBe('y');
    expect(tagOf('lead_1')).toBeNull();
    await olive.getByRole('button', { name: 'Confirm “To be defined” (Y)' }).click();
    await olive.getByText('Tagged To be defined.').waitFor();
    expect(tagOf('lead_1')).toBe('To be defined');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  }, 90_000);
});
