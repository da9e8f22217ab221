import type { InvitationBooking } from '../../core/outreach/booking.js';
import type { TouchCount } from '../../core/outreach/runner.js';

/**
 * The engine's memory: its one cache (docs/architecture.md, "Caching"). Each entry is a sim time
 * (and what the engine learned with it) about one subject:
 * - `pins` (account): the leads given it as their sender today (until the next UTC day) whose
 *   invitation has not gone yet, so a campaign with several senders spreads its leads by what
 *   each can still invite (core: dayPins, senderFor, freshLeadQuotas). Forgetting them only spreads the
 *   next leads less evenly;
 * - `pace` (account): no send before this: the spacing drawn after its last send, or a block the
 *   provider gave (its quota, a disconnection);
 * - `idle` (account): it can send nothing before this (out of hours, or within its spacing: set
 *   by the lanes after each of its sends, unless it sends for a campaign with email steps), so
 *   its campaigns are not read for due leads until then, and a due lead fixed to it in a
 *   campaign with other senders is held (core: heldForSender);
 * - `invites` (account): it has no invitation left before this, so its campaigns' new leads wait;
 * - `quiet` (campaign): none of its leads with scheduled work comes due before this;
 * - `close` (lead): its polite close waits for its account until this;
 * - `booking` (account): where its invitations held by a cap are being booked;
 * - `queue` (account): where the leads held for it (it could not send them in their tick) end:
 *   the next one held goes behind them (core: deferHeld). Forgetting it only puts the next
 *   leads held back at its next send, where they meet those before;
 * - `touched` (account): the invitations it may still send this week and the leads it touched
 *   ahead of them (core: touchWait), with when they were read, for the rest of the tick:
 *   forgotten when a tick begins and when the account sends.
 *
 * The one rule: an entry holds until its subject may have changed other than by time passing.
 * The engine drops or replaces an entry whenever it writes that subject itself (it sends from the
 * account, handles the campaign's leads, sends the close), and drops them all when it cannot know
 * what changed: when it takes the lease (another engine may have sent meanwhile) and when the
 * counters of the campaigns or the accounts move in the database cache (src/db/cache.ts: an
 * operator paused a campaign, edited an agent, raised a limit, reconnected an account).
 *
 * Nothing here is a fact a send relies on: before every send the account and the lead are read
 * again (accountReadiness, beginSend). Forgetting it all costs reads, never a broken rule: the
 * spacing's floor is rebuilt from the last recorded call (firstSendAt).
 */
export interface Subjects {
  pace: { blocked: boolean };
  pins: Set<string>;
  idle: undefined;
  invites: undefined;
  quiet: undefined;
  close: undefined;
  booking: InvitationBooking;
  queue: undefined;
  touched: TouchCount;
}
type Subject = keyof Subjects;

export class EngineMemory {
  /**
   * One map per subject, keyed by the subject's id: every busy tick asks each running campaign's
   * senders whether they are idle, and a key built as `${subject}:${id}` cost a new string (and
   * its hash) per question, 2,000 campaigns a tick at 2,000 accounts.
   */
  private readonly entries = new Map<Subject, Map<string, { until: number; value: unknown }>>();
  private stamp: string | null = null;

  private of(subject: Subject): Map<string, { until: number; value: unknown }> {
    let map = this.entries.get(subject);
    if (!map) {
      map = new Map();
      this.entries.set(subject, map);
    }
    return map;
  }

  /** Drops everything when `stamp` (the counters of campaigns and accounts) differs from the last one seen. */
  sync(stamp: string): void {
    if (stamp === this.stamp) return;
    this.entries.clear();
    this.stamp = stamp;
  }

  /** Drops everything (the lease was taken anew). */
  clear(): void {
    this.entries.clear();
    this.stamp = null;
  }

  get<S extends Subject>(subject: S, id: string): { until: number; value: Subjects[S] } | undefined {
    return this.entries.get(subject)?.get(id) as { until: number; value: Subjects[S] } | undefined;
  }

  /** The entry's time, or 0 when there is none. */
  until(subject: Subject, id: string): number {
    return this.entries.get(subject)?.get(id)?.until ?? 0;
  }

  set<S extends Subject>(subject: S, id: string, until: number, ...value: Subjects[S] extends undefined ? [] : [Subjects[S]]): void {
    this.of(subject).set(id, { until, value: value[0] });
  }

  forget(subject: Subject, id: string): void {
    this.entries.get(subject)?.delete(id);
  }

  /** Drops every entry of one subject. */
  forgetAll(subject: Subject): void {
    this.entries.get(subject)?.clear();
  }
}
