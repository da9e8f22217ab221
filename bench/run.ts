/**
 * `npm run bench`: the server beside bare baselines, in one run, on this machine. Writes
 * bench/results.json and bench/RESULTS.md. See the Method section of RESULTS.md.
 *
 * Overrides for a quick try (the committed results use the defaults): BENCH_LEADS,
 * BENCH_DURATION (seconds per case), BENCH_TURNS (1-second turns of the cases whose throughput ratios
 * are targets: GET /credits, MCP, get_lead; default 9), BENCH_DEEP_PAGE (default: 1000, or one page per 1,000
 * leads on a smaller fixture, so every list still reaches it), BENCH_ITERATIONS; the scale
 * simulation that follows a whole run takes BENCH_SCALE_LEADS and BENCH_SCALE_DAYS (bench/scale.ts).
 *
 * BENCH_ONLY=part,part runs only those parts and prints their figures (nothing is written, and
 * the scale simulation, `npm run bench:scale` on its own, is skipped): cold (cold starts),
 * inprocess (in-process list_leads, idle RSS), dashboard, credits (REST and MCP get_credits),
 * lead (get_lead), list (list_leads pages), batch (add_leads_batch), flood (the 429 path),
 * drafts (list_drafts at 100,000 pending drafts, update_drafts of 100 approvals), import (CSV
 * import), approveall ("approve all" of 10,000 pending drafts, server-side), approval (a 10,000-lead campaign with approval required, approved over MCP in batches
 * of 100, through the simulator; BENCH_APPROVAL_LEADS and BENCH_APPROVAL_ACCOUNTS shrink it,
 * BENCH_APPROVAL_SEED varies the engine's random draws (default 7); on
 * its own it skips the million-lead fixture), enrich (enriching leads known only by their URL
 * against the profile lookup alone, on the simulator; BENCH_ENRICH_LEADS per round; on its own
 * it skips the fixture too), triage (10,000 replies through the triage rules; on its own it skips
 * the fixture too), crmengine (the engine's cost per provider call with the CRM sync on against off,
 * on the simulator; BENCH_CRM_LEADS; on its own it skips the fixture too), crmpush (the CRM outbox
 * pushing 10,000 events to the local HubSpot stand-in against the same calls made directly; on its
 * own it skips the fixture too), imap (10,000 messages read from Dovecot by IMAP and matched as replies through
 * the mail poller, against imapflow fetching them alone; needs Debian's Postfix and Dovecot and
 * root, as the email end-to-end test does; BENCH_IMAP_MESSAGES shrinks it; on its own it skips
 * the fixture too). E.g. `BENCH_LEADS=100000 BENCH_ONLY=credits,batch`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request } from 'autocannon';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { loadApp, repoRoot, type App } from './lib/app.js';
import { captureLeadQueries, caseInput, casePath, listCases, pageCursor, rawQueries, type ListCase } from './lib/leads.js';
import { checkFetch, combine, runInterleaved, runLoad, runSlice, type LoadSpec, type Slice } from './lib/load.js';
import { rssMB, sampleRss, spawnServer, freePort, type Child } from './lib/proc.js';
import { benchDashboard, CHROMIUM } from './lib/dashboard.js';
import { mailServersInstalled } from '../test/email/mail-servers.js';
import {
  dashboardMarkdown,
  dashboardTargets,
  approvalTargets,
  approveAllTargets,
  enrichTargets,
  triageTargets,
  imapTargets,
  crmTargets,
  crmPushTargets,
  auditTargets,
  draftsTargets,
  evaluateTargets,
  renderMarkdown,
  runById,
  throughputRatio,
  type ListRow,
  type LoadRun,
  type Results,
  type RssRound,
  type ToolsListSize,
} from './lib/report.js';
import { ADD_CAMPAIGN, BENCH_KEY, LIST_CAMPAIGN, MCP_HEADERS, SCOPED_BENCH_KEY, batchBody, benchWorkspace, modernRpc, raisedLimits, rpc } from './lib/setup.js';
import { median, summarize, timeInTurns } from './lib/stats.js';
import { benchImport } from './lib/import.js';
import { recordStatements, replayWrites } from './lib/statements.js';
import { listingTokens } from './lib/listing.js';
import { benchDrafts, seedDrafts, type DraftsBench } from './lib/drafts.js';
import { type ApprovalBench, type ApproveAllBench, runApproval, runApproveAll } from './lib/approval.js';
import { type EnrichBench, runEnrich } from './lib/enrich.js';
import { runTriage, type TriageBench } from './lib/triage.js';
import { type ImapBench, runImap } from './lib/imap.js';
import { type AuditBench, runAudit } from './lib/audit.js';
import { AGENCY_SECTION, carrySection } from './lib/sections.js';
import { type CrmEngineBench, type CrmPushBench, runCrmEngine, runCrmPush } from './lib/crm.js';

const envInt = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name}: "${raw}" must be a positive integer`);
  return n;
};

const LEADS = envInt('BENCH_LEADS', 1_000_000);
const SETTINGS = {
  connections: 10,
  durationSeconds: envInt('BENCH_DURATION', 3),
  warmupSeconds: 1,
  /** Turns of 1 s each that GET /credits, MCP and get_lead take with their baselines: their ratios are targets. */
  turns: envInt('BENCH_TURNS', 9),
  leads: LEADS,
  pageSize: 50,
  // Every list of the fixture holds at least 5% of the leads (50 pages per 1,000 leads at 50 a page).
  deepPage: envInt('BENCH_DEEP_PAGE', Math.max(2, Math.min(1000, Math.floor(LEADS / 1000)))),
  inProcessIterations: envInt('BENCH_ITERATIONS', 300),
};

const PARTS = [
  'cold',
  'inprocess',
  'dashboard',
  'credits',
  'lead',
  'list',
  'batch',
  'drafts',
  'flood',
  'import',
  'approval',
  'approveall',
  'enrich',
  'triage',
  'audit',
  'crmengine',
  'crmpush',
  'imap',
] as const;
type Part = (typeof PARTS)[number];
/** The parts BENCH_ONLY names, or null for a whole run (the only kind that writes results). */
const ONLY: ReadonlySet<Part> | null = (() => {
  const raw = process.env.BENCH_ONLY;
  if (raw === undefined || raw.trim() === '') return null;
  const names = raw.split(',').map((x) => x.trim());
  const unknown = names.filter((x) => !(PARTS as readonly string[]).includes(x));
  if (unknown.length) throw new Error(`BENCH_ONLY: unknown part ${unknown.join(', ')}; the parts are ${PARTS.join(', ')}`);
  return new Set(names as Part[]);
})();
const want = (part: Part): boolean => ONLY === null || ONLY.has(part);
const COLD_STARTS = 5;

const say = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const git = (root: string, ...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

interface Json {
  status: number;
  body: unknown;
  text: string;
}

/** A check's request, on a connection of its own (checkFetch). */
async function call(url: string, init: Parameters<typeof checkFetch>[1] = {}): Promise<Json> {
  const res = await checkFetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a non-JSON body stays text
  }
  return { status: res.status, body, text };
}

const restHeaders = { 'x-api-key': BENCH_KEY };
const jsonHeaders = { ...restHeaders, 'content-type': 'application/json' };
const mcpHeaders = { ...MCP_HEADERS, 'x-api-key': BENCH_KEY };

function expect200(what: string, res: Json): void {
  if (res.status !== 200) throw new Error(`${what}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
}

function node(root: string, args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/** `npm run fixture`'s program (dist/cli/fixture.js; dist/db/fixture-cli.js in builds before it moved, so this bench can measure them too). */
const fixtureCli = (root: string): string => (existsSync(join(root, 'dist/cli/fixture.js')) ? 'dist/cli/fixture.js' : 'dist/db/fixture-cli.js');

/** The two databases: the million-lead one, and a small one for the default-limits (429) server. */
function buildDatabases(root: string, dir: string): { big: string; small: string; fixtureMs: number } {
  const file = join(dir, 'workspace.json');
  writeFileSync(file, JSON.stringify(benchWorkspace()));
  const big = join(dir, 'big.db');
  const small = join(dir, 'small.db');
  node(root, ['bin/outreach.js', 'seed', '--file', file, '--db', big]);
  node(root, ['bin/outreach.js', 'seed', '--file', file, '--db', small]);
  say(`generating ${SETTINGS.leads.toLocaleString('en-US')} leads`);
  const started = performance.now();
  node(root, [fixtureCli(root), '--db', big, '--campaign', LIST_CAMPAIGN, '--leads', String(SETTINGS.leads)]);
  const fixtureMs = performance.now() - started;
  say(`fixture: ${(fixtureMs / 1000).toFixed(1)} s`);
  return { big, small, fixtureMs };
}

interface ListPage {
  c: ListCase;
  page: number;
  cursor: string | null;
  /** The id the page must start with (the row at its offset), to check the built cursor over REST. */
  firstId: string;
}

/** Both pages of every list case, with their cursors built in-process. */
function listPages(app: App, ctx: ReturnType<App['server']['createContext']>, secret: string): ListPage[] {
  const out: ListPage[] = [];
  for (const c of listCases(app.leadList.SORTS_BY_FILTER)) {
    for (const page of [1, SETTINGS.deepPage]) {
      const input = caseInput(LIST_CAMPAIGN, c, SETTINGS.pageSize);
      const cursor = pageCursor(app, ctx.db, secret, input, page);
      if (page > 1 && cursor === null) throw new Error(`${c.name}: fewer than ${page} pages; the fixture must fill every list`);
      const first = app.leadList.listLeads(ctx, secret, { ...input, cursor: cursor ?? undefined }).leads[0];
      if (!first) throw new Error(`${c.name}: page ${page} is empty`);
      out.push({ c, page, cursor, firstId: first.id });
    }
  }
  return out;
}

/** Ids spread evenly over the campaign, for get_lead. */
function sampleLeadIds(ctx: ReturnType<App['server']['createContext']>, n: number): string[] {
  const client = ctx.db.$client;
  const { lo, hi } = client.prepare('SELECT min(seq) AS lo, max(seq) AS hi FROM leads WHERE campaign_id = ?').get(LIST_CAMPAIGN) as { lo: number; hi: number };
  const byseq = client.prepare('SELECT id FROM leads WHERE seq = ?');
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const row = byseq.get(lo + Math.floor(((hi - lo) * i) / n)) as { id: string } | undefined;
    if (row) ids.push(row.id);
  }
  return ids;
}

/**
 * Spawn to a healthy /health, several times: the server, taking turns with the bare Express
 * baseline (which loads only Express), so a busy machine shows in both.
 */
async function coldStarts(root: string, db: string, config: string, routes: string): Promise<{ ours: number[]; express: number[] }> {
  const ours: number[] = [];
  const express: number[] = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    const port = await freePort();
    const child = await spawnServer({
      args: ['bin/outreach.js', 'start', '--db', db, '--port', String(port), '--config', config],
      cwd: root,
      port,
      healthPath: '/health',
    });
    ours.push(child.startMs);
    await child.stop();
    const bare = await startBaseline(root, ['plain.js', 'express', 'PORT', routes]);
    express.push(bare.startMs);
    await bare.stop();
  }
  return { ours, express };
}

async function startServer(root: string, db: string, config: string | null, logPath: string): Promise<Child> {
  const port = await freePort();
  const args = ['bin/outreach.js', 'start', '--db', db, '--port', String(port)];
  if (config) args.push('--config', config);
  return spawnServer({ args, cwd: root, port, healthPath: '/health', logPath });
}

async function startBaseline(root: string, args: string[]): Promise<Child> {
  const port = await freePort();
  const [script, ...rest] = args;
  return spawnServer({
    args: [join('dist/bench-build/bench/baselines', script as string), ...rest.map((a) => (a === 'PORT' ? String(port) : a))],
    cwd: root,
    port,
    healthPath: '/health',
  });
}

const IDLE_SECONDS = 25;
/** Turns in which a case and its baselines share their measured seconds. */
const ROUNDS = 3;
/** Each of the ROUNDS floods of the 429 case. */
const FLOOD_SECONDS = 4;
/** The one-connection run of each list page, for its server-side latency. */
const LATENCY_SECONDS = 2;

/** RSS figures of one stretch of load on a server. */
const roundOf = (samples: number[], requests: number): RssRound => ({
  requests,
  floorMB: Math.min(...samples),
  medianMB: median(samples),
  peakMB: Math.max(...samples),
});
const round = (samples: number[], runs: readonly LoadRun[]): RssRound =>
  roundOf(
    samples,
    runs.reduce((n, r) => n + r.requests, 0),
  );

const listedTools = (list: Json): Record<string, unknown>[] => (list.body as { result: { tools: Record<string, unknown>[] } }).result.tools;

/** tools/list sizes (the default listing, and with the manage toolset), and what each part of the entries adds up to. */
function toolsListSize(list: Json, manage: Json): ToolsListSize {
  const listed = listedTools(list);
  const byField: Record<string, number> = {};
  for (const tool of listed) {
    for (const [field, value] of Object.entries(tool)) byField[field] = (byField[field] ?? 0) + Buffer.byteLength(JSON.stringify(value));
  }
  const responseBytes = Buffer.byteLength(list.text);
  const withManage = listedTools(manage);
  return {
    tools: listed.length,
    responseBytes,
    toolsBytes: Buffer.byteLength(JSON.stringify(listed)),
    modelTokens: listingTokens(listed),
    byField,
    manage: { tools: withManage.length, responseBytes: Buffer.byteLength(manage.text), modelTokens: listingTokens(withManage) },
  };
}

type Ctx = ReturnType<App['server']['createContext']>;

/** The raw keyset SQL, the core verb and the whole pipeline, in-process, for every list page. */
async function inProcessList(app: App, ctx: Ctx, secret: string, pages: readonly ListPage[]): Promise<Omit<ListRow, 'runId' | 'latencyRunId'>[]> {
  const listTool = app.tools.toolByName.get('list_leads');
  if (!listTool) throw new Error('no list_leads tool');
  const loop = { warmup: Math.ceil(SETTINGS.inProcessIterations / 10), iterations: SETTINGS.inProcessIterations };
  const out: Omit<ListRow, 'runId' | 'latencyRunId'>[] = [];
  for (const p of pages) {
    const input = caseInput(LIST_CAMPAIGN, p.c, SETTINGS.pageSize, p.cursor ?? undefined);
    // listLeads prepares its statements once per drizzle handle: a fresh handle makes it prepare, and so show, them here.
    const fresh = { ...ctx, db: drizzle(ctx.db.$client, { schema: app.schema }) };
    const queries = captureLeadQueries(fresh.db, () => void app.leadList.listLeads(fresh, secret, input));
    const raw = rawQueries(ctx.db.$client, queries);
    const rawArrays = rawQueries(ctx.db.$client, queries, 'arrays');
    if (raw() < SETTINGS.pageSize || rawArrays() < SETTINGS.pageSize) throw new Error(`${p.c.name} page ${p.page}: the raw query returned too few rows`);
    // What a transport does per call: authenticate, then the pipeline.
    const pipeline = () => {
      const auth = app.pipeline.authenticate(ctx, { apiKey: BENCH_KEY }, { requestId: 'bench', clientAddress: '127.0.0.1' });
      if (!auth.ok) throw new Error(`bench key refused: ${auth.error.message}`);
      return app.pipeline.invokeTool(ctx, listTool, { caller: auth.caller, input: { ...input } });
    };
    const [rawTimes, arrayTimes, verbTimes, pipelineTimes] = await timeInTurns(
      [raw, rawArrays, () => app.leadList.listLeads(ctx, secret, input), pipeline],
      loop,
    );
    out.push({ case: p.c.name, page: p.page, raw: rawTimes!, rawArrays: arrayTimes!, verb: verbTimes!, pipeline: pipelineTimes! });
  }
  return out;
}

/** Floor runs of the batch case: each batch's writes captured, then replayed alone. */
const FLOOR_BATCHES = 15;

/**
 * The floor of add_leads_batch: the writes one batch of 100 makes (the lead rows, the credit
 * charge and its ledger entry, the campaign's counters), replayed with their parameters in one
 * transaction on better-sqlite3 prepared statements. Each batch is first run through the whole
 * pipeline in-process inside a transaction that is rolled back, to learn its writes; the replay
 * then writes them for real (they are the rows that batch would have added). The server is idle
 * meanwhile. Returns the replay times, ms, and the writes a batch makes.
 */
async function batchFloor(app: App, ctx: Ctx, from: number): Promise<{ runsMs: number[]; writes: number }> {
  const tool = app.tools.toolByName.get('add_leads_batch');
  if (!tool) throw new Error('no add_leads_batch tool');
  const client = ctx.db.$client;
  const recorder = recordStatements(client);
  // A fresh drizzle handle: the verbs prepare their statements again, through the recorder.
  const fresh = { ...ctx, db: drizzle(client, { schema: app.schema }) };
  const runsMs: number[] = [];
  let writes = 0;
  try {
    for (let i = 0; i < FLOOR_BATCHES + 2; i++) {
      const input = { ...(JSON.parse(batchBody('floor', from + i)) as object), campaignId: ADD_CAMPAIGN };
      // The write lock first (waiting for the server's engine, if it writes), so nothing below
      // meets a busy database; authentication writes a key's last use, rolled back too.
      client.exec('BEGIN IMMEDIATE');
      let outcome: Awaited<ReturnType<App['pipeline']['invokeTool']>> | undefined;
      let recording: ReturnType<typeof recorder.stop>;
      try {
        const auth = app.pipeline.authenticate(fresh, { apiKey: BENCH_KEY }, { requestId: 'bench-floor', clientAddress: '127.0.0.1' });
        if (!auth.ok) throw new Error(`bench key refused: ${auth.error.message}`);
        recorder.start();
        outcome = await app.pipeline.invokeTool(fresh, tool, { caller: auth.caller, input });
      } finally {
        recording = recorder.stop();
        client.exec('ROLLBACK');
      }
      if (!outcome.ok) throw new Error(`floor batch refused: ${outcome.error.message}`);
      writes = recording.writeCount;
      const { ms } = replayWrites(client, recording.writes(), 1);
      // The first two warm SQLite's page cache and the statements, as the HTTP case's warm-up does.
      if (i >= 2) runsMs.push(ms);
    }
  } finally {
    recorder.restore();
  }
  return { runsMs, writes };
}

/** A BENCH_ONLY run's figures: each server case against its baselines; nothing is written. */
function printOnly(runs: readonly LoadRun[], importCase: Results['importCase'], cold: { ours: number[]; express: number[] }): void {
  if (cold.ours.length > 0) {
    const [ours, express] = [median(cold.ours), median(cold.express)];
    say(
      `cold start: ${ours.toFixed(0)} ms median (runs ${cold.ours.map((x) => x.toFixed(0)).join(', ')}); bare Express ${express.toFixed(0)} ms: ${(ours / express).toFixed(2)}×`,
    );
  }
  for (const r of runs) {
    if (r.kind !== 'server') continue;
    const side = r.serverSide ? `; server-side p50 ${r.serverSide.p50.toFixed(2)} ms, p99 ${r.serverSide.p99.toFixed(2)} ms` : '';
    const ratios = (r.baselines ?? []).map((id) => `${(throughputRatio(r, runById(runs, id)) * 100).toFixed(0)}% of ${runById(runs, id).title}`);
    say(`${r.title}: ${Math.round(r.reqPerSec)} req/s${side}${ratios.length ? `; ${ratios.join(', ')}` : ''}`);
  }
  if (importCase) say(`import: ${JSON.stringify(importCase)}`);
  say('BENCH_ONLY: nothing written');
}

/** The approval case (bench/lib/approval.ts), in this process, with the machine to itself. */
async function approvalPart(root: string): Promise<ApprovalBench> {
  const leads = envInt('BENCH_APPROVAL_LEADS', 10_000);
  const accounts = envInt('BENCH_APPROVAL_ACCOUNTS', 50);
  const seed = envInt('BENCH_APPROVAL_SEED', 7);
  say(`approval: ${leads.toLocaleString('en-US')} leads from ${accounts} accounts, approved over MCP in batches of 100 (seed ${seed})`);
  const r = await runApproval(root, { leads, accounts, seed }, (msg) => say(`approval: ${msg}`));
  for (const t of approvalTargets(r)) say(`${t.met ? 'met    ' : 'NOT MET'} ${t.text}: ${t.measured}`);
  return r;
}

/** The enrichment case (bench/lib/enrich.ts), in this process. */
async function enrichPart(root: string): Promise<EnrichBench> {
  const leadsPerRound = envInt('BENCH_ENRICH_LEADS', 2_000);
  say(`enrich: ${leadsPerRound.toLocaleString('en-US')} leads known only by their URL per round, against the profile lookup alone`);
  const r = await runEnrich(root, { leadsPerRound });
  for (const t of enrichTargets(r)) say(`${t.met ? 'met    ' : 'NOT MET'} ${t.text}: ${t.measured}`);
  return r;
}

/** Triage by rules (bench/lib/triage.ts), in this process. */
async function triagePart(root: string): Promise<TriageBench> {
  say('triage: 10,000 replies through the rules');
  const r = await runTriage(root);
  for (const t of triageTargets(r)) say(`${t.met ? 'met    ' : 'NOT MET'} ${t.text}: ${t.measured}`);
  return r;
}

/** The audit trail's cost on a batch of 100 adds (bench/lib/audit.ts), in this process. */
async function auditPart(root: string): Promise<AuditBench> {
  say('audit: a batch of 100 adds with the audit trail watching, against the same batch alone');
  const r = await runAudit(root);
  for (const t of auditTargets(r)) say(`${t.met ? 'met    ' : 'NOT MET'} ${t.text}: ${t.measured}`);
  return r;
}

/** The engine's cost per provider call with the CRM sync on against off (bench/lib/crm.ts), in this process. */
async function crmEnginePart(root: string): Promise<CrmEngineBench> {
  const leads = envInt('BENCH_CRM_LEADS', 600);
  say(`crmengine: ${leads} leads run by two engines on the simulator in lockstep, one with the CRM sync and one without`);
  const r = await runCrmEngine(root, { leads });
  for (const t of crmTargets(r)) say(`${t.met ? 'met    ' : 'NOT MET'} ${t.text}: ${t.measured}`);
  return r;
}

/** The CRM outbox against the same calls made directly, on the HubSpot stand-in (bench/lib/crm.ts), in this process. */
async function crmPushPart(root: string): Promise<CrmPushBench> {
  say('crmpush: 10,000 events through the CRM outbox to the HubSpot stand-in, against the same calls made directly');
  const r = await runCrmPush(root);
  for (const t of crmPushTargets(r)) say(`${t.met ? 'met    ' : 'NOT MET'} ${t.text}: ${t.measured}`);
  return r;
}

/** Reading and matching an inbox's replies by IMAP (bench/lib/imap.ts), in this process, against Dovecot on loopback. */
async function imapPart(root: string): Promise<ImapBench> {
  const messages = envInt('BENCH_IMAP_MESSAGES', 10_000);
  say(`imap: ${messages.toLocaleString('en-US')} messages read from Dovecot and matched through the mail poller, against imapflow alone`);
  const r = await runImap(root, { messages }, say);
  for (const t of imapTargets(r)) say(`${t.met ? 'met    ' : 'NOT MET'} ${t.text}: ${t.measured}`);
  return r;
}

/** "Approve all N matching" (bench/lib/approval.ts): 10,000 pending drafts previewed and approved, server-side. */
async function approveAllPart(root: string): Promise<ApproveAllBench> {
  say('approve all: 10,000 pending drafts, previewed and approved through the operator verbs');
  const r = await runApproveAll(root);
  for (const t of approveAllTargets(r)) say(`${t.met ? 'met    ' : 'NOT MET'} ${t.text}: ${t.measured}`);
  return r;
}

/**
 * What the wanted parts need from the machine and it lacks, each said with its Debian package:
 * checked before anything runs, so a run that cannot finish says so at once rather than after
 * twenty minutes at the part that needs it.
 */
function missingOnThisMachine(): string[] {
  const missing: string[] = [];
  if (want('dashboard') && !existsSync(CHROMIUM)) missing.push(`the dashboard part drives Chromium (${CHROMIUM}; Debian package chromium)`);
  if (want('imap') && !mailServersInstalled()) {
    missing.push('the imap part runs Postfix and Dovecot (Debian packages postfix and dovecot-imapd) and needs root');
  }
  return missing;
}

/** Returns whether the whole run happened (and so the scale simulation should follow). */
async function main(): Promise<boolean> {
  const t0 = performance.now();
  const root = repoRoot();
  const missing = missingOnThisMachine();
  if (missing.length > 0) {
    throw new Error(
      `this machine cannot run every part asked for: ${missing.join('; ')}. .ci/run installs them when they are missing (as root, with apt-get); or name the parts to run with BENCH_ONLY (the parts are ${PARTS.join(', ')}).`,
    );
  }
  if (
    ONLY !== null &&
    [...ONLY].every(
      (p) =>
        p === 'approval' || p === 'approveall' || p === 'enrich' || p === 'triage' || p === 'audit' || p === 'crmengine' || p === 'crmpush' || p === 'imap',
    )
  ) {
    if (ONLY.has('triage')) await triagePart(root);
    if (ONLY.has('crmengine')) await crmEnginePart(root);
    if (ONLY.has('crmpush')) await crmPushPart(root);
    if (ONLY.has('imap')) await imapPart(root);
    if (ONLY.has('approveall')) await approveAllPart(root);
    if (ONLY.has('approval')) await approvalPart(root);
    if (ONLY.has('enrich')) await enrichPart(root);
    if (ONLY.has('audit')) await auditPart(root);
    say('BENCH_ONLY: nothing written');
    return false;
  }
  const app = await loadApp(root);
  const loadStart = os.loadavg();
  const commit = git(root, 'rev-parse', 'HEAD');
  const dirty = git(root, 'status', '--porcelain', '--', '.', ':!bench/RESULTS.md', ':!bench/results.json') !== '';
  const dir = mkdtempSync(join(os.tmpdir(), 'outreach-bench-'));
  const children: Child[] = [];
  try {
    const { big, small, fixtureMs } = buildDatabases(root, dir);
    const limits = raisedLimits(app.tools.tools.map((t) => t.rateLimit).filter((c): c is NonNullable<typeof c> => c !== undefined));
    const config = join(dir, 'bench-config.json');
    writeFileSync(config, JSON.stringify({ limits }));

    // In-process: the workspace's cursor secret, the deep-page cursors, lead ids.
    const ctx = app.server.createContext({ dbPath: big, env: 'development', config: { limits } }, app.log.silentLogger());
    const workspace = app.workspace.getWorkspace(ctx);
    if (!workspace) throw new Error('the bench database holds no workspace');
    const secret = workspace.cursorSecret;
    const pages = listPages(app, ctx, secret);
    const leadIds = sampleLeadIds(ctx, 1000);
    say(`${pages.length} list pages, cursors built`);
    const draftsSeed = want('drafts') ? await seedDrafts(root, ctx, secret, LIST_CAMPAIGN) : null;
    if (draftsSeed) say(`${draftsSeed.ids.length} pending drafts written in ${(draftsSeed.seedMs / 1000).toFixed(1)} s`);

    const noRoutes = join(dir, 'no-routes.json');
    writeFileSync(noRoutes, '[]');
    if (want('cold')) say('cold starts');
    const cold = want('cold') ? await coldStarts(root, big, config, noRoutes) : { ours: [], express: [] };

    const server = await startServer(root, big, config, join(dir, 'server.log'));
    children.push(server);
    const upAt = performance.now();
    await sleep(2000);
    const startRssMB = rssMB(server.pid);

    // While the server sits idle: the in-process list figures (nothing else runs).
    if (want('inprocess')) say('in-process list_leads');
    const inProcess = want('inprocess') ? await inProcessList(app, ctx, secret, pages) : [];
    ctx.db.$client.close();
    if (want('inprocess')) await sleep(Math.max(0, IDLE_SECONDS * 1000 - (performance.now() - upAt)));
    const idleSeconds = Math.round((performance.now() - upAt) / 1000);
    const idleRssMB = rssMB(server.pid);
    say(`server RSS ${startRssMB.toFixed(0)} MB after start, ${idleRssMB.toFixed(0)} MB after ${idleSeconds} s idle`);

    // The dashboard's pages, on the idle server before any load case.
    const dashboard = want('dashboard')
      ? await benchDashboard({ root, db: big, url: server.url, campaignId: LIST_CAMPAIGN, logPath: server.logPath, say })
      : undefined;
    if (dashboard && ONLY !== null) {
      for (const line of dashboardMarkdown(dashboard)) say(line);
      for (const t of dashboardTargets(dashboard)) say(`${t.met ? 'met    ' : 'NOT MET'} ${t.text}: ${t.measured}`);
    }

    // The real responses, which the baselines then serve verbatim.
    const credits = await call(`${server.url}/public/v1/credits`, { headers: restHeaders });
    expect200('GET /credits', credits);
    const lead = await call(`${server.url}/public/v1/campaigns/${LIST_CAMPAIGN}/leads/${leadIds[0]}`, { headers: restHeaders });
    expect200('GET lead', lead);
    const firstPage = pages[0] as ListPage;
    const listFirst = await call(server.url + casePath(LIST_CAMPAIGN, firstPage.c, SETTINGS.pageSize), { headers: restHeaders });
    expect200('GET leads', listFirst);
    for (const p of pages) {
      const res = await call(server.url + casePath(LIST_CAMPAIGN, p.c, SETTINGS.pageSize, p.cursor), { headers: restHeaders });
      expect200(`${p.c.name} page ${p.page}`, res);
      const got = (res.body as { leads: { id: string }[] }).leads;
      if (got.length !== SETTINGS.pageSize || got[0]?.id !== p.firstId)
        throw new Error(`${p.c.name} page ${p.page}: the built cursor did not open the expected page`);
    }
    const batchCheck = await call(`${server.url}/public/v1/campaigns/${ADD_CAMPAIGN}/leads/batch`, {
      method: 'POST',
      headers: jsonHeaders,
      body: batchBody('check', 0),
    });
    expect200('POST batch', batchCheck);
    if ((batchCheck.body as { summary: { created: number } }).summary.created !== 100)
      throw new Error(`a fresh batch did not create 100 leads: ${batchCheck.text.slice(0, 300)}`);
    const mcpCheck = await call(`${server.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: rpc('tools/call', { name: 'get_credits', arguments: {} }) });
    expect200('MCP tools/call', mcpCheck);

    // A 429 body, from a server with the default limits: its global bucket drained first.
    const floodServer = await startServer(root, small, null, join(dir, 'flood.log'));
    children.push(floodServer);
    let refused: Json | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const res = await call(`${floodServer.url}/public/v1/credits`, { headers: restHeaders });
      if (res.status === 429) refused = res;
    }
    if (!refused) throw new Error('the default-limits server never answered 429');

    const routes = [
      { method: 'GET', path: '/credits', status: 200, body: credits.body },
      { method: 'GET', path: '/lead', status: 200, body: lead.body },
      { method: 'GET', path: '/leads', status: 200, body: listFirst.body },
      { method: 'POST', path: '/batch', status: 200, body: batchCheck.body },
      { method: 'GET', path: '/flood', status: 429, body: refused.body },
    ];
    const routesFile = join(dir, 'routes.json');
    writeFileSync(routesFile, JSON.stringify(routes));
    const creditsFile = join(dir, 'credits.json');
    writeFileSync(creditsFile, credits.text);
    const express = await startBaseline(root, ['plain.js', 'express', 'PORT', routesFile]);
    const http = await startBaseline(root, ['plain.js', 'http', 'PORT', routesFile]);
    const mcpSdk = await startBaseline(root, ['mcp-sdk.js', 'PORT', creditsFile]);
    children.push(express, http, mcpSdk);
    const sdkCheck = await call(`${mcpSdk.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: rpc('tools/call', { name: 'get_credits', arguments: {} }) });
    expect200('MCP SDK baseline tools/call', sdkCheck);

    const runs: LoadRun[] = [];
    const base = { connections: SETTINGS.connections, durationSeconds: SETTINGS.durationSeconds, warmupSeconds: SETTINGS.warmupSeconds };
    const log = (tool: string) => ({ serverLog: { path: server.logPath as string, match: { tool } } });
    const mcpLog = { serverLog: { path: server.logPath as string, match: { path: '/mcp' } } };
    const report = (r: LoadRun) => {
      runs.push(r);
      say(`${r.title}: ${Math.round(r.reqPerSec)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms`);
      return r;
    };
    const run = async (spec: LoadSpec) => report(await runLoad(spec));
    // A case and its baselines take turns, so drifting load from other work hits them alike.
    const together = async (...specs: LoadSpec[]) => (await runInterleaved(specs, ROUNDS)).map(report);
    // The cases whose ratios are targets take more turns of the same 1-second slices: one slowed
    // second on a shared machine then moves the median of their turns' ratios little. `side` names
    // the cases in the order they take their turns, when it is not the order they are reported in:
    // a case beside what it is compared with, so a turn's ratio is of two slices one after the other.
    const inTurns = async (side: readonly string[] | null, ...specs: LoadSpec[]) => {
      if (side !== null && (side.length !== specs.length || new Set(side).size !== side.length || specs.some((spec) => !side.includes(spec.id))))
        throw new Error(`the turn order ${side} does not name every case once`);
      const turns = side === null ? specs : side.map((id) => specs.find((spec) => spec.id === id) as LoadSpec);
      const runs = await runInterleaved(
        turns.map((spec) => ({ ...spec, durationSeconds: SETTINGS.turns })),
        SETTINGS.turns,
      );
      return specs.map((spec) => report(runs.find((r) => r.id === spec.id) as LoadRun));
    };

    const rss = sampleRss(server.pid);
    const mcpCall = rpc('tools/call', { name: 'get_credits', arguments: {} });
    const modernCall = modernRpc('tools/call', { name: 'get_credits', arguments: {} });
    if (want('credits'))
      await inTurns(
        // REST between bare Express and the scoped key, each MCP era beside its SDK baseline, and
        // a baseline at each end: the case at an end takes two slices in a row where the order
        // turns, and a server case there was compared with slices it did not sit beside.
        ['credits.http', 'credits.express', 'credits.rest', 'credits.scoped', 'credits.mcp-sdk', 'credits.mcp', 'credits.mcp-modern', 'credits.mcp-sdk-modern'],
        {
          ...base,
          ...log('get_credits'),
          id: 'credits.rest',
          title: 'GET /public/v1/credits',
          kind: 'server',
          url: server.url,
          path: '/public/v1/credits',
          headers: restHeaders,
          baselines: ['credits.express', 'credits.http'],
        },
        {
          ...base,
          ...log('get_credits'),
          id: 'credits.scoped',
          title: 'GET /public/v1/credits with a scoped key (read-only, one toolset, one campaign, an expiry)',
          kind: 'server',
          url: server.url,
          path: '/public/v1/credits',
          headers: { 'x-api-key': SCOPED_BENCH_KEY },
          baselines: ['credits.rest'],
        },
        { ...base, id: 'credits.express', title: 'bare Express', kind: 'baseline', url: express.url, path: '/credits' },
        { ...base, id: 'credits.http', title: 'bare node:http', kind: 'baseline', url: http.url, path: '/credits' },
        {
          ...base,
          ...mcpLog,
          id: 'credits.mcp',
          title: 'MCP tools/call get_credits (stateless HTTP, 2025-11-25)',
          kind: 'server',
          url: server.url,
          path: '/mcp',
          method: 'POST',
          headers: mcpHeaders,
          body: mcpCall,
          baselines: ['credits.mcp-sdk', 'credits.rest'],
        },
        {
          ...base,
          id: 'credits.mcp-sdk',
          title: 'MCP SDK minimal stateless server (2025-11-25)',
          kind: 'baseline',
          url: mcpSdk.url,
          path: '/mcp',
          method: 'POST',
          headers: mcpHeaders,
          body: mcpCall,
        },
        {
          ...base,
          ...mcpLog,
          id: 'credits.mcp-modern',
          title: 'MCP tools/call get_credits (stateless HTTP, 2026-07-28)',
          kind: 'server',
          url: server.url,
          path: '/mcp',
          method: 'POST',
          headers: { ...modernCall.headers, 'x-api-key': BENCH_KEY },
          body: modernCall.body,
          baselines: ['credits.mcp-sdk-modern', 'credits.rest'],
        },
        {
          ...base,
          id: 'credits.mcp-sdk-modern',
          title: 'MCP SDK minimal stateless server (2026-07-28)',
          kind: 'baseline',
          url: mcpSdk.url,
          path: '/mcp',
          method: 'POST',
          headers: modernCall.headers,
          body: modernCall.body,
        },
      );

    let nextLead = 0;
    const leadPath = (id: string) => `/public/v1/campaigns/${LIST_CAMPAIGN}/leads/${id}`;
    if (want('lead'))
      await inTurns(
        null,
        {
          ...base,
          ...log('get_lead'),
          id: 'lead.rest',
          title: 'get_lead: GET /campaigns/{id}/leads/{leadId}',
          kind: 'server',
          url: server.url,
          path: leadPath(leadIds[0] as string),
          headers: restHeaders,
          setupRequest: (req: Request) => ({ ...req, path: leadPath(leadIds[nextLead++ % leadIds.length] as string) }),
          baselines: ['lead.express', 'lead.http'],
        },
        { ...base, id: 'lead.express', title: 'bare Express', kind: 'baseline', url: express.url, path: '/lead' },
        { ...base, id: 'lead.http', title: 'bare node:http', kind: 'baseline', url: http.url, path: '/lead' },
      );

    // The list pages run one after another; their baseline is measured in slices spread over them.
    const listBaselines: LoadSpec[] = [
      { ...base, id: 'list.express', title: 'bare Express (a 50-lead page)', kind: 'baseline', url: express.url, path: '/leads' },
      { ...base, id: 'list.http', title: 'bare node:http (a 50-lead page)', kind: 'baseline', url: http.url, path: '/leads' },
    ];
    const baselineSlices = listBaselines.map((): Slice[] => []);
    const sliceBaselines = async () => {
      for (const [i, spec] of listBaselines.entries()) baselineSlices[i]!.push(await runSlice(spec, spec.durationSeconds / ROUNDS));
    };
    const sliceAt = new Set(Array.from({ length: ROUNDS }, (_, r) => Math.floor((r * pages.length) / ROUNDS)));
    const listRows: ListRow[] = [];
    const listServerTimes: number[] = [];
    for (const [i, p] of (want('list') ? pages : []).entries()) {
      if (sliceAt.has(i)) await sliceBaselines();
      const page = {
        ...base,
        ...log('list_leads'),
        kind: 'server' as const,
        url: server.url,
        path: casePath(LIST_CAMPAIGN, p.c, SETTINGS.pageSize, p.cursor),
        headers: restHeaders,
      };
      const title = `list_leads ${p.c.name} page ${p.page}`;
      await run({ ...page, id: `list.${i}`, title, baselines: ['list.express'] });
      // Then one connection, already warm: the server-side time of a page without queueing behind others.
      const one: LoadSpec = {
        ...page,
        id: `list.${i}.c1`,
        title: `${title}, 1 connection`,
        connections: 1,
        durationSeconds: LATENCY_SECONDS,
        warmupSeconds: 0,
      };
      const slice = await runSlice(one, LATENCY_SECONDS);
      listServerTimes.push(...slice.serverTimes);
      report(combine(one, [slice]));
      const measured = inProcess[i];
      if (measured) listRows.push({ ...measured, runId: `list.${i}`, latencyRunId: `list.${i}.c1` });
    }
    if (want('list')) for (const [i, spec] of listBaselines.entries()) report(combine(spec, baselineSlices[i]!));

    let batchNo = 0;
    const batchSpec = (id: string, connections: number): LoadSpec => ({
      ...base,
      ...log('add_leads_batch'),
      connections,
      id,
      title: `add_leads_batch, 100 new leads, ${connections} connection${connections === 1 ? '' : 's'}`,
      kind: 'server',
      url: server.url,
      path: `/public/v1/campaigns/${ADD_CAMPAIGN}/leads/batch`,
      method: 'POST',
      headers: jsonHeaders,
      body: batchBody('bench', 0),
      setupRequest: (req: Request) => ({ ...req, body: batchBody('bench', ++batchNo) }),
    });
    const leadsPerSec = (r: LoadRun) => {
      r.extra = { leadsPerSec: ((r.statusCounts['200'] ?? 0) * 100) / r.durationSeconds };
    };
    let floorOfBatch: Results['batchFloor'];
    if (want('batch')) {
      // The floor in turns with the one-connection run: before and after it, on a connection of
      // this process to the same database.
      const floorCtx = app.server.createContext({ dbPath: big, env: 'development', config: { limits } }, app.log.silentLogger());
      const before = await batchFloor(app, floorCtx, 0);
      const c1 = await run(batchSpec('batch.rest.c1', 1));
      leadsPerSec(c1);
      const after = await batchFloor(app, floorCtx, 1000);
      floorCtx.db.$client.close();
      const runsMs = [...before.runsMs, ...after.runsMs];
      floorOfBatch = { runsMs, medianMs: median(runsMs), writes: after.writes };
      if (c1.serverSide)
        say(
          `batch floor: ${floorOfBatch.writes} writes in one transaction, ${floorOfBatch.medianMs.toFixed(2)} ms median; server-side ${c1.serverSide.p50.toFixed(2)} ms: ${(c1.serverSide.p50 / floorOfBatch.medianMs).toFixed(2)}×`,
        );
      const [batch] = await together(
        { ...batchSpec('batch.rest', SETTINGS.connections), baselines: ['batch.express'] },
        {
          ...base,
          id: 'batch.express',
          title: 'bare Express (parses the batch body)',
          kind: 'baseline',
          url: express.url,
          path: '/batch',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: batchBody('baseline', 0),
        },
      );
      leadsPerSec(batch as LoadRun);
      const adds = await call(`${server.url}/public/v1/campaigns/${ADD_CAMPAIGN}`, { headers: restHeaders });
      expect200('GET campaign', adds);
      say(`batch campaign now holds ${(adds.body as { totalLeads: number }).totalLeads} leads`);
    }
    let draftsCase: DraftsBench | undefined;
    if (draftsSeed) {
      // A connection of its own for the in-process ratios (the first one closed once the server took over).
      const draftsCtx = app.server.createContext({ dbPath: big, env: 'development', config: { limits } }, app.log.silentLogger());
      draftsCase = await benchDrafts({
        root,
        ctx: draftsCtx,
        secret,
        iterations: SETTINGS.inProcessIterations,
        url: server.url,
        logPath: server.logPath as string,
        headers: restHeaders,
        campaignId: LIST_CAMPAIGN,
        seeded: draftsSeed,
        seconds: LATENCY_SECONDS,
      }).finally(() => draftsCtx.db.$client.close());
      for (const t of draftsTargets(draftsCase)) say(`${t.met ? 'met    ' : 'NOT MET'} ${t.text}: ${t.measured}`);
    }
    const loaded = round(
      rss.stop(),
      runs.filter((r) => r.kind === 'server'),
    );
    const afterLoadRssMB = rssMB(server.pid);

    const list = await call(`${server.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: rpc('tools/list') });
    expect200('tools/list', list);
    const manageList = await call(`${server.url}/mcp?toolsets=manage`, { method: 'POST', headers: mcpHeaders, body: rpc('tools/list') });
    expect200('tools/list?toolsets=manage', manageList);
    const toolsList = toolsListSize(list, manageList);

    // The 429 path: one key flooding a server with the spec's limits, its bucket long empty;
    // floods of equal length, each followed by a slice of the baseline.
    const flood: LoadSpec = {
      ...base,
      durationSeconds: FLOOD_SECONDS,
      serverLog: { path: floodServer.logPath as string, match: { tool: 'get_credits' } },
      id: 'flood.rest',
      title: 'GET /credits flooded by one key: 429',
      kind: 'server',
      url: floodServer.url,
      path: '/public/v1/credits',
      headers: restHeaders,
      baselines: ['flood.express'],
    };
    const floodBaseline: LoadSpec = {
      ...base,
      id: 'flood.express',
      title: 'bare Express (the same 429 body)',
      kind: 'baseline',
      url: express.url,
      path: '/flood',
    };
    const beforeMB = rssMB(floodServer.pid);
    const rounds: RssRound[] = [];
    if (want('flood')) {
      await runSlice(flood, base.warmupSeconds);
      await runSlice(floodBaseline, base.warmupSeconds);
      const floodSlices: Slice[] = [];
      const baselineFloodSlices: Slice[] = [];
      for (let n = 0; n < ROUNDS; n++) {
        const sampler = sampleRss(floodServer.pid);
        const slice = await runSlice(flood, FLOOD_SECONDS);
        rounds.push(roundOf(sampler.stop(), slice.requests));
        floodSlices.push(slice);
        baselineFloodSlices.push(await runSlice(floodBaseline, base.durationSeconds / ROUNDS));
      }
      report(combine(flood, floodSlices));
      report(combine(floodBaseline, baselineFloodSlices));
    }

    for (const child of children.splice(0)) await child.stop();

    if (want('import')) say('CSV import of 10,000 rows');
    const importCase = want('import') ? await benchImport(app, root, dir) : undefined;
    const approvalCase = want('approval') ? await approvalPart(root) : undefined;
    const enrichCase = want('enrich') ? await enrichPart(root) : undefined;
    const auditCase = want('audit') ? await auditPart(root) : undefined;
    const approveAllCase = want('approveall') ? await approveAllPart(root) : undefined;
    const triageCase = want('triage') ? await triagePart(root) : undefined;
    const crmEngineCase = want('crmengine') ? await crmEnginePart(root) : undefined;
    const crmPushCase = want('crmpush') ? await crmPushPart(root) : undefined;
    const imapCase = want('imap') ? await imapPart(root) : undefined;
    if (ONLY !== null) {
      printOnly(runs, importCase, cold);
      return false;
    }

    const partial: Omit<Results, 'targets'> = {
      machine: {
        cpu: os.cpus()[0]?.model ?? 'unknown',
        cores: os.cpus().length,
        memoryGiB: os.totalmem() / 2 ** 30,
        node: process.version,
        platform: `${os.platform()} ${os.release()} ${os.arch()}`,
        loadAverage: { start: loadStart, end: os.loadavg() },
      },
      date: new Date().toISOString(),
      commit,
      dirty,
      settings: SETTINGS,
      timings: { fixtureMs, totalMs: performance.now() - t0 },
      runs,
      list: listRows,
      listServerSide: summarize(listServerTimes),
      coldStart: { runsMs: cold.ours, medianMs: median(cold.ours), baselineRunsMs: cold.express, baselineMedianMs: median(cold.express) },
      memory: { startRssMB, idleRssMB, idleSeconds, loaded, afterLoadRssMB, flood: { beforeMB, rounds } },
      toolsList,
      dashboard,
      importCase,
      batchFloor: floorOfBatch,
      ...(draftsCase ? { draftsCase } : {}),
      ...(approvalCase ? { approvalCase } : {}),
      ...(enrichCase ? { enrichCase } : {}),
      ...(auditCase ? { auditCase } : {}),
      ...(approveAllCase ? { approveAllCase } : {}),
      ...(triageCase ? { triageCase } : {}),
      ...(crmEngineCase ? { crmEngineCase } : {}),
      ...(crmPushCase ? { crmPushCase } : {}),
      ...(imapCase ? { imapCase } : {}),
    };
    const results: Results = { ...partial, targets: evaluateTargets(partial) };
    writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    // The agency run's section (`npm run bench:scale -- --agency`, not part of this run) stays.
    const resultsFile = join(root, 'bench', 'RESULTS.md');
    const previous = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : '';
    writeFileSync(resultsFile, carrySection(previous, renderMarkdown(results), AGENCY_SECTION));
    for (const t of results.targets) say(`${t.met ? 'met    ' : 'NOT MET'} ${t.text}: ${t.measured}`);
    say(`done in ${((performance.now() - t0) / 1000).toFixed(0)} s; wrote bench/results.json and bench/RESULTS.md`);
  } finally {
    for (const child of children) await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return true;
}

/**
 * The scale simulation (bench/scale.ts), after every server has stopped, so it has the machine,
 * in a process of its own, so its RSS is the simulation's and not the HTTP cases' leftovers.
 * It writes bench/scale-results.json and its section of RESULTS.md.
 */
function scale(): void {
  const root = repoRoot();
  say('scale simulation: 200 accounts, 1,000,000 leads, 30 simulated days (its own process)');
  execFileSync(process.execPath, [join(root, 'dist', 'bench-build', 'bench', 'scale.js')], { cwd: root, stdio: 'inherit' });
}

if (await main()) scale();
