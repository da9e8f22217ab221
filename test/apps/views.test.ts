// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else (docs/sequences.md); these objects are never awaited.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type FrameLocator, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/core/agents/agents.js';
import type { Step } from '../../src/core/agents/steps.js';
import { createCampaign } from '../../src/core/campaigns/manage.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { recordAccepted, recordReplied, recordStep } from '../../src/core/sequences/store.js';
import { fixture, RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { scratchScreenshots } from '../screenshots.js';
import { buildHost, CHROMIUM } from './host-page.js';

/**
 * The views in a real MCP Apps host: Debian's Chromium (driven by playwright-core, no browser
 * download) opens a test host page that uses the extension's own AppBridge and the MCP SDK
 * client against the real server over HTTP. Each view runs in a sandboxed iframe under the CSP
 * its resource declares, renders the tool result the host hands it, and its buttons call the
 * server through the host. Screenshots go to docs/screenshots/ with OUTREACH_SCREENSHOTS=1, else
 * to a scratch folder (test/screenshots.ts).
 */

/** How long a condition may take to come true on a busy two-core machine. */
const WAIT = { timeout: 15_000 };
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCREENSHOTS = scratchScreenshots('views-shots-');

if (!existsSync(CHROMIUM) && !process.env.OUTREACH_SKIP_BROWSER) {
  throw new Error(`The MCP App view tests need Chromium at ${CHROMIUM} (apt install chromium), or OUTREACH_SKIP_BROWSER=1 to skip them knowingly.`);
}
for (const view of ['insights', 'campaigns', 'leads', 'activity']) {
  if (!existsSync(join(ROOT, `dist/ui/views/${view}.html`))) throw new Error(`dist/ui/views/${view}.html is missing: run npm run build first.`);
}

/** The fixture with enough in it to be worth a picture: leads, stats and a week of events. */
function richWorkspace(): WorkspaceFileInput {
  const ws = fixture() as any;
  const q4 = ws.campaigns.find((c: any) => c.id === 'cmp_q4');
  const ada = q4.leads[0];
  const people = [
    ['Grace', 'Hopper', 'VP Engineering', 'Navy Labs', 'Interested', 'replied'],
    ['Alan', 'Turing', 'Head of Research', 'Bletchley', null, 'connected'],
    ['Katherine', 'Johnson', 'Principal Analyst', 'Langley', 'Meeting request', 'replied'],
    ['Edsger', 'Dijkstra', 'CTO', 'Structured', null, 'connection_sent'],
    ['Barbara', 'Liskov', 'Architect', 'Substitution', null, 'messaged'],
  ];
  people.forEach(([first, last, title, company, tag, stage], i) => {
    q4.leads.push({
      ...ada,
      id: `lead_${String(first).toLowerCase()}`,
      networkUrl: `https://www.linkedin.com/in/${String(first).toLowerCase()}-${String(last).toLowerCase()}`,
      firstName: first,
      lastName: last,
      jobTitle: title,
      companyName: company,
      tag,
      stage,
      replied: stage === 'replied',
      repliedAt: stage === 'replied' ? `2026-11-0${i + 2}T09:00:00Z` : null,
      taggedAt: tag ? `2026-11-0${i + 2}T10:00:00Z` : null,
      createdAt: `2026-11-01T1${i + 1}:00:00Z`,
    });
  });
  // Untrusted text: a right-to-left override in a name, an excluded badge after it, and a company
  // that is one word as long as a company may be.
  const paused = ws.campaigns.find((c: any) => c.id === 'cmp_paused');
  paused.leads = [
    {
      ...ada,
      id: 'lead_mallory',
      networkUrl: 'https://www.linkedin.com/in/mallory-evil',
      fullName: '\u202eMallory Evil',
      firstName: null,
      lastName: null,
      jobTitle: 'Chief',
      companyName: 'Supercalifragilistic'.repeat(10),
      excluded: true,
      stage: 'excluded',
      tag: null,
      taggedAt: null,
      replied: false,
      repliedAt: null,
    },
  ];
  const running = ws.campaigns.find((c: any) => c.id === 'cmp_running');
  running.stats = { connectionRequestsSent: 40, connectionRequestsAccepted: 18, messagesSent: 15, repliesReceived: 6 };
  const stats: Record<string, [number, number, number, number]> = { cmp_import: [25, 9, 7, 2], cmp_failed: [12, 4, 3, 0], cmp_done: [60, 31, 28, 11] };
  for (const [id, [sent, accepted, messaged, replies]] of Object.entries(stats)) {
    ws.campaigns.find((c: any) => c.id === id).stats = {
      connectionRequestsSent: sent,
      connectionRequestsAccepted: accepted,
      messagesSent: messaged,
      repliesReceived: replies,
    };
  }
  const types = ['connection_request_sent', 'connection_accepted', 'message_sent', 'reply_received'];
  ws.activity = [
    ...ws.activity,
    ...people.map(([first], i) => ({
      id: `evt_rich_${i}`,
      type: types[i % types.length],
      timestamp: `2026-11-0${i + 3}T0${i + 1}:30:00Z`,
      leadId: `lead_${String(first).toLowerCase()}`,
      campaignId: 'cmp_q4',
      messagePreview: types[i % types.length] === 'reply_received' ? 'Happy to talk next week.' : null,
      handOffReason: null,
    })),
  ];
  return ws as WorkspaceFileInput;
}

interface Opened {
  resourceUri: string;
  csp: string;
  result: { isError?: boolean; structuredContent?: unknown };
}

describe.skipIf(!requireTool('Chromium (/usr/bin/chromium)', existsSync(CHROMIUM)))('MCP App views in a host (Chromium, AppBridge, real server)', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let hostHtml: string;
  /** Every request a page or frame makes, and every console line: the views must fetch nothing. */
  const requests: string[] = [];
  /** The tools/call names the page sent, in order: the host's own calls and the views'. */
  const toolCalls: string[] = [];
  const consoleLines: string[] = [];

  const openHost = async (mcpPath: string): Promise<Page> => {
    const p = await browser.newPage({ viewport: { width: 960, height: 1600 } });
    p.on('request', (r) => {
      requests.push(r.url());
      const body = r.postData();
      const message = body ? (JSON.parse(body) as { method?: string; params?: { name?: string } }) : null;
      if (message?.method === 'tools/call') toolCalls.push(message.params?.name ?? '');
    });
    p.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
    p.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
    // The host page is served at the server's own origin, so its MCP client is same-origin.
    await p.route(`${server.url}/__test-host`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: hostHtml }));
    await p.goto(`${server.url}/__test-host`);
    await p.waitForSelector('body[data-ready="1"]');
    await p.evaluate(([url, key]) => (globalThis as any).outreachHost.connect(url, key), [`${server.url}${mcpPath}`, TEST_KEY] as const);
    return p;
  };
  /**
   * Opens a view as a host that passes on no resource read: the views render and act here, and
   * do not follow the changes (the *-live tests cover that). A dozen views following at once
   * would each hold one of the six connections Chromium opens to the server over HTTP/1.1 for a
   * read that waits up to 25 seconds, and the tests' own calls would queue behind them.
   */
  const open = (p: Page, id: string, tool: string, args: Record<string, unknown>): Promise<Opened> =>
    p.evaluate(([i, t, a]) => (globalThis as any).outreachHost.open(i, t, a, { proxyResources: false }), [id, tool, args] as const) as Promise<Opened>;
  const view = (p: Page, id: string): FrameLocator => p.frameLocator(`iframe[data-view="${id}"]`);
  /** Once the view has told the host its size and that size has held for a moment. */
  const shoot = async (p: Page, id: string) => {
    const frame = p.locator(`iframe[data-view="${id}"]`);
    let last: string | null = null;
    await expect
      .poll(
        async () => {
          const height = await frame.getAttribute('data-height');
          const settled = height !== null && height === last;
          last = height;
          return settled;
        },
        { interval: 200, timeout: 15_000 },
      )
      .toBe(true);
    await p.locator(`section[data-turn="${id}"]`).screenshot({ path: join(SCREENSHOTS.dir, `view-${id}.png`) });
  };
  const rest = async (path: string) => (await server.rest(path)).body;
  /**
   * Ticks a checkbox as a person would: looks, and clicks again if the tick did not hold. On a
   * loaded machine a click can land while the view is still re-rendering from the handed result,
   * and Playwright's check() then fails at once instead of trying again.
   */
  const tick = (box: Locator) =>
    expect
      .poll(async () => {
        if (!(await box.isChecked())) await box.click({ timeout: 2_000 }).catch(() => undefined);
        return box.isChecked();
      }, WAIT)
      .toBe(true);

  beforeAll(async () => {
    [server, hostHtml] = await Promise.all([startTestServer({ limits: RELAXED_LIMITS, workspace: richWorkspace() }), buildHost()]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    page = await openHost('/mcp');
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    SCREENSHOTS.remove();
  });

  it('shows the insights as counters and charts from the handed result', async () => {
    const before = toolCalls.length;
    const opened = await open(page, 'insights', 'get_insights_overview', {});
    expect(opened.resourceUri).toBe('ui://outreach/insights.html');
    const frame = view(page, 'insights');
    await expect.poll(() => frame.getByRole('heading', { name: 'Insights' }).count(), WAIT).toBe(1);
    const rates = frame.getByRole('table', { name: 'Top campaigns: acceptance and reply rate' });
    await rates.waitFor();
    await expect.poll(() => rates.getByRole('rowheader', { name: 'Done' }).count(), WAIT).toBeGreaterThan(0);
    await shoot(page, 'insights');
    // Only the host called the tool: the view rendered what it was handed.
    expect(toolCalls.slice(before)).toEqual(['get_insights_overview']);
  });

  it('pauses a running campaign from its card, and the server has it paused', async () => {
    expect((await rest('/campaigns/cmp_running')).status).toBe('CAMPAIGN_IN_PROGRESS');
    await open(page, 'campaigns', 'list_campaigns', { limit: 3 });
    const frame = view(page, 'campaigns');
    await expect.poll(() => frame.getByRole('article').count(), WAIT).toBe(3);
    await shoot(page, 'campaigns');
    // Further pages come through the cursor until the running campaign's card is there.
    const pause = frame.getByRole('button', { name: 'Pause Running' });
    for (let shown = 3; (await pause.count()) === 0; shown += 3) {
      await frame.getByRole('button', { name: 'More campaigns' }).click();
      await expect.poll(() => frame.getByRole('article').count(), WAIT).toBeGreaterThan(shown);
    }
    await pause.click();
    await expect.poll(async () => (await rest('/campaigns/cmp_running')).status, WAIT).toBe('CAMPAIGN_PAUSED');
    // The card follows the change: the campaign can be resumed now.
    await frame.getByRole('button', { name: 'Resume Running' }).waitFor();
  });

  it('says what a campaign that has sent nothing needs, and names agents where the connection offers them', async () => {
    await open(page, 'campaign-empty', 'get_campaign', { campaignId: 'cmp_noagent' });
    const card = view(page, 'campaign-empty').getByRole('article', { name: 'Campaign No agent' });
    await card.getByText('Nothing sent yet.').waitFor();
    await card.getByText(/It has no leads yet: import a CSV or add leads/).waitFor();
    await card.getByText(/no agent assigned/).waitFor();
    expect(await card.getByRole('meter').count()).toBe(0);
    await shoot(page, 'campaign-empty');
    // With the manage toolset, the view asks for the agents and names the card's.
    const manage = await openHost('/mcp?toolsets=manage');
    await open(manage, 'campaign-manage', 'get_campaign', { campaignId: 'cmp_q4' });
    const named = view(manage, 'campaign-manage').getByRole('article', { name: 'Campaign Q4' });
    await named.getByText('agent Intro').waitFor();
    expect(await named.textContent()).not.toContain('tpl_');
    await manage.close();
  });

  it('shows a campaign’s step funnel with its A/B variants where the connection offers get_agent_stats', async () => {
    // An agent written with steps, on a campaign of its own; the counts go in through the step runner's verbs.
    const agent = createAgent(server.ctx, {
      name: 'A/B intro',
      accountId: 'acc_ada',
      steps: [
        { kind: 'invite', note: 'Hi {{firstName|there}}', variants: [{ note: 'Hello {{firstName|there}}' }] },
        { kind: 'if', condition: 'accepted', withinHours: 168, then: [{ kind: 'message', text: 'Thanks!' }], else: [{ kind: 'withdraw' }] },
      ],
    });
    const campaign = createCampaign(server.ctx, { name: 'A/B test', assignedTemplateId: agent.id });
    const [invite, branch] = agent.steps as [Step, Extract<Step, { kind: 'if' }>];
    const base = { campaignId: campaign.id, agentId: agent.id };
    for (let i = 0; i < 6; i++) {
      recordStep(server.ctx, { ...base, leadId: `lead_ab${i}`, stepId: invite.id, kind: 'invite', variant: i < 4 ? 'A' : 'B', event: 'sent', at: i });
    }
    recordAccepted(server.ctx, { leadId: 'lead_ab0', at: 10 });
    recordAccepted(server.ctx, { leadId: 'lead_ab4', at: 10 });
    recordStep(server.ctx, { ...base, leadId: 'lead_ab0', stepId: (branch.then[0] as Step).id, kind: 'message', variant: 'A', event: 'sent', at: 20 });
    recordReplied(server.ctx, { leadId: 'lead_ab0', at: 30 });

    const manage = await openHost('/mcp?toolsets=manage');
    const before = toolCalls.length;
    await open(manage, 'campaign-steps', 'get_campaign', { campaignId: campaign.id });
    const frame = view(manage, 'campaign-steps');
    const table = frame.getByRole('table', { name: /Each step of the agent and its variants/ });
    await table.waitFor(WAIT);
    const cells = async (stepName: string, n: number) =>
      (await table.locator('tbody').filter({ hasText: stepName }).getByRole('row').nth(n).getByRole('cell').allTextContents()).map((t) => t.trim());
    await expect.poll(() => cells('Step 1: Invitation', 0), WAIT).toEqual(['AHi {{firstName|there}}', '4', '125.0%', '00.0%', '0']);
    expect(await cells('Step 1: Invitation', 1)).toEqual(['BHello {{firstName|there}}', '2', '150.0%', '00.0%', '0']);
    expect(await cells('Step 3: Message', 0)).toEqual(['AThanks!', '1', '—', '1100.0%', '0']);
    await table.getByText('In step 2, accepted within 7 days').first().waitFor();
    // The view asked for the stats through the host, and never for the dashboard's skip reasons.
    expect(toolCalls.slice(before)).toContain('get_agent_stats');
    expect(toolCalls.slice(before)).not.toContain('get_skip_reasons');
    await shoot(manage, 'campaign-steps');
    const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const inner = await (await manage.$('iframe[data-view="campaign-steps"]'))!.contentFrame();
    await inner!.evaluate(axe);
    const violations = (await inner!.evaluate(async () => {
      const result = await (globalThis as any).axe.run((globalThis as any).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
      return result.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
    })) as string[];
    expect(violations).toEqual([]);
    await manage.close();
    // Without the manage tool set, the same view says what the funnel needs instead.
    await open(page, 'campaign-steps-default', 'get_campaign', { campaignId: campaign.id });
    await view(page, 'campaign-steps-default')
      .getByText(/need a connection with the manage tool set/)
      .waitFor(WAIT);
  });

  it('keeps an override in a lead name from reordering the row, and a long company from widening the view', async () => {
    await open(page, 'leads-untrusted', 'list_leads', { campaignId: 'cmp_paused' });
    const frame = view(page, 'leads-untrusted');
    const row = frame.getByRole('row', { name: /Mallory Evil/ });
    await row.locator('.o-badge', { hasText: 'excluded' }).waitFor();
    const box = (l: ReturnType<FrameLocator['locator']>, which: 'first' | 'last') =>
      l.evaluate((el: any, w: string) => {
        const rects = [...el.getClientRects()];
        const r = w === 'first' ? rects[0] : rects.at(-1);
        return { left: r.left, right: r.right, top: r.top };
      }, which);
    const name = await box(row.getByRole('link', { name: /Mallory Evil/ }), 'last');
    const badge = await box(row.locator('.o-badge', { hasText: 'excluded' }), 'first');
    // Reading on: on the same line the badge is to the right of the name, or it is on a later line.
    expect(Math.abs(name.top - badge.top) < 4 ? badge.left >= name.right - 1 : badge.top > name.top, JSON.stringify({ name, badge })).toBe(true);
    const [content, width] = (await frame.locator('html').evaluate((el: any) => [el.scrollWidth, el.clientWidth])) as [number, number];
    expect(content).toBeLessThanOrEqual(width);
    await shoot(page, 'leads-untrusted');
  });

  it('shows one campaign for get_campaign', async () => {
    await open(page, 'campaign', 'get_campaign', { campaignId: 'cmp_q4' });
    const frame = view(page, 'campaign');
    await frame.getByRole('group', { name: 'Funnel of Q4' }).waitFor();
    // The default tool set has no agent tools: the card says an agent is assigned, never its id.
    await frame.getByText(/an agent assigned/).waitFor();
    expect(await frame.getByRole('article').textContent()).not.toContain('tpl_');
    await expect.poll(() => frame.getByRole('article').count(), WAIT).toBe(1);
    await shoot(page, 'campaign');
  });

  it('tags a lead from the table, and the server has the tag', async () => {
    expect((await rest('/campaigns/cmp_q4/leads/lead_alan')).tag).toBeNull();
    await open(page, 'leads', 'list_leads', { campaignId: 'cmp_q4', limit: 4 });
    const frame = view(page, 'leads');
    await tick(frame.getByRole('checkbox', { name: 'Select Alan Turing' }));
    await frame.getByLabel('Tag to apply').selectOption('Meeting request');
    await shoot(page, 'leads');
    await frame.getByRole('button', { name: 'Apply tag' }).click();
    await expect.poll(async () => (await rest('/campaigns/cmp_q4/leads/lead_alan')).tag, WAIT).toBe('Meeting request');
    // The change invalidates the view's list, which it fetches again: wait for that call to land,
    // so later tests count only their own calls.
    await expect.poll(() => frame.locator('tbody tr', { hasText: 'Alan Turing' }).textContent(), WAIT).toContain('Meeting request');
  });

  it('opens the leads on the filter and sort of the handed call, with no call of its own', async () => {
    const before = toolCalls.length;
    await open(page, 'leads-tagged', 'list_leads', { campaignId: 'cmp_q4', tag: 'Interested', sort: 'taggedAt' });
    const frame = view(page, 'leads-tagged');
    await frame.getByRole('checkbox', { name: 'Select Grace Hopper' }).waitFor();
    expect(await frame.locator('tbody tr').count()).toBe(1);
    expect(await frame.getByLabel('Show').inputValue()).toBe('tag:Interested');
    expect(toolCalls.slice(before)).toEqual(['list_leads']);
    // A profile link goes to the host (the sandbox cannot open windows).
    await frame.getByRole('link', { name: 'Grace Hopper' }).click();
    await expect.poll(() => page.evaluate(() => [...(globalThis as any).outreachHost.links]), WAIT).toEqual(['https://www.linkedin.com/in/grace-hopper']);
  });

  it('pages the leads through the cursor', async () => {
    const frame = view(page, 'leads');
    const rows = frame.locator('tbody tr');
    await expect.poll(() => rows.count(), WAIT).toBe(4);
    await frame.getByRole('button', { name: /next/i }).click();
    // The fixture's Q4 has six leads: the second page of four holds the last two.
    await expect.poll(() => rows.count(), WAIT).toBe(2);
  });

  it('shows recent activity as a timeline', async () => {
    await open(page, 'activity', 'get_recent_activity', { limit: 5 });
    const frame = view(page, 'activity');
    const items = frame.getByRole('list', { name: 'Recent activity' }).getByRole('listitem');
    await expect.poll(() => items.count(), WAIT).toBe(5);
    await shoot(page, 'activity');
    await frame.getByRole('button', { name: 'Older events' }).click();
    await expect.poll(() => items.count(), WAIT).toBe(6);
  });

  it('says what to do when there is no activity of the kind asked for', async () => {
    await open(page, 'activity-empty', 'get_recent_activity', { type: 'agent_handed_off' });
    const frame = view(page, 'activity-empty');
    await frame.getByText('No “Handed off to you” events yet.').waitFor();
    expect(await frame.getByRole('list', { name: 'Recent activity' }).count()).toBe(0);
  });

  it('greys out actions whose tools a read-only connection does not offer', async () => {
    const readonly = await openHost('/mcp?readonly=1');
    await open(readonly, 'campaigns-ro', 'list_campaigns', {});
    const frame = view(readonly, 'campaigns-ro');
    const resume = frame.getByRole('button', { name: 'Resume Running' });
    await resume.waitFor();
    expect(await resume.isDisabled()).toBe(true);
    await open(readonly, 'leads-ro', 'list_leads', { campaignId: 'cmp_q4' });
    const leads = view(readonly, 'leads-ro');
    await tick(leads.getByRole('checkbox', { name: 'Select Alan Turing' }));
    expect(await leads.getByRole('button', { name: 'Exclude' }).isDisabled()).toBe(true);
    await shoot(readonly, 'leads-ro');
    await readonly.close();
  });

  it('every view passes axe (WCAG 2 A and AA)', async () => {
    const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    for (const id of ['insights', 'campaigns', 'campaign', 'campaign-empty', 'leads', 'leads-untrusted', 'activity', 'activity-empty']) {
      const frame = await (await page.$(`iframe[data-view="${id}"]`))!.contentFrame();
      await frame!.evaluate(axe);
      const violations = (await frame!.evaluate(async () => {
        const result = await (globalThis as any).axe.run((globalThis as any).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
        return result.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
      })) as string[];
      expect(violations, id).toEqual([]);
    }
  });

  it('fetched nothing beyond the host bridge, and broke no CSP rule', () => {
    const origin = new URL(server.url).origin;
    const foreign = requests.filter(
      (u) => !u.startsWith(`${origin}/mcp`) && u !== `${origin}/__test-host` && !u.startsWith('about:') && !u.startsWith('data:'),
    );
    expect(foreign).toEqual([]);
    expect(consoleLines.filter((l) => /Content Security Policy|Refused to|pageerror/i.test(l))).toEqual([]);
  });
});
