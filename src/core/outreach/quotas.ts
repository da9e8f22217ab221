import { findAccounts } from '../accounts/resolve.js';
import type { Ctx } from '../context.js';
import { allowances, type Allowance, type SafetySettings } from '../safety/rules.js';
import { invitationsFreeAt, invitationsLeft } from './readiness.js';
import type { EngineSettings } from './settings.js';
import { sendersOf, type CampaignInfo } from './state.js';

/**
 * Never-looked-at leads taken per campaign when it has nothing scheduled: an account sends one
 * at a time, so a few keep it busy and the rest of a backlog costs nothing until its turn.
 */
const FRESH_PER_PROBE = 5;
/**
 * Scheduled leads read per campaign and tick when sends are spaced (an account then makes one
 * call per tick): the one to send and a spare. Without spacing, the batch size.
 */
const PER_WAKE = 2;

/** How many due leads to read per campaign in a tick, and how many never-looked-at ones at most. */
export function probeSizes(settings: EngineSettings): { perWake: number; fresh: number } {
  const perWake = settings.spacingMinMs > 0 ? Math.min(PER_WAKE, settings.batchSize) : settings.batchSize;
  return { perWake, fresh: Math.min(FRESH_PER_PROBE, perWake) };
}

export interface FreshQuotas {
  /** Per campaign: how many never-looked-at leads to take now. */
  quotas: Map<string, number>;
  /** Senders found with no invitation left, and when they may invite again. */
  full: Map<string, number>;
}

/**
 * How many never-looked-at leads to take for each campaign: what its senders may still invite
 * today, at most `room`. A campaign without a sender takes `room` (its leads fail or wait for an
 * account at once). Senders `knownFull` (found with no invitation left before) are not read
 * again; `promised` counts, per sender, the leads given it today that it has not invited yet.
 * The senders and their counters are read in one statement each, with those of `alsoRead` (the
 * tick's other senders, whose counters its touches and sends ask for next); `read` is handed them
 * all, so the senders of this tick's new leads are picked on them (senderFor).
 */
export function freshLeadQuotas(
  ctx: Ctx,
  safety: SafetySettings,
  campaigns: readonly CampaignInfo[],
  now: number,
  room: number,
  knownFull: (accountId: string) => boolean,
  promised: (accountId: string) => number = () => 0,
  read?: (counters: ReadonlyMap<string, Allowance>) => void,
  alsoRead: readonly string[] = [],
): FreshQuotas {
  const probed = new Set(campaigns.flatMap((info) => sendersOf(info).filter((id) => !knownFull(id))));
  const senders = findAccounts(ctx, alsoRead.length > 0 ? [...probed, ...alsoRead] : [...probed]);
  const counters = allowances(
    ctx,
    [...senders.values()].filter((a) => a.status === 'connected'),
    safety,
    now,
  );
  read?.(counters);
  const full = new Map<string, number>();
  for (const [accountId, a] of counters) if (probed.has(accountId) && invitationsLeft(a) === 0) full.set(accountId, invitationsFreeAt(a, now));
  const quotas = new Map<string, number>();
  for (const info of campaigns) {
    const accounts = sendersOf(info);
    if (accounts.length === 0) {
      quotas.set(info.id, room);
      continue;
    }
    let left = 0;
    for (const accountId of accounts) {
      const a = probed.has(accountId) ? counters.get(accountId) : undefined;
      if (a) left += Math.max(0, invitationsLeft(a) - promised(accountId));
    }
    quotas.set(info.id, Math.min(room, left));
  }
  return { quotas, full };
}
