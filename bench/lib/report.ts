import { LISTING_BUDGET_TOKENS } from './listing.js';
import type { DashboardBench } from './dashboard.js';
import { DRAFTS_LIST_COST, DRAFTS_LIST_P99_MS, DRAFTS_UPDATE_MS, type DraftsBench } from './drafts.js';
import { APPROVE_ALL_MS, type ApprovalBench, type ApproveAllBench } from './approval.js';
import { ENRICH_TARGET_RATIO, type EnrichBench } from './enrich.js';
import { TRIAGE_TARGET_MS, type TriageBench } from './triage.js';
import { IMAP_TARGET_RATIO, type ImapBench } from './imap.js';
import { AUDIT_TARGET_RATIO, type AuditBench } from './audit.js';
import { CRM_ENGINE_TARGET_RATIO, CRM_PUSH_TARGET_RATIO, type CrmEngineBench, type CrmPushBench } from './crm.js';
import { IMPORT_TARGET_MS, IMPORT_VS_BATCH, type ImportBench } from './import.js';
import { median, type Summary } from './stats.js';
import type { LoadRun } from './load.js';

export type { LoadRun };

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  /** 1, 5 and 15-minute load averages when the run started and ended: other work on the machine. */
  loadAverage: { start: number[]; end: number[] };
}

/** One list_leads page: over HTTP, and in-process against the raw query. */
export interface ListRow {
  case: string;
  page: number;
  /** The LoadRun of this page over REST, for throughput. */
  runId: string;
  /** The same page over REST on one connection, for the server-side latency without queueing. */
  latencyRunId: string;
  /** The raw keyset SQL of this page, prepared once, run with better-sqlite3's default `all()` (row objects). */
  raw: Summary;
  /** The same in better-sqlite3's raw mode (rows as arrays): the floor of reading the rows. */
  rawArrays: Summary;
  /** The core verb listLeads, in-process. */
  verb: Summary;
  /** The whole tool pipeline (auth, rate limit, validation, verb, JSON), in-process. */
  pipeline: Summary;
}

/** RSS samples of one stretch of load. */
export interface RssRound {
  requests: number;
  /** The lowest sample: the floor the heap falls back to after its collections. */
  floorMB: number;
  medianMB: number;
  peakMB: number;
}

export interface Memory {
  /** Two seconds after the server became healthy. */
  startRssMB: number;
  /** After the server sat idle for `idleSeconds` (V8 gives back startup garbage after a few idle seconds). */
  idleRssMB: number;
  idleSeconds: number;
  /** While the REST and MCP cases ran. */
  loaded: RssRound;
  afterLoadRssMB: number;
  /** The 429 server (default limits): idle, then floods of equal length, one after another. */
  flood: { beforeMB: number; rounds: RssRound[] };
}

export interface ToolsListSize {
  tools: number;
  /** The whole JSON-RPC response body. */
  responseBytes: number;
  /** The `tools` array alone. */
  toolsBytes: number;
  /**
   * Tokens of what a model reads (each tool's name, title, description, input schema and
   * annotations), counted with gpt-tokenizer (o200k_base); output schemas are not counted.
   */
  modelTokens: number;
  /** Bytes of each part of the entries, summed over the tools (name, description, inputSchema, outputSchema, …). */
  byField: Record<string, number>;
  /** The listing with the manage toolset (`/mcp?toolsets=manage`), measured the same way. */
  manage: { tools: number; responseBytes: number; modelTokens: number };
}

export interface Target {
  id: string;
  text: string;
  measured: string;
  met: boolean;
}

export interface Results {
  machine: Machine;
  date: string;
  commit: string;
  /** Uncommitted changes in the worktree when the run started. */
  dirty: boolean;
  settings: {
    connections: number;
    durationSeconds: number;
    warmupSeconds: number;
    /** Turns of 1 s that the cases with a throughput target take with their baselines (older results: none). */
    turns?: number;
    leads: number;
    pageSize: number;
    deepPage: number;
    inProcessIterations: number;
  };
  timings: { fixtureMs: number; totalMs: number };
  runs: LoadRun[];
  list: ListRow[];
  /** Server-side times of every list page on one connection, pooled. */
  listServerSide: Summary;
  /** Spawn to the first 200 from /health: the server, and bare Express in turns with it. */
  coldStart: { runsMs: number[]; medianMs: number; baselineRunsMs: number[]; baselineMedianMs: number };
  memory: Memory;
  toolsList: ToolsListSize;
  /** The dashboard's pages on the same database (absent in runs from before it existed). */
  dashboard?: DashboardBench;
  /** The CSV import case (bench/lib/import.ts). */
  importCase?: ImportBench;
  /** The writes of one add_leads_batch of 100, replayed in one raw transaction: the batch's floor (ms per run). */
  batchFloor?: { runsMs: number[]; medianMs: number; writes: number };
  /** list_drafts at 100,000 pending drafts and update_drafts of 100 approvals (bench/lib/drafts.ts). */
  draftsCase?: DraftsBench;
  /** A campaign with approval required, approved over MCP in batches of 100, through the simulator (bench/lib/approval.ts). */
  approvalCase?: ApprovalBench;
  /** Enrichment against the profile lookup alone (bench/lib/enrich.ts). */
  enrichCase?: EnrichBench;
  triageCase?: TriageBench;
  imapCase?: ImapBench;
  auditCase?: AuditBench;
  /** "Approve all N matching" of 10,000 pending drafts, server-side (bench/lib/approval.ts). */
  approveAllCase?: ApproveAllBench;
  /** The engine's cost per call with the CRM sync on and off (bench/lib/crm.ts). */
  crmEngineCase?: CrmEngineBench;
  /** The CRM outbox against the same calls made directly, on the HubSpot stand-in (bench/lib/crm.ts). */
  crmPushCase?: CrmPushBench;
  targets: Target[];
}

export const DASHBOARD_CALL_P99_MS = 50;
export const DASHBOARD_RENDER_MS = 1000;
export const DASHBOARD_JS_GZIP_BYTES = 300 * 1024;
/** Each MCP App view's document, as a host reads it: 300 KB. */
export const VIEW_BYTES = 300 * 1024;
/** The dashboard's first load (page, scripts, styles) on the wire, compressed as a browser gets it. */
export const DASHBOARD_FIRST_LOAD_BYTES = 300 * 1024;

/** The batch of 100 server-side, as a multiple of its own writes in one raw transaction. */
export const BATCH_FLOOR_RATIO = 3;
/** Cold start as a multiple of bare Express's, started in turns with it. */
export const COLD_START_RATIO = 3;
/**
 * A leak raises the floor RSS returns to after each collection, round after round; the heap's
 * own sawtooth (tens of MB under a flood) moves the median and the peak, not the floor.
 */
export const FLAT_MEMORY_MB = 10;

/**
 * Our throughput as a share of a baseline's (0.6 means 60% of it). Two runs that took the same
 * turns (bench/lib/load.ts, runInterleaved) give the median of the turns' ratios: a turn pairs
 * two slices taken seconds apart, and one turn that the machine slowed for one side alone moves
 * a median of several less than it moves their totals. Other runs give the ratio of their totals.
 */
export const throughputRatio = (ours: LoadRun, baseline: LoadRun): number => {
  const ratios = turnRatios(ours, baseline);
  if (ratios) return median(ratios);
  return baseline.reqPerSec > 0 ? ours.reqPerSec / baseline.reqPerSec : 0;
};

/** Each turn's ratio, when two runs took the same turns (at least 3, every baseline turn answered); else null. */
function turnRatios(ours: LoadRun, baseline: LoadRun): number[] | null {
  const a = ours.turns;
  const b = baseline.turns;
  if (!a || !b || a.length !== b.length || a.length < 3 || !b.every((x) => x > 0)) return null;
  return a.map((x, i) => x / (b[i] as number));
}

/** What a throughput ratio was taken from: the turns, and both sides' req/s over all of them. */
function ratioBasis(ours: LoadRun, baseline: LoadRun): string {
  const ratios = turnRatios(ours, baseline);
  const totals = `${int(ours.reqPerSec)} vs ${int(baseline.reqPerSec)} req/s`;
  return ratios ? `median of ${ratios.length} turns' ratios; ${totals} over all of them` : totals;
}

export function runById(runs: readonly LoadRun[], id: string): LoadRun {
  const run = runs.find((r) => r.id === id);
  if (!run) throw new Error(`no run "${id}"`);
  return run;
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const int = (x: number) => Math.round(x).toLocaleString('en-US');

/** The worst (highest) verb ÷ raw cost over the list pages, at the median. */
export function worstListCost(list: readonly ListRow[], raw: 'raw' | 'rawArrays' = 'raw'): { ratio: number; row: ListRow | undefined } {
  let worst: { ratio: number; row: ListRow | undefined } = { ratio: 0, row: undefined };
  for (const row of list) {
    const ratio = row.verb.p50 / row[raw].p50;
    if (ratio > worst.ratio) worst = { ratio, row };
  }
  return worst;
}

/** The one-connection list run with the highest server-side p99. */
export function worstServerP99(runs: readonly LoadRun[], list: readonly ListRow[]): { p99: number; run: LoadRun | undefined } {
  let worst: { p99: number; run: LoadRun | undefined } = { p99: 0, run: undefined };
  for (const row of list) {
    const run = runById(runs, row.latencyRunId);
    if (run.serverSide && run.serverSide.p99 > worst.p99) worst = { p99: run.serverSide.p99, run };
  }
  return worst;
}

/** The issue's targets, measured against this run's own baselines. */
export function evaluateTargets(r: Omit<Results, 'targets'>): Target[] {
  const run = (id: string) => runById(r.runs, id);
  const restVsExpress = throughputRatio(run('credits.rest'), run('credits.express'));
  const scopedVsRest = throughputRatio(run('credits.scoped'), run('credits.rest'));
  const mcpVsRest = throughputRatio(run('credits.mcp'), run('credits.rest'));
  const modernVsRest = throughputRatio(run('credits.mcp-modern'), run('credits.rest'));
  const cost = worstListCost(r.list);
  const floor = worstListCost(r.list, 'rawArrays');
  const p99 = worstServerP99(r.runs, r.list);
  const pooled = r.listServerSide;
  const batch = run('batch.rest.c1');
  const batchRatio = batch.serverSide && r.batchFloor ? batch.serverSide.p50 / r.batchFloor.medianMs : Number.POSITIVE_INFINITY;
  const coldRatio = r.coldStart.medianMs / r.coldStart.baselineMedianMs;
  const flood = throughputRatio(run('flood.rest'), run('flood.express'));
  const rounds = r.memory.flood.rounds;
  const [prev, last] = rounds.slice(-2);
  const growth = prev && last ? last.floorMB - prev.floorMB : Number.NaN;
  const imp = r.importCase;
  const importTargets: Target[] = imp
    ? [
        {
          id: 'import-10k',
          text: `outreach import of a ${imp.rows}-row CSV takes under ${IMPORT_TARGET_MS / 1000} s`,
          measured: `${(imp.cliMs / 1000).toFixed(2)} s (process start to exit)`,
          met: imp.cliMs < IMPORT_TARGET_MS,
        },
        {
          id: 'import-vs-batch',
          text: `The import verb is within ${IMPORT_VS_BATCH}× of the same rows as 100 batch adds in-process`,
          measured: `${(imp.inProcessMs / imp.batchAddsMs).toFixed(2)}× (${int(imp.inProcessMs)} vs ${int(imp.batchAddsMs)} ms)`,
          met: imp.inProcessMs / imp.batchAddsMs <= IMPORT_VS_BATCH,
        },
      ]
    : [];
  return [
    ...importTargets,
    ...draftsTargets(r.draftsCase),
    ...approvalTargets(r.approvalCase),
    ...enrichTargets(r.enrichCase),
    ...triageTargets(r.triageCase),
    ...imapTargets(r.imapCase),
    ...auditTargets(r.auditCase),
    ...approveAllTargets(r.approveAllCase),
    ...crmTargets(r.crmEngineCase),
    ...crmPushTargets(r.crmPushCase),
    {
      id: 'rest-vs-express',
      text: 'REST GET /credits reaches ≥ 60% of bare Express throughput',
      measured: `${pct(restVsExpress)} (${ratioBasis(run('credits.rest'), run('credits.express'))})`,
      met: restVsExpress >= 0.6,
    },
    {
      id: 'scope-check',
      text: 'The scope check costs at most 5% of GET /credits throughput (a scoped key against an unscoped one, same server, same run)',
      measured: `${pct(scopedVsRest)} (${ratioBasis(run('credits.scoped'), run('credits.rest'))})`,
      met: scopedVsRest >= 0.95,
    },
    {
      id: 'mcp-vs-rest',
      text: 'MCP tools/call get_credits reaches ≥ 50% of REST throughput, in both protocol eras',
      measured:
        `2025-11-25: ${pct(mcpVsRest)} (${ratioBasis(run('credits.mcp'), run('credits.rest'))}); ` +
        `2026-07-28: ${pct(modernVsRest)} (${ratioBasis(run('credits.mcp-modern'), run('credits.rest'))})`,
      met: mcpVsRest >= 0.5 && modernVsRest >= 0.5,
    },
    {
      id: 'mcp-vs-rest-plain',
      text: 'MCP tools/call get_credits (a plain call) reaches ≥ 60% of REST throughput, in both protocol eras (issue 35)',
      measured: `2025-11-25: ${pct(mcpVsRest)}; 2026-07-28: ${pct(modernVsRest)}`,
      met: mcpVsRest >= 0.6 && modernVsRest >= 0.6,
    },
    {
      id: 'list-cost',
      text: 'A list_leads page at 1M leads costs ≤ 2× the raw keyset query',
      measured: cost.row
        ? `worst ${cost.ratio.toFixed(2)}× (${cost.row.case}, page ${cost.row.page}: ${ms(cost.row.verb.p50)} vs ${ms(cost.row.raw.p50)} ms median)` +
          (floor.row ? `; against rows read as arrays, worst ${floor.ratio.toFixed(2)}× (${floor.row.case}, page ${floor.row.page})` : '')
        : 'not measured',
      met: cost.row !== undefined && cost.ratio <= 2,
    },
    {
      id: 'list-p99',
      text: 'list_leads p99 under 5 ms server-side',
      measured: `${ms(pooled.p99)} ms over all ${int(pooled.n)} list requests on one connection (server request log)${p99.run ? `; the worst page alone ${ms(p99.p99)} ms (${p99.run.title})` : ''}`,
      met: pooled.n > 0 && pooled.p99 < 5,
    },
    {
      id: 'batch-floor',
      text: `add_leads_batch of 100, server-side, within ${BATCH_FLOOR_RATIO}× of the same writes in one raw transaction`,
      measured:
        batch.serverSide && r.batchFloor
          ? `${batchRatio.toFixed(2)}× (${ms(batch.serverSide.p50)} ms server-side, ${ms(batch.p50Ms)} ms client-side, 1 connection; its ${r.batchFloor.writes} writes replayed in one transaction: ${ms(r.batchFloor.medianMs)} ms median of ${r.batchFloor.runsMs.length})`
          : 'not measured',
      met: batchRatio <= BATCH_FLOOR_RATIO,
    },
    {
      id: 'flood-throughput',
      text: 'The 429 path runs at ≥ 80% of bare Express throughput',
      measured: `${pct(flood)} (${int(run('flood.rest').reqPerSec)} vs ${int(run('flood.express').reqPerSec)} req/s)`,
      met: flood >= 0.8,
    },
    {
      id: 'flood-memory',
      text: `… with flat memory (the RSS floor of the last flood within ${FLAT_MEMORY_MB} MB of the one before)`,
      measured: `idle ${r.memory.flood.beforeMB.toFixed(0)} MB; floor per flood ${rounds.map((x) => x.floorMB.toFixed(0)).join(' → ')} MB (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB) over ${int(rounds.reduce((n, x) => n + x.requests, 0))} requests`,
      met: growth <= FLAT_MEMORY_MB,
    },
    {
      id: 'cold-start',
      text: `Cold start to a healthy /health within ${COLD_START_RATIO}× of bare Express's, in the same turns`,
      measured: `${coldRatio.toFixed(1)}× (${int(r.coldStart.medianMs)} vs ${int(r.coldStart.baselineMedianMs)} ms, medians of ${r.coldStart.runsMs.length})`,
      met: coldRatio <= COLD_START_RATIO,
    },
    {
      id: 'idle-rss',
      text: 'Idle RSS under 120 MB',
      measured: `${r.memory.idleRssMB.toFixed(0)} MB after ${r.memory.idleSeconds} s idle (${r.memory.startRssMB.toFixed(0)} MB 2 s after start)`,
      met: r.memory.idleRssMB < 120,
    },
    {
      id: 'tools-list',
      text: `What a model reads of the default tools/list stays within ${int(LISTING_BUDGET_TOKENS.default)} tokens (output schemas not counted)`,
      measured: `${int(r.toolsList.modelTokens)} tokens (gpt-tokenizer, o200k_base); ${int(r.toolsList.toolsBytes)} bytes of tools, ${int(r.toolsList.responseBytes)} bytes of response`,
      met: r.toolsList.modelTokens <= LISTING_BUDGET_TOKENS.default,
    },
    {
      id: 'tools-list-manage',
      text: `What a model reads of tools/list with the manage toolset stays within ${int(LISTING_BUDGET_TOKENS.manage)} tokens (output schemas not counted)`,
      measured: `${int(r.toolsList.manage.modelTokens)} tokens (gpt-tokenizer, o200k_base); ${int(r.toolsList.manage.responseBytes)} bytes of response`,
      met: r.toolsList.manage.modelTokens <= LISTING_BUDGET_TOKENS.manage,
    },
    ...dashboardTargets(r.dashboard),
  ];
}

/** The drafts case's two targets, judged on the server's own times. */
export function draftsTargets(d: DraftsBench | undefined): Target[] {
  if (!d) return [];
  const ratios = d.inProcess.list.map((p) => ({ ...p, ratio: p.verb.p50 / p.raw.p50 }));
  const worst = ratios.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const worstP99 = Math.max(...d.inProcess.list.map((p) => p.verb.p99 / p.raw.p99));
  return [
    {
      id: 'drafts-list-p99',
      text: `list_drafts at ${int(d.drafts)} pending drafts: p99 under ${DRAFTS_LIST_P99_MS} ms server-side`,
      measured: `${ms(d.list.serverSide.p99)} ms p99, ${ms(d.list.serverSide.p50)} ms median over ${int(d.list.serverSide.n)} requests on one connection (first page, half-way page, every draft)`,
      met: d.list.serverSide.n > 0 && d.list.serverSide.p99 < DRAFTS_LIST_P99_MS,
    },
    {
      id: 'drafts-update',
      text: `update_drafts of 100 approvals under ${DRAFTS_UPDATE_MS} ms`,
      measured: `${ms(d.update.serverSide.p50)} ms median, ${ms(d.update.serverSide.p99)} ms p99 server-side over ${int(d.update.serverSide.n)} calls (client-side median ${ms(d.update.clientSide.p50)} ms)`,
      met: d.update.serverSide.n > 0 && d.update.serverSide.p50 < DRAFTS_UPDATE_MS,
    },
    {
      id: 'drafts-list-cost',
      text: `A list_drafts page at ${int(d.drafts)} drafts costs ≤ ${DRAFTS_LIST_COST}× the raw keyset query (in-process, in turns)`,
      measured: `worst ${worst.ratio.toFixed(2)}× at the median (${worst.page}: ${ms(worst.verb.p50)} vs ${ms(worst.raw.p50)} ms), ${worstP99.toFixed(2)}× at p99 (the verb's worst p99 ${ms(Math.max(...d.inProcess.list.map((p) => p.verb.p99)))} ms); 100 approvals cost ${(d.inProcess.update.verb.p50 / d.inProcess.update.raw.p50).toFixed(2)}× their raw UPDATEs (${ms(d.inProcess.update.verb.p50)} vs ${ms(d.inProcess.update.raw.p50)} ms median)`,
      met: d.inProcess.list.length > 0 && worst.ratio <= DRAFTS_LIST_COST,
    },
  ];
}

const counts = (byKey: Record<string, number>) =>
  Object.entries(byKey)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ${int(n)}`)
    .join(', ');

/**
 * The approval case's target: the campaign ran through with 0 auditor violations, and every send
 * carried exactly the words the reviewer approved (none without a draft, none approved and lost).
 */
export function approvalTargets(a: ApprovalBench | undefined): Target[] {
  if (!a) return [];
  const m = a.mismatches;
  const wrong = m.textDiffers + m.sentWithoutDraft + m.approvedNotSent;
  const s = a.settings;
  const unreviewed = Object.values(a.closedUnreviewed ?? {}).reduce((x, y) => x + y, 0);
  return [
    {
      id: 'approval-campaign',
      text: `A campaign of ${int(s.leads)} leads with approval required, approved in batches of 100 through MCP, runs through the simulator with 0 auditor violations`,
      measured:
        `${a.audit.violations} violations${a.audit.violations ? ` (${counts(a.audit.byRule)})` : ''} over ${int(a.audit.calls)} provider calls; campaign ${a.campaignStatus} after ${a.simDays.toFixed(1)} simulated days from ${s.accounts} accounts, ${(a.wallMs / 1000).toFixed(1)} s wall (${int(a.ticks)} ticks); ` +
        `${int(a.drafts.total)} drafts (${counts(a.drafts.byKind)}), ${int(a.review.approved)} approved by ${int(a.review.updateCalls)} update_drafts calls (${int(a.review.fullBatches)} of 100; ${int(a.review.rewritten)} rewritten in the same call) after ${int(a.review.listCalls)} list_drafts calls, ${(a.review.mcpMs / 1000).toFixed(1)} s in MCP${unreviewed ? `, ${int(unreviewed)} closed by the engine before review (${counts(a.closedUnreviewed)})` : ''}; ` +
        `${int(a.sends.total)} sends (${counts(a.sends.byKind)}), ${int(a.sends.withWords)} with words: ${wrong === 0 ? 'every one the approved draft, byte for byte' : `${m.textDiffers} differ, ${m.sentWithoutDraft} without a draft, ${m.approvedNotSent} approved and never sent`}` +
        `${a.stoppedByReply ? ` (${int(a.stoppedByReply)} approved follow-ups rightly unsent: the lead replied first)` : ''}; approval to send ${a.approvalToSendHours.median.toFixed(1)} h median, ${a.approvalToSendHours.p90.toFixed(1)} h p90 (simulated); ` +
        `every approval carried its revision: ${int(a.stale.raced)} drafts rewritten under the reviewer, ${int(a.stale.conflicts)} conflicts, ${int(a.stale.sent)} stale approvals sent`,
      met:
        a.audit.violations === 0 &&
        wrong === 0 &&
        a.campaignStatus === 'COMPLETED' &&
        // Every draft was approved, or closed by the engine before review (its lead replied), and none waits.
        a.review.approved + unreviewed === a.drafts.total &&
        (a.drafts.byStatus.pending ?? 0) === 0 &&
        a.stale.sent === 0 &&
        a.stale.conflicts === a.stale.raced,
    },
  ];
}

/** The enrichment case's target: its cost per lead within ENRICH_TARGET_RATIO of the lookup alone. */
export function enrichTargets(e: EnrichBench | undefined): Target[] {
  if (!e) return [];
  return [
    {
      id: 'enrich-vs-lookup',
      text: `Enriching a lead known only by its URL costs at most ${ENRICH_TARGET_RATIO}× the profile lookup alone`,
      measured: `${e.ratio.toFixed(2)}× (${e.enrichUs.toFixed(0)} vs ${e.lookupUs.toFixed(0)} CPU µs per lead; wall ${e.enrichWallUs.toFixed(0)} vs ${e.lookupWallUs.toFixed(0)} µs; median of ${e.rounds} rounds of ${e.leadsPerRound.toLocaleString('en-US')} leads on the simulated network)`,
      met: e.ratio <= ENRICH_TARGET_RATIO,
    },
  ];
}

/** Triage by rules: 10,000 replies under TRIAGE_TARGET_MS. */
/** Reading replies by IMAP: the mail poller (replies recorded), and the read and match alone, each within 2× of imapflow fetching the same messages alone. */
export function imapTargets(t: ImapBench | undefined): Target[] {
  if (!t) return [];
  return [
    {
      id: 'imap-replies',
      text: `Reading ${t.messages.toLocaleString('en-US')} messages from Dovecot by IMAP and matching the replies within ${IMAP_TARGET_RATIO}× of imapflow fetching them alone`,
      measured: `${t.ratio.toFixed(2)}× (${(t.pollerMs / 1000).toFixed(2)} s in ${t.pollerRounds} poller rounds, ${t.replies.toLocaleString('en-US')} replies matched and ${t.ignored.toLocaleString('en-US')} left alone, vs ${(t.imapflowMs / 1000).toFixed(2)} s; median of ${t.rounds})`,
      met: t.ratio <= IMAP_TARGET_RATIO,
    },
    {
      id: 'imap-match',
      text: `Reading ${t.messages.toLocaleString('en-US')} messages from Dovecot by IMAP and matching the replies, without recording them, within ${IMAP_TARGET_RATIO}× of imapflow fetching them alone`,
      measured: `${t.matchRatio.toFixed(2)}× (${(t.matchMs / 1000).toFixed(2)} s, ${t.matched.toLocaleString('en-US')} replies matched, vs ${(t.imapflowMs / 1000).toFixed(2)} s; median of ${t.rounds})`,
      met: t.matchRatio <= IMAP_TARGET_RATIO,
    },
  ];
}

export function crmTargets(engine: CrmEngineBench | undefined): Target[] {
  const out: Target[] = [];
  if (engine) {
    out.push({
      id: 'crm-engine-cost',
      text: `The engine's cost per provider call with the CRM sync on is within ${CRM_ENGINE_TARGET_RATIO}× of the sync off`,
      measured: `${engine.ratio.toFixed(2)}× (${engine.onUs.toFixed(0)} vs ${engine.offUs.toFixed(0)} CPU µs a call over ${engine.callsOn.toLocaleString('en-US')} and ${engine.callsOff.toLocaleString('en-US')} calls; wall ${engine.onWallUs.toFixed(0)} vs ${engine.offWallUs.toFixed(0)} µs; ${engine.pushes.toLocaleString('en-US')} pushes queued; ${engine.pairs.toLocaleString('en-US')} tick pairs in lockstep over ${engine.rounds} runs of ${engine.leads} leads and ${engine.days} simulated days, the runs ${engine.runRatios.map((x) => `${x.toFixed(2)}×`).join(', ')})`,
      met: engine.ratio <= CRM_ENGINE_TARGET_RATIO,
    });
  }
  return out;
}

export function crmPushTargets(push: CrmPushBench | undefined): Target[] {
  if (!push) return [];
  return [
    {
      id: 'crm-outbox-vs-direct',
      text: `The CRM outbox pushes ${push.events.toLocaleString('en-US')} events to the local HubSpot stand-in within ${CRM_PUSH_TARGET_RATIO}× of the same calls made directly with the client`,
      measured: `${push.ratio.toFixed(2)}× (${(push.outboxMs / 1000).toFixed(1)} vs ${(push.directMs / 1000).toFixed(1)} s, median of ${push.rounds} rounds; ${push.requests.outbox.toLocaleString('en-US')} vs ${push.requests.direct.toLocaleString('en-US')} HTTP requests)`,
      met: push.ratio <= CRM_PUSH_TARGET_RATIO,
    },
  ];
}

export function triageTargets(t: TriageBench | undefined): Target[] {
  if (!t) return [];
  return [
    {
      id: 'triage-rules',
      text: `Triage by rules of ${t.replies.toLocaleString('en-US')} replies under ${TRIAGE_TARGET_MS / 1000} s`,
      measured: `${t.medianMs.toFixed(0)} ms (median of ${t.rounds} rounds; ${t.recognised.toLocaleString('en-US')} replies recognised by a rule)`,
      met: t.medianMs < TRIAGE_TARGET_MS,
    },
  ];
}

/** The audit trail's target: its write adds at most 10% to a batch of 100 adds. */
export function auditTargets(a: AuditBench | undefined): Target[] {
  if (!a) return [];
  return [
    {
      id: 'audit-batch',
      text: `The audit write on a batch of ${a.batchSize} adds costs at most ${Math.round((AUDIT_TARGET_RATIO - 1) * 100)}% of the batch`,
      measured: `+${((a.ratio - 1) * 100).toFixed(1)}% (${a.auditedUs.toFixed(0)} vs ${a.plainUs.toFixed(0)} µs per batch, median of ${a.rounds} rounds; ${a.events} events, one per batch)`,
      met: a.ratio <= AUDIT_TARGET_RATIO && a.events === a.rounds + 2,
    },
  ];
}

/** "Approve all N matching": 10,000 pending drafts previewed and approved in under 2 s server-side. */
export function approveAllTargets(a: ApproveAllBench | undefined): Target[] {
  if (!a) return [];
  const total = a.previewMs + a.approveMs;
  return [
    {
      id: 'approve-all',
      text: `"Approve all" of ${int(a.drafts)} pending drafts under ${APPROVE_ALL_MS / 1000} s server-side`,
      measured: `${total.toFixed(0)} ms (preview ${a.previewMs.toFixed(0)} ms, approval ${a.approveMs.toFixed(0)} ms): ${int(a.approved)} approved, ${int(a.leftPending)} left pending`,
      met: total < APPROVE_ALL_MS && a.approved === a.drafts,
    },
  ];
}

/** The dashboard's targets: data calls, first render in Chromium, gzipped JS, first-load bytes on the wire. */
export function dashboardTargets(d: DashboardBench | undefined): Target[] {
  if (!d) return [];
  // Judged on the server's own times when the request log has them (the target is server time).
  const p99 = (p: DashboardBench['data'][number]) => (p.serverPooled ?? p.pooled).p99;
  const worst = d.data.reduce((a, b) => (p99(b) > p99(a) ? b : a));
  const nav = d.navigation;
  const slowest = nav?.length ? nav.reduce((a, b) => (b.maxMs > a.maxMs ? b : a)) : null;
  return [
    {
      id: 'dashboard-calls',
      text: `Dashboard data calls (overview, campaign leads, campaign search) p99 under ${DASHBOARD_CALL_P99_MS} ms at 1M leads`,
      measured: `${d.data
        .map(
          (p) =>
            `${p.page} ${p.serverPooled ? `${ms(p.serverPooled.p50)} / ${ms(p.serverPooled.p99)} ms server-side, ` : ''}${ms(p.pooled.p50)} / ${ms(p.pooled.p99)} ms client-side`,
        )
        .join('; ')} (p50 / p99)`,
      met: p99(worst) < DASHBOARD_CALL_P99_MS,
    },
    {
      id: 'dashboard-render',
      text: `Dashboard first render in Chromium under ${DASHBOARD_RENDER_MS} ms`,
      measured: nav
        ? nav.map((n) => `${n.page} median ${n.medianMs.toFixed(0)} ms, max ${n.maxMs.toFixed(0)} ms`).join('; ')
        : 'not measured (no /usr/bin/chromium)',
      met: slowest !== null && slowest.maxMs < DASHBOARD_RENDER_MS,
    },
    {
      id: 'dashboard-js',
      text: `Dashboard JS under ${int(DASHBOARD_JS_GZIP_BYTES)} bytes gzipped (300 KB)`,
      measured: `${int(d.jsGzipBytes)} bytes JS, ${int(d.cssGzipBytes)} bytes CSS (gzip -9)`,
      met: d.jsGzipBytes < DASHBOARD_JS_GZIP_BYTES,
    },
    {
      id: 'view-size',
      text: `Each MCP App view under ${int(VIEW_BYTES)} bytes (300 KB)`,
      measured: d.viewBytes.map((v) => `${v.view} ${int(v.bytes)}`).join(', ') || 'not measured',
      met: d.viewBytes.length > 0 && d.viewBytes.every((v) => v.bytes < VIEW_BYTES),
    },
    ...(d.firstLoad
      ? [
          {
            id: 'dashboard-first-load',
            text: `Dashboard first load under ${int(DASHBOARD_FIRST_LOAD_BYTES)} bytes on the wire (300 KB, Accept-Encoding of a browser)`,
            measured: `${int(d.firstLoad.brBytes)} bytes br, ${int(d.firstLoad.gzipBytes)} gzip, ${int(d.firstLoad.identityBytes)} uncompressed`,
            met: d.firstLoad.brBytes <= DASHBOARD_FIRST_LOAD_BYTES,
          },
        ]
      : []),
  ];
}

/** The dashboard section of RESULTS.md. */
export function dashboardMarkdown(d: DashboardBench | undefined): string[] {
  if (!d) return [];
  const lines = [
    '',
    '## Dashboard',
    '',
    "Each call a page makes before it renders, through `POST /app/api/call` with a session, one at a time: server-side from the server's request log, client-side with the loopback round trip; then Chromium navigating to the page until its content shows (the first overview run starts with an empty cache).",
    '',
    '| Page | Call | Server-side p50 / p99 ms | Client-side p50 / p99 ms |',
    '|---|---|---|---|',
  ];
  for (const p of d.data) {
    for (const c of p.calls) {
      lines.push(
        `| ${p.page} | \`${c.name}\` ${JSON.stringify(c.args)} | ${c.serverMs ? `${ms(c.serverMs.p50)} / ${ms(c.serverMs.p99)}` : '–'} | ${ms(c.ms.p50)} / ${ms(c.ms.p99)} |`,
      );
    }
  }
  if (d.navigation) {
    lines.push('', '| Page | Navigation to content, ms per run | DOMContentLoaded ms |', '|---|---|---|');
    for (const n of d.navigation) lines.push(`| ${n.page} | ${n.runsMs.map((x) => x.toFixed(0)).join(', ')} | ${n.domContentLoadedMs.toFixed(0)} |`);
  }
  lines.push('', `Built JS ${int(d.jsGzipBytes)} bytes gzipped, CSS ${int(d.cssGzipBytes)} bytes.`);
  if (d.viewBytes?.length)
    lines.push(
      '',
      `MCP App views (one HTML document each, as resources/read sends it): ${d.viewBytes.map((v) => `${v.view} ${int(v.bytes)} bytes`).join(', ')}.`,
    );
  if (d.firstLoad) {
    lines.push(
      '',
      'First load, body bytes on the wire (`/app/` and the assets it names, precompressed at build):',
      '',
      '| File | br | gzip | none |',
      '|---|---|---|---|',
      ...d.firstLoad.files.map((f) => `| \`${f.path}\` | ${int(f.brBytes)} | ${int(f.gzipBytes)} | ${int(f.identityBytes)} |`),
      `| total | ${int(d.firstLoad.brBytes)} | ${int(d.firstLoad.gzipBytes)} | ${int(d.firstLoad.identityBytes)} |`,
    );
  }
  return lines;
}

function ratioCell(run: LoadRun, runs: readonly LoadRun[]): string {
  return (run.baselines ?? []).map((id) => `${throughputRatio(run, runById(runs, id)).toFixed(2)}× ${runById(runs, id).title}`).join('<br>') || '–';
}

const serverCell = (s: Summary | undefined) => (s ? `${ms(s.p50)} / ${ms(s.p99)}` : '–');

/** RESULTS.md: targets, then every case with its ratio to its baselines. */
export function renderMarkdown(r: Results): string {
  const m = r.machine;
  const lines: string[] = [
    '# Benchmark results',
    '',
    'Generated by `npm run bench` (bench/run.ts); the same figures are in `bench/results.json`.',
    '',
    `- Date: ${r.date}`,
    `- Commit: \`${r.commit}\`${r.dirty ? ' (with uncommitted changes)' : ''}`,
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB.toFixed(1)} GiB, ${m.platform}, Node ${m.node}`,
    `- Load average at start / end: ${m.loadAverage.start.map((x) => x.toFixed(2)).join(' ')} / ${m.loadAverage.end.map((x) => x.toFixed(2)).join(' ')} (the machine is shared; compare ratios, not absolute figures)`,
    `- Load: autocannon, ${r.settings.connections} connections, ${r.settings.warmupSeconds} s warm-up then ${r.settings.durationSeconds} s per case; a case and its baselines take turns in 1-second slices${r.settings.turns ? ` (${r.settings.turns} turns for GET /credits, MCP and get_lead)` : ''}, the order reversed every other turn, and a ratio between two runs of the same turns is the median of the turns' ratios; client and server on the same machine`,
    `- Fixture: ${int(r.settings.leads)} leads in one campaign, generated in ${(r.timings.fixtureMs / 1000).toFixed(1)} s; whole run ${(r.timings.totalMs / 1000).toFixed(0)} s`,
    '',
    '## Targets',
    '',
    '| Target | Measured | Met |',
    '|---|---|---|',
    ...r.targets.map((t) => `| ${t.text} | ${t.measured} | ${t.met ? 'met' : '**not met**'} |`),
    '',
    '## HTTP cases',
    '',
    "Throughput ratio = our req/s ÷ the baseline's req/s in this run: the median of the turns' ratios where the two took turns, else the ratio of their totals. Latency is client-side (autocannon); server-side is the server's own request log (p50 / p99).",
    '',
    '| Case | Conns | req/s | p50 ms | p99 ms | Server-side ms | Ratio to baseline |',
    '|---|---|---|---|---|---|---|',
  ];
  const listRunIds = new Set(r.list.flatMap((l) => [l.runId, l.latencyRunId]));
  for (const run of r.runs.filter((x) => !listRunIds.has(x.id))) {
    const extra = run.extra
      ? ` (${Object.entries(run.extra)
          .map(([k, v]) => `${k} ${int(v)}`)
          .join(', ')})`
      : '';
    const codes = Object.entries(run.statusCounts)
      .map(([code, n]) => `${code}: ${int(n)}`)
      .join(', ');
    lines.push(
      `| ${run.kind === 'baseline' ? '*baseline* ' : ''}${run.title}${extra}<br><sub>${codes}${run.errors ? `, errors: ${run.errors}` : ''}</sub> | ${run.connections} | ${int(run.reqPerSec)} | ${run.p50Ms} | ${run.p99Ms} | ${serverCell(run.serverSide)} | ${run.kind === 'baseline' ? '–' : ratioCell(run, r.runs)} |`,
    );
  }
  lines.push(
    '',
    `## list_leads at ${int(r.settings.leads)} leads`,
    '',
    `Page size ${r.settings.pageSize}; page ${r.settings.deepPage} opens with a cursor built from the row at offset ${r.settings.deepPage - 1}·${r.settings.pageSize}−1 (see Method). ` +
      `In-process figures are medians / p99 of ${int(r.settings.inProcessIterations)} timed calls each, the four variants taking turns call by call. Cost = core verb ÷ raw keyset query, at the median; the target is judged against better-sqlite3's default \`all()\` (row objects), and the cost against its raw mode (rows as arrays, the floor of reading them) is shown beside it.`,
    '',
    `REST throughput and client latency at ${r.settings.connections} connections; server-side p50 / p99 from the server's request log on one connection (no queueing).`,
    '',
    '| Filter and sort | Page | Raw query ms | Core verb ms | Cost | Raw, rows as arrays ms | Cost vs arrays | Pipeline ms | REST req/s | REST p50 / p99 ms | Server-side ms, 1 conn | Ratio to baseline |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const row of r.list) {
    const run = runById(r.runs, row.runId);
    const one = runById(r.runs, row.latencyRunId);
    lines.push(
      `| ${row.case} | ${row.page} | ${serverCell(row.raw)} | ${serverCell(row.verb)} | ${(row.verb.p50 / row.raw.p50).toFixed(2)}× | ${serverCell(row.rawArrays)} | ${(row.verb.p50 / row.rawArrays.p50).toFixed(2)}× | ${serverCell(row.pipeline)} | ${int(run.reqPerSec)} | ${run.p50Ms} / ${run.p99Ms} | ${serverCell(one.serverSide)} | ${ratioCell(run, r.runs)} |`,
    );
  }
  const mem = r.memory;
  lines.push(
    '',
    '## Start, memory and tools/list',
    '',
    '| Measure | Value |',
    '|---|---|',
    `| Cold start: spawn of \`node bin/outreach.js start\` to the first 200 from /health | ${int(r.coldStart.medianMs)} ms median (runs: ${r.coldStart.runsMs.map(int).join(', ')} ms) |`,
    `| Cold start of the bare Express baseline, in turns with the server | ${int(r.coldStart.baselineMedianMs)} ms median (runs: ${r.coldStart.baselineRunsMs.map(int).join(', ')} ms); ratio ${(r.coldStart.medianMs / r.coldStart.baselineMedianMs).toFixed(1)}× |`,
    `| RSS 2 s after start (1M-lead database) | ${mem.startRssMB.toFixed(0)} MB |`,
    `| Idle RSS, after ${mem.idleSeconds} s idle | ${mem.idleRssMB.toFixed(0)} MB |`,
    `| Loaded RSS while the REST and MCP cases ran (floor / median / peak) | ${mem.loaded.floorMB.toFixed(0)} / ${mem.loaded.medianMB.toFixed(0)} / ${mem.loaded.peakMB.toFixed(0)} MB over ${int(mem.loaded.requests)} requests |`,
    `| RSS right after the load | ${mem.afterLoadRssMB.toFixed(0)} MB |`,
    `| 429 server: idle RSS, then floor / median / peak per flood | ${mem.flood.beforeMB.toFixed(0)} MB; ${mem.flood.rounds.map((x) => `${x.floorMB.toFixed(0)} / ${x.medianMB.toFixed(0)} / ${x.peakMB.toFixed(0)} MB (${int(x.requests)} requests)`).join('; ')} |`,
    `| tools/list (${r.toolsList.tools} tools): whole JSON-RPC response | ${int(r.toolsList.responseBytes)} bytes; what a model reads of it: ${int(r.toolsList.modelTokens)} tokens (gpt-tokenizer, o200k_base) |`,
    `| tools/list with the manage toolset (${r.toolsList.manage.tools} tools): whole JSON-RPC response | ${int(r.toolsList.manage.responseBytes)} bytes; what a model reads of it: ${int(r.toolsList.manage.modelTokens)} tokens |`,
    `| tools/list: the \`tools\` array, by part | ${int(r.toolsList.toolsBytes)} bytes: ${Object.entries(r.toolsList.byField)
      .map(([k, v]) => `${k} ${int(v)}`)
      .join(', ')} |`,
    '',
    '## Method',
    '',
    "- The server is the real one: `node bin/outreach.js start` in a child process with a bench `--config` that raises every rate limit, on a temporary database made by `outreach seed` (a paid workspace, the bench key, ample credits) and `npm run fixture` (1,000,000 leads in one campaign). The 429 case runs a second server with the default limits; while a key is over its limit, the server answers its GET requests with the pipeline's own 429 before Express (`src/rest/edge.ts`), and that is the path the flood measures.",
    "- Baselines run in their own child processes, like the server: a bare Express 5 app and a bare `node:http` server answering each case's route with the same JSON (the same status for the 429 body, the same response for a 100-item batch after parsing the body), and the MCP SDK's minimal stateless streamable-HTTP server (`McpServer`, one `get_credits` tool returning the same credits, a new server and transport per request, JSON responses).",
    `- Throughput is requests completed ÷ seconds; autocannon reports latency in whole milliseconds. Each case first runs a warm-up whose results are discarded. A case and its baselines run in turns of 1-second slices, the order reversed every other turn (A B C, C B A, A B C, …), so load from other work on the machine falls on both sides of a ratio and no case always follows the same neighbour; GET /credits, MCP and get_lead take ${r.settings.turns ?? 3} turns, the other cases three. A ratio between two runs of the same turns is the median of the turns' own ratios, which one slowed second moves little; a run's latency percentiles are the median of its slices'. The list pages run one after another, with their baseline's slices spread among them.`,
    `- The page-${r.settings.deepPage} cursor of each list is built, not walked: a cursor is the signed (sort value, seq) of the last row served, so the bench reads the row at offset (${r.settings.deepPage}−1)·${r.settings.pageSize}−1 in the list's order and signs it with the core's \`encodeCursor\` over the scope \`leadListQuery\` gives. test/bench checks on a small fixture that this equals the nextCursor of a walk; the run checks every built page over REST.`,
    "- Server-side times come from the server's own request log (`ms`: from the request reaching the server's front door to the response finishing), for the requests of the measured window only.",
    "- Raw query: the exact SELECTs on `leads` that listLeads sent for that page (the keyset query, and on a cursor page its existence check), captured once, prepared once on the same connection and run with better-sqlite3's default `all()` (row objects, what a hand-written handler runs); the raw-mode figures (rows as arrays) show the floor of reading the rows. Core verb: `listLeads(ctx, secret, input)` in-process. Pipeline: `invokeTool` for list_leads in-process (auth, rate limit, validation, verb, JSON).",
    '- Floors (targets as ratios, issue 26): the batch of 100 is compared with its own writes (the lead rows, the credit charge and its ledger entry, the campaign counters), learned by running the same batch through the pipeline in-process inside a transaction that is rolled back, then replayed with their parameters in one transaction on better-sqlite3 prepared statements, in the bench process, while the server is idle, before and after its one-connection run; cold start is compared with bare Express started in turns with it.',
    "- RSS is the server process's resident set (`/proc/<pid>/status` VmRSS, or `ps`), sampled every 200 ms while load runs. V8's heap makes RSS a sawtooth under load, so floods are compared by their floor (lowest sample), which a leak would raise; idle RSS is read after the server has sat idle long enough for V8 to give back its startup garbage.",
    '',
  );
  lines.push(...dashboardMarkdown(r.dashboard));
  return lines.join('\n');
}
