/**
 * The dashboard against the million-lead database: the data calls each page makes (timed one
 * at a time through /app/api/call, so the figure is the server's time plus a loopback round
 * trip), a Chromium navigation to the rendered page, the gzipped size of the built JS, and the
 * bytes the first load sends (./first-load.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { firstLoad } from './first-load.js';
import { checkFetch, serverTimes } from './load.js';
import { summarize, type Summary } from './stats.js';

export const CHROMIUM = '/usr/bin/chromium';
const CALL_ROUNDS = 50;
const NAVIGATIONS = 5;

export interface PageData {
  page: string;
  /**
   * Each call the page makes on first render: `ms` client-side (loopback round trip included),
   * `serverMs` from the server's own request log (front door to response finished).
   */
  calls: { name: string; args: Record<string, unknown>; ms: Summary; serverMs: Summary | null }[];
  /** All of the page's calls pooled, client-side and server-side. */
  pooled: Summary;
  serverPooled: Summary | null;
}

export interface DashboardBench {
  data: PageData[];
  /**
   * Navigation start to the page's content on screen, in Chromium (ms per run; the first run of
   * the overview is the cold one, assets not yet cached); null without Chromium.
   */
  navigation: { page: string; runsMs: number[]; medianMs: number; maxMs: number; domContentLoadedMs: number }[] | null;
  jsGzipBytes: number;
  cssGzipBytes: number;
  /** Each MCP App view's HTML document as resources/read sends it (dist/ui/views/<name>.html), in bytes. */
  viewBytes: { view: string; bytes: number }[];
  /**
   * Body bytes on the wire for the first load (`/app/` and the assets it names) with each
   * `Accept-Encoding`: `br` as a current browser gets it; absent in runs from before it existed.
   */
  firstLoad?: {
    brBytes: number;
    gzipBytes: number;
    identityBytes: number;
    files: { path: string; brBytes: number; gzipBytes: number; identityBytes: number }[];
  };
}

/** The calls the overview and a campaign's page make before they can render (see ui/dashboard/pages). */
export function pageCalls(campaignId: string): { page: string; calls: { name: string; args: Record<string, unknown> }[] }[] {
  return [
    {
      page: 'overview',
      calls: [
        { name: 'get_credits', args: {} },
        { name: 'get_insights_overview', args: {} },
        { name: 'get_activity_series', args: { days: 30 } },
        { name: 'list_campaigns', args: { limit: 12 } },
      ],
    },
    {
      page: 'campaign leads',
      calls: [
        { name: 'get_campaign', args: { campaignId } },
        { name: 'list_agents', args: { limit: 100 } },
        { name: 'list_leads', args: { campaignId, sort: 'createdAt', limit: 50 } },
      ],
    },
    {
      // Finding a lead on the campaign page: a name, a company, a profile slug (search_leads).
      page: 'campaign search',
      calls: [
        { name: 'search_leads', args: { campaignId, query: 'Grace Ho', limit: 50 } },
        { name: 'search_leads', args: { campaignId, query: 'Kernel', limit: 50 } },
        { name: 'search_leads', args: { campaignId, query: 'fixture-', limit: 50 } },
      ],
    },
  ];
}

/** The size of each built view, which a host reads whole through resources/read. */
export function viewSizes(root: string): { view: string; bytes: number }[] {
  const dir = join(root, 'dist', 'ui', 'views');
  if (!existsSync(dir)) throw new Error('the MCP App views are not built (npm run build)');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.html'))
    .sort()
    .map((f) => ({ view: f.replace(/\.html$/, ''), bytes: statSync(join(dir, f)).size }));
}

function gzipOf(dir: string, ext: string): number {
  return readdirSync(dir)
    .filter((f) => f.endsWith(ext))
    .reduce((sum, f) => sum + gzipSync(readFileSync(join(dir, f)), { level: 9 }).length, 0);
}

/** A fresh one-time link from the CLI, as an operator would get it. */
function loginLink(root: string, db: string, base: string): string {
  const out = execFileSync(process.execPath, ['bin/outreach.js', 'login', '--db', db, '--base', base], { cwd: root, encoding: 'utf8' });
  const last = out.trim().split('\n').at(-1) ?? '';
  if (!last.includes('/app/login?token=')) throw new Error(`outreach login printed no link: ${out}`);
  return last.trim();
}

async function sessionCookie(root: string, db: string, base: string): Promise<string> {
  const res = await checkFetch(loginLink(root, db, base), { redirect: 'manual' });
  if (res.status !== 303) throw new Error(`login answered ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

export async function benchDashboard(opts: {
  root: string;
  db: string;
  url: string;
  campaignId: string;
  /** The server's request log, for server-side times. */
  logPath: string | null;
  say: (m: string) => void;
}): Promise<DashboardBench> {
  const { root, db, url, campaignId, logPath, say } = opts;
  const assets = join(root, 'dist', 'ui', 'dashboard', 'assets');
  if (!existsSync(assets)) throw new Error('the dashboard is not built (npm run build)');
  const cookie = await sessionCookie(root, db, url);
  const headers = { cookie, origin: url, 'content-type': 'application/json' };

  say('dashboard first load, bytes on the wire');
  // A browser's Accept-Encoding, then gzip only, then none.
  const [br, gzip, identity] = [await firstLoad(url, 'gzip, deflate, br, zstd'), await firstLoad(url, 'gzip'), await firstLoad(url, null)];
  const loaded = {
    brBytes: br.totalBytes,
    gzipBytes: gzip.totalBytes,
    identityBytes: identity.totalBytes,
    files: br.files.map((f, i) => ({ path: f.path, brBytes: f.bytes, gzipBytes: gzip.files[i]!.bytes, identityBytes: identity.files[i]!.bytes })),
  };

  say('dashboard data calls');
  const data: PageData[] = [];
  const fileSize = (path: string) => (existsSync(path) ? statSync(path).size : 0);
  for (const { page, calls } of pageCalls(campaignId)) {
    const times = calls.map(() => [] as number[]);
    let from = 0;
    for (let round = -5; round < CALL_ROUNDS; round++) {
      // The warm-up rounds stay out of both the client and the server figures.
      if (round === 0 && logPath) from = fileSize(logPath);
      for (const [i, call] of calls.entries()) {
        const started = performance.now();
        const res = await fetch(`${url}/app/api/call`, { method: 'POST', headers, body: JSON.stringify({ name: call.name, arguments: call.args }) });
        const body = (await res.json()) as { isError?: boolean };
        const ms = performance.now() - started;
        if (res.status !== 200 || body.isError) throw new Error(`${call.name}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
        if (round >= 0) times[i]!.push(ms);
      }
    }
    // The request log is written as each response finishes; give the last lines a moment.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const server = calls.map((c) => (logPath ? serverTimes(logPath, from, { tool: c.name }) : []));
    const pooledServer = server.flat();
    data.push({
      page,
      calls: calls.map((c, i) => ({ ...c, ms: summarize(times[i]!), serverMs: server[i]!.length ? summarize(server[i]!) : null })),
      pooled: summarize(times.flat()),
      serverPooled: pooledServer.length ? summarize(pooledServer) : null,
    });
  }

  let navigation: DashboardBench['navigation'] = null;
  if (existsSync(CHROMIUM)) {
    say('dashboard in Chromium');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await context.newPage();
      await page.goto(loginLink(root, db, url));
      const targets = [
        { name: 'overview', path: '/app/', ready: () => page.getByRole('article').first().waitFor() },
        {
          name: 'campaign leads',
          path: `/app/campaigns/${campaignId}`,
          ready: () =>
            page
              .getByRole('checkbox', { name: /^Select / })
              .nth(1)
              .waitFor(),
        },
      ];
      navigation = [];
      for (const t of targets) {
        const runs: number[] = [];
        let dcl = 0;
        for (let i = 0; i < NAVIGATIONS; i++) {
          const started = performance.now();
          await page.goto(`${url}${t.path}`, { waitUntil: 'commit' });
          await t.ready();
          runs.push(performance.now() - started);
          dcl = (await page.evaluate('performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd')) as number;
        }
        const sorted = [...runs].sort((a, b) => a - b);
        navigation.push({ page: t.name, runsMs: runs, medianMs: sorted[Math.floor(sorted.length / 2)]!, maxMs: sorted.at(-1)!, domContentLoadedMs: dcl });
      }
    } finally {
      await browser.close();
    }
  } else {
    say(`no ${CHROMIUM}: the navigation timing is left out`);
  }
  return { data, navigation, jsGzipBytes: gzipOf(assets, '.js'), cssGzipBytes: gzipOf(assets, '.css'), viewBytes: viewSizes(root), firstLoad: loaded };
}
