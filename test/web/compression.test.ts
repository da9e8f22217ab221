import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstLoad } from '../../bench/lib/first-load.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { DASHBOARD_CSP } from '../../src/web/security.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { login } from './helpers.js';

/** The budget of the issue: the dashboard's first load, compressed as a browser gets it. */
const FIRST_LOAD_BUDGET_BYTES = 300 * 1024;

/**
 * The real build (npm test builds first): every asset has brotli and gzip files beside it, and
 * the server sends the one the client accepts, with the headers caches need.
 */
describe('the dashboard goes out compressed', () => {
  let server: TestServer;
  const assets = join(DEFAULT_UI_DIR, 'assets');
  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('has a .br and a .gz beside every script and stylesheet of the build, each the same content', () => {
    const built = readdirSync(assets).filter((f) => /\.(js|css)$/.test(f));
    expect(built.length).toBeGreaterThanOrEqual(2);
    for (const f of built) {
      const raw = readFileSync(join(assets, f));
      expect(brotliDecompressSync(readFileSync(join(assets, `${f}.br`))).equals(raw), `${f}.br`).toBe(true);
      expect(gunzipSync(readFileSync(join(assets, `${f}.gz`))).equals(raw), `${f}.gz`).toBe(true);
    }
  });

  it('sends br, gzip or identity as the client accepts, with Vary, the long cache and the CSP', async () => {
    const br = await firstLoad(server.url, 'gzip, deflate, br');
    const gzip = await firstLoad(server.url, 'gzip');
    const plain = await firstLoad(server.url, null);
    for (const [load, encoding, ext] of [
      [br, 'br', '.br'],
      [gzip, 'gzip', '.gz'],
      [plain, null, ''],
    ] as const) {
      const [page, ...files] = load.files;
      expect(page!.csp).toBe(DASHBOARD_CSP);
      for (const f of files) {
        expect(f.status, f.path).toBe(200);
        expect(f.contentEncoding, `${f.path} ${load.acceptEncoding}`).toBe(encoding);
        expect(f.vary, f.path).toContain('Accept-Encoding');
        expect(f.cacheControl).toContain('immutable');
        expect(f.csp).toBe(DASHBOARD_CSP);
        expect(f.contentType).toMatch(f.path.endsWith('.js') ? /javascript/ : /text\/css/);
        // What went out is the build's file for that encoding, byte for byte.
        expect(f.bytes, f.path).toBe(readFileSync(join(assets, f.path.replace('/app/assets/', '') + ext)).length);
      }
    }
    // The budget, and what compression saves.
    expect(br.totalBytes).toBeLessThanOrEqual(FIRST_LOAD_BUDGET_BYTES);
    expect(br.totalBytes).toBeLessThan(gzip.totalBytes);
    expect(gzip.totalBytes * 3).toBeLessThan(plain.totalBytes);
  });

  it('compresses large JSON answers of the dashboard API, and leaves small ones alone', async () => {
    const cookie = await login(server.url, server.ctx);
    const call = (name: string, args: Record<string, unknown>, encoding: string) =>
      fetch(`${server.url}/app/api/call`, {
        method: 'POST',
        headers: { cookie, origin: server.url, 'content-type': 'application/json', 'accept-encoding': encoding },
        body: JSON.stringify({ name, arguments: args }),
      });
    const campaignId = 'cmp_q4';
    const leads = Array.from({ length: 40 }, (_, i) => ({ networkUrl: `https://www.linkedin.com/in/compressed-${i}`, firstName: 'Lead', lastName: `${i}` }));
    const added = (await (await call('add_leads_batch', { campaignId, leads }, 'identity')).json()) as { isError: boolean };
    expect(added.isError).toBe(false);
    const big = await call('list_leads', { campaignId, limit: 100 }, 'br, gzip');
    expect(big.headers.get('content-encoding')).toBe('br');
    expect(big.headers.get('vary')).toContain('Accept-Encoding');
    expect(big.headers.get('cache-control')).toBe('no-store');
    // fetch decodes the body: it is still the JSON the dashboard reads.
    expect(((await big.json()) as { isError: boolean }).isError).toBe(false);
    const small = await call('get_credits', {}, 'br, gzip');
    expect(small.headers.get('content-encoding')).toBeNull();
  });
});
