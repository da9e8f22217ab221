import { transaction } from '../../db/tx.js';
import { accountRef, findAccount } from '../accounts/resolve.js';
import type { Ctx } from '../context.js';
import { ApiError, toApiError } from '../errors.js';
import { LEAD_FIELD_MAX } from '../leads/fields.js';
import type { Profile } from '../network/profiles.js';
import { reserveDailyQuota, type QuotaPermit } from '../ratelimit/network.js';
import { nextWorkingTime } from '../safety/hours.js';
import { rhythmOf } from '../safety/rules.js';
import { endSequence, getPosition, placeLead } from '../sequences/store.js';
import { clean } from '../text.js';
import { nextUtcDay } from './calendar.js';
import { ACCOUNT_RETRY_MS, classify } from './failures.js';
import { kindOf } from '../steps/registry.js';
import { isStepSend, type LeadAction } from './plan.js';
import { moveDue } from './queue.js';
import { countEnrichmentFailure, enrichmentRow } from './store.js';
import type { SequenceIndex } from './sequence.js';
import type { EngineSettings } from './settings.js';
import { getLead, updateAndReplan, updateLead, type CampaignInfo, type LeadRow } from './state.js';
import { enrichmentStatements } from '../../db/sql/leads.js';

/**
 * Enrichment: a lead known only by its profile URL is looked up through its sender before the
 * first step that puts words in front of the person (an invitation with a note, a message, an
 * InMail, or a draft of any of them), so "{{firstName}}" names them. The lookup is the provider's
 * profile lookup (the one `lookup_profile` makes), counted in the sender's daily lookups; it
 * fills only the fields the lead has empty. A failed lookup is tried again later; the third
 * failure in a row ends the lead's sequence with `enrichment_failed`.
 *
 * The decision (`needsEnrichment`) and every write are synchronous core verbs in transactions;
 * the provider call (`enrichLead`) happens between them, outside any transaction.
 */

const HOUR = 3_600_000;
/** Failed lookups in a row after which the lead's sequence ends. */
export const ENRICH_ATTEMPTS = 3;
/** The wait after a first failed lookup; it doubles after each further one (1 h, then 2 h). */
export const ENRICH_RETRY_MS = HOUR;

/** The fields a lookup may fill, when the lead has them empty. */
export const ENRICHED_FIELDS = ['firstName', 'lastName', 'fullName', 'headline', 'jobTitle', 'companyName', 'location'] as const;
type EnrichedField = (typeof ENRICHED_FIELDS)[number];

/** A lead with no name at all: no first, last or full name. Such a lead is the one enrichment looks up. */
export const isNameless = (lead: Pick<LeadRow, 'firstName' | 'lastName' | 'fullName'>): boolean =>
  clean(lead.firstName) === null && clean(lead.lastName) === null && clean(lead.fullName) === null;

/** Per agent's steps and send kind: whether a step of that kind renders words for the lead (a note in any variant, a message, an InMail), as its kind says. */
const wordsBySend = new WeakMap<SequenceIndex, Map<string, boolean>>();
function stepsRenderWords(seq: SequenceIndex, send: string): boolean {
  let known = wordsBySend.get(seq);
  if (known === undefined) {
    known = new Map();
    for (const { step } of seq.byId.values()) {
      if (step.kind === 'wait' || step.kind === 'if') continue;
      const kind = kindOf(step);
      if (kind.rendersWords?.(step) === true) known.set(kind.send, true);
    }
    wordsBySend.set(seq, known);
  }
  return known.get(send) === true;
}

/** Whether the engine's next action renders words for the lead. */
function rendersWords(info: CampaignInfo, kind: LeadAction['kind']): boolean {
  if (kind === 'draft') return true;
  return isStepSend(kind) && stepsRenderWords(info.steps, kind);
}

/**
 * Whether the lead must be looked up before `kind` is carried out: it has a profile URL and no
 * name, the action renders words for it, and no lookup has filled it in yet (a profile that
 * itself has no name is looked up once, not again and again).
 */
export function needsEnrichment(ctx: Ctx, lead: LeadRow, info: CampaignInfo, kind: LeadAction['kind']): boolean {
  if (lead.networkUrl === null || !isNameless(lead) || !rendersWords(info, kind)) return false;
  return (enrichmentRow(ctx.db, lead.id)?.enrichedAt ?? null) === null;
}

/** A lookup to make: the lead, the account it goes through (the lead's sender), and the lead's due time when it was read. */
export interface EnrichInput {
  leadId: string;
  accountId: string;
  networkUrl: string;
  due: number | null;
}

/**
 * What came of a lookup:
 * - `enriched`: the lead's empty fields are filled (plan it again: its words can render now);
 * - `waits`: no lookup was made (the sender is away, out of hours, or out of lookups today), or
 *   the provider refused the account rather than the profile; the lead is due again at `until`;
 * - `failed`: the lookup failed for the profile; the lead is tried again later, or its sequence
 *   ended (`ended`) at the third failure in a row.
 */
export type EnrichOutcome =
  | { kind: 'enriched' }
  | { kind: 'waits'; until: number; why: 'unavailable' | 'idle' | 'quota' | 'account' }
  | { kind: 'failed'; code: string; failures: number; ended: boolean };

/** Cuts a provider's value to the lead field's limit. */
function fitField(field: EnrichedField, value: string | null): string | null {
  if (value === null) return null;
  const max = field in LEAD_FIELD_MAX ? LEAD_FIELD_MAX[field as keyof typeof LEAD_FIELD_MAX] : 500;
  // A string no longer in UTF-16 units than the limit has no more characters than it either.
  if (value.length <= max) return value;
  const chars = [...value];
  return chars.length <= max ? value : chars.slice(0, max).join('').trimEnd();
}

/**
 * Admits the lookup: the sender must be connected, active and inside
 * its working hours, with a profile lookup left today (the engine's day). Returns the quota
 * permit taken, or when to look at the lead again (recorded).
 */
function admit(
  ctx: Ctx,
  input: EnrichInput,
  settings: EngineSettings,
  now: number,
): { permit: QuotaPermit; account: NonNullable<ReturnType<typeof findAccount>> } | Extract<EnrichOutcome, { kind: 'waits' }> {
  const waits = (until: number, why: Extract<EnrichOutcome, { kind: 'waits' }>['why']): Extract<EnrichOutcome, { kind: 'waits' }> => {
    moveDue(ctx, input.leadId, input.due, until);
    return { kind: 'waits', until, why };
  };
  // Each write is its own transaction: moving the lead's due time, or reserving the lookup.
  const account = findAccount(ctx, input.accountId);
  if (account?.status !== 'connected' || !account.active) return waits(now + ACCOUNT_RETRY_MS, 'unavailable');
  const rhythm = rhythmOf(account, settings.safety);
  const open = nextWorkingTime(now, rhythm);
  if (open > now) return waits(open, 'idle');
  try {
    return { permit: reserveDailyQuota(ctx, 'profileLookups', account, 1, undefined, now), account };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'network_daily_quota') return waits(nextWorkingTime(nextUtcDay(now), rhythm), 'quota');
    throw err;
  }
}

/**
 * Looks the lead up through its sender and records what came of it. The provider call is made
 * outside any transaction; the admission before it and the record after it are each one
 * transaction. A lookup that fails gives its unit of the daily quota back, as `lookup_profile` does.
 */
export async function enrichLead(ctx: Ctx, input: EnrichInput, info: CampaignInfo, settings: EngineSettings, now: number): Promise<EnrichOutcome> {
  const admitted = admit(ctx, input, settings, now);
  if (!('permit' in admitted)) return admitted;
  const { permit, account } = admitted;
  let profile: Profile;
  try {
    profile = await ctx.network.lookupProfile({ account: accountRef(account), networkUrl: input.networkUrl, depth: 'basic' });
  } catch (err) {
    permit.settle(0);
    return recordFailure(ctx, input, info, settings, toApiError(err).code, account, now);
  }
  permit.settle(1);
  return recordProfile(ctx, input.leadId, profile, now);
}

/**
 * Fills the lead's empty fields from the profile, in one transaction: the fields are read inside
 * it and only those that are blank and that the profile has are written (a field the customer
 * gave stays as given, and a search index whose key does not change is not touched). The lead
 * stays due (it was due when looked up); the engine plans it again right after, and its words
 * render now. A lead deleted while it was looked up is left alone.
 */
export function recordProfile(ctx: Ctx, leadId: string, profile: Pick<Profile, EnrichedField>, now: number): EnrichOutcome {
  const values = {} as Record<EnrichedField, string | null>;
  for (const field of ENRICHED_FIELDS) values[field] = fitField(field, clean(profile[field]));
  // A lead given a name is never looked up again (it is no longer nameless): it needs a record
  // only when the profile showed no name, so that it is not looked up on every step.
  const named = values.firstName !== null || values.lastName !== null || values.fullName !== null;
  const at = Math.max(1, now);
  return transaction(ctx.db, () => {
    const s = enrichmentStatements(ctx.db);
    const current = s.fields.get(leadId);
    if (current === undefined) return ENRICHED;
    const changes: Partial<LeadRow> = {};
    let changed = false;
    for (const field of ENRICHED_FIELDS) {
      const value = values[field];
      if (value !== null && clean(current[field]) === null) {
        changes[field] = value;
        changed = true;
      }
    }
    if (changed) {
      changes.updatedAt = at;
      updateLead(ctx.db, leadId, changes);
    }
    if (named) s.reset.run({ leadId, at });
    else s.enriched.run({ leadId, at });
    return ENRICHED;
  });
}

const ENRICHED: EnrichOutcome = { kind: 'enriched' };

/**
 * A failed lookup. The provider's refusal of the account (its quota, a disconnection) is the
 * account's, not the profile's: the lead waits without a failure counted. Any other failure
 * counts; the lead is tried again after ENRICH_RETRY_MS (doubling), and the third in a row ends
 * its sequence with `enrichment_failed` (the lead is then `failed`).
 */
function recordFailure(
  ctx: Ctx,
  input: EnrichInput,
  info: CampaignInfo,
  settings: EngineSettings,
  code: string,
  account: NonNullable<ReturnType<typeof findAccount>>,
  now: number,
): EnrichOutcome {
  const cls = classify(code);
  if (cls === 'quota' || cls === 'account') {
    const until = cls === 'quota' ? nextWorkingTime(nextUtcDay(now), rhythmOf(account, settings.safety)) : now + ACCOUNT_RETRY_MS;
    moveDue(ctx, input.leadId, input.due, until);
    return { kind: 'waits', until, why: cls === 'quota' ? 'quota' : 'account' };
  }
  return transaction(ctx.db, () => {
    const failures = countEnrichmentFailure(ctx.db, input.leadId, code, now);
    if (failures >= ENRICH_ATTEMPTS) {
      const lead = getLead(ctx, input.leadId);
      if (lead) updateAndReplan(ctx, input.leadId, { stage: 'failed', updatedAt: now }, info, settings, lead);
      // A lead with no stored position yet (the older shape places it at its first send) is placed at its end.
      const ended = endSequence(ctx, { leadId: input.leadId, reason: 'enrichment_failed', at: now });
      if (!ended && lead && info.agent !== null && getPosition(ctx, input.leadId) === undefined) {
        placeLead(ctx, { leadId: input.leadId, campaignId: lead.campaignId, agentId: info.agent.id, stepId: null, at: now, endReason: 'enrichment_failed' });
      }
      ctx.log.info({ leadId: input.leadId, code, failures }, 'lead could not be enriched; its sequence ends');
      return { kind: 'failed', code, failures, ended: true };
    }
    moveDue(ctx, input.leadId, input.due, now + ENRICH_RETRY_MS * 2 ** (failures - 1));
    return { kind: 'failed', code, failures, ended: false };
  });
}

/** What the engine knows of a lead's enrichment: failures in a row, the last error, and when a lookup filled it in. */
export function enrichmentOf(ctx: Pick<Ctx, 'db'>, leadId: string): { failures: number; lastError: string | null; enrichedAt: number | null } | null {
  const row = enrichmentRow(ctx.db, leadId);
  return row ? { failures: row.failures, lastError: row.lastError, enrichedAt: row.enrichedAt } : null;
}
