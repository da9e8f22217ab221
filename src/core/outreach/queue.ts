import { campaignStatements } from '../../db/sql/campaigns.js';
import { intentStatements } from '../../db/sql/intents.js';
import { leadStatements } from '../../db/sql/leads.js';
import { transaction } from '../../db/tx.js';
import { applyCampaignEvent, isImporting } from '../campaigns/state-machine.js';
import type { Ctx } from '../context.js';
import { excludeEverywhere } from '../leads/exclude.js';
import { handOffLead } from '../leads/handoff.js';
import type { AgentDecision } from './agent.js';
import { MESSAGE_TEXT_MAX } from './limits.js';
import { leaseHolder } from './lease.js';
import { fitTo } from './personalize.js';
import { closeDraftsOfEndedSequence } from './runner.js';
import { endSequence } from '../sequences/store.js';
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
export function runningCampaigns(ctx: Ctx, listed: readonly CampaignInfo[] = loadRunningCampaigns(ctx)): CampaignInfo[] {
  const out: CampaignInfo[] = [];
  for (const info of listed) {
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
export const closingLeads = (ctx: Ctx, limit: number): LeadRow[] => leadStatements(ctx.db).closing.all({ limit });

/** Rows by campaign, each list in due order (ties, and never-looked-at leads, by insertion). */
function byCampaign(rows: LeadRow[]): Map<string, LeadRow[]> {
  const out = new Map<string, LeadRow[]>();
  for (const row of rows) {
    const list = out.get(row.campaignId) ?? [];
    list.push(row);
    out.set(row.campaignId, list);
  }
  for (const list of out.values()) list.sort((a, b) => (a.nextActionAt ?? 0) - (b.nextActionAt ?? 0) || a.seq - b.seq);
  return out;
}

/** Leads of these campaigns with scheduled work due at `now` (next_action_at > 0), at most `limit` each, by campaign. */
export const scheduledLeadsOf = (ctx: Ctx, campaignIds: readonly string[], now: number, limit: number): Map<string, LeadRow[]> =>
  campaignIds.length === 0 ? new Map() : byCampaign(leadStatements(ctx.db).scheduledOfMany.all({ ids: JSON.stringify(campaignIds), now, limit }));

/** Leads of these campaigns the engine has never looked at (next_action_at 0, a new row's default), at most `limit` each, oldest first. */
export const freshLeadsOf = (ctx: Ctx, campaignIds: readonly string[], limit: number): Map<string, LeadRow[]> =>
  campaignIds.length === 0 ? new Map() : byCampaign(leadStatements(ctx.db).freshOfMany.all({ ids: JSON.stringify(campaignIds), limit }));

/**
 * For each of these campaigns, when its earliest scheduled lead comes due after `now` (null when
 * none has scheduled work). One statement, an index-only seek per campaign.
 */
export function nextScheduledOf(ctx: Ctx, campaignIds: readonly string[], now: number): Map<string, number | null> {
  if (campaignIds.length === 0) return new Map();
  return new Map(
    leadStatements(ctx.db)
      .nextScheduled.all({ ids: JSON.stringify(campaignIds), now })
      .map((r) => [r.id, r.at]),
  );
}
/** When the account's last provider call was made (its latest intent), or null. */
export const lastCallAt = (ctx: Ctx, accountId: string): number | null => intentStatements(ctx.db).lastOfAccount.get(accountId) ?? null;
/**
 * Of these campaigns, the ones with no lead left that has work (nothing due now or later): the
 * only ones the completion rule can apply to. One statement, one index seek per campaign.
 */
export function withoutWorkLeft(ctx: Ctx, campaignIds: readonly string[]): string[] {
  if (campaignIds.length === 0) return [];
  return leadStatements(ctx.db).withoutWorkLeft.all({ ids: JSON.stringify(campaignIds) });
}
/** Sets a lead's due time, unless something else changed it since it was read (`from`). */
export function moveDue(ctx: Ctx, leadId: string, from: number | null, to: number | null): void {
  const s = leadStatements(ctx.db);
  if (from === null) s.moveDueFromNull.run({ leadId, to });
  else s.moveDueFromAt.run({ leadId, from, to });
}
/** Moves several leads' due times in one transaction. */
export function moveDueMany(ctx: Ctx, moves: readonly { leadId: string; from: number | null; to: number }[]): void {
  transaction(ctx.db, () => {
    for (const m of moves) moveDue(ctx, m.leadId, m.from, m.to);
  });
}

/** A lead the engine cannot contact at all (no profile to address) fails. */
export function failLead(ctx: Ctx, leadId: string, info: CampaignInfo, settings: EngineSettings): void {
  transaction(ctx.db, () => {
    const at = ctx.simClock.now();
    updateAndReplan(ctx, leadId, { stage: 'failed', updatedAt: at }, info, settings);
    endSequence(ctx, { leadId, reason: 'failed', at });
    closeDraftsOfEndedSequence(ctx, leadId, info, 'failed', at);
  });
}

/** Excludes a lead workspace-wide at once, without sending a polite close. */
export function excludeNow(ctx: Ctx, lead: LeadRow): void {
  transaction(ctx.db, () => excludeEverywhere(ctx, lead));
}

/**
 * Stores the agent's decision on the reply `text`, unless a newer reply superseded it while
 * the agent thought. Returns the lead after the change.
 */
export function recordAgentDecision(
  ctx: Ctx,
  leadId: string,
  text: string,
  decision: AgentDecision,
  info: CampaignInfo,
  settings: EngineSettings,
): LeadRow | undefined {
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

/**
 * The completion rule: a running campaign that is not importing, has at least one lead, no
 * lead with work left (nothing due now or later, no polite close pending) and no send in flight
 * becomes COMPLETED (the state machine's `engine_completed`). An empty campaign keeps running,
 * waiting for leads. Only the lease holder completes campaigns.
 */
export function completeIfDone(ctx: Ctx, campaignId: string, holder: string): boolean {
  const l = leadStatements(ctx.db);
  // The engine asks only about campaigns `withoutWorkLeft` found idle; each probe is an index
  // seek, so the check stays cheap however many leads there are.
  return transaction(ctx.db, () => {
    if (l.workLeftInCampaign.get(campaignId) !== undefined) return false;
    if (leaseHolder(ctx.db, ctx.clock) !== holder) return false;
    const row = campaignStatements(ctx.db).statusOf(campaignId);
    if (row?.status !== 'CAMPAIGN_IN_PROGRESS' || isImporting(row, ctx.clock.now())) return false;
    if (l.anyOfCampaign.get(campaignId) === undefined) return false;
    if (l.closingInCampaign.get(campaignId) !== undefined) return false;
    if (intentStatements(ctx.db).pendingOfCampaign.get(campaignId) !== undefined) return false;
    if (!applyCampaignEvent(ctx, campaignId, 'engine_completed')) return false;
    ctx.log.info({ campaignId }, 'campaign completed');
    return true;
  });
}

/** Every this many ticks the completion pass looks at every running campaign, not only those with work. */
export const FULL_COMPLETION_CHECK_EVERY = 20;

/**
 * A tick's completion pass (tick numbers from 0): only a campaign whose leads had work or inbound
 * events in the tick (`touched`) can have just run out of work; every FULL_COMPLETION_CHECK_EVERY
 * ticks, the first included, all running ones are checked, for changes made elsewhere (leads
 * deleted through the API). Returns the campaigns completed (completeIfDone).
 */
export function completeFinished(ctx: Ctx, running: readonly CampaignInfo[], touched: ReadonlySet<string>, tick: number, holder: string): string[] {
  const checkAll = tick % FULL_COMPLETION_CHECK_EVERY === 0;
  const candidates = withoutWorkLeft(
    ctx,
    running.filter((info) => checkAll || touched.has(info.id)).map((info) => info.id),
  );
  return candidates.filter((id) => completeIfDone(ctx, id, holder));
}
