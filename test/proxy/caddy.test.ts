import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoginToken } from '../../src/core/auth/sessions.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium } from '../web-ui/browser.js';

/**
 * The server behind a real reverse proxy: Debian's Caddy terminating https on loopback with its
 * own internal CA, as docs/operations.md sets it up. Through it, the dashboard login (in
 * Chromium), its Secure cookie and a dashboard write, OAuth discovery naming the https address,
 * REST and MCP all work. CI installs Caddy (.ci/run); with CI set, a missing Caddy fails.
 */

const CADDY = '/usr/bin/caddy';
const hasCaddy = existsSync(CADDY);

/** A port nobody listens on now (the kernel's pick); Caddy binds it a moment later. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Caddy {
  child: ChildProcess;
  base: string;
  ca: string;
  log: () => string;
}

/** Caddy with only what the test needs: no admin endpoint, no trust-store changes, nothing outside `dir`. */
async function startCaddy(dir: string, upstream: string): Promise<Caddy> {
  for (let attempt = 1; ; attempt++) {
    const [https, http] = [await freePort(), await freePort()];
    const caddyfile = join(dir, 'Caddyfile');
    writeFileSync(
      caddyfile,
      `{
	admin off
	http_port ${http}
	https_port ${https}
	skip_install_trust
	auto_https disable_redirects
	storage file_system {
		root ${join(dir, 'data')}
	}
}

https://127.0.0.1:${https} {
	bind 127.0.0.1
	tls internal
	encode zstd gzip
	reverse_proxy ${upstream.replace(/^http:\/\//, '')}
}
`,
    );
    let log = '';
    const child = spawn(CADDY, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_DATA_HOME: join(dir, 'xdg'), XDG_CONFIG_HOME: join(dir, 'xdg') },
    });
    child.stdout!.on('data', (c) => (log += c));
    child.stderr!.on('data', (c) => (log += c));
    const base = `https://127.0.0.1:${https}`;
    const caPath = join(dir, 'data', 'pki', 'authorities', 'local', 'root.crt');
    // Ready once its CA exists and it answers over https with a certificate that CA signed.
    const ready = await new Promise<boolean>((resolve) => {
      child.once('exit', () => resolve(false));
      const poll = async () => {
        if (child.exitCode !== null) return;
        if (existsSync(caPath)) {
          const probe = new Agent({ connect: { ca: readFileSync(caPath, 'utf8') } });
          try {
            await undiciFetch(`${base}/health`, { dispatcher: probe });
            return resolve(true);
          } catch {
            // Not listening yet, or the certificate is not issued yet.
          } finally {
            await probe.destroy();
          }
        }
        setTimeout(poll, 100);
      };
      void poll();
    });
    if (ready) return { child, base, ca: readFileSync(caPath, 'utf8'), log: () => log };
    child.kill();
    // Another process took a port between our pick and Caddy's bind: pick again.
    if (attempt >= 3 || !/address already in use/.test(log)) throw new Error(`caddy did not start:\n${log}`);
  }
}

describe.skipIf(!requireTool('Caddy (/usr/bin/caddy)', hasCaddy) || !requireTool('Chromium (/usr/bin/chromium)', hasChromium))(
  'behind Caddy over https on loopback',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-caddy-'));
    let server: TestServer;
    let caddy: Caddy;
    let agent: Agent;
    let browser: Browser;
    /** fetch that trusts Caddy's internal CA, as a client given that root would. */
    const get = (path: string, init: Parameters<typeof undiciFetch>[1] = {}) => undiciFetch(`${caddy.base}${path}`, { ...init, dispatcher: agent });

    beforeAll(async () => {
      if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
      server = await startTestServer();
      caddy = await startCaddy(dir, server.url);
      agent = new Agent({ connect: { ca: caddy.ca } });
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      caddy?.child.kill();
      await agent?.destroy();
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('names the https address in OAuth discovery and in the MCP 401 challenge', async () => {
      const resource = (await (await get('/.well-known/oauth-protected-resource/mcp')).json()) as { resource: string; authorization_servers: string[] };
      expect(resource.resource).toBe(`${caddy.base}/mcp`);
      expect(resource.authorization_servers).toEqual([`${caddy.base}/`]);
      const meta = (await (await get('/.well-known/oauth-authorization-server')).json()) as Record<string, string>;
      expect(meta.issuer).toBe(`${caddy.base}/`);
      for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint']) expect(meta[key], key).toMatch(new RegExp(`^${caddy.base}/`));
      const challenge = await get('/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(challenge.status).toBe(401);
      expect(challenge.headers.get('www-authenticate')).toContain(`resource_metadata="${caddy.base}/.well-known/oauth-protected-resource/mcp"`);
      const registered = await get('/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Proxy test', redirect_uris: ['https://client.example/callback'], token_endpoint_auth_method: 'none' }),
      });
      expect(registered.status).toBe(201);
    });

    it('serves REST and MCP through it', async () => {
      const credits = await get('/public/v1/credits', { headers: { 'X-API-Key': TEST_KEY } });
      expect(credits.status).toBe(200);
      expect(typeof ((await credits.json()) as { credits: number }).credits).toBe('number');
      const client = new Client({ name: 'proxy-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${caddy.base}/mcp`), {
          requestInit: { headers: { 'X-API-Key': TEST_KEY } },
          fetch: ((url: string | URL, init?: object) => undiciFetch(url, { ...init, dispatcher: agent })) as unknown as typeof fetch,
        }),
      );
      try {
        const result = await client.callTool({ name: 'get_credits', arguments: {} });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual((await server.rest('/credits')).body);
      } finally {
        await client.close();
      }
    });

    it('logs in to the dashboard in Chromium: a Secure cookie, HSTS, and a write from the page', async () => {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      try {
        const page = await context.newPage();
        const { token } = createLoginToken(server.ctx);
        const login = await page.goto(`${caddy.base}/app/login?token=${token}`);
        expect(page.url()).toBe(`${caddy.base}/app/`);
        expect(login?.status()).toBe(200);
        expect(await login?.headerValue('strict-transport-security')).toBe('max-age=31536000');
        await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
        const [session] = (await context.cookies()).filter((c) => c.name === 'outreach_session');
        expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict', path: '/app' });
        // A state-changing call from the page itself passes the origin check behind the proxy.
        const answer = (await page.evaluate(
          `fetch('/app/api/call', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'rotate_webhook_secret', arguments: {} }) }).then(async (r) => ({ status: r.status, body: await r.json() }))`,
        )) as { status: number; body: { isError: boolean } };
        expect(answer).toMatchObject({ status: 200, body: { isError: false } });
      } finally {
        await context.close();
      }
    });

    it('passes the precompressed assets through with their encoding', async () => {
      const html = await (await get('/app/')).text();
      const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html)![1]!;
      const res = await get(script, { headers: { 'accept-encoding': 'br' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBe('br');
      expect(res.headers.get('cache-control')).toContain('immutable');
    });
  },
);
