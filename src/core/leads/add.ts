import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { exclusions, leads } from '../../db/schema.js';
import { perDb } from '../../db/prepared.js';
import { transaction } from '../../db/tx.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import { bookLeadInserted } from '../campaigns/totals.js';
import type { Ctx } from '../context.js';
import { chargeLeadCredit, insufficientCredits, leadCreditsAvailable } from '../credits/charge.js';
import { validationError } from '../errors.js';
import { failpoint } from '../faults.js';
import { newId } from '../ids.js';
import { clean } from '../text.js';
import { BatchSummary, summarize } from './batch.js';
import type { LeadFieldValues } from './fields.js';
import { normalizeProfileUrl, PROFILE_URL_HINT } from './url.js';

export const AddLeadResult = z.object({
  leadId: z.string(),
  status: z.enum(['created', 'duplicate', 'excluded']),
  creditsCharged: z.number().int(),
});
export type AddLeadResult = z.infer<typeof AddLeadResult>;

export const ADD_ITEM_STATUSES = ['created', 'duplicate', 'excluded', 'validation_error', 'insufficient_credits', 'failed'] as const;
export type AddItemStatus = (typeof ADD_ITEM_STATUSES)[number];

export const AddLeadsBatchResult = z.object({
  results: z.array(
    z.object({
      index: z.number().int(),
      networkUrl: z.string().nullable(),
      leadId: z.string().nullable(),
      status: z.enum(ADD_ITEM_STATUSES),
      creditsCharged: z.number().int(),
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

const p = sql.placeholder;

/** A batch places up to a hundred leads, so placing one runs statements prepared once per connection. */
const placeStatements = perDb((db) => ({
  existing: db
    .select({ id: leads.id })
    .from(leads)
    .where(and(eq(leads.campaignId, p('campaignId')), eq(leads.networkUrl, p('url'))))
    .prepare(),
  excluded: db.select({ n: sql<number>`count(*)` }).from(exclusions).where(eq(exclusions.networkUrl, p('url'))).prepare(),
  insert: db
    .insert(leads)
    .values({
      id: p('id'),
      campaignId: p('campaignId'),
      networkUrl: p('url'),
      fullName: p('fullName'),
      firstName: p('firstName'),
      lastName: p('lastName'),
      jobTitle: p('jobTitle'),
      companyName: p('companyName'),
      email: p('email'),
      location: p('location'),
      headline: p('headline'),
      personalization: p('personalization'),
      excluded: p('excluded'),
      source: 'manual',
      createdAt: p('now'),
      updatedAt: p('now'),
    })
    .prepare(),
}));

/**
 * Places one profile, whose URL is already normalised, in the campaign, in one transaction:
 * a URL already in the campaign is `duplicate` (whatever its exclusion state), a URL on the
 * exclusion list is stored excluded for free, anything else is charged one credit and
 * created. The charge and the insert commit together or not at all.
 */
function placeLead(ctx: Ctx, campaignId: string, url: string, fields: LeadFieldValues): Placed {
  const st = placeStatements(ctx.db);
  return transaction(ctx.db, () => {
    const existing = st.existing.get({ campaignId, url });
    if (existing) return { leadId: existing.id, status: 'duplicate', creditsCharged: 0 };

    const excluded = (st.excluded.get({ url })?.n ?? 0) > 0;
    const id = newId('lead');
    if (!excluded && !chargeLeadCredit(ctx, id)) return { status: 'insufficient_credits' };
    st.insert.run({
      id,
      campaignId,
      url,
      fullName: clean(fields.fullName),
      firstName: clean(fields.firstName),
      lastName: clean(fields.lastName),
      jobTitle: clean(fields.jobTitle),
      companyName: clean(fields.companyName),
      email: clean(fields.email),
      location: clean(fields.location),
      headline: clean(fields.headline),
      personalization: clean(fields.personalization),
      // Placeholders bind as given, and SQLite stores booleans as 0 and 1.
      excluded: Number(excluded),
      now: ctx.clock.now(),
    });
    bookLeadInserted(ctx, campaignId);
    failpoint(ctx, 'leads.add.item', id);
    return { leadId: id, status: excluded ? 'excluded' : 'created', creditsCharged: excluded ? 0 : 1 };
  });
}

export const invalidProfileUrl = (field: string) =>
  validationError(`${field} is not a personal profile URL. Give ${PROFILE_URL_HINT}; company pages and Sales Navigator links are refused.`, [field]);

/** Adds one profile: 200 for created, duplicate and excluded; 403 when a needed credit is missing. */
export function addLead(ctx: Ctx, campaignId: string, lead: NewLead): AddLeadResult {
  requireCampaignRow(ctx, campaignId);
  const url = normalizeProfileUrl(lead.networkUrl);
  if (url === null) throw invalidProfileUrl('networkUrl');
  const placed = placeLead(ctx, campaignId, url, lead);
  if (placed.status === 'insufficient_credits') throw insufficientCredits(leadCreditsAvailable(ctx));
  return placed;
}

export type NewBatchLead = { networkUrl?: string | undefined } & LeadFieldValues;

/**
 * Adds up to 100 profiles, each in its own transaction, so every answered item is durable.
 * A bad URL fails only its item. At the first credit exhaustion that item and every later
 * one is `insufficient_credits`; after an unexpected failure that item and every later one
 * is `failed`. Duplicates within the batch resolve to the first item's lead, because the
 * first item is committed before the next is looked at.
 */
export function addLeadsBatch(ctx: Ctx, campaignId: string, items: readonly NewBatchLead[]): AddLeadsBatchResult {
  requireCampaignRow(ctx, campaignId);
  let stop: 'insufficient_credits' | 'failed' | null = null;
  const results = items.map((item, index): AddLeadsBatchResult['results'][number] => {
    const url = item.networkUrl === undefined ? null : normalizeProfileUrl(item.networkUrl);
    const shown = url ?? item.networkUrl ?? null;
    const none = { index, networkUrl: shown, leadId: null, creditsCharged: 0 };
    if (stop) return { ...none, status: stop };
    if (url === null) return { ...none, status: 'validation_error' };
    try {
      const placed = placeLead(ctx, campaignId, url, item);
      if (placed.status === 'insufficient_credits') {
        stop = 'insufficient_credits';
        return { ...none, status: stop };
      }
      return { index, networkUrl: url, ...placed };
    } catch (err) {
      ctx.log.error({ err, campaignId, index }, 'batch add stopped: an item could not be written');
      stop = 'failed';
      return { ...none, status: stop };
    }
  });
  return {
    results,
    summary: summarize(ADD_ITEM_STATUSES, results),
    creditsCharged: results.reduce((sum, r) => sum + r.creditsCharged, 0),
  };
}
