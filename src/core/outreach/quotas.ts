import { findAccounts } from '../accounts/resolve.js';
import type { Ctx } from '../context.js';
import { allowances, type SafetySettings } from '../safety/rules.js';
import { invitationsFreeAt, invitationsLeft } from './readiness.js';
import type { EngineSettings } from './settings.js';
import type { CampaignInfo } from './state.js';

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
 * How many never-looked-at leads to take for each campaign: what its sender may still invite
 * today, at most `room`. A campaign without a sender takes `room` (its leads fail or wait for an
 * account at once). Senders `knownFull` (found with no invitation left before) are not read
 * again. The senders and their counters are read in one statement each.
 */
export function freshLeadQuotas(
  ctx: Ctx,
  safety: SafetySettings,
  campaigns: readonly CampaignInfo[],
  now: number,
  room: number,
  knownFull: (accountId: string) => boolean,
): FreshQuotas {
  const senders = findAccounts(
    ctx,
    campaigns.flatMap((info) => (info.agent?.accountId && !knownFull(info.agent.accountId) ? [info.agent.accountId] : [])),
  );
  const counters = allowances(
    ctx,
    [...senders.values()].filter((a) => a.status === 'connected'),
    safety,
    now,
  );
  const full = new Map<string, number>();
  for (const [accountId, a] of counters) if (invitationsLeft(a) === 0) full.set(accountId, invitationsFreeAt(a, now));
  const quotas = new Map<string, number>();
  for (const info of campaigns) {
    const accountId = info.agent?.accountId;
    if (!accountId) {
      quotas.set(info.id, room);
      continue;
    }
    const a = counters.get(accountId);
    quotas.set(info.id, a ? Math.min(room, invitationsLeft(a)) : 0);
  }
  return { quotas, full };
}
