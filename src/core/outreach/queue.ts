import { and, asc, desc, eq, gt, isNotNull, isNull, lte, sql, type SQL } from 'drizzle-orm';
import { perDb } from '../../db/prepared.js';
import { accountDaily, campaigns, engineIntents, leads } from '../../db/schema.js';
import { transaction } from '../../db/tx.js';
import { applyCampaignEvent } from '../campaigns/state-machine.js';
import { accountToday } from '../accounts/today.js';
import type { Ctx } from '../context.js';
import { excludeEverywhere } from '../leads/exclude.js';
import { handOffLead } from '../leads/handoff.js';
import type { AgentDecision } from './agent.js';
import { MESSAGE_TEXT_MAX } from './limits.js';
import { leaseHolder } from './lease.js';
import { fitTo } from './personalize.js';
import type { IntentRow } from './sends.js';
import type { EngineSettings } from './settings.js';
import { effectiveAccountId, getLead, loadRunningCampaigns, updateAndReplan, type CampaignInfo, type LeadRow } from './state.js';

/*
 * The outreach engine's reads and writes of the due-work queue: which leads are due, moving a
 * lead's due time, the agent's decisions, and the campaign events the engine causes. The engine
 * (src/workers/outreach) decides only *when*; everything it records goes through here.
 */

/**
 * Running campaigns the engine can work. One that lost its agent can never send anything: it
 * goes to FAILED (the state machine's `engine_failed`) and is left out.
 */
export function runningCampaigns(ctx: Ctx): CampaignInfo[] {
  const out: CampaignInfo[] = [];
  for (const info of loadRunningCampaigns(ctx)) {
    if (info.agent === null) {
      ctx.log.warn({ campaignId: info.id }, 'running campaign has no agent; marked FAILED');
      applyCampaignEvent(ctx, info.id, 'engine_failed');
      continue;
    }
    out.push(info);
  }
  return out;
}

/**
 * Leads with a polite close pending, oldest first, in the order of the polite-close index:
 * ordered so, SQLite seeks that index past its nulls; unordered, it scanned the whole table.
 */
export const closingLeads = (ctx: Ctx, limit: number): LeadRow[] => closingStmt(ctx.db).all({ limit });

// Prepared once per database: the engine runs these on every tick (the due probes once per running campaign).
const closingStmt = perDb((db) =>
  db.select().from(leads).where(isNotNull(leads.politeClosePendingAt)).orderBy(asc(leads.politeClosePendingAt)).limit(sql.placeholder('limit')).prepare(),
);
const scheduledStmt = perDb((db) =>
  db
    .select()
    .from(leads)
    .where(and(eq(leads.campaignId, sql.placeholder('campaignId')), gt(leads.nextActionAt, 0), lte(leads.nextActionAt, sql.placeholder('now'))))
    .orderBy(asc(leads.nextActionAt))
    .limit(sql.placeholder('limit'))
    .prepare(),
);
const freshStmt = perDb((db) =>
  db.select().from(leads).where(and(eq(leads.campaignId, sql.placeholder('campaignId')), eq(leads.nextActionAt, 0))).limit(sql.placeholder('limit')).prepare(),
);

/**
 * The same two probes for many campaigns in one statement: one index seek per campaign inside
 * SQLite, so a tick over 200 running campaigns costs one statement, not 200. Each campaign
 * gets at most `limit` leads. Returned by campaign, each list earliest first.
 */
const scheduledOfMany = perDb((db) =>
  db
    .select()
    .from(leads)
    .where(
      sql`${leads.seq} IN (SELECT s.seq FROM json_each(${sql.placeholder('ids')}) j, leads s WHERE s.seq IN (
        SELECT d.seq FROM leads d WHERE d.campaign_id = j.value AND d.next_action_at > 0 AND d.next_action_at <= ${sql.placeholder('now')}
        ORDER BY d.next_action_at LIMIT ${sql.placeholder('limit')}))`,
    )
    .prepare(),
);
const freshOfMany = perDb((db) =>
  db
    .select()
    .from(leads)
    .where(
      sql`${leads.seq} IN (SELECT s.seq FROM json_each(${sql.placeholder('ids')}) j, leads s WHERE s.seq IN (
        SELECT d.seq FROM leads d WHERE d.campaign_id = j.value AND d.next_action_at = 0 LIMIT ${sql.placeholder('limit')}))`,
    )
    .prepare(),
);

function byCampaign(rows: LeadRow[], sortDue: boolean): Map<string, LeadRow[]> {
  const out = new Map<string, LeadRow[]>();
  for (const row of rows) {
    const list = out.get(row.campaignId) ?? [];
    list.push(row);
    out.set(row.campaignId, list);
  }
  if (sortDue) for (const list of out.values()) list.sort((a, b) => (a.nextActionAt ?? 0) - (b.nextActionAt ?? 0) || a.seq - b.seq);
  else for (const list of out.values()) list.sort((a, b) => a.seq - b.seq);
  return out;
}

/** `scheduledLeads` for many campaigns at once. */
export const scheduledLeadsOf = (ctx: Ctx, campaignIds: readonly string[], now: number, limit: number): Map<string, LeadRow[]> =>
  campaignIds.length === 0 ? new Map() : byCampaign(scheduledOfMany(ctx.db).all({ ids: JSON.stringify(campaignIds), now, limit }), true);

/** `freshLeads` for many campaigns at once (at most `limit` each, oldest rows first). */
export const freshLeadsOf = (ctx: Ctx, campaignIds: readonly string[], limit: number): Map<string, LeadRow[]> =>
  campaignIds.length === 0 ? new Map() : byCampaign(freshOfMany(ctx.db).all({ ids: JSON.stringify(campaignIds), limit }), false);

/** A campaign's leads with scheduled work due at `now` (next_action_at > 0), earliest first. */
export const scheduledLeads = (ctx: Ctx, campaignId: string, now: number, limit: number): LeadRow[] => scheduledStmt(ctx.db).all({ campaignId, now, limit });

/** Leads of a campaign the engine has never looked at (next_action_at 0, a new row's default). */
export const freshLeads = (ctx: Ctx, campaignId: string, limit: number): LeadRow[] => freshStmt(ctx.db).all({ campaignId, limit });

/** When the account's last provider call was made (its latest intent), or null. */
export const lastCallAt = (ctx: Ctx, accountId: string): number | null => lastCallStmt(ctx.db).get({ accountId })?.at ?? null;
const lastCallStmt = perDb((db) =>
  db.select({ at: engineIntents.createdAt }).from(engineIntents).where(eq(engineIntents.accountId, sql.placeholder('accountId'))).orderBy(desc(engineIntents.createdAt)).limit(1).prepare(),
);

/**
 * Of these campaigns, the ones with no lead left that has work (nothing due now or later): the
 * only ones the completion rule can apply to. One statement, one index seek per campaign.
 */
export function withoutWorkLeft(ctx: Ctx, campaignIds: readonly string[]): string[] {
  if (campaignIds.length === 0) return [];
  return idleCampaigns(ctx.db)
    .all({ ids: JSON.stringify(campaignIds) })
    .map((r) => r.id);
}
const idleCampaigns = perDb((db) =>
  db
    .select({ id: sql<string>`j.value` })
    .from(sql`json_each(${sql.placeholder('ids')}) j`)
    .where(sql`NOT EXISTS (SELECT 1 FROM ${leads} WHERE ${leads.campaignId} = j.value AND ${leads.nextActionAt} IS NOT NULL)`)
    .prepare(),
);

const completionProbes = perDb((db) => {
  const id = sql.placeholder('campaignId');
  const probe = (where: SQL | undefined) => db.select({ one: sql`1` }).from(leads).where(where).limit(1).prepare();
  return {
    campaign: db.select({ status: campaigns.status, importing: campaigns.importing }).from(campaigns).where(eq(campaigns.id, id)).prepare(),
    anyLead: probe(eq(leads.campaignId, id)),
    workLeft: probe(and(eq(leads.campaignId, id), isNotNull(leads.nextActionAt))),
    closing: probe(and(isNotNull(leads.politeClosePendingAt), eq(leads.campaignId, id))),
    pending: db.select({ one: sql`1` }).from(engineIntents).where(and(eq(engineIntents.state, 'pending'), eq(engineIntents.campaignId, id))).limit(1).prepare(),
  };
});

/** A campaign's leads due at `now`, earliest first (one index probe on next_action_at). */
export function dueLeads(ctx: Ctx, campaignId: string, now: number, limit: number): LeadRow[] {
  return ctx.db
    .select()
    .from(leads)
    .where(and(eq(leads.campaignId, campaignId), lte(leads.nextActionAt, now)))
    .orderBy(asc(leads.nextActionAt))
    .limit(limit)
    .all();
}

/** Sets a lead's due time, unless something else changed it since it was read (`from`). */
export function moveDue(ctx: Ctx, leadId: string, from: number | null, to: number | null): void {
  const s = moveStmts(ctx.db);
  (from === null ? s.fromNull : s.fromAt).run({ leadId, from, to });
}
const moveStmts = perDb((db) => {
  // `to` may be null (no work left): bound as-is, since next_action_at maps values unchanged.
  const set = { nextActionAt: sql`${sql.placeholder('to')}` };
  return {
    fromNull: db.update(leads).set(set).where(and(eq(leads.id, sql.placeholder('leadId')), isNull(leads.nextActionAt))).prepare(),
    fromAt: db.update(leads).set(set).where(and(eq(leads.id, sql.placeholder('leadId')), eq(leads.nextActionAt, sql.placeholder('from')))).prepare(),
  };
});

/** Moves several leads' due times in one transaction. */
export function moveDueMany(ctx: Ctx, moves: readonly { leadId: string; from: number | null; to: number }[]): void {
  transaction(ctx.db, () => {
    for (const m of moves) moveDue(ctx, m.leadId, m.from, m.to);
  });
}

/** A lead the engine cannot contact at all (no profile to address) fails. */
export function failLead(ctx: Ctx, leadId: string, info: CampaignInfo, settings: EngineSettings): void {
  transaction(ctx.db, () => updateAndReplan(ctx, leadId, { stage: 'failed', updatedAt: ctx.simClock.now() }, info, settings));
}

/** Excludes a lead workspace-wide at once, without sending a polite close. */
export function excludeNow(ctx: Ctx, lead: LeadRow): void {
  transaction(ctx.db, () => excludeEverywhere(ctx, lead));
}

/**
 * Stores the agent's decision on the reply `text`, unless a newer reply superseded it while
 * the agent thought. Returns the lead after the change.
 */
export function recordAgentDecision(ctx: Ctx, leadId: string, text: string, decision: AgentDecision, info: CampaignInfo, settings: EngineSettings): LeadRow | undefined {
  return transaction(ctx.db, () => {
    const current = getLead(ctx, leadId);
    if (!current || current.pendingReplyText !== text) return current;
    const at = ctx.simClock.now();
    switch (decision.kind) {
      case 'none':
        return updateAndReplan(ctx, leadId, { pendingReplyText: null, needsReply: false, updatedAt: at }, info, settings, current);
      case 'handoff':
        return handOffLead(ctx, current, decision.reason, at, effectiveAccountId(current, info));
      case 'reply':
      case 'cta':
        return updateAndReplan(
          ctx,
          leadId,
          { pendingReplyText: null, agentSendKind: decision.kind, agentSendText: fitTo(decision.text, MESSAGE_TEXT_MAX), updatedAt: at },
          info,
          settings,
          current,
        );
    }
  });
}

/** Intents left pending, e.g. by an engine that died mid-send. */
export const pendingIntents = (ctx: Ctx): IntentRow[] => ctx.db.select().from(engineIntents).where(eq(engineIntents.state, 'pending')).all();

/** What an account has counted today (core/accounts/today.ts): the counters `list_accounts` shows. */
export function accountDayCounts(ctx: Ctx, accountId: string): { connectionRequestsSent: number; messagesSent: number } {
  const day = ctx.db
    .select({ c: accountDaily.connectionRequestsSent, m: accountDaily.messagesSent })
    .from(accountDaily)
    .where(and(eq(accountDaily.accountId, accountId), eq(accountDaily.day, accountToday(ctx))))
    .get();
  return { connectionRequestsSent: day?.c ?? 0, messagesSent: day?.m ?? 0 };
}

/**
 * The completion rule: a running campaign that is not importing, has at least one lead, no
 * lead with work left (nothing due now or later, no polite close pending) and no send in flight
 * becomes COMPLETED (the state machine's `engine_completed`). An empty campaign keeps running,
 * waiting for leads. Only the lease holder completes campaigns.
 */
export function completeIfDone(ctx: Ctx, campaignId: string, holder: string): boolean {
  const p = completionProbes(ctx.db);
  const args = { campaignId };
  // Work left is the common answer: asked first, and outside a transaction (a read needs none),
  // so a tick does not open a write transaction per campaign just to find work. Each probe is
  // an index seek, so the check stays cheap however many leads there are.
  if (p.workLeft.get(args) !== undefined) return false;
  return transaction(ctx.db, () => {
    if (p.workLeft.get(args) !== undefined) return false;
    if (leaseHolder(ctx.db, ctx.clock) !== holder) return false;
    const row = p.campaign.get(args);
    if (!row || row.status !== 'CAMPAIGN_IN_PROGRESS' || row.importing) return false;
    if (p.anyLead.get(args) === undefined) return false;
    if (p.closing.get(args) !== undefined) return false;
    if (p.pending.get(args) !== undefined) return false;
    if (!applyCampaignEvent(ctx, campaignId, 'engine_completed')) return false;
    ctx.log.info({ campaignId }, 'campaign completed');
    return true;
  });
}
