import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import { bookLeadsInserted } from '../campaigns/totals.js';
import type { Ctx } from '../context.js';
import { chargeLeadCredit, GRANT_HINT, insufficientCredits, leadCreditsAvailable } from '../credits/charge.js';
import { validationError } from '../errors.js';
import { failpoint } from '../faults.js';
import { newSortableId } from '../ids.js';
import { clean } from '../text.js';
import { wordsProblem } from '../validation.js';
import { BatchSummary, failedItem, summarize, writeBatch } from './batch.js';
import type { LeadSource } from './enums.js';
import { isOnExclusionList } from './exclude.js';
import type { LeadFieldValues } from './fields.js';
import { insertLeadRow, leadIdByUrl } from './store.js';
import { normalizeProfileUrl, PROFILE_URL_HINT } from './url.js';
import { steppedProgress, type ProgressReporter } from '../progress.js';
import { noteAuditTarget } from '../audit/current.js';

export const AddLeadResult = z.object({
  leadId: z.string(),
  status: z.enum(['created', 'duplicate', 'excluded']),
  creditsCharged: z.number().int(),
});
export type AddLeadResult = z.infer<typeof AddLeadResult>;

export const ADD_ITEM_STATUSES = ['created', 'duplicate', 'excluded', 'validation_error', 'insufficient_credits', 'failed'] as const;
export type AddItemStatus = (typeof ADD_ITEM_STATUSES)[number];

/** Why a batch add item was not placed, on every `validation_error`, `insufficient_credits` and `failed` item. */
export const AddItemError = z.object({
  code: z.enum(['validation_error', 'insufficient_credits', 'upstream_unavailable']),
  message: z.string(),
});
export type AddItemError = z.infer<typeof AddItemError>;

export const AddLeadsBatchResult = z.object({
  results: z.array(
    z.object({
      index: z.number().int(),
      networkUrl: z.string().nullable(),
      leadId: z.string().nullable(),
      status: z.enum(ADD_ITEM_STATUSES),
      creditsCharged: z.number().int(),
      error: AddItemError.optional(),
    }),
  ),
  summary: BatchSummary(ADD_ITEM_STATUSES),
  creditsCharged: z.number().int(),
});
export type AddLeadsBatchResult = z.infer<typeof AddLeadsBatchResult>;

/** The statuses that keep a batch add's idempotency key (spec, POST .../leads/batch). */
export const KEEPS_ADD_KEY: ReadonlySet<AddItemStatus> = new Set(['created', 'duplicate', 'excluded']);

export type NewLead = { networkUrl: string } & LeadFieldValues;

type Placed = AddLeadResult | { status: 'insufficient_credits' };

/** The id of the lead with this normalised profile URL in the campaign, if any: the dedupe rule. */
export function leadInCampaign(ctx: Ctx, campaignId: string, url: string): string | undefined {
  return leadIdByUrl(ctx.db, campaignId, url);
}

/** What an insert stores beyond the add fields: a provider's profile also knows these. */
export type StoredLeadFields = LeadFieldValues & {
  companyNetwork?: string | null | undefined;
  website?: string | null | undefined;
  providerId?: string | null | undefined;
};

/** The lead a `placeLead` or `insertLead` stores: the add fields and how it came in. */
type LeadInsert = { campaignId: string; url: string; fields: StoredLeadFields; id: string; excluded: boolean; source: LeadSource };

/** Inserts one lead row, unbooked: the one insert behind every way a lead is added. */
function storeLead(ctx: Ctx, lead: LeadInsert): void {
  const { fields } = lead;
  insertLeadRow(ctx.db, {
    id: lead.id,
    campaignId: lead.campaignId,
    networkUrl: lead.url,
    fullName: clean(fields.fullName),
    firstName: clean(fields.firstName),
    lastName: clean(fields.lastName),
    jobTitle: clean(fields.jobTitle),
    companyName: clean(fields.companyName),
    companyNetwork: clean(fields.companyNetwork),
    website: clean(fields.website),
    email: clean(fields.email),
    location: clean(fields.location),
    headline: clean(fields.headline),
    personalization: clean(fields.personalization),
    providerId: clean(fields.providerId),
    excluded: lead.excluded,
    source: lead.source,
    now: ctx.clock.now(),
  });
}

/**
 * A new lead's id: `lead_` and 16 base62 characters, the first 7 the creation millisecond (on
 * the context's clock), the rest random. Ids in time order append to the leads' unique id index
 * and to the audit trail's target index instead of landing each on a random page: a batch of 100
 * adds dirtied a page of each index per lead.
 */
export const newLeadId = (ctx: Pick<Ctx, 'clock'>): string => newSortableId('lead', ctx.clock.now());

/**
 * Inserts one lead (its URL already normalised and deduplicated) and books it on its campaign.
 * Call it inside the transaction that decided the insert, and that charges for it if anything.
 */
export function insertLead(
  ctx: Ctx,
  campaignId: string,
  url: string,
  fields: StoredLeadFields,
  opts: { id: string; excluded: boolean; source: LeadSource },
): void {
  storeLead(ctx, { campaignId, url, fields, ...opts });
  bookLeadsInserted(ctx, campaignId, 1);
}

/**
 * Places one profile, whose URL is already normalised, in the campaign: a URL already in the
 * campaign is `duplicate` (whatever its exclusion state), a URL on the exclusion list is
 * stored excluded for free, anything else is charged one credit and created. Call it inside
 * a transaction or savepoint, so the charge and the insert land together or not at all. The
 * insert is not booked on the campaign: the caller books what it placed.
 */
function placeLead(ctx: Ctx, campaignId: string, url: string, fields: LeadFieldValues): Placed {
  const existing = leadInCampaign(ctx, campaignId, url);
  if (existing !== undefined) return { leadId: existing, status: 'duplicate', creditsCharged: 0 };

  const excluded = isOnExclusionList(ctx, url);
  const id = newLeadId(ctx);
  noteAuditTarget(id);
  if (!excluded && !chargeLeadCredit(ctx, id)) return { status: 'insufficient_credits' };
  storeLead(ctx, { campaignId, url, fields, id, excluded, source: 'manual' });
  failpoint(ctx, 'leads.add.item', id);
  return { leadId: id, status: excluded ? 'excluded' : 'created', creditsCharged: excluded ? 0 : 1 };
}

/** Whether a placement inserted a lead, which its campaign must count. */
const inserted = (placed: { status: string }): boolean => placed.status === 'created' || placed.status === 'excluded';

/** What is wrong with a profile URL that did not normalise: it is missing, or not a personal profile. */
export const profileUrlProblem = (field: string, given: string | undefined): string =>
  given === undefined || given.trim() === ''
    ? `${field} is missing. Give ${PROFILE_URL_HINT}.`
    : `${field} is not a personal profile URL. Give ${PROFILE_URL_HINT}; company pages and Sales Navigator links are refused.`;

export const invalidProfileUrl = (field: string) => validationError(profileUrlProblem(field, 'given'), [field]);

/** An item or row left without a lead for want of credits, and what to do about it. */
export const noCreditItem = (): AddItemError => ({
  code: 'insufficient_credits',
  message: `Not added: adding a lead costs 1 credit and none is left. ${GRANT_HINT}, then add it again.`,
});

/** Adds one profile: 200 for created, duplicate and excluded; 403 when a needed credit is missing. */
export function addLead(ctx: Ctx, campaignId: string, lead: NewLead): AddLeadResult {
  requireCampaignRow(ctx, campaignId);
  const url = normalizeProfileUrl(lead.networkUrl);
  if (url === null) throw invalidProfileUrl('networkUrl');
  const placed = transaction(ctx.db, () => {
    const outcome = placeLead(ctx, campaignId, url, lead);
    if (inserted(outcome)) bookLeadsInserted(ctx, campaignId, 1);
    return outcome;
  });
  if (placed.status === 'insufficient_credits') throw insufficientCredits(leadCreditsAvailable(ctx));
  return placed;
}

export type NewBatchLead = { networkUrl?: string | undefined } & LeadFieldValues;

/** The first field of a batch item whose words cannot be stored as given (see wordsProblem), as the item's error; null when none. */
function itemWordsProblem(item: NewBatchLead, index: number): string | null {
  for (const [name, value] of Object.entries(item)) {
    const problem = typeof value === 'string' ? wordsProblem(value) : null;
    if (problem) return `leads[${index}].${name} ${problem}`;
  }
  return null;
}

/**
 * Adds up to 100 profiles in one transaction (`writeBatch`), so
 * every answered item is durable once the answer is given. A bad URL fails only its item. At
 * the first credit exhaustion that item and every later one is `insufficient_credits`; after
 * an unexpected failure that item and every later one is `failed`. Duplicates within the
 * batch resolve to the first item's lead, which the later item's lookup already sees.
 * `alongside` writes what must commit with the answers (see writeBatch): an import's progress.
 */
export function addLeadsBatch(
  ctx: Ctx,
  campaignId: string,
  items: readonly NewBatchLead[],
  progress?: ProgressReporter,
  alongside?: (results: readonly AddLeadsBatchResult['results'][number][]) => void,
): AddLeadsBatchResult {
  requireCampaignRow(ctx, campaignId);
  const placedSoFar = steppedProgress(progress, items.length);
  const badWords = items.map(itemWordsProblem);
  const urls = items.map((item, index) => (item.networkUrl === undefined || badWords[index] ? null : normalizeProfileUrl(item.networkUrl)));
  const unplaced = (index: number, status: Exclude<AddItemStatus, 'created' | 'duplicate' | 'excluded'>): AddLeadsBatchResult['results'][number] => {
    const networkUrl = urls[index] ?? items[index]?.networkUrl ?? null;
    const error: AddItemError =
      status === 'validation_error'
        ? { code: 'validation_error', message: badWords[index] ?? profileUrlProblem(`leads[${index}].networkUrl`, items[index]?.networkUrl) }
        : status === 'insufficient_credits'
          ? noCreditItem()
          : failedItem();
    return { index, networkUrl, leadId: null, status, creditsCharged: 0, error };
  };
  const results = writeBatch(
    ctx,
    { verb: 'add', campaignId, alongside },
    items,
    (item, index, earlier): AddLeadsBatchResult['results'][number] => {
      placedSoFar?.(index);
      const url = urls[index] ?? null;
      // Once an item ran out of credits every later one is answered so, whatever it holds.
      if (earlier.at(-1)?.status === 'insufficient_credits') return unplaced(index, 'insufficient_credits');
      if (url === null) return unplaced(index, 'validation_error');
      const placed = placeLead(ctx, campaignId, url, item);
      if (placed.status !== 'insufficient_credits') return { index, networkUrl: url, ...placed };
      return unplaced(index, 'insufficient_credits');
    },
    (_item, index) => unplaced(index, 'failed'),
    // One booking for the whole batch: per item it was a tenth of the batch's writes.
    (done) => {
      const count = done.filter(inserted).length;
      if (count > 0) bookLeadsInserted(ctx, campaignId, count);
    },
  );
  placedSoFar?.(items.length);
  return {
    results,
    summary: summarize(ADD_ITEM_STATUSES, results),
    creditsCharged: results.reduce((sum, r) => sum + r.creditsCharged, 0),
  };
}
