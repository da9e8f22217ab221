import { loadDist } from './app.js';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type * as Clock from '../../src/core/clock.js';
import type * as Audit from '../../src/core/safety/audit.js';
import type * as ApproveAll from '../../src/core/drafts/approve-all.js';
import type * as DraftPrepare from '../../src/core/drafts/prepare.js';
import type * as DraftUpdate from '../../src/core/drafts/update.js';
import type * as SeedFile from '../../src/core/seed/file.js';
import type * as SeedLoad from '../../src/core/seed/load.js';
import type * as Log from '../../src/log.js';
import type * as Server from '../../src/server.js';
import type * as Tools from '../../src/tools/index.js';
import type * as Outreach from '../../src/workers/outreach/index.js';
import { raisedLimits } from './setup.js';

/**
 * The approval case (issue: drafts a person approves): one campaign of 10,000 leads with
 * `approval: required`, sent from several accounts over the simulated network by the real
 * engine, on a simulated clock stepped as fast as ticks complete (as bench/scale.ts does). A
 * reviewer, the MCP SDK's client over streamable HTTP against the real server (in this process,
 * on the same database), reads the pending queue with `list_drafts` and approves it in batches
 * of 100 with `update_drafts`, rewriting every tenth draft in the same call, until the
 * campaign is complete. Then the safety auditor replays every send, and every send is checked
 * against its draft: the words that went out are the words approved, byte for byte.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;
const START = Date.parse('2026-11-02T00:00:00Z'); // a Monday
const ZONES = ['Europe/London', 'Europe/Berlin', 'America/New_York', 'UTC', 'Europe/Paris', 'America/Chicago'];
const KEY = 'sk_test_approval_bench_key_0000000000000001';
const CAMPAIGN = 'cmp_approval';

export interface ApprovalSettings {
  leads: number;
  accounts: number;
  /** Each account's daily invitations (its weekly cap is five times this). */
  invitesPerDay: number;
  /** The reviewer looks at the queue every this many simulated minutes. */
  reviewEveryMinutes: number;
  /** A page of fewer than 100 drafts is approved once its oldest draft has waited this many simulated minutes. */
  batchWaitMinutes: number;
  /** The run gives up (and fails) past this many simulated days. */
  maxDays: number;
  /** Seeds the engine's random draws (spacing), so a run can be repeated or varied. */
  seed: number;
}

export interface ApprovalBench {
  settings: ApprovalSettings;
  setupMs: number;
  /** From the first tick to the campaign's completion, the reviewer's calls included. */
  wallMs: number;
  simDays: number;
  ticks: number;
  /** Drafts the engine made, by kind, and how the run left them. */
  drafts: { total: number; byKind: Record<string, number>; byStatus: Record<string, number> };
  /** The reviewer's MCP calls. */
  review: { listCalls: number; updateCalls: number; approved: number; rewritten: number; fullBatches: number; mcpMs: number };
  /** Provider calls by kind (engine intents), and how many carried a draft's words. */
  sends: { total: number; byKind: Record<string, number>; withWords: number };
  /**
   * The stale approvals: every 50th draft a reviewer is about to approve is rewritten first by
   * another writer (as an assistant running personalize_drafts would); the reviewer's item
   * carries the revision it read, so it must come back a conflict, and the draft is approved
   * later at its new revision. `sent` counts the sends that carried the words the reviewer saw
   * before the rewrite: it must be 0.
   */
  stale: { raced: number; conflicts: number; sent: number };
  /** Sent words that differ from the approved draft, sends with words but no draft, drafts approved but never sent. */
  mismatches: { textDiffers: number; sentWithoutDraft: number; approvedNotSent: number; examples: string[] };
  /** Approved message drafts rightly left unsent: the lead replied before their turn, which ends the sequence. */
  stoppedByReply: number;
  /**
   * Drafts the engine closed (`skipped`) before the reviewer reached them, by skip reason: a
   * follow-up whose lead replied while it waited is closed, never approved, and rightly so.
   */
  closedUnreviewed: Record<string, number>;
  /** Simulated hours from the reviewer's approval to the send, over every sent draft. */
  approvalToSendHours: { median: number; p90: number; max: number };
  audit: { violations: number; byRule: Record<string, number>; calls: number; accountDays: number; examples: string[] };
  campaignStatus: string;
}

interface Mods {
  audit: typeof Audit;
  clock: typeof Clock;
  seedFile: typeof SeedFile;
  seedLoad: typeof SeedLoad;
  log: typeof Log;
  server: typeof Server;
  tools: typeof Tools;
  outreach: typeof Outreach;
  draftUpdate: typeof DraftUpdate;
  draftPrepare: typeof DraftPrepare;
  approveAll: typeof ApproveAll;
}

async function loadMods(root: string): Promise<Mods> {
  const load = <T>(path: string): Promise<T> => loadDist<T>(root, path);
  return {
    audit: await load('core/safety/audit.js'),
    clock: await load('core/clock.js'),
    seedFile: await load('core/seed/file.js'),
    seedLoad: await load('core/seed/load.js'),
    log: await load('log.js'),
    server: await load('server.js'),
    tools: await load('tools/index.js'),
    outreach: await load('workers/outreach/index.js'),
    draftUpdate: await load('core/drafts/update.js'),
    draftPrepare: await load('core/drafts/prepare.js'),
    approveAll: await load('core/drafts/approve-all.js'),
  };
}

/** tmpfs when the machine has one (as the scale simulation): the case measures the engine and MCP, not the disk. */
function workDir(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return os.tmpdir();
  }
}

/** A deterministic uniform draw (Park-Miller), so two runs send at the same simulated times. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return (s - 1) / 2147483646;
  };
}

function workspace(s: ApprovalSettings) {
  const ids = Array.from({ length: s.accounts }, (_, i) => i);
  return {
    apiKeys: [{ key: KEY, name: 'approval bench' }],
    credits: { credits: 0 },
    accounts: ids.map((i) => ({
      id: `acc_${i}`,
      name: `Sender ${i}`,
      status: 'connected' as const,
      timeZone: ZONES[i % ZONES.length],
      connectionRequestLimit: s.invitesPerDay,
      weeklyConnectionRequestLimit: s.invitesPerDay * 5,
      messageLimit: 100,
    })),
    agents: [
      {
        id: 'tpl_approval',
        accountId: 'acc_0',
        connectionNote: 'Hi {{firstName}}, I work on outreach tooling for teams like {{companyName}} and would love to connect.',
        messages: [
          { text: 'Thanks for connecting, {{firstName}}! Would a short call about {{companyName}} be useful?', delayHours: 24 },
          { text: 'Following up, {{firstName}}: happy to share notes either way.', delayHours: 24 },
        ],
      },
    ],
    campaigns: [
      {
        id: CAMPAIGN,
        name: 'Approved outreach',
        status: 'CAMPAIGN_IN_PROGRESS' as const,
        assignedTemplateId: 'tpl_approval',
        approval: 'required' as const,
      },
    ],
  };
}

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken'];
const COMPANIES = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark'];

/** The campaign's leads, written as add_leads_batch would leave them, and its senders: every account. */
function insertLeads(client: import('better-sqlite3').Database, s: ApprovalSettings, at: number): void {
  const insert = client.prepare(
    'INSERT INTO leads (id, campaign_id, network_url, first_name, last_name, company_name, job_title, stage, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  client.transaction(() => {
    for (let n = 0; n < s.leads; n++) {
      insert.run(
        `lead_${n}`,
        CAMPAIGN,
        `https://www.linkedin.com/in/approval-${n.toString(36)}`,
        FIRST[n % FIRST.length],
        'Test',
        COMPANIES[n % COMPANIES.length],
        'Engineer',
        'new',
        'manual',
        at,
        at,
      );
    }
    client.prepare('UPDATE campaigns SET total_leads = ? WHERE id = ?').run(s.leads, CAMPAIGN);
  })();
}

interface Listed {
  id: string;
  kind: string;
  text: string;
  revision: number;
  lead: { fullName: string | null; companyName: string | null };
}

function body(result: CallToolResult, tool: string): any {
  const first = result.content[0];
  const text = first && first.type === 'text' ? first.text : '';
  if (result.isError) throw new Error(`${tool}: ${text.slice(0, 300)}`);
  return result.structuredContent ?? JSON.parse(text);
}

/** The reviewer's new words for a draft it rewrites: personal, from the lead context list_drafts gave. */
const rewrite = (d: Listed, n: number): string =>
  d.kind === 'invite'
    ? `${d.lead.fullName ?? 'Hello'}, your team at ${d.lead.companyName ?? 'your company'} caught my eye (ref ${n}). Glad to connect?`
    : `${d.lead.fullName ?? 'Hello'}, one idea for ${d.lead.companyName ?? 'your team'} (ref ${n}): a 15-minute call this week?`;

function latencySummary(hours: number[]): ApprovalBench['approvalToSendHours'] {
  const sorted = [...hours].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return { median: at(0.5), p90: at(0.9), max: sorted.at(-1) ?? 0 };
}

export async function runApproval(root: string, overrides: Partial<ApprovalSettings> = {}, say: (msg: string) => void = () => {}): Promise<ApprovalBench> {
  const settings: ApprovalSettings = {
    leads: 10_000,
    accounts: 50,
    invitesPerDay: 50,
    reviewEveryMinutes: 60,
    batchWaitMinutes: 180,
    maxDays: 60,
    seed: 7,
    ...overrides,
  };
  const m = await loadMods(root);
  const dir = mkdtempSync(join(workDir(), 'outreach-approval-'));
  const dbPath = join(dir, 'approval.db');
  // A campaign is through once every lead's invitation was answered or given up on, and the
  // messages after it were sent and waited on: shorter waits than the defaults keep that within
  // a few simulated weeks. Working hours, caps, spacing and warm-up are the defaults.
  const engineConfig = { invitationTimeoutDays: 3, replyWaitDays: 1 };
  const rateClasses = m.tools.tools.map((t) => t.rateLimit).filter((c): c is NonNullable<typeof c> => c !== undefined);
  const config = { engine: engineConfig, limits: raisedLimits(rateClasses) };
  const clock = new m.clock.FakeClock(START);
  let server: Awaited<ReturnType<typeof m.server.startServer>> | null = null;
  let client: Client | null = null;
  try {
    const t0 = performance.now();
    const seed = m.server.createContext({ dbPath, env: 'development', config }, m.log.silentLogger(), m.clock.systemClock, clock);
    m.seedLoad.loadWorkspace(seed, m.seedFile.WorkspaceFile.parse(workspace(settings)), { reset: false });
    seed.db.$client
      .prepare('UPDATE campaigns SET sender_account_ids = ? WHERE id = ?')
      .run(JSON.stringify(Array.from({ length: settings.accounts }, (_, i) => `acc_${i}`)), CAMPAIGN);
    insertLeads(seed.db.$client, settings, clock.now());
    seed.db.$client.pragma('wal_checkpoint(TRUNCATE)');
    seed.db.$client.close();

    // One context for the server and the engine: wall time for rate limits and the drafts' own
    // timestamps, the simulated clock for the engine and the network.
    const ctx = m.server.createContext({ dbPath, env: 'development', config }, m.log.silentLogger(), m.clock.systemClock, clock);
    server = await m.server.startServer(
      { host: '127.0.0.1', port: 0, dbPath, env: 'development', simSpeed: 1, config: { ...config, tools: { toolsets: ['drafts'] } } },
      m.log.silentLogger(),
      ctx,
      { engine: false, lookalike: false },
    );
    client = new Client({ name: 'approval-bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': KEY } } }));
    const tools = (await client.listTools()).tools.map((t) => t.name);
    if (!tools.includes('list_drafts') || !tools.includes('update_drafts')) throw new Error(`the MCP server lists no draft tools: ${tools.join(', ')}`);
    const setupMs = performance.now() - t0;
    say(`setup ${(setupMs / 1000).toFixed(1)} s: ${settings.leads.toLocaleString('en-US')} leads, ${settings.accounts} accounts`);

    const engineSettings = m.outreach.resolveEngineSettings(engineConfig);
    const engine = new m.outreach.Engine(ctx, { settings: engineSettings, random: seeded(settings.seed), holder: 'approval-bench' });
    const db = ctx.db.$client;
    const status = db.prepare('SELECT status FROM campaigns WHERE id = ?').pluck();
    /** What the reviewer approved: draft id → the words, as saved by its call. */
    const approvedWords = new Map<string, string>();
    /** When (simulated) the reviewer approved each draft. */
    const approvedAt = new Map<string, number>();
    const review = { listCalls: 0, updateCalls: 0, approved: 0, rewritten: 0, fullBatches: 0, mcpMs: 0 };
    /** Drafts rewritten under the reviewer: id → the words the reviewer had seen (which must never go out). */
    const staleWords = new Map<string, string>();
    const stale = { raced: 0, conflicts: 0, sent: 0 };
    let seen = 0;
    const call = async (name: string, args: Record<string, unknown>) => {
      const t = performance.now();
      const r = body((await client!.callTool({ name, arguments: args })) as CallToolResult, name);
      review.mcpMs += performance.now() - t;
      return r;
    };

    /**
     * Pages of 100 pending drafts, each approved by one update_drafts call. A shorter page waits
     * for a later look, as a person batching their reviews would, until its oldest draft has
     * waited `batchWaitMinutes` of simulated time.
     */
    const firstSeen = new Map<string, number>();
    const reviewQueue = async () => {
      for (;;) {
        review.listCalls++;
        const page = (await call('list_drafts', { campaignId: CAMPAIGN, status: 'pending', limit: 100 })) as { drafts: Listed[] };
        if (page.drafts.length === 0) return;
        for (const d of page.drafts) if (!firstSeen.has(d.id)) firstSeen.set(d.id, clock.now());
        const oldest = firstSeen.get(page.drafts[0]!.id)!;
        if (page.drafts.length < 100 && clock.now() - oldest < settings.batchWaitMinutes * MINUTE) return;
        // Another writer rewrites every 50th draft after the reviewer read it (its revision moves on).
        const raced = new Set<string>();
        for (const d of page.drafts) {
          if (++seen % 50 !== 0 || staleWords.has(d.id)) continue;
          const words = `${d.lead.fullName ?? 'Hello'}, rewritten by another writer while under review.`;
          const r = m.draftUpdate.updateDrafts(ctx, [{ id: d.id, text: words, revision: d.revision }]);
          if (r.summary.updated !== 1) throw new Error(`the racing writer could not rewrite ${d.id}: ${JSON.stringify(r.results[0])}`);
          staleWords.set(d.id, d.text);
          raced.add(d.id);
          stale.raced++;
        }
        const items = page.drafts.map((d) => {
          const n = approvedWords.size + 1;
          const edit = n % 10 === 0 ? rewrite(d, n) : undefined;
          if (!raced.has(d.id)) {
            approvedWords.set(d.id, edit ?? d.text);
            approvedAt.set(d.id, clock.now());
            if (edit) review.rewritten++;
          }
          return { id: d.id, status: 'approved', revision: d.revision, ...(edit ? { text: edit } : {}) };
        });
        review.updateCalls++;
        const r = (await call('update_drafts', { drafts: items })) as {
          summary: { updated: number; total: number; conflict: number };
          results: { draftId: string; status: string }[];
        };
        for (const item of r.results) if (item.status === 'conflict' && raced.has(item.draftId)) stale.conflicts++;
        if (r.summary.updated !== items.length - raced.size || r.summary.conflict !== raced.size)
          throw new Error(`update_drafts approved ${r.summary.updated} of ${items.length} (${raced.size} raced): ${JSON.stringify(r.summary)}`);
        review.approved += items.length - raced.size;
        if (items.length === 100) review.fullBatches++;
        if (items.length < 100) return;
      }
    };

    const end = START + settings.maxDays * DAY;
    let ticks = 0;
    let nextReview = START;
    let nextDay = START + DAY;
    const day = { due: 0, sends: 0, inbound: 0 };
    const w0 = performance.now();
    while (status.get(CAMPAIGN) !== 'COMPLETED') {
      if (clock.now() >= end) throw new Error(`the campaign was not through after ${settings.maxDays} simulated days`);
      const r = await engine.tick();
      ticks++;
      day.due += r.due;
      day.sends += r.sends;
      day.inbound += r.inbound;
      if (clock.now() >= nextReview) {
        await reviewQueue();
        nextReview = clock.now() + settings.reviewEveryMinutes * MINUTE;
      }
      if (clock.now() >= nextDay) {
        nextDay += DAY;
        const waiting = db.prepare('SELECT count(*) FROM lead_positions WHERE campaign_id = ? AND end_reason IS NULL').pluck().get(CAMPAIGN);
        say(
          `day ${Math.round((clock.now() - START) / DAY)}: ${review.approved.toLocaleString('en-US')} approved, ${ticks} ticks, ${((performance.now() - w0) / 1000).toFixed(1)} s; ` +
            `that day ${day.sends} sends, ${day.due} due, ${day.inbound} inbound; ${waiting} leads in their sequence`,
        );
        Object.assign(day, { due: 0, sends: 0, inbound: 0 });
      }
      clock.advance(r.due + r.sends + r.inbound > 0 ? MINUTE : 15 * MINUTE);
    }
    await engine.stop();
    const wallMs = performance.now() - w0;

    const groups = (sql: string): Record<string, number> =>
      Object.fromEntries((db.prepare(sql).all() as { k: string; n: number }[]).map((row) => [row.k, row.n]));
    const draftsByKind = groups(`SELECT kind AS k, count(*) AS n FROM drafts WHERE campaign_id = '${CAMPAIGN}' GROUP BY kind`);
    const draftsByStatus = groups(`SELECT status AS k, count(*) AS n FROM drafts WHERE campaign_id = '${CAMPAIGN}' GROUP BY status`);
    const closedUnreviewed: Record<string, number> = {};
    for (const d of db.prepare(`SELECT id, skip_reason AS reason FROM drafts WHERE campaign_id = '${CAMPAIGN}' AND status = 'skipped'`).all() as {
      id: string;
      reason: string | null;
    }[]) {
      if (approvedWords.has(d.id)) continue;
      const why = d.reason ?? 'unknown';
      closedUnreviewed[why] = (closedUnreviewed[why] ?? 0) + 1;
    }
    const sendsByKind = groups(
      `SELECT kind AS k, count(*) AS n FROM engine_intents WHERE campaign_id = '${CAMPAIGN}' AND state IN ('sent', 'assumed_sent') GROUP BY kind`,
    );

    // Every performed send that carried words (a note, a message, a reply) against its draft.
    const mismatches: ApprovalBench['mismatches'] = { textDiffers: 0, sentWithoutDraft: 0, approvedNotSent: 0, examples: [] };
    const note = (kind: keyof Omit<ApprovalBench['mismatches'], 'examples'>, what: string) => {
      mismatches[kind]++;
      if (mismatches.examples.length < 10) mismatches.examples.push(what);
    };
    const sent = db
      .prepare(
        `SELECT i.id, i.lead_id AS leadId, i.step_id AS stepId, i.kind, i.text, i.created_at AS at FROM engine_intents i
         WHERE i.campaign_id = ? AND i.state IN ('sent', 'assumed_sent') AND i.text IS NOT NULL AND i.text <> '' ORDER BY i.seq`,
      )
      .all(CAMPAIGN) as { id: string; leadId: string; stepId: string | null; kind: string; text: string; at: number }[];
    // By lead alone (its unique index): with the status beside it, SQLite picked the status index and read every sent draft.
    const draftsOfLead = db.prepare('SELECT id, slot, text, status FROM drafts WHERE lead_id = ?');
    const used = new Set<string>();
    /** Simulated hours from a draft's approval to its send. */
    const latency: number[] = [];
    for (const s of sent) {
      const candidates = (draftsOfLead.all(s.leadId) as { id: string; slot: string; text: string; status: string }[]).filter((d) => d.status === 'sent');
      const draft =
        s.stepId !== null
          ? candidates.find((d) => d.slot === `step:${s.stepId}`)
          : candidates.find((d) => d.slot.startsWith('reply:') && !used.has(d.id) && d.text === s.text);
      if (!draft) {
        note('sentWithoutDraft', `${s.kind} ${s.id} to ${s.leadId} has no sent draft`);
        continue;
      }
      used.add(draft.id);
      const approved = approvedAt.get(draft.id);
      if (approved !== undefined) latency.push((s.at - approved) / 3_600_000);
      if (staleWords.has(draft.id) && staleWords.get(draft.id) === s.text) stale.sent++;
      if (draft.text !== s.text || approvedWords.get(draft.id) !== s.text)
        note('textDiffers', `${s.kind} ${s.id}: sent ${JSON.stringify(s.text)}, draft ${draft.id} ${JSON.stringify(draft.text)}`);
    }
    // An approved draft may rightly stay unsent: its lead replied first, which ends the sequence.
    const endOf = db.prepare(
      'SELECT d.kind, p.end_reason AS endReason, l.replied FROM drafts d JOIN leads l ON l.id = d.lead_id LEFT JOIN lead_positions p ON p.lead_id = d.lead_id WHERE d.id = ?',
    );
    let stoppedByReply = 0;
    for (const [id] of approvedWords) {
      if (used.has(id)) continue;
      const why = endOf.get(id) as { kind: string; endReason: string | null; replied: number };
      if (why.replied === 1 && why.kind !== 'invite') stoppedByReply++;
      else note('approvedNotSent', `${why.kind} draft ${id} was approved and never sent (lead's sequence: ${why.endReason ?? 'running'})`);
    }

    const a0 = performance.now();
    const report = m.audit.auditSafety(ctx, { safety: engineSettings.safety, spacingMinMs: engineSettings.spacingMinMs });
    const byRule: Record<string, number> = {};
    for (const v of report.violations) byRule[v.rule] = (byRule[v.rule] ?? 0) + 1;
    say(`audit ${(performance.now() - a0).toFixed(0)} ms: ${report.violations.length} violations over ${report.calls} provider calls`);

    return {
      settings,
      setupMs,
      wallMs,
      simDays: (clock.now() - START) / DAY,
      ticks,
      drafts: { total: Object.values(draftsByKind).reduce((a, b) => a + b, 0), byKind: draftsByKind, byStatus: draftsByStatus },
      review,
      sends: { total: Object.values(sendsByKind).reduce((a, b) => a + b, 0), byKind: sendsByKind, withWords: sent.length },
      mismatches,
      closedUnreviewed,
      stale,
      stoppedByReply,
      approvalToSendHours: latencySummary(latency),
      audit: {
        violations: report.violations.length,
        byRule,
        calls: report.calls,
        accountDays: report.accountDays,
        examples: report.violations.slice(0, 5).map((v) => `${v.accountId} ${v.day} ${v.rule}: ${v.detail}`),
      },
      campaignStatus: String(status.get(CAMPAIGN)),
    };
  } finally {
    await client?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What "approve all N matching" measured: the preview and the approval of every pending draft of a campaign, server-side. */
export interface ApproveAllBench {
  drafts: number;
  previewMs: number;
  approveMs: number;
  approved: number;
  leftPending: number;
}

export const APPROVE_ALL_DRAFTS = 10_000;
/** The target: approving all of 10,000 pending drafts takes under 2 s server-side. */
export const APPROVE_ALL_MS = 2000;

/**
 * "Approve all N matching" on a campaign of `drafts` pending drafts: the operator tools' verbs
 * (preview_approve_drafts, then approve_matching_drafts with its token), timed in-process, as
 * their handlers run on the server. The drafts are written through the engine's verb first.
 */
export async function runApproveAll(root: string, drafts: number = APPROVE_ALL_DRAFTS): Promise<ApproveAllBench> {
  const m = await loadMods(root);
  const dir = mkdtempSync(join(workDir(), 'outreach-approve-all-'));
  const dbPath = join(dir, 'approve-all.db');
  const settings = { leads: drafts, accounts: 5, invitesPerDay: 50, reviewEveryMinutes: 60, batchWaitMinutes: 180, maxDays: 1, seed: 7 };
  const clock = new m.clock.FakeClock(START);
  const ctx = m.server.createContext({ dbPath, env: 'development', config: {} }, m.log.silentLogger(), m.clock.systemClock, clock);
  try {
    m.seedLoad.loadWorkspace(ctx, m.seedFile.WorkspaceFile.parse(workspace(settings)), { reset: false });
    insertLeads(ctx.db.$client, settings, clock.now());
    const write = ctx.db.$client.transaction(() => {
      for (let n = 0; n < drafts; n++) {
        m.draftPrepare.draftFor(ctx, {
          campaignId: CAMPAIGN,
          leadId: `lead_${n}`,
          stepId: 'stp_note',
          variant: 'A',
          kind: n % 3 === 0 ? 'message' : 'invite',
          accountId: `acc_${n % settings.accounts}`,
          text: `Hi ${FIRST[n % FIRST.length]}, glad to connect.`,
        });
      }
    });
    write();
    const secret = 'approve-all-bench';
    const t0 = performance.now();
    const preview = m.approveAll.previewApproveDrafts(ctx, secret, { campaignId: CAMPAIGN });
    const t1 = performance.now();
    const done = m.approveAll.approveMatchingDrafts(ctx, secret, { campaignId: CAMPAIGN, token: preview.token });
    const t2 = performance.now();
    if (preview.count !== drafts || done.approved !== drafts)
      throw new Error(`approve all: previewed ${preview.count}, approved ${done.approved} of ${drafts}`);
    return { drafts, previewMs: t1 - t0, approveMs: t2 - t1, approved: done.approved, leftPending: done.leftPending };
  } finally {
    ctx.db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
