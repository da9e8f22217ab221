import { limitOf, type SendKind } from './plan.js';
import type { AccountWait } from './readiness.js';

/** A send the engine queued for an account, waiting for its turn. */
export interface PendingSend {
  leadId: string;
  kind: SendKind;
  accountId: string;
  /** The lead's next_action_at when it was picked up, so a deferral never overwrites a newer plan. */
  due: number | null;
  /** Whether the account is its campaign's sender, so the campaign waits while the account is idle. */
  followsSender: boolean;
}

export interface Deferral {
  /** New due times of leads (each moved only if still due as read). */
  moves: { leadId: string; from: number | null; to: number }[];
  /** Polite closes and when to try them again: they are found by their pending close, not by a due time. */
  closes: { leadId: string; at: number }[];
}

/**
 * Where sends that cannot go now are put, in their queue order. Held because the account is idle
 * (out of hours or within its spacing), a lead of a campaign that follows the account stays due
 * as it is: its campaign is not read again until the account wakes, so nothing is written.
 * Otherwise sends queue behind `until` at the average spacing (`step`), so they do not all come
 * due at once, and invitations held by a daily or weekly cap are booked (`book`) on the day they
 * may go, no more a day than the account may send.
 */
export function deferSends(items: readonly PendingSend[], wait: AccountWait, step: number, book: (until: number) => number): Deferral {
  const out: Deferral = { moves: [], closes: [] };
  items.forEach((item, j) => {
    if (wait.why === 'idle' && item.followsSender && item.kind !== 'polite_close') return;
    const at = wait.why === 'capped' && item.kind === 'connect' ? book(wait.until) : wait.until + j * step;
    if (item.kind === 'polite_close') out.closes.push({ leadId: item.leadId, at });
    else out.moves.push({ leadId: item.leadId, from: item.due, to: at });
  });
  return out;
}

/**
 * The sends of a lane held by the daily limit `kind` counts against (the first of `items` met
 * it), and the others, which the lane goes on with: an account out of visits still invites.
 */
export function splitByLimit(items: readonly PendingSend[], kind: SendKind): { held: PendingSend[]; others: PendingSend[] } {
  const limit = limitOf(kind);
  return { held: items.filter((x) => limitOf(x.kind) === limit), others: items.filter((x) => limitOf(x.kind) !== limit) };
}

/** What `heldForSender` reads of a due lead. */
export interface HeldCandidate {
  accountId: string | null;
  excluded: boolean;
  replied: boolean;
  politeClosePendingAt: number | null;
  pendingReplyText: string | null;
  agentSendKind: string | null;
}

/**
 * A due lead of a campaign with several senders, whose sender (fixed at its first step) cannot
 * send it in this tick (`busy`: the engine knows the sender idle, or its lane already holds the
 * one send its spacing allows): working it now would only queue a send the lane holds back
 * (deferSends). Only a lead on its sequence's plain path is held; a reply, a close or an agent's
 * answer pending, or an exclusion, is worked as it comes, and so is every lead of a campaign whose
 * steps read email (its next step may go from a mailbox, which keeps its own pace). Returns the
 * sender, or null when the lead is to be worked now.
 */
export function heldForSender(
  campaign: { senderIds: readonly string[]; readsEmail: boolean },
  lead: HeldCandidate,
  busy: (accountId: string) => boolean,
): string | null {
  const sender = lead.accountId;
  if (campaign.senderIds.length < 2 || campaign.readsEmail || sender === null || !campaign.senderIds.includes(sender)) return null;
  if (lead.excluded || lead.replied || lead.politeClosePendingAt !== null || lead.pendingReplyText !== null || lead.agentSendKind !== null) return null;
  return busy(sender) ? sender : null;
}

/**
 * Where leads held for their sender go: behind the time it may send again (`next`) and behind the
 * leads held for it before (`queueEnd`, where that queue ends), at the average spacing (`step`), as
 * deferSends puts an idle lane's sends. Returns the moves and where the queue now ends. Without the
 * queue, a backlog put back at the sender's next send met again at every send, and all but one
 * were read and held again.
 */
export function deferHeld(
  leads: readonly { leadId: string; due: number | null }[],
  next: number,
  queueEnd: number,
  step: number,
): { moves: Deferral['moves']; end: number } {
  const from = Math.max(next, queueEnd);
  return { moves: leads.map((lead, j) => ({ leadId: lead.leadId, from: lead.due, to: from + j * step })), end: from + leads.length * step };
}
