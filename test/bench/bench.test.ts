import { beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../bench/lib/app.js';
import { captureLeadQueries, caseInput, casePath, listCases, pageCursor, rawQueries } from '../../bench/lib/leads.js';
import { createServer, type Server } from 'node:http';
import { combine, parseRequestLog, runInterleaved, type LoadSpec, type Slice } from '../../bench/lib/load.js';
import type { DashboardBench } from '../../bench/lib/dashboard.js';
import {
  dashboardMarkdown,
  dashboardTargets,
  evaluateTargets,
  renderMarkdown,
  throughputRatio,
  type ListRow,
  type LoadRun,
  type Results,
} from '../../bench/lib/report.js';
import { batchBody, benchWorkspace, raisedLimits, rpc } from '../../bench/lib/setup.js';
import { percentile, summarize, timeInTurns } from '../../bench/lib/stats.js';
import * as cursor from '../../src/core/cursor.js';
import * as leadList from '../../src/core/leads/list.js';
import { normalizeProfileUrl } from '../../src/core/leads/url.js';
import { LimitsConfig, RATE_CLASS_NAMES } from '../../src/core/ratelimit/index.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import * as workspace from '../../src/core/workspace/get.js';
import * as connection from '../../src/db/connection.js';
import { generateLeads } from '../../src/core/seed/fixture.js';
import * as schema from '../../src/db/schema.js';
import * as log from '../../src/log.js';
import * as server from '../../src/server.js';
import * as pipeline from '../../src/tools/pipeline.js';
import * as tools from '../../src/tools/index.js';
import { testCtx } from '../helpers.js';
import { freshHandle } from '../plans.js';
import { ALLOWED_QUERIES } from '../leads/data.js';
import { restoreCampaign } from '../../src/core/campaigns/state-machine.js';

/**
 * The bench's pieces on small inputs, so `npm run bench` does not rot between runs. The bench
 * itself (a million leads, minutes of load) is not part of the test suite.
 */
const app: App = { cursor, leadList, workspace, connection, schema, log, pipeline, server, tools };
const cases = listCases(leadList.SORTS_BY_FILTER);

describe('bench: the list_leads cases', () => {
  it('are every allowed (filter, sort) pair of the sort matrix, each once', () => {
    expect(cases.map((c) => c.name)).toEqual([
      'sort=createdAt',
      'sort=lastInboundMessageAt',
      'tag=Interested sort=createdAt',
      'tag=Interested sort=taggedAt',
      'replied=true sort=createdAt',
      'replied=true sort=repliedAt',
      'replied=true sort=lastInboundMessageAt',
      'replied=false sort=createdAt',
      'replied=false sort=repliedAt',
      'replied=false sort=lastInboundMessageAt',
      'needsReply=true sort=createdAt',
      'needsReply=false sort=createdAt',
      'excluded=true sort=createdAt',
    ]);
    const covered = new Set(cases.map((c) => `${c.filter}|${c.sort}`));
    for (const q of ALLOWED_QUERIES) {
      const filter = (['tag', 'replied', 'needsReply', 'excluded'] as const).find((f) => q[f] !== undefined) ?? 'none';
      expect(covered.has(`${filter}|${q.sort ?? 'createdAt'}`), JSON.stringify(q)).toBe(true);
    }
  });

  it('are all accepted by the list rules, and their REST query is what the adapter reads', () => {
    for (const c of cases) {
      expect(() => leadList.leadListQuery(caseInput('cmp_x', c, 50))).not.toThrow();
    }
    const replied = cases.find((c) => c.name === 'replied=false sort=repliedAt')!;
    expect(casePath('cmp_x', replied, 50)).toBe('/public/v1/campaigns/cmp_x/leads?replied=false&sort=repliedAt&limit=50');
    expect(casePath('cmp_x', cases[0]!, 50, 'abc.def')).toBe('/public/v1/campaigns/cmp_x/leads?sort=createdAt&limit=50&cursor=abc.def');
  });
});

describe('bench: building a deep page cursor', () => {
  const ctx = testCtx();
  let secret: string;

  beforeAll(() => {
    const now = ctx.clock.now();
    restoreCampaign(ctx, { id: 'cmp_bench', name: 'Bench', status: 'READY_TO_SEND', createdAt: now, updatedAt: now });
    generateLeads(ctx.db, 'cmp_bench', 2000);
    secret = workspace.getWorkspace(ctx)!.cursorSecret;
  });

  it('gives the cursor a walk gets to the same page, for every case', () => {
    for (const c of cases) {
      const input = caseInput('cmp_bench', c, 10);
      let walked: string | null = null;
      for (let page = 1; page < 6; page++) {
        walked = leadList.listLeads(ctx, secret, { ...input, cursor: walked ?? undefined }).nextCursor;
        expect(walked, `${c.name} page ${page}`).not.toBeNull();
      }
      expect(pageCursor(app, ctx.db, secret, input, 6), c.name).toBe(walked);
      expect(pageCursor(app, ctx.db, secret, input, 1)).toBeNull();
    }
  });

  it('is null past the end of a list', () => {
    expect(pageCursor(app, ctx.db, secret, caseInput('cmp_bench', cases[0]!, 100), 1000)).toBeNull();
  });

  it('captures the raw keyset SQL of a page, which then reads the same rows without the verb', () => {
    const c = cases.find((x) => x.name === 'tag=Interested sort=taggedAt')!;
    const input = caseInput('cmp_bench', c, 10, pageCursor(app, ctx.db, secret, caseInput('cmp_bench', c, 10), 3)!);
    const fresh = { ...ctx, db: freshHandle(ctx.db) };
    const queries = captureLeadQueries(fresh.db, () => void leadList.listLeads(fresh, secret, input));
    // The cursor check, the ties of its sort value, then the older values.
    expect(queries.map((q) => (/count\(\*\)/.test(q.sql) ? 'check' : 'page'))).toEqual(['check', 'page', 'page']);
    expect(rawQueries(ctx.db.$client, queries)()).toBe(1 + 11);
    expect(rawQueries(ctx.db.$client, queries, 'arrays')()).toBe(1 + 11);
  });
});

describe('bench: inputs', () => {
  it('seeds a workspace the seed command accepts, with a key and credits for the batch cases', () => {
    const parsed = WorkspaceFile.parse(benchWorkspace());
    // The bench key, and the scoped key whose calls measure the scope check.
    expect(parsed.apiKeys.map((k) => k.scope === undefined)).toEqual([true, false]);
    expect(parsed.credits?.credits).toBeGreaterThanOrEqual(10_000_000);
  });

  it('raises every limit within what the config accepts', () => {
    const limits = LimitsConfig.parse(raisedLimits(RATE_CLASS_NAMES));
    expect(Object.keys(limits.perMinute ?? {})).toEqual(RATE_CLASS_NAMES);
  });

  it('sends batch bodies the tool accepts, with 100 profile URLs no other batch uses', () => {
    const tool = tools.toolByName.get('add_leads_batch')!;
    const a = JSON.parse(batchBody('t', 1)) as { leads: { networkUrl: string }[] };
    const b = JSON.parse(batchBody('t', 2)) as { leads: { networkUrl: string }[] };
    expect(tool.input.safeParse({ campaignId: 'cmp_adds', ...a }).success).toBe(true);
    const urls = [...a.leads, ...b.leads].map((l) => normalizeProfileUrl(l.networkUrl));
    expect(urls.every((u) => u !== null)).toBe(true);
    expect(new Set(urls).size).toBe(200);
    expect(JSON.parse(rpc('tools/list'))).toEqual({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  });
});

describe('bench: figures', () => {
  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(summarize([3, 1, 2])).toEqual({ n: 3, p50: 2, p99: 3, mean: 2 });
  });

  it('times functions in turns, sync and async alike, after a warm-up', async () => {
    const calls: string[] = [];
    const [a, b] = await timeInTurns([() => calls.push('a'), async () => void calls.push('b')], { warmup: 1, iterations: 3 });
    expect(calls.join('')).toBe('abababab');
    expect(a!.n).toBe(3);
    expect(b!.n).toBe(3);
  });

  it("adds the slices of a run up: requests over seconds, the slices' median latency, pooled server times", () => {
    const slice = (requests: number, p50Ms: number, serverTimes: number[]): Slice => ({
      seconds: 1,
      requests,
      statusCounts: { '200': requests - 1, '429': 1 },
      errors: 0,
      p50Ms,
      p99Ms: p50Ms * 10,
      serverTimes,
    });
    const run = combine({ id: 'x', title: 'X', kind: 'server', connections: 10, baselines: ['y'] }, [
      slice(100, 1, [1]),
      slice(300, 3, [2, 3]),
      slice(200, 2, []),
    ]);
    expect(run).toMatchObject({
      durationSeconds: 3,
      requests: 600,
      reqPerSec: 200,
      p50Ms: 2,
      p99Ms: 20,
      statusCounts: { '200': 597, '429': 3 },
      baselines: ['y'],
    });
    expect(run.serverSide).toMatchObject({ n: 3, p50: 2 });
  });

  it("takes a ratio between runs of the same turns as the median of the turns' ratios, else as their totals' ratio", () => {
    const run = (reqPerSec: number, turns?: number[]): LoadRun => ({
      id: 'x',
      title: 'X',
      kind: 'server',
      connections: 10,
      durationSeconds: 3,
      reqPerSec,
      p50Ms: 1,
      p99Ms: 2,
      requests: reqPerSec * 3,
      statusCounts: {},
      errors: 0,
      ...(turns ? { turns } : {}),
    });
    // One turn that the machine slowed for our side alone moves the totals, not the median.
    expect(throughputRatio(run(70, [100, 100, 10]), run(200, [200, 200, 200]))).toBe(0.5);
    expect(throughputRatio(run(70), run(200))).toBe(0.35);
    // Turns that do not pair up (a different count, too few, a turn with nothing answered): totals.
    expect(throughputRatio(run(70, [100, 100, 10]), run(200, [200, 200]))).toBe(0.35);
    expect(throughputRatio(run(70, [100, 40]), run(200, [200, 200]))).toBe(0.35);
    expect(throughputRatio(run(70, [100, 100, 10]), run(200, [200, 0, 400]))).toBe(0.35);
  });

  it("runs targets in turns, the order reversed every other turn, and keeps each turn's req/s", async () => {
    const order: string[] = [];
    const servers: Server[] = [];
    const listen = async (name: string): Promise<string> => {
      const server = createServer((req, res) => {
        if (req.url !== '/health' && order.at(-1) !== name) order.push(name);
        res.end('ok');
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    };
    try {
      const spec = async (id: string): Promise<LoadSpec> => ({
        id,
        title: id,
        kind: 'server',
        url: await listen(id),
        path: '/',
        connections: 1,
        durationSeconds: 0.6,
        warmupSeconds: 0,
      });
      const runs = await runInterleaved([await spec('a'), await spec('b'), await spec('c')], 3);
      // a b c, then c b a, then a b c; a server that takes two slices running shows once.
      expect(order.join('')).toBe('abcbabc');
      for (const r of runs) {
        expect(r.turns).toHaveLength(3);
        for (const t of r.turns ?? []) expect(t).toBeGreaterThan(0);
      }
    } finally {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });

  it('reads the server-side time of one tool, or one path, from the request log', () => {
    const lines = [
      '{"level":30,"msg":"request","path":"/public/v1/campaigns/c/leads","tool":"list_leads","ms":1.5}',
      '{"level":30,"msg":"request","path":"/public/v1/campaigns/c/leads/l","tool":"get_lead","ms":9}',
      '{"level":30,"msg":"request","path":"/mcp","ms":4}',
      '{"level":30,"msg":"request","path":"/public/v1/campaigns/c/leads","tool":"list_leads","ms":2.5}',
      '{"level":30,"msg":"request","tool":"list_le', // cut at the window's end
    ].join('\n');
    expect(parseRequestLog(lines, { tool: 'list_leads' })).toEqual([1.5, 2.5]);
    expect(parseRequestLog(lines, { path: '/mcp' })).toEqual([4]);
  });
});

describe('bench: the report', () => {
  const summary = (p50: number, p99 = p50 * 2) => ({ n: 100, p50, p99, mean: p50 });
  const run = (id: string, reqPerSec: number, extra: Partial<LoadRun> = {}): LoadRun => ({
    id,
    title: `title of ${id}`,
    kind: id.includes('express') || id.includes('http') || id.includes('sdk') ? 'baseline' : 'server',
    connections: 10,
    durationSeconds: 3,
    reqPerSec,
    p50Ms: 1,
    p99Ms: 4,
    requests: reqPerSec * 3,
    statusCounts: { '200': reqPerSec * 3 },
    errors: 0,
    ...extra,
  });
  const list: ListRow[] = [
    {
      case: 'sort=createdAt',
      page: 1,
      runId: 'list.0',
      latencyRunId: 'list.0.c1',
      raw: summary(0.2),
      rawArrays: summary(0.1),
      verb: summary(0.3),
      pipeline: summary(0.4),
    },
    {
      case: 'sort=createdAt',
      page: 1000,
      runId: 'list.1',
      latencyRunId: 'list.1.c1',
      raw: summary(0.2),
      rawArrays: summary(0.1),
      verb: summary(0.4),
      pipeline: summary(0.6),
    },
  ];
  const results = (
    over: {
      restRps?: number;
      verb?: number;
      floodFloors?: number[];
      listP99?: number;
      modelTokens?: number;
      manageTokens?: number;
      modernRps?: number;
      mcpRps?: number;
      scopedRps?: number;
      batchFloorMs?: number;
      coldMs?: number;
    } = {},
  ): Omit<Results, 'targets'> => ({
    machine: { cpu: 'Test CPU', cores: 2, memoryGiB: 8, node: 'v20.0.0', platform: 'linux', loadAverage: { start: [1, 1, 1], end: [2, 2, 2] } },
    date: '2026-01-01T00:00:00.000Z',
    commit: 'abc123',
    dirty: false,
    settings: { connections: 10, durationSeconds: 3, warmupSeconds: 1, leads: 1_000_000, pageSize: 50, deepPage: 1000, inProcessIterations: 300 },
    timings: { fixtureMs: 20_000, totalMs: 300_000 },
    runs: [
      run('credits.rest', over.restRps ?? 6000, { baselines: ['credits.express', 'credits.http'], serverSide: summary(0.3) }),
      run('credits.scoped', over.scopedRps ?? 5900, { baselines: ['credits.rest'] }),
      run('credits.express', 10_000),
      run('credits.http', 30_000),
      run('credits.mcp', over.mcpRps ?? 3700, { baselines: ['credits.mcp-sdk', 'credits.rest'] }),
      run('credits.mcp-sdk', 2000),
      run('credits.mcp-modern', over.modernRps ?? 3800, { baselines: ['credits.mcp-sdk-modern', 'credits.rest'] }),
      run('credits.mcp-sdk-modern', 2100),
      run('list.0', 3000, { baselines: ['list.express'] }),
      run('list.0.c1', 900, { connections: 1, serverSide: summary(0.5, 1.2) }),
      run('list.1', 2500, { baselines: ['list.express'] }),
      run('list.1.c1', 800, { connections: 1, serverSide: summary(0.6, 6) }),
      run('list.express', 5000),
      run('batch.rest.c1', 60, { connections: 1, p50Ms: 14, serverSide: summary(12), extra: { leadsPerSec: 6000 } }),
      run('flood.rest', 8000, { baselines: ['flood.express'], statusCounts: { '200': 2, '429': 23_998 } }),
      run('flood.express', 9000),
    ],
    list: over.verb === undefined ? list : list.map((l) => ({ ...l, verb: summary(over.verb!) })),
    listServerSide: { n: 3000, p50: 0.5, p99: over.listP99 ?? 4.5, mean: 0.6 },
    coldStart: { runsMs: [700, 650, 800], medianMs: over.coldMs ?? 700, baselineRunsMs: [250, 240, 260], baselineMedianMs: 250 },
    batchFloor: { runsMs: [5, 5, 6], medianMs: over.batchFloorMs ?? 5, writes: 104 },
    memory: {
      startRssMB: 125,
      idleRssMB: 100,
      idleSeconds: 25,
      loaded: { requests: 100_000, floorMB: 120, medianMB: 150, peakMB: 180 },
      afterLoadRssMB: 160,
      flood: {
        beforeMB: 90,
        rounds: (over.floodFloors ?? [110, 120, 122]).map((floorMB) => ({ requests: 20_000, floorMB, medianMB: floorMB + 20, peakMB: floorMB + 50 })),
      },
    },
    toolsList: {
      tools: 18,
      responseBytes: 20_000,
      toolsBytes: 19_960,
      modelTokens: over.modelTokens ?? 4_000,
      byField: { inputSchema: 9000, outputSchema: 9000 },
      manage: { tools: 30, responseBytes: 40_000, modelTokens: over.manageTokens ?? 6_500 },
    },
  });
  const met = (r: Omit<Results, 'targets'>) => Object.fromEntries(evaluateTargets(r).map((t) => [t.id, t.met]));

  it("judges every target of the issue against this run's own baselines", () => {
    expect(met(results())).toEqual({
      'rest-vs-express': true,
      'scope-check': true,
      'mcp-vs-rest': true,
      'mcp-vs-rest-plain': true,
      'list-cost': true,
      'list-p99': true,
      'batch-floor': true,
      'flood-throughput': true,
      'flood-memory': true,
      'cold-start': true,
      'idle-rss': true,
      'tools-list': true,
      'tools-list-manage': true,
    });
    const worse = met(
      results({
        restRps: 5900,
        mcpRps: 3000,
        verb: 0.41,
        floodFloors: [110, 120, 131],
        modelTokens: 4_501,
        manageTokens: 9_001,
        listP99: 5,
        batchFloorMs: 3.9,
        coldMs: 760,
      }),
    );
    expect(worse).toMatchObject({
      'rest-vs-express': false,
      'list-cost': false,
      'list-p99': false,
      'flood-memory': false,
      'tools-list': false,
      'tools-list-manage': false,
      'batch-floor': false,
      'cold-start': false,
    });
    // MCP at 3000 req/s against REST at 5900 is still over half, but under 60%.
    expect(worse['mcp-vs-rest']).toBe(true);
    expect(worse['mcp-vs-rest-plain']).toBe(false);
    // Both eras must reach half: the 2026-07-28 one falling short fails the target.
    expect(met(results({ modernRps: 2900 }))['mcp-vs-rest']).toBe(false);
    // Both eras must reach 60%: either one at 58% of REST fails it.
    expect(met(results({ modernRps: 3480 }))['mcp-vs-rest-plain']).toBe(false);
    expect(met(results({ mcpRps: 3480 }))['mcp-vs-rest-plain']).toBe(false);
    // A scoped key more than 5% slower than an unscoped one fails the scope target (5900 of 6000 is within).
    expect(met(results({ scopedRps: 5690 }))['scope-check']).toBe(false);
  });

  it('judges the drafts case on the server-side times, when the run has it', () => {
    const times = (p50: number) => ({ n: 300, p50, p99: p50 * 3, mean: p50 });
    const drafts = (listP99: number, updateP50: number, verbP50 = 0.3) => ({
      drafts: 100_000,
      seedMs: 9000,
      list: { pages: ['/public/v1/drafts?limit=50'], serverSide: { n: 1200, p50: 0.6, p99: listP99, mean: 0.7 } },
      update: { serverSide: { n: 100, p50: updateP50, p99: updateP50 * 2, mean: updateP50 }, clientSide: { n: 100, p50: updateP50 + 2, p99: 30, mean: 12 } },
      inProcess: {
        list: [
          { page: 'campaign, pending, first', raw: times(0.2), verb: times(0.3) },
          { page: 'every draft, first', raw: times(0.2), verb: times(verbP50) },
        ],
        update: { raw: times(1), verb: times(3) },
      },
    });
    expect(met({ ...results(), draftsCase: drafts(4.9, 19) })).toMatchObject({ 'drafts-list-p99': true, 'drafts-update': true, 'drafts-list-cost': true });
    expect(met({ ...results(), draftsCase: drafts(5, 20, 0.41) })).toMatchObject({
      'drafts-list-p99': false,
      'drafts-update': false,
      'drafts-list-cost': false,
    });
    expect(Object.keys(met(results()))).not.toContain('drafts-list-p99');
    const r = { ...results(), draftsCase: drafts(1.2, 8) };
    const md = renderMarkdown({ ...r, targets: evaluateTargets(r) });
    expect(md).toContain('list_drafts at 100,000 pending drafts: p99 under 5 ms server-side');
    expect(md).toContain('update_drafts of 100 approvals under 20 ms');
    expect(md).toContain('A list_drafts page at 100,000 drafts costs ≤ 2× the raw keyset query (in-process, in turns)');
    expect(md).toContain('worst 1.50× at the median (campaign, pending, first');
    expect(md).toContain('100 approvals cost 3.00× their raw UPDATEs');
  });

  it('writes every case with its ratio, and the machine, date and commit', () => {
    const r = results();
    const md = renderMarkdown({ ...r, targets: evaluateTargets(r) });
    expect(md).toContain('Test CPU, 2 cores, 8.0 GiB');
    expect(md).toContain('2026-01-01T00:00:00.000Z');
    expect(md).toContain('`abc123`');
    expect(md).toContain('0.60× title of credits.express<br>0.20× title of credits.http');
    expect(md).toContain('1.85× title of credits.mcp-sdk<br>0.62× title of credits.rest');
    expect(md).toContain('0.89× title of flood.express');
    // list pages: cost against the raw query, the one-connection server-side time, the HTTP ratio.
    expect(md).toMatch(
      /\| sort=createdAt \| 1000 \| 0\.20 \/ 0\.40 \| 0\.40 \/ 0\.80 \| 2\.00× \| 0\.10 \/ 0\.20 \| 4\.00× \| .* \| 0\.60 \/ 6\.00 \| 0\.50× title of list\.express \|/,
    );
    for (const t of evaluateTargets(r)) expect(md).toContain(t.text);
    expect(md).not.toContain('**not met**');
    const worse = results({ listP99: 6 });
    expect(renderMarkdown({ ...worse, targets: evaluateTargets(worse) })).toMatch(
      /\| list_leads p99 under 5 ms server-side \| 6\.00 ms .* \| \*\*not met\*\* \|/,
    );
  });
});

describe('bench: the dashboard first-load target', () => {
  const base: DashboardBench = { data: [], navigation: null, jsGzipBytes: 1, cssGzipBytes: 1, viewBytes: [{ view: 'insights', bytes: 1 }] };
  const withData: DashboardBench = { ...base, data: [{ page: 'overview', calls: [], pooled: summarize([1, 2, 3]), serverPooled: null }] };
  const load = (brBytes: number) => ({
    brBytes,
    gzipBytes: brBytes + 1,
    identityBytes: brBytes * 4,
    files: [{ path: '/app/', brBytes, gzipBytes: brBytes + 1, identityBytes: brBytes * 4 }],
  });

  it('is met at or under 300 KB of br on the wire, and named with all three figures', () => {
    const met = dashboardTargets({ ...withData, firstLoad: load(300 * 1024) }).find((t) => t.id === 'dashboard-first-load')!;
    expect(met.met).toBe(true);
    expect(met.measured).toContain('br');
    expect(dashboardTargets({ ...withData, firstLoad: load(300 * 1024 + 1) }).find((t) => t.id === 'dashboard-first-load')!.met).toBe(false);
    expect(dashboardMarkdown({ ...withData, firstLoad: load(1000) }).join('\n')).toContain('| total | 1,000 |');
  });

  it('is left out for a run from before it existed', () => {
    expect(dashboardTargets(withData).map((t) => t.id)).not.toContain('dashboard-first-load');
  });
});
