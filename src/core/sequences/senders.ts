import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { findAccounts, type AccountRow } from '../accounts/resolve.js';
import { findCampaignRow, senderAccountIdsOf } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { leadSenderOf, leadsPerSender } from '../leads/store.js';
import { updateLeadById } from '../../db/sql/leads.js';
import { agentAccountId } from '../agents/store.js';
import { allowancesWith, safetyOf, type Allowance } from '../safety/rules.js';

/**
 * Which account sends to a lead. Each lead has one sender, fixed at its first step: the lead's
 * own `accountId` when set; otherwise, among the campaign's senders (the agent's account when
 * the campaign names none), the one with the most invitations left today, the lowest id on a
 * tie. Only senders that can send now are candidates (connected and active); a lead whose
 * pinned sender stops being one waits for it and is never moved.
 */

export interface SenderChoice {
  /** The lead's sender, or null when no candidate can send now (the lead waits). */
  accountId: string | null;
  /** Whether it was the lead's own (already pinned, or set by hand). */
  pinned: boolean;
}

/** The candidates for a campaign: its senders, or the agent's account. */
export function campaignSenders(ctx: Ctx, campaignId: string): string[] {
  const campaign = findCampaignRow(ctx, campaignId);
  if (!campaign) return [];
  const senders = senderAccountIdsOf(campaign);
  if (senders.length > 0) return senders;
  if (campaign.assignedTemplateId === null) return [];
  const accountId = agentAccountId(ctx, campaign.assignedTemplateId);
  return accountId ? [accountId] : [];
}

const canSend = (a: AccountRow): boolean => a.status === 'connected' && a.active;

/**
 * The sender with the most invitations left today among `candidates` (the lowest id on a tie).
 * `promised` counts invitations already promised this round per account (leads the caller pinned
 * before sending), so one round spreads its leads instead of piling them on the first account.
 */
export function bestSender(
  ctx: Ctx,
  candidates: readonly string[],
  now: number,
  promised: ReadonlyMap<string, number> = new Map(),
  known?: ReadonlyMap<string, Allowance>,
): string | null {
  const rows = [...findAccounts(ctx, candidates).values()].filter(canSend);
  if (rows.length === 0) return null;
  // Counters the caller read at this instant (the engine's tick) are used as they are; the rest are read.
  const left = allowancesWith(ctx, rows, safetyOf(ctx), now, known);
  let best: { id: string; left: number } | null = null;
  for (const row of rows) {
    const a = left.get(row.id);
    const room = (a ? a.connectionRequestLimit - a.connectionRequestsSentToday : 0) - (promised.get(row.id) ?? 0);
    if (best === null || room > best.left || (room === best.left && row.id < best.id)) best = { id: row.id, left: room };
  }
  return best?.id ?? null;
}

/** The lead's sender: its own account if set, else the best of its campaign's senders (see `bestSender`). Reads only. */
export function pickSender(
  ctx: Ctx,
  lead: { accountId: string | null; campaignId: string },
  now: number,
  promised?: ReadonlyMap<string, number>,
): SenderChoice {
  if (lead.accountId !== null) return { accountId: lead.accountId, pinned: true };
  return { accountId: bestSender(ctx, campaignSenders(ctx, lead.campaignId), now, promised), pinned: false };
}

/**
 * Fixes the lead's sender, once: picks one (see `pickSender`) and stores it as the lead's
 * `accountId`, which then shows it. A lead that has one keeps it. Returns the sender, or null
 * when none can send now (nothing is stored; the lead waits).
 */
export function pinSender(ctx: Ctx, leadId: string, now: number, promised?: ReadonlyMap<string, number>): string | null {
  return transaction(ctx.db, () => {
    const lead = leadSenderOf(ctx.db, leadId);
    if (!lead) return null;
    const choice = pickSender(ctx, lead, now, promised);
    if (!choice.pinned && choice.accountId !== null) updateLeadById(ctx.db, leadId, { accountId: choice.accountId });
    return choice.accountId;
  });
}

export const SendersPreview = z.object({
  campaignId: z.string(),
  /** Every lead of the campaign. */
  leads: z.number().int(),
  /**
   * Who sends: the campaign's senders (the agent's account when it names none), then any other
   * account a lead is pinned to. `count` is the leads already pinned to it; `shared` says whether
   * it takes its part of the unassigned leads.
   */
  accounts: z.array(z.object({ accountId: z.string(), name: z.string().nullable(), count: z.number().int(), shared: z.boolean() })),
  /** Leads with no sender yet: each goes, at its first step, to the shared sender with the most invitations left that day. */
  unassigned: z.number().int(),
});
export type SendersPreview = z.infer<typeof SendersPreview>;

/**
 * Who would send to the campaign's leads, counted per sender by one GROUP BY over the leads
 * (the campaign's own index), for the confirmations on Start. A lead's sender is its
 * `accountId`, set by hand or fixed at its first step; the rest are unassigned. Reads only.
 */
export function sendersPreview(ctx: Ctx, campaignId: string): SendersPreview {
  const rows = leadsPerSender(ctx.db, campaignId);
  const pinned = new Map<string, number>();
  let unassigned = 0;
  let total = 0;
  for (const row of rows) {
    total += row.n;
    if (row.accountId === null) unassigned = row.n;
    else pinned.set(row.accountId, row.n);
  }
  const senders = campaignSenders(ctx, campaignId);
  const others = [...pinned.keys()].filter((id) => !senders.includes(id)).sort();
  const ids = [...senders, ...others];
  const found = findAccounts(ctx, ids);
  return {
    campaignId,
    leads: total,
    accounts: ids.map((id) => ({ accountId: id, name: found.get(id)?.name ?? null, count: pinned.get(id) ?? 0, shared: senders.includes(id) })),
    unassigned,
  };
}
