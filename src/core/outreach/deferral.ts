import type { SendKind } from './plan.js';
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
