import { loadDist } from './app.js';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as CampaignManage from '../../src/core/campaigns/manage.js';
import type * as Cursor from '../../src/core/cursor.js';
import type * as DraftList from '../../src/core/drafts/list.js';
import type * as DraftPrepare from '../../src/core/drafts/prepare.js';
import type * as DraftUpdate from '../../src/core/drafts/update.js';
import type * as DraftsWriter from '../../src/db/drafts-writer.js';
import type * as Tx from '../../src/db/tx.js';
import type { App } from './app.js';
import { checkFetch, type LoadSpec, runSlice, serverTimes } from './load.js';
import { summarize, type Summary, timeInTurns } from './stats.js';

/** What the drafts case measured (issue: drafts a person approves). */
export interface DraftsBench {
  /** Pending drafts in the queue when list_drafts was measured. */
  drafts: number;
  /** Writing them in-process through the engine's verb (draftFor). */
  seedMs: number;
  /** list_drafts pages on one connection, server-side, pooled. */
  list: { pages: string[]; serverSide: Summary };
  /** update_drafts calls of 100 approvals each, one after another. */
  update: { serverSide: Summary; clientSide: Summary };
  /**
   * In-process, call by call in turns, so load from other work falls on both sides of each
   * ratio: every list page as the raw keyset SQL (the floor) and through the core verb; 100
   * approvals as raw UPDATEs in one transaction and through the core verb.
   */
  inProcess: {
    list: { page: string; raw: Summary; verb: Summary }[];
    update: { raw: Summary; verb: Summary };
  };
}

export const DRAFTS_SEEDED = 100_000;
export const DRAFTS_LIST_P99_MS = 5;
export const DRAFTS_UPDATE_MS = 20;
/** The list_leads rule, for the drafts queue: a page costs at most twice its raw keyset query. */
export const DRAFTS_LIST_COST = 2;
const UPDATE_CALLS = 100;

type Ctx = ReturnType<App['server']['createContext']>;

export interface SeededDrafts {
  /** Draft ids, oldest first. */
  ids: string[];
  seedMs: number;
  /** The list_drafts cursor half-way down the queue. */
  deepCursor: string;
  /** The list position (seq) that cursor stands for. */
  deepSeq: number;
}

/**
 * Turns approval on for the campaign and gives its first `n` leads a pending draft each, as the
 * engine would (draftFor, in transactions of 5,000).
 */
export async function seedDrafts(root: string, ctx: Ctx, secret: string, campaignId: string, n: number = DRAFTS_SEEDED): Promise<SeededDrafts> {
  const load = <T>(path: string): Promise<T> => loadDist<T>(root, path);
  const manage = await load<typeof CampaignManage>('core/campaigns/manage.js');
  const prepare = await load<typeof DraftPrepare>('core/drafts/prepare.js');
  const tx = await load<typeof Tx>('db/tx.js');
  const cursor = await load<typeof Cursor>('core/cursor.js');
  const client = ctx.db.$client;
  const leadIds = (client.prepare('SELECT id FROM leads WHERE campaign_id = ? ORDER BY seq LIMIT ?').all(campaignId, n) as { id: string }[]).map((r) => r.id);
  if (leadIds.length < n) throw new Error(`the drafts case needs ${n} leads in ${campaignId}; it has ${leadIds.length}`);
  const started = performance.now();
  manage.updateCampaign(ctx, campaignId, { approval: 'required' });
  for (let from = 0; from < n; from += 5000) {
    tx.transaction(ctx.db, () => {
      for (const leadId of leadIds.slice(from, from + 5000)) {
        prepare.draftFor(ctx, {
          campaignId,
          leadId,
          stepId: 'stp_bench_note',
          variant: 'A',
          kind: 'invite',
          accountId: null,
          text: 'Hi there, glad to connect.',
        });
      }
    });
  }
  const seedMs = performance.now() - started;
  const ids = (client.prepare("SELECT id FROM drafts WHERE campaign_id = ? AND status = 'pending' ORDER BY seq").all(campaignId) as { id: string }[]).map(
    (r) => r.id,
  );
  const half = client
    .prepare("SELECT seq FROM drafts WHERE campaign_id = ? AND status = 'pending' ORDER BY seq LIMIT 1 OFFSET ?")
    .get(campaignId, Math.floor(n / 2)) as {
    seq: number;
  };
  return { ids, seedMs, deepCursor: cursor.encodeCursor(secret, `drafts|${campaignId}|pending`, [half.seq]), deepSeq: half.seq };
}

export interface DraftsRunOptions {
  root: string;
  ctx: Ctx;
  secret: string;
  /** Timed calls per in-process case (a tenth more as warm-up). */
  iterations: number;
  url: string;
  logPath: string;
  headers: Record<string, string>;
  campaignId: string;
  seeded: SeededDrafts;
  seconds: number;
}

/**
 * list_drafts pages on one connection (first page of the campaign's pending queue, the page half
 * way down it, and the first page of every draft), then update_drafts calls approving 100 of the
 * oldest pending drafts each, one after another. Times are the server's own (its request log).
 */
export async function benchDrafts(o: DraftsRunOptions): Promise<DraftsBench> {
  const pages = [
    `/public/v1/drafts?campaignId=${o.campaignId}&status=pending&limit=50`,
    `/public/v1/drafts?campaignId=${o.campaignId}&status=pending&limit=50&cursor=${encodeURIComponent(o.seeded.deepCursor)}`,
    '/public/v1/drafts?limit=50',
  ];
  const listTimes: number[] = [];
  for (const [i, path] of pages.entries()) {
    const check = await checkFetch(o.url + path, { headers: o.headers });
    const body = (await check.json()) as { drafts?: unknown[] };
    if (check.status !== 200 || body.drafts?.length !== 50) throw new Error(`list_drafts ${path}: HTTP ${check.status}, ${body.drafts?.length} drafts`);
    const spec: LoadSpec = {
      id: `drafts.list.${i}`,
      title: `list_drafts ${path}`,
      kind: 'server',
      url: o.url,
      path,
      headers: o.headers,
      connections: 1,
      durationSeconds: o.seconds,
      warmupSeconds: 0,
      serverLog: { path: o.logPath, match: { tool: 'list_drafts' } },
    };
    listTimes.push(...(await runSlice(spec, o.seconds)).serverTimes);
  }

  const from = statSync(o.logPath).size;
  const client: number[] = [];
  for (let call = 0; call < UPDATE_CALLS; call++) {
    const ids = o.seeded.ids.slice(call * 100, call * 100 + 100);
    const body = JSON.stringify({ drafts: ids.map((id) => ({ id, status: 'approved' })) });
    const t = performance.now();
    const res = await fetch(`${o.url}/public/v1/drafts/batch-update`, { method: 'POST', headers: { ...o.headers, 'content-type': 'application/json' }, body });
    const result = (await res.json()) as { summary?: { updated: number } };
    client.push(performance.now() - t);
    if (res.status !== 200 || result.summary?.updated !== 100)
      throw new Error(`update_drafts call ${call}: HTTP ${res.status} ${JSON.stringify(result).slice(0, 200)}`);
  }
  // The request log is written once per event-loop turn: give the last line a moment.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const server = serverTimes(o.logPath, from, { tool: 'update_drafts' });
  const inProcess = await inProcessDrafts(o, UPDATE_CALLS * 100);
  return {
    drafts: o.seeded.ids.length,
    seedMs: o.seeded.seedMs,
    list: { pages, serverSide: summarize(listTimes) },
    update: { serverSide: summarize(server), clientSide: summarize(client) },
    inProcess,
  };
}

const LEAD_COLUMNS = 'l.full_name, l.first_name, l.last_name, l.job_title, l.company_name, l.headline, l.location, l.personalization, l.network_url';

/**
 * The in-process ratios, after the REST figures: the same three pages as the raw keyset SQL and
 * as listDrafts; then 100 approvals as raw UPDATEs and as updateDrafts, each on drafts of its
 * own (the queue's newest, past the `used` ones the REST calls approved).
 */
async function inProcessDrafts(o: DraftsRunOptions, used: number): Promise<DraftsBench['inProcess']> {
  const load = <T>(rel: string): Promise<T> => import(pathToFileURL(join(o.root, 'dist', rel)).href) as Promise<T>;
  const list = await load<typeof DraftList>('core/drafts/list.js');
  const update = await load<typeof DraftUpdate>('core/drafts/update.js');
  const writer = await load<typeof DraftsWriter>('db/drafts-writer.js');
  const client = o.ctx.db.$client;
  const loop = { warmup: Math.ceil(o.iterations / 10), iterations: o.iterations };
  const select = (where: string) =>
    client.prepare(`SELECT d.*, ${LEAD_COLUMNS} FROM drafts d JOIN leads l ON l.id = d.lead_id WHERE ${where} ORDER BY d.seq LIMIT 51`);
  const byCampaign = select("d.seq > ? AND d.campaign_id = ? AND d.status = 'pending'");
  const all = select('d.seq > ?');
  const cases = [
    {
      page: 'campaign, pending, first',
      raw: () => byCampaign.all(0, o.campaignId),
      input: { campaignId: o.campaignId, status: 'pending' as const, limit: 50 },
    },
    {
      page: 'campaign, pending, half-way',
      raw: () => byCampaign.all(o.seeded.deepSeq, o.campaignId),
      input: { campaignId: o.campaignId, status: 'pending' as const, limit: 50, cursor: o.seeded.deepCursor },
    },
    { page: 'every draft, first', raw: () => all.all(0), input: { limit: 50 } },
  ];
  const pages: DraftsBench['inProcess']['list'] = [];
  for (const c of cases) {
    if (c.raw().length !== 51 || list.listDrafts(o.ctx, o.secret, c.input).drafts.length !== 50)
      throw new Error(`in-process list_drafts ${c.page}: short page`);
    const [raw, verb] = await timeInTurns([c.raw, () => list.listDrafts(o.ctx, o.secret, c.input)], loop);
    pages.push({ page: c.page, raw: raw!, verb: verb! });
  }

  const calls = loop.warmup + loop.iterations;
  const fresh = o.seeded.ids.slice(used);
  if (fresh.length < 2 * calls * 100) throw new Error(`in-process update_drafts needs ${2 * calls * 100} pending drafts; ${fresh.length} are left`);
  const batches = (from: number) => Array.from({ length: calls }, (_, i) => fresh.slice((from + i) * 100, (from + i + 1) * 100));
  const rawBatches = batches(0);
  const verbBatches = batches(calls);
  const approve = client.prepare("UPDATE drafts SET status = 'approved', updated_at = ? WHERE id = ? AND status = 'pending'");
  // SQLite lets only the drafts store write drafts: the floor opens the same gate, so both sides
  // pay for the same triggers.
  const approveAll = client.transaction((ids: readonly string[]) =>
    writer.asDraftsWriter(client, () => {
      const now = Date.now();
      let n = 0;
      for (const id of ids) n += approve.run(now, id).changes;
      return n;
    }),
  );
  let r = 0;
  let v = 0;
  const [raw, verb] = await timeInTurns(
    [
      () => {
        if (approveAll(rawBatches[r++]!) !== 100) throw new Error('raw approvals: not 100 rows');
      },
      () => {
        const res = update.updateDrafts(
          o.ctx,
          verbBatches[v++]!.map((id) => ({ id, status: 'approved' as const })),
        );
        if (res.summary.updated !== 100) throw new Error(`updateDrafts: ${JSON.stringify(res.summary)}`);
      },
    ],
    loop,
  );
  return { list: pages, update: { raw: raw!, verb: verb! } };
}
