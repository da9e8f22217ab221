import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { type Browser, chromium, type FrameLocator, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll } from 'vitest';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { viteSingleFile } from 'vite-plugin-singlefile';

const HOST_DIR = fileURLToPath(new URL('./host/', import.meta.url));

/** Debian's Chromium, which the host tests drive. */
export const CHROMIUM = '/usr/bin/chromium';
/** How long a host test waits for something it expects to see. */
export const WAIT = { timeout: 20_000 };

/** The test host (test/apps/host/), bundled into one HTML file like the views themselves. */
export async function buildHost(): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'outreach-host-'));
  try {
    await build({
      configFile: false,
      root: HOST_DIR,
      logLevel: 'warn',
      plugins: [react(), viteSingleFile()],
      build: { outDir: out, emptyOutDir: true, rollupOptions: { input: join(HOST_DIR, 'index.html') } },
    });
    return readFileSync(join(out, 'index.html'), 'utf8');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Debian's Chromium with the test host page served at `${serverUrl}/__test-host` (the page is
 * routed, not served by the server), loaded and ready. `watch` sees the page before it loads, to
 * record its requests and console from the first.
 */
export async function openHostPage(
  serverUrl: string,
  hostHtml: string,
  viewport: { width: number; height: number },
  watch: (page: Page) => void = () => undefined,
): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport });
  watch(page);
  await page.route(`${serverUrl}/__test-host`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: hostHtml }));
  await page.goto(`${serverUrl}/__test-host`);
  await page.waitForSelector('body[data-ready="1"]');
  return { browser, page };
}

/** An MCP request the host made for its views: the method, and the tool it calls or the URI it reads. */
export interface SentRequest {
  method: string;
  what: string;
}

/** A `watch` for openHostPage that records into `sent` each MCP request the page makes, in order. */
export const recordMcpRequests =
  (sent: SentRequest[]) =>
  (page: Page): void => {
    page.on('request', (r) => {
      const body = r.postData();
      if (!body || !r.url().includes('/mcp')) return;
      const message = JSON.parse(body) as { method?: string; params?: { name?: string; uri?: string } };
      if (message.method) sent.push({ method: message.method, what: message.params?.name ?? message.params?.uri ?? '' });
    });
  };

/** What axe-core (WCAG 2 A and AA) finds in the view shown in `iframe[data-view=id]`, one line a rule. */
export async function viewAxeViolations(page: Page, id: string): Promise<string[]> {
  const inner = await (await page.$(`iframe[data-view="${id}"]`))!.contentFrame();
  await inner!.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
  return (await inner!.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
    return result.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  })) as string[];
}

/** A test host page connected to a fresh test server, for the views' live tests (liveHost). */
export interface LiveHost {
  server: TestServer;
  page: Page;
  /** Each MCP request the host made for its views, in order: the method, and the tool or the URI. */
  sent: SentRequest[];
  /** How many `tools/call` of `tool` the host made from index `from` of `sent` on. */
  calls: (tool: string, from?: number) => number;
  /** The view the host shows as turn `id`. */
  frame: (id: string) => FrameLocator;
  /** Has the host call `tool` as a model would, and show its view as turn `id`. */
  open: (id: string, tool: string, args: Record<string, unknown>) => Promise<unknown>;
  /** Closes turn `id` as a host does when the conversation moves on (teardown, then removal). */
  close: (id: string) => Promise<unknown>;
  /** What axe-core finds in turn `id`'s view (viewAxeViolations). */
  axe: (id: string) => Promise<string[]>;
}

/**
 * Registers the suite's beforeAll and afterAll: a test server over the fixture workspace, and the
 * test host page in Chromium connected to its `/mcp${query}`, recording every MCP request. The
 * fields are set once beforeAll has run.
 */
export function liveHost(query = ''): LiveHost {
  let browser: Browser | undefined;
  const live = {
    sent: [] as SentRequest[],
    calls: (tool: string, from = 0) => live.sent.slice(from).filter((m) => m.method === 'tools/call' && m.what === tool).length,
    frame: (id: string) => live.page.frameLocator(`iframe[data-view="${id}"]`),
    open: (id: string, tool: string, args: Record<string, unknown>) =>
      live.page.evaluate(([i, t, a]) => (globalThis as any).outreachHost.open(i, t, a), [id, tool, args] as const),
    close: (id: string) => live.page.evaluate((i) => (globalThis as any).outreachHost.close(i), id),
    axe: (id: string) => viewAxeViolations(live.page, id),
  } as LiveHost;
  beforeAll(async () => {
    let hostHtml: string;
    [live.server, hostHtml] = await Promise.all([startTestServer({ limits: RELAXED_LIMITS }), buildHost()]);
    let page: Page;
    ({ browser, page } = await openHostPage(live.server.url, hostHtml, { width: 960, height: 1400 }, recordMcpRequests(live.sent)));
    live.page = page;
    await page.evaluate(([url, key]) => (globalThis as any).outreachHost.connect(url, key), [`${live.server.url}/mcp${query}`, TEST_KEY] as const);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await live.server?.close();
  });
  return live;
}
