import { z } from 'zod';
import type { drafts } from '../../db/schema.js';
import { iso, IsoTimestamp } from '../clock.js';
import { clean, composeFullName } from '../text.js';
import { DRAFT_KINDS, DRAFT_STATUSES } from './rules.js';

export type DraftRow = typeof drafts.$inferSelect;

export const DraftStatus = z.enum(DRAFT_STATUSES);
export type DraftStatus = z.infer<typeof DraftStatus>;
export const DraftKind = z.enum(DRAFT_KINDS);
export type DraftKind = z.infer<typeof DraftKind>;

const Text = z.string().nullable();

/** A draft as the API returns it (sequences spec, Drafts and approval), plus what was rendered and why a rewrite failed. */
export const Draft = z.object({
  id: z.string(),
  campaignId: z.string(),
  leadId: z.string(),
  stepId: Text,
  variant: Text,
  kind: DraftKind,
  subject: Text,
  text: z.string(),
  status: DraftStatus,
  /** Starts at 1 and grows by one with each change of the text or subject, whoever makes it. */
  revision: z.number().int().min(1),
  /** Why a `skipped` draft's step could no longer be sent (e.g. `no_sales_navigator`, `replied`); null otherwise. */
  skipReason: Text,
  /** The account that will send it, when the engine has fixed it. */
  accountId: Text,
  /** The step's text rendered for the lead, before any model or person changed it. */
  renderedSubject: Text,
  renderedText: z.string(),
  drafterError: Text,
  /** Who last approved or rejected it: a member, an API key or an OAuth client; null until someone decides. */
  decidedBy: z
    .object({ type: z.enum(['member', 'key', 'oauth_client']), id: z.string(), name: z.string() })
    .nullable()
    .describe('Who approved or rejected it (member, key or oauth_client); null until someone decides.'),
  createdAt: IsoTimestamp,
  updatedAt: IsoTimestamp,
});
export type Draft = z.infer<typeof Draft>;

/** What a reviewer needs to judge a draft for its lead. */
export const DraftLead = z.object({
  fullName: Text,
  jobTitle: Text,
  companyName: Text,
  headline: Text,
  location: Text,
  personalization: Text,
  networkUrl: Text,
});
export type DraftLead = z.infer<typeof DraftLead>;

export const ListedDraft = Draft.extend({ lead: DraftLead });
export type ListedDraft = z.infer<typeof ListedDraft>;

export function toDraft(row: DraftRow): Draft {
  return {
    id: row.id,
    campaignId: row.campaignId,
    leadId: row.leadId,
    stepId: row.stepId,
    variant: row.variant,
    kind: row.kind as DraftKind,
    subject: row.subject,
    text: row.text,
    status: row.status as DraftStatus,
    revision: row.revision,
    skipReason: row.skipReason,
    accountId: row.accountId,
    renderedSubject: row.renderedSubject,
    renderedText: row.renderedText,
    drafterError: row.drafterError,
    decidedBy:
      row.decidedByType === null || row.decidedById === null
        ? null
        : { type: row.decidedByType as 'member' | 'key' | 'oauth_client', id: row.decidedById, name: row.decidedByName ?? row.decidedById },
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** The lead columns a draft listing reads. */
export interface DraftLeadRow {
  fullName: string | null;
  firstName: string | null;
  lastName: string | null;
  jobTitle: string | null;
  companyName: string | null;
  headline: string | null;
  location: string | null;
  personalization: string | null;
  networkUrl: string | null;
}

export const toDraftLead = (lead: DraftLeadRow): DraftLead => ({
  fullName: composeFullName(lead.fullName, lead.firstName, lead.lastName),
  jobTitle: clean(lead.jobTitle),
  companyName: clean(lead.companyName),
  headline: clean(lead.headline),
  location: clean(lead.location),
  personalization: clean(lead.personalization),
  networkUrl: lead.networkUrl,
});
