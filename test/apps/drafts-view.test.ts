import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { noteFor, reviewWorkspace } from '../drafts/helpers.js';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { scratchScreenshots } from '../screenshots.js';
import { buildHost, CHROMIUM, openHostPage } from './host-page.js';

/**
 * The drafts view in a real MCP Apps host: the test host (ext-apps' own AppBridge and the MCP
 * SDK client against the real server) renders list_drafts' view in a sandboxed iframe; the
 * view edits and approves through the host, and the server holds exactly that.
 */

const WAIT = { timeout: 15_000 };
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VIEW = join(ROOT, 'dist/ui/views/drafts.html');
/** docs/screenshots with OUTREACH_SCREENSHOTS=1, else a scratch folder (test/screenshots.ts). */
const SHOTS = scratchScreenshots('drafts-view-shots-');

describe('the drafts view document', () => {
  it('is built, and stays under 300 KB', () => {
    if (!existsSync(VIEW)) throw new Error('dist/ui/views/drafts.html is missing: run npm run build first.');
    expect(statSync(VIEW).size).toBeLessThan(300 * 1024);
  });
});

describe.runIf(requireTool('Chromium at /usr/bin/chromium', existsSync(CHROMIUM)))('the drafts view in a host (Chromium, AppBridge, real server)', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let hostHtml: string;
  const ids: string[] = [];
  const requests: string[] = [];
  const toolCalls: string[] = [];
  const updateArgs: any[] = [];
  const consoleLines: string[] = [];

  const rest = async (path: string) => (await server.rest(path)).body;
  const draft = async (n: number) => (await rest('/drafts?campaignId=cmp_review&limit=100')).drafts.find((d: any) => d.id === ids[n]);
  const frame = () => page.frameLocator('iframe[data-view="drafts"]');

  beforeAll(async () => {
    [server, hostHtml] = await Promise.all([startTestServer({ limits: RELAXED_LIMITS, workspace: reviewWorkspace(3) }), buildHost()]);
    for (let i = 0; i < 3; i++) {
      const d = draftFor(server.ctx, noteFor(`lead_r${i}`, { text: `Hi, glad to connect (${i}).` }));
      ids.push(d.id);
    }
    ({ browser, page } = await openHostPage(server.url, hostHtml, { width: 960, height: 1600 }, (page) => {
      page.on('request', (r) => {
        requests.push(r.url());
        const body = r.postData();
        const message = body ? (JSON.parse(body) as { method?: string; params?: { name?: string } }) : null;
        if (message?.method === 'tools/call') toolCalls.push(message.params?.name ?? '');
        if (message?.method === 'tools/call' && message.params?.name === 'update_drafts') updateArgs.push((message.params as any).arguments);
      });
      page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
      page.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
    }));
    // The drafts toolset, as a client reviewing drafts asks for it.
    await page.evaluate(([url, key]) => (globalThis as any).outreachHost.connect(url, key), [`${server.url}/mcp?toolsets=drafts`, TEST_KEY] as const);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    SHOTS.remove();
  });

  it('renders the handed list_drafts result with no call of its own, each lead beside its words', async () => {
    const before = toolCalls.length;
    const opened = (await page.evaluate(([t, a]) => (globalThis as any).outreachHost.open('drafts', t, a), [
      'list_drafts',
      { campaignId: 'cmp_review', status: 'pending' },
    ] as const)) as {
      resourceUri: string;
    };
    expect(opened.resourceUri).toBe('ui://outreach/drafts.html');
    const items = frame().getByRole('list', { name: 'Drafts, oldest first' }).getByRole('article');
    await expect.poll(() => items.count(), WAIT).toBe(3);
    await frame().getByRole('article', { name: 'Draft for Grace Hopper' }).getByText('VP Engineering at Navy Labs').waitFor();
    // The host's call only (the queue then reads itself again every few seconds while open).
    expect(toolCalls.slice(before)[0]).toBe('list_drafts');
    expect(new Set(toolCalls.slice(before))).toEqual(new Set(['list_drafts']));
  });

  it('edits one and approves a selection through the host; the server has exactly those words approved', async () => {
    const grace = frame().getByRole('article', { name: 'Draft for Grace Hopper' });
    await grace.getByLabel('Invitation note for Grace Hopper').fill('Grace, your compiler work is why I write. Glad to connect!');
    await grace.getByRole('figure').getByText('Hi, glad to connect (0).').waitFor();
    await frame().getByRole('checkbox', { name: 'Select Grace Hopper' }).check();
    await frame().getByRole('checkbox', { name: 'Select Alan Turing' }).check();
    // Once the view has told the host its new height.
    await expect.poll(() => page.locator('iframe[data-view="drafts"]').getAttribute('data-height'), WAIT).not.toBeNull();
    await page.locator('section[data-turn="drafts"]').screenshot({ path: join(SHOTS.dir, 'view-drafts.png') });
    const before = toolCalls.length;
    await frame().getByRole('button', { name: 'Approve selected (2)' }).click();
    // The view asks first, naming what goes out and from whom.
    const dialog = frame().getByRole('alertdialog', { name: 'Approve 2 drafts?' });
    await dialog.getByText(/^2 from /).waitFor(WAIT);
    expect((await draft(0)).status).toBe('pending');
    await dialog.getByRole('button', { name: 'Approve and send 2 invitations' }).click();
    await expect.poll(async () => (await draft(0))?.status, WAIT).toBe('approved');
    expect(await draft(0)).toMatchObject({ text: 'Grace, your compiler work is why I write. Glad to connect!', renderedText: 'Hi, glad to connect (0).' });
    expect((await draft(1)).status).toBe('approved');
    expect((await draft(2)).status).toBe('pending');
    // One update_drafts call for the selection, then the queue reads itself again.
    await expect
      .poll(
        () =>
          toolCalls
            .slice(before)
            .filter((n) => n !== 'list_accounts')
            .slice(0, 2),
        WAIT,
      )
      .toEqual(['update_drafts', 'list_drafts']);
    expect(toolCalls.slice(before).filter((n) => n === 'update_drafts')).toHaveLength(1);
    // Each item carries the revision the view showed, when the server has revisions.
    const revisions = typeof (await draft(1)).revision === 'number';
    for (const item of updateArgs[0].drafts) expect(typeof item.revision === 'number').toBe(revisions);
    await expect.poll(() => frame().getByRole('list', { name: 'Drafts, oldest first' }).getByRole('article').count(), WAIT).toBe(1);
  });

  it('rejects the last one, once its Undo window has passed', async () => {
    await frame().getByRole('button', { name: 'Reject the draft for Katherine Johnson' }).click();
    await frame().getByRole('button', { name: 'Undo' }).waitFor(WAIT);
    expect((await draft(2)).status).toBe('pending');
    await expect.poll(async () => (await draft(2)).status, { timeout: 25_000 }).toBe('rejected');
    await frame().getByText('Nothing waits for approval here.').waitFor();
  }, 120_000);

  it('passes axe (WCAG 2 A and AA), and fetched nothing beyond the host bridge', async () => {
    const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const inner = await (await page.$('iframe[data-view="drafts"]'))!.contentFrame();
    await inner!.evaluate(axe);
    const violations = (await inner!.evaluate(async () => {
      const result = await (globalThis as any).axe.run((globalThis as any).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
      return result.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
    })) as string[];
    expect(violations).toEqual([]);
    const origin = new URL(server.url).origin;
    expect(
      requests.filter((u) => !u.startsWith(`${origin}/mcp`) && u !== `${origin}/__test-host` && !u.startsWith('about:') && !u.startsWith('data:')),
    ).toEqual([]);
    expect(consoleLines.filter((l) => /Content Security Policy|Refused to|pageerror|\[ext-apps\]/i.test(l))).toEqual([]);
  });
});
