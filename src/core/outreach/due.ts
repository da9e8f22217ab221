import type { Ctx } from '../context.js';
import { kindOfSend } from '../steps/registry.js';
import { nextUtcDay } from './calendar.js';
import { freshLeadsOf, nextScheduledOf, scheduledLeadsOf } from './queue.js';
import { freshLeadQuotas, probeSizes } from './quotas.js';
import { countersStamp } from './readiness.js';
import type { SenderPins } from './runner.js';
import type { SendKind } from './plan.js';
import type { EngineSettings } from './settings.js';
import { sendersOf, type CampaignInfo, type LeadRow } from './state.js';

/*
 * Which due leads the engine reads in a tick, and how far it reads on. The engine
 * (src/workers/outreach) keeps what it learned in its memory and hands it in as sim times; these
 * rules decide from them which campaigns are read, how many of their leads, and when a campaign
 * takes leads never looked at.
 */

/** Where the engine keeps its pins: the leads given an account today and not invited yet, until a sim time. */
export interface PinStore {
  get(accountId: string): { until: number; value: Set<string> } | undefined;
  set(accountId: string, until: number, leads: Set<string>): void;
}

/** The sender pins (see senderFor) over the engine's store; `release` unpins a lead whose invitation went. */
export interface DayPins extends SenderPins {
  release(accountId: string, leadId: string): void;
}

/** A lead pinned to its sender stays pinned until the next UTC day (a new day's invitations start again) or its invitation goes. */
export function dayPins(store: PinStore, now: () => number): DayPins {
  return {
    count: (accountId) => {
      const entry = store.get(accountId);
      return entry && entry.until > now() ? entry.value.size : 0;
    },
    add: (accountId, leadId) => {
      const at = now();
      const entry = store.get(accountId);
      const leads = entry && entry.until > at ? entry.value : new Set<string>();
      leads.add(leadId);
      store.set(accountId, nextUtcDay(at), leads);
    },
    release: (accountId, leadId) => {
      store.get(accountId)?.value.delete(leadId);
    },
  };
}

/**
 * Whether a send made unpins its lead: an invitation (the lead was promised to its sender's
 * invitations left today) or an email (promised to its mailbox's emails left today, mailboxFor).
 */
export const unpinsLead = (kind: SendKind): boolean => kind === 'connect' || kindOfSend(kind)?.channel === 'email';

/**
 * Whether a failed send unpins its lead: one tried again later today (`retryAt`, settleFailed)
 * is still promised to its sender or mailbox; one whose step ended (null) or whose next try
 * falls on a later UTC day is not, so the day's count does not keep a send that will not come.
 */
export const unpinsAfterFailure = (kind: SendKind, retryAt: number | null, now: number): boolean =>
  unpinsLead(kind) && (retryAt === null || retryAt >= nextUtcDay(now));

/** What the engine remembers that these rules read: sim times, 0 when nothing is known. */
export interface DueMemory {
  /** The account can send nothing before this (out of hours, or within its spacing). */
  idleUntil(accountId: string): number;
  /** None of the campaign's scheduled leads comes due before this. */
  quietUntil(campaignId: string): number;
  /** The account has no invitation left before this. */
  fullUntil(accountId: string): number;
  pins: SenderPins;
}

/** A campaign waits while its senders are all idle; one without a sender is always read (its leads fail or wait at once). */
export function isAwake(info: CampaignInfo, now: number, idleUntil: (accountId: string) => number): boolean {
  const senders = sendersOf(info);
  return senders.length === 0 || senders.some((id) => idleUntil(id) <= now);
}

/**
 * Scheduled leads read per campaign and tick: a few per sender, at most the batch. A campaign's
 * senders send side by side, so a campaign of fifty senders held to one sender's few leads a
 * tick sent no more than a campaign of one.
 */
export const wakeSize = (settings: EngineSettings, info: CampaignInfo): number =>
  Math.min(settings.batchSize, probeSizes(settings).perWake * Math.max(1, info.senderIds.length));

/** A sender is dry when no new lead is pinned to it today and it may still invite. */
export const isDry = (accountId: string, now: number, memory: Pick<DueMemory, 'fullUntil' | 'pins'>): boolean =>
  memory.pins.count(accountId) === 0 && memory.fullUntil(accountId) <= now;

/**
 * Whether a campaign takes never-looked-at leads this tick: when it has no scheduled ones, or
 * when it has several senders and one is dry (its scheduled leads may all wait for another, busy
 * sender, while this one has nothing to send).
 */
export const isHungry = (info: CampaignInfo, hasScheduled: boolean, dry: (accountId: string) => boolean): boolean =>
  !hasScheduled || (info.senderIds.length > 1 && info.senderIds.some(dry));

/** Each campaign's scheduled leads due at `now`, read to its own size: one statement per distinct size. */
export function scheduledBySize(ctx: Ctx, campaigns: readonly CampaignInfo[], now: number, sizeOf: (info: CampaignInfo) => number): Map<string, LeadRow[]> {
  const bySize = new Map<number, string[]>();
  for (const info of campaigns) {
    const size = sizeOf(info);
    const ids = bySize.get(size);
    if (ids) ids.push(info.id);
    else bySize.set(size, [info.id]);
  }
  const out = new Map<string, LeadRow[]>();
  for (const [size, ids] of bySize) for (const [id, rows] of scheduledLeadsOf(ctx, ids, now, size)) out.set(id, rows);
  return out;
}

export interface DueReads {
  /** The running campaigns with a sender awake and leads due now (scheduled or new), in the order given. */
  due: CampaignInfo[];
  /** Per campaign, its scheduled leads due now (at most its wake size). */
  scheduled: Map<string, LeadRow[]>;
  /** Per campaign, the never-looked-at leads it takes now (at most what its senders may still invite). */
  fresh: Map<string, LeadRow[]>;
  /** Campaigns read and found with nothing scheduled due: when their next scheduled lead comes due (Infinity: none). */
  quiet: Map<string, number>;
  /** Senders found with no invitation left, and when they may invite again. */
  full: Map<string, number>;
}

/**
 * The due leads of a tick, each read one statement for all campaigns: of the running campaigns
 * whose senders are awake, the scheduled leads of those not known to be quiet, then leads never
 * looked at for the hungry ones, only as many as their senders may still invite (a backlog of a
 * million new leads costs nothing until its turn). The senders' counters read for the new leads
 * are handed to the pins, so this tick's new leads get their senders on them (senderFor).
 */
export function readDue(ctx: Ctx, settings: EngineSettings, running: readonly CampaignInfo[], now: number, memory: DueMemory): DueReads {
  const freshRoom = probeSizes(settings).fresh;
  // Senders' counters are this tick's, once read below; never an earlier tick's.
  memory.pins.counters = undefined;
  const awake = running.filter((info) => isAwake(info, now, (id) => memory.idleUntil(id)));
  const probed = awake.filter((info) => memory.quietUntil(info.id) <= now);
  const scheduled = scheduledBySize(ctx, probed, now, (info) => wakeSize(settings, info));
  const quietIds = probed.filter((info) => !scheduled.has(info.id)).map((info) => info.id);
  const quiet = new Map<string, number>();
  for (const [id, at] of nextScheduledOf(ctx, quietIds, now)) quiet.set(id, at ?? Number.POSITIVE_INFINITY);
  const hungry = awake.filter((info) => isHungry(info, scheduled.has(info.id), (id) => isDry(id, now, memory)));
  // The awake senders of the leads due (a lead's own, else its campaign's): their touches and
  // sends of this tick ask for their counters next (touchWait, the lanes), read here in the same statement.
  const working = new Set<string>();
  for (const info of probed)
    for (const lead of scheduled.get(info.id) ?? [])
      for (const id of lead.accountId !== null ? [lead.accountId] : sendersOf(info)) if (memory.idleUntil(id) <= now) working.add(id);
  const { quotas, full } = freshLeadQuotas(
    ctx,
    settings.safety,
    hungry,
    now,
    freshRoom,
    (id) => memory.fullUntil(id) > now,
    (id) => memory.pins.count(id),
    (counters) => {
      memory.pins.counters = { at: now, stamp: countersStamp(ctx), byAccount: counters };
    },
    [...working],
  );
  const taking = hungry.filter((info) => (quotas.get(info.id) ?? 0) > 0);
  const fresh = new Map<string, LeadRow[]>();
  for (const [id, rows] of freshLeadsOf(
    ctx,
    taking.map((info) => info.id),
    freshRoom,
  ))
    fresh.set(id, rows.slice(0, quotas.get(id) ?? 0));
  const due = awake.filter((info) => scheduled.has(info.id) || fresh.has(info.id));
  return { due, scheduled, fresh, quiet, full };
}

/**
 * Works a campaign's due leads of this tick (`work`, each lead once a tick: `seen`). When none of
 * its few leads needed a send (waits re-planned, sequences finished), its next few are read at
 * once, up to the batch size; it stops when a send was queued (`queued` grew), the page came back
 * short, or nothing new was read.
 */
export async function workCampaignDue(
  ctx: Ctx,
  settings: EngineSettings,
  info: CampaignInfo,
  now: number,
  reads: Pick<DueReads, 'scheduled' | 'fresh'>,
  seen: Set<string>,
  work: (lead: LeadRow) => Promise<void>,
  queued: () => number,
): Promise<void> {
  const wake = wakeSize(settings, info);
  let scheduled = reads.scheduled.get(info.id) ?? [];
  const fresh = reads.fresh.get(info.id) ?? [];
  let due = fresh.length > 0 ? scheduled.concat(fresh) : scheduled;
  const before = queued();
  for (let taken = 0; ; ) {
    let handled = 0;
    for (const lead of due) {
      if (seen.has(lead.id)) continue;
      seen.add(lead.id);
      handled++;
      await work(lead);
    }
    taken += due.length;
    if (handled === 0 || scheduled.length < wake || queued() > before || taken >= settings.batchSize) return;
    scheduled = scheduledLeadsOf(ctx, [info.id], now, wake).get(info.id) ?? [];
    due = scheduled;
  }
}
