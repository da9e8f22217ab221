import type { Ctx } from '../context.js';
import { emailExclusion, findMailbox, leadEmailOf, mailboxSentOnDays, pinLeadMailbox } from '../mailboxes/store.js';
import type { LeadEmailFacts } from '../outreach/plan.js';
import type { LeadRow } from '../../db/sql/leads.js';
import { mailboxLimitOn } from '../safety/mailbox.js';

/**
 * What the email channel knows of a lead, for the step runner: whether its address is on the
 * workspace's exclusion list (it unsubscribed or bounced, in any campaign), and when it first
 * replied to one of our emails or one of them first bounced.
 */
export function emailFactsOf(ctx: Pick<Ctx, 'db'>, lead: LeadRow): LeadEmailFacts {
  const address = lead.email?.trim().toLowerCase();
  const excluded = address ? emailExclusion(ctx, address) : undefined;
  const state = leadEmailOf(ctx, lead.id);
  return {
    excluded: excluded === undefined ? null : excluded.reason === 'bounced' ? 'bounced' : 'unsubscribed',
    repliedAt: state?.repliedAt ?? null,
    bouncedAt: state?.bouncedAt ?? null,
  };
}

/**
 * The mailbox that sends the lead's email steps. A lead gets one at its first email step and
 * keeps it ever after, as it keeps its sender: among the campaign's mailboxes that may send
 * (connected, not paused or refused), the one with the most emails left today (warm-up applied),
 * the lowest id on a tie. A pinned mailbox that cannot send now makes the lead wait; it is never
 * moved to another. Null: the campaign has no mailbox that may send now; the lead waits.
 */
export function mailboxFor(ctx: Ctx, lead: LeadRow, info: { mailboxIds: readonly string[] }, now: number): string | null {
  const pinned = leadEmailOf(ctx, lead.id);
  if (pinned) return pinned.mailboxId;
  const rows = info.mailboxIds.map((id) => findMailbox(ctx, id)).filter((m) => m !== undefined && m.status === 'connected');
  if (rows.length === 0) return null;
  const sent = mailboxSentOnDays(
    ctx,
    rows.map((m) => m!.id),
    now,
  );
  let best: { id: string; left: number } | null = null;
  for (const m of rows) {
    if (!m) continue;
    const left = mailboxLimitOn(m, now) - (sent.get(m.id) ?? 0);
    if (best === null || left > best.left || (left === best.left && m.id < best.id)) best = { id: m.id, left };
  }
  return best === null ? null : pinLeadMailbox(ctx, lead.id, best.id, now);
}
