import { z } from 'zod';
import { iso, IsoTimestamp } from '../clock.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import { clean, composeFullName } from '../text.js';
import { LeadStage, LeadTag } from './enums.js';
import { leadDetailRow, leadRow, type LeadDetailRow, type LeadListRow, type LeadRow } from './store.js';

export type { LeadDetailRow, LeadListRow } from './store.js';

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

/** The stored row of one lead of a campaign, internal fields included; undefined when it is not there. */
export const findLeadRow = (ctx: Ctx, campaignId: string, leadId: string): LeadRow | undefined => leadRow(ctx.db, campaignId, leadId);

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

/** The stored lead (no live refresh); not_found for an unknown campaign, or a lead of another campaign. */
export function getLead(ctx: Ctx, campaignId: string, leadId: string): LeadDetail {
  requireCampaignRow(ctx, campaignId);
  const row = leadDetailRow(ctx.db, campaignId, leadId);
  if (!row) throw leadNotFound(campaignId, leadId);
  return toLeadDetail(row);
}
