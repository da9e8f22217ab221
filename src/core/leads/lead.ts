import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { perDb } from '../../db/prepared.js';
import { leads } from '../../db/schema.js';
import { iso, IsoTimestamp } from '../clock.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import { clean, composeFullName } from '../text.js';
import { LeadStage, LeadTag } from './enums.js';

const Text = z.string().nullable();
const Timestamp = IsoTimestamp.nullable();

/** A lead as lists return it (spec, Lead (list item)). */
export const Lead = z.object({
  id: z.string(),
  fullName: Text,
  firstName: Text,
  lastName: Text,
  networkUrl: Text,
  jobTitle: Text,
  location: Text,
  companyName: Text,
  companyNetwork: Text.describe('Company page URL; null for search-sourced leads.'),
  website: Text.describe('Null for search-sourced leads.'),
  email: Text.describe('Null for search-sourced leads.'),
  tag: LeadTag.nullable(),
  replied: z.boolean(),
  needsReply: z.boolean(),
  excluded: z.boolean(),
  stage: LeadStage,
  repliedAt: Timestamp,
  lastInboundMessageAt: Timestamp,
  taggedAt: Timestamp,
});
export type Lead = z.infer<typeof Lead>;

export const WorkExperience = z.object({
  company: Text,
  position: Text,
  location: Text,
  description: Text,
  start: Text.describe('YYYY-MM'),
  end: Text.describe('YYYY-MM; null for a current position.'),
});
export type WorkExperience = z.infer<typeof WorkExperience>;

export const MAX_WORK_EXPERIENCE = 10;

/** A single lead (spec, Lead detail): the list item plus profile depth and outreach flags. */
export const LeadDetail = Lead.extend({
  headline: Text,
  workExperience: z.array(WorkExperience).max(MAX_WORK_EXPERIENCE),
  connectionRequestAccepted: z.boolean(),
  messageSent: z.boolean(),
});
export type LeadDetail = z.infer<typeof LeadDetail>;

/**
 * The columns a list reads: the public fields plus what paging and the source rule need.
 * Selecting an allowlist (not the row) keeps provider ids, chat ids, personalization and
 * account ids out of the query itself.
 */
export const LEAD_COLUMNS = {
  seq: leads.seq,
  id: leads.id,
  source: leads.source,
  fullName: leads.fullName,
  firstName: leads.firstName,
  lastName: leads.lastName,
  networkUrl: leads.networkUrl,
  jobTitle: leads.jobTitle,
  location: leads.location,
  companyName: leads.companyName,
  companyNetwork: leads.companyNetwork,
  website: leads.website,
  email: leads.email,
  tag: leads.tag,
  replied: leads.replied,
  needsReply: leads.needsReply,
  excluded: leads.excluded,
  stage: leads.stage,
  createdAt: leads.createdAt,
  repliedAt: leads.repliedAt,
  lastInboundMessageAt: leads.lastInboundMessageAt,
  taggedAt: leads.taggedAt,
};

export const LEAD_DETAIL_COLUMNS = {
  ...LEAD_COLUMNS,
  headline: leads.headline,
  workExperience: leads.workExperience,
  connectionRequestAccepted: leads.connectionRequestAccepted,
  messageSent: leads.messageSent,
};

type LeadRow = typeof leads.$inferSelect;

/** The stored row of one lead of a campaign, internal fields included; undefined when it is not there. */
export const findLeadRow = (ctx: Ctx, campaignId: string, leadId: string): LeadRow | undefined =>
  ctx.db
    .select()
    .from(leads)
    .where(and(eq(leads.id, leadId), eq(leads.campaignId, campaignId)))
    .get();
export type LeadListRow = Pick<LeadRow, keyof typeof LEAD_COLUMNS>;
export type LeadDetailRow = Pick<LeadRow, keyof typeof LEAD_DETAIL_COLUMNS>;

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** `YYYY-MM` from a stored date, or null when it does not start like one. */
const yearMonth = (value: unknown): string | null => {
  const m = typeof value === 'string' ? /^\s*(\d{4})-(\d{2})/.exec(value) : null;
  return m ? `${m[1]}-${m[2]}` : null;
};

const text = (value: unknown): string | null => (typeof value === 'string' ? clean(value) : null);

/** Stored work experience (a JSON array) as the API shows it: at most 10 clean entries. */
function toWorkExperience(json: string): WorkExperience[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null && !Array.isArray(e))
    .slice(0, MAX_WORK_EXPERIENCE)
    .map((e) => ({
      company: text(e.company),
      position: text(e.position),
      location: text(e.location),
      description: text(e.description),
      start: yearMonth(e.start),
      end: yearMonth(e.end),
    }));
}

/**
 * The one lead serializer. Strings are trimmed and empty ones become null (spec, General rule
 * 3); fullName falls back to first and last name; search-sourced leads never expose
 * companyNetwork, website or email. `toLeadDetail` extends exactly this object.
 */
export function toLead(row: LeadListRow): Lead {
  const fromSearch = row.source === 'search';
  return {
    id: row.id,
    fullName: composeFullName(row.fullName, row.firstName, row.lastName),
    firstName: clean(row.firstName),
    lastName: clean(row.lastName),
    networkUrl: clean(row.networkUrl),
    jobTitle: clean(row.jobTitle),
    location: clean(row.location),
    companyName: clean(row.companyName),
    companyNetwork: fromSearch ? null : clean(row.companyNetwork),
    website: fromSearch ? null : clean(row.website),
    email: fromSearch ? null : clean(row.email),
    tag: row.tag as LeadTag | null,
    replied: row.replied,
    needsReply: row.needsReply,
    excluded: row.excluded,
    stage: row.stage as LeadStage,
    repliedAt: isoOrNull(row.repliedAt),
    lastInboundMessageAt: isoOrNull(row.lastInboundMessageAt),
    taggedAt: isoOrNull(row.taggedAt),
  };
}

export function toLeadDetail(row: LeadDetailRow): LeadDetail {
  return {
    ...toLead(row),
    headline: clean(row.headline),
    workExperience: toWorkExperience(row.workExperience),
    connectionRequestAccepted: row.connectionRequestAccepted,
    messageSent: row.messageSent,
  };
}

export const leadNotFound = (campaignId: string, leadId: string) =>
  new ApiError('not_found', `Lead ${leadId} not found in campaign ${campaignId}. Call list_leads (GET /campaigns/${campaignId}/leads) for valid ids.`);

const leadDetail = perDb((db) =>
  db
    .select(LEAD_DETAIL_COLUMNS)
    .from(leads)
    .where(and(eq(leads.id, sql.placeholder('leadId')), eq(leads.campaignId, sql.placeholder('campaignId'))))
    .prepare(),
);

/** The stored lead (no live refresh); not_found for an unknown campaign, or a lead of another campaign. */
export function getLead(ctx: Ctx, campaignId: string, leadId: string): LeadDetail {
  requireCampaignRow(ctx, campaignId);
  const row = leadDetail(ctx.db).get({ leadId, campaignId });
  if (!row) throw leadNotFound(campaignId, leadId);
  return toLeadDetail(row);
}
