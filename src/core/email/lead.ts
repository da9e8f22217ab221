import type { Ctx } from '../context.js';
import { mailAddressOf } from './address.js';
import { emailExclusion, findMailbox, leadEmailOf, mailboxSentOnDays, pinLeadMailbox } from '../mailboxes/store.js';
import type { LeadEmailFacts } from '../outreach/plan.js';
import type { LeadRow } from '../../db/sql/leads.js';
import { mailboxLimitOn } from '../safety/mailbox.js';

/**
 * What the email channel knows of a lead, for the step runner: whether its address is on the
 * workspace's exclusion list (it unsubscribed or bounced, in any campaign), and when it first
 * replied to one of our emails or one of them first bounced. Those two times are read only for
 * `events` (steps with an `if` on an email reply or bounce, the only readers); else they are null.
 */
export function emailFactsOf(ctx: Pick<Ctx, 'db'>, lead: LeadRow, events = true): LeadEmailFacts {
  const to = emailAddressOf(ctx, lead);
  const state = events ? leadEmailOf(ctx, lead.id) : undefined;
  return {
    excluded: to.unavailable === 'unsubscribed' || to.unavailable === 'bounced' ? to.unavailable : null,
    repliedAt: state?.repliedAt ?? null,
    bouncedAt: state?.bouncedAt ?? null,
  };
}

/** Why a lead cannot be emailed: it has no address, or its address unsubscribed or bounced (in any campaign). */
export const EMAIL_UNAVAILABLE = ['no_email', 'unsubscribed', 'bounced'] as const;
export type EmailUnavailable = (typeof EMAIL_UNAVAILABLE)[number];

/**
 * The lead's address as it is mailed (mailAddressOf), or why it may not be: a field that names no
 * one address is `no_email`. One rule for the email step, the operator's email reply and the
 * inbox's word on how a reply goes.
 */
export function emailAddressOf(
  ctx: Pick<Ctx, 'db'>,
  lead: Pick<LeadRow, 'email'>,
): { address: string; unavailable: null } | { address: string | null; unavailable: EmailUnavailable } {
  const address = mailAddressOf(lead.email);
  if (address === null) return { address, unavailable: 'no_email' };
  const excluded = emailExclusion(ctx, address);
  if (excluded) return { address, unavailable: excluded.reason === 'bounced' ? 'bounced' : 'unsubscribed' };
  return { address, unavailable: null };
}

/**
 * The mailbox that sends the lead's email steps. A lead gets one at its first email step and
 * keeps it ever after, as it keeps its sender: among the campaign's mailboxes that may send
 * (connected, not paused or refused), the one with the most emails left today (warm-up applied),
 * the lowest id on a tie. `pins` counts the leads given each mailbox today that it has not
 * emailed yet as spent, as the engine's sender pins do for accounts, so a tick's new leads spread
 * over the mailboxes instead of all going to the first (whose lane sends one of them a tick and
 * puts the rest off). A pinned mailbox that cannot send now makes the lead wait; it is never moved
 * to another. Null: the campaign has no mailbox that may send now; the lead waits.
 */
export function mailboxFor(
  ctx: Ctx,
  lead: LeadRow,
  info: { mailboxIds: readonly string[] },
  now: number,
  pins?: { count(mailboxId: string): number; add(mailboxId: string, leadId: string): void },
): string | null {
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
    const left = mailboxLimitOn(m, now) - (sent.get(m.id) ?? 0) - (pins?.count(m.id) ?? 0);
    if (best === null || left > best.left || (left === best.left && m.id < best.id)) best = { id: m.id, left };
  }
  if (best === null) return null;
  const mailboxId = pinLeadMailbox(ctx, lead.id, best.id, now);
  if (mailboxId === best.id) pins?.add(mailboxId, lead.id);
  return mailboxId;
}
