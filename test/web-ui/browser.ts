import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createLoginToken } from '../../src/core/auth/sessions.js';
import type { Ctx } from '../../src/core/context.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** Debian's Chromium, headless, with nothing that phones home. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core on the page as it is now: the serious and critical violations, summarised. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Page-side code as strings: this file is type-checked for Node, without the DOM library.
  // addScriptTag would add an inline <script>, which the dashboard's CSP rightly blocks; the
  // DevTools protocol's evaluate is not subject to the page's CSP, so axe goes in that way.
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate("window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)")) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

export { screenshotDir } from '../screenshots.js';

export interface DashboardOptions {
  /** The member the login link is for; default the owner (made on first use). */
  memberId?: string;
  /** The level-1 heading the sign-in lands on; default Overview. */
  home?: string;
  /** False: open the context and page without signing in (a test of the signed-out page or of the login itself). */
  signIn?: boolean;
  viewport?: { width: number; height: number };
  deviceScaleFactor?: number;
  acceptDownloads?: boolean;
  /** Where the page's uncaught errors go, and with `console: true` its console errors too. */
  errors?: string[];
  console?: boolean;
}

/**
 * A fresh browser context and page on the dashboard, signed in with a one-time login link as a
 * real person would be: every browser test starts here. Steps fail after 25 seconds, inside the
 * test's own timeout (60 s), so a failure names the step.
 */
export async function openDashboard(
  browser: Browser,
  server: { url: string; ctx: Ctx },
  options: DashboardOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 900 },
    ...(options.deviceScaleFactor !== undefined ? { deviceScaleFactor: options.deviceScaleFactor } : {}),
    ...(options.acceptDownloads !== undefined ? { acceptDownloads: options.acceptDownloads } : {}),
  });
  context.setDefaultTimeout(25_000);
  const page = await context.newPage();
  const errors = options.errors;
  if (errors) {
    if (options.console) {
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(msg.text());
      });
    }
    page.on('pageerror', (err) => errors.push(err.message));
  }
  if (options.signIn !== false) {
    await page.goto(`${server.url}/app/login?token=${createLoginToken(server.ctx, options.memberId).token}`);
    await page.getByRole('heading', { level: 1, name: options.home ?? 'Overview' }).waitFor();
  }
  return { context, page };
}

export interface Received {
  body: string;
  headers: IncomingHttpHeaders;
}

/** A local webhook receiver that answers 200 and keeps what it got. */
export async function webhookReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ body, headers: req.headers });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hooks`, received };
}
