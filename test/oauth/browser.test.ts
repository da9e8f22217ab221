import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthCodes } from '../../src/db/schema.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { authorizeUrl, bearerClient, pkce, registerClient, token } from './helpers.js';
import { requireTool } from '../optional.js';

/**
 * The OAuth flow as a person does it: Debian's Chromium, driven by playwright-core (no
 * browser download), types into the consent page. Skipped only when playwright-core or
 * /usr/bin/chromium is missing (a failure in CI); flow.test.ts runs the same flow over plain HTTP regardless.
 */

const CHROMIUM = '/usr/bin/chromium';

interface Locator {
  fill(value: string): Promise<void>;
  click(): Promise<void>;
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
}
interface Page {
  goto(url: string): Promise<unknown>;
  title(): Promise<string>;
  getByLabel(text: string): Locator;
  getByRole(role: string, options?: { name: string }): Locator;
  url(): string;
}
interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
interface Playwright {
  chromium: { launch(options: { executablePath: string; headless: boolean; args: string[] }): Promise<Browser> };
}

async function loadPlaywright(): Promise<Playwright | null> {
  if (!existsSync(CHROMIUM)) return null;
  try {
    const path = createRequire(import.meta.url).resolve('playwright-core');
    const mod = (await import(pathToFileURL(path).href)) as { chromium?: Playwright['chromium']; default?: Playwright };
    const chromium = mod.chromium ?? mod.default?.chromium;
    return chromium ? { chromium } : null;
  } catch {
    return null;
  }
}
const playwright = await loadPlaywright();

/**
 * The client's loopback redirect target: records the URL the browser lands on. Only
 * /callback counts: Chromium also asks for /favicon.ico after a landing, and a late one
 * must not pass for the next test's landing. Each landing goes to one waiter only.
 */
function callbackServer(): Promise<{ server: Server; url: string; next: () => Promise<URL> }> {
  let waiting: ((u: URL) => void) | null = null;
  const landed: URL[] = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (u.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Signed in</title><p>You can close this window.</p>');
    const w = waiting;
    waiting = null;
    if (w) w(u);
    else landed.push(u);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        server,
        url: `http://127.0.0.1:${port}/callback`,
        next: () => {
          const ready = landed.shift();
          return ready ? Promise.resolve(ready) : new Promise<URL>((r) => (waiting = r));
        },
      });
    }),
  );
}

describe.skipIf(!requireTool('playwright-core and /usr/bin/chromium', playwright !== null))('OAuth in a real browser (Chromium)', () => {
  let server: TestServer;
  let browser: Browser;
  let callback: Awaited<ReturnType<typeof callbackServer>>;

  beforeAll(async () => {
    server = await startTestServer();
    callback = await callbackServer();
    browser = await playwright!.chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  });
  afterAll(async () => {
    await browser?.close();
    callback?.server.close();
    await server?.close();
  });

  it('register → authorize → consent page → paste key → code → token → tools/list with the bearer', async () => {
    const client = await registerClient(server, { client_name: 'Browser Assistant', redirect_uris: [callback.url] });
    const { verifier, challenge } = pkce();
    const page = await browser.newPage();
    await page.goto(authorizeUrl(server, client.client_id, challenge, { redirect_uri: callback.url, state: 'browser-state' }));
    expect(await page.title()).toBe('Connect Browser Assistant to outreach-mcp');

    // A wrong key: the page says why, marks the field, and no code exists.
    await page.getByLabel('API key').fill('sk_test_not_a_real_key_0000000000000000');
    await page.getByRole('button', { name: 'Allow access' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/Invalid or revoked API key/);
    expect(await page.getByLabel('API key').getAttribute('aria-invalid')).toBe('true');
    expect(await page.title()).toMatch(/^Error: /);
    expect(server.ctx.db.select().from(oauthCodes).all()).toHaveLength(0);

    // The right key: the browser is sent back to the client with a code and the state.
    const landing = callback.next();
    await page.getByLabel('API key').fill(TEST_KEY);
    await page.getByRole('button', { name: 'Allow access' }).click();
    const back = await landing;
    expect(back.searchParams.get('state')).toBe('browser-state');
    const code = back.searchParams.get('code');
    expect(code).toMatch(/^oac_/);

    const t = await token(server, {
      grant_type: 'authorization_code',
      code: code!,
      code_verifier: verifier,
      client_id: client.client_id,
      redirect_uri: callback.url,
    });
    expect(t.status).toBe(200);
    const mcp = await bearerClient(server, t.body.access_token);
    expect((await mcp.listTools()).tools.map((x) => x.name)).toContain('get_credits');
    await mcp.close();
  });

  it('the person narrows the grant on the consent page: read-only, one campaign', async () => {
    const client = await registerClient(server, { client_name: 'Browser Assistant', redirect_uris: [callback.url] });
    const { verifier, challenge } = pkce();
    const page = await browser.newPage();
    await page.goto(authorizeUrl(server, client.client_id, challenge, { redirect_uri: callback.url }));
    const codesBefore = server.ctx.db.select().from(oauthCodes).all().length;
    await page.getByLabel('API key').fill(TEST_KEY);
    await page.getByLabel('Read only: every change is refused').click();
    // A campaign the key does not reach: refused on the page, nothing granted.
    await page.getByLabel('Only these campaigns (optional)').fill('cmp_nowhere');
    await page.getByRole('button', { name: 'Allow access' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/no campaign cmp_nowhere/);
    expect(server.ctx.db.select().from(oauthCodes).all()).toHaveLength(codesBefore);
    // The choice survives the error; the key is pasted again.
    await page.getByLabel('API key').fill(TEST_KEY);
    await page.getByLabel('Only these campaigns (optional)').fill('cmp_paused');
    const landing = callback.next();
    await page.getByRole('button', { name: 'Allow access' }).click();
    const code = (await landing).searchParams.get('code')!;
    const t = await token(server, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id, redirect_uri: callback.url });
    expect(t.status).toBe(200);
    const mcp = await bearerClient(server, t.body.access_token);
    const listed = (await mcp.listTools()).tools.map((x) => x.name);
    expect(listed).toContain('list_campaigns');
    expect(listed).not.toContain('add_lead');
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await mcp.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
      return { isError: r.isError === true, body: JSON.parse(r.content[0]!.text) };
    };
    expect((await call('list_campaigns', {})).body.campaigns.map((c: { id: string }) => c.id)).toEqual(['cmp_paused']);
    expect((await call('get_campaign', { campaignId: 'cmp_q4' })).body.error.code).toBe('not_found');
    expect((await call('pause_campaign', { campaignId: 'cmp_paused' })).body.error.code).toBe('forbidden');
    // The key itself is unchanged: it still reaches every campaign.
    expect((await server.rest('/campaigns/cmp_q4')).status).toBe(200);
    await mcp.close();
  });

  it('Deny sends the browser back with access_denied', async () => {
    const client = await registerClient(server, { client_name: 'Browser Assistant', redirect_uris: [callback.url] });
    const page = await browser.newPage();
    await page.goto(authorizeUrl(server, client.client_id, pkce().challenge, { redirect_uri: callback.url }));
    const landing = callback.next();
    await page.getByRole('button', { name: 'Deny' }).click();
    expect((await landing).searchParams.get('error')).toBe('access_denied');
  });
});
