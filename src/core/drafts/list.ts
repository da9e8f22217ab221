import { findCampaignRow, requireCampaignFilter } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from '../cursor.js';
import type { DraftStatus } from './rules.js';
import { draftPage, draftSeqExists, pendingDraftCounts } from './store.js';
import { type ListedDraft, toDraft, toDraftLead } from './view.js';

export interface ListDraftsInput {
  campaignId?: string | undefined;
  status?: DraftStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}

/**
 * Drafts oldest first (the order they were made), each with what a reviewer needs of its lead.
 * The cursor is bound to the campaign and status filter and resumes after the draft it names,
 * which must still exist; the draft may have changed status meanwhile (approving the page just
 * read is what a reviewer does before asking for the next one).
 */
export function listDrafts(ctx: Ctx, secret: string, input: ListDraftsInput): { drafts: ListedDraft[]; nextCursor: string | null } {
  requireCampaignFilter(ctx, input.campaignId);
  const scope = `drafts|${input.campaignId ?? ''}|${input.status ?? ''}`;
  let after = 0;
  if (input.cursor !== undefined) {
    const [seq] = decodeCursor(secret, scope, input.cursor);
    if (typeof seq !== 'number' || !draftSeqExists(ctx, seq)) throw invalidCursor();
    after = seq;
  }
  const rows = draftPage(ctx, { campaignId: input.campaignId, status: input.status }, after, input.limit + 1);
  const page = pageOf(rows, input.limit, (last) => encodeCursor(secret, scope, [last.seq]));
  const drafts = page.items.map((row) => {
    // The draft's own object gains its lead, rather than being copied into a new one.
    const draft = toDraft(row) as ListedDraft;
    draft.lead = toDraftLead(row.lead);
    return draft;
  });
  return { drafts, nextCursor: page.nextCursor };
}

export interface DraftQueue {
  campaignId: string;
  name: string;
  pending: number;
}

/** The campaigns with drafts waiting, and how many: the dashboard's navigation counts. */
export function draftQueues(ctx: Ctx): { queues: DraftQueue[]; pending: number } {
  const queues = pendingDraftCounts(ctx).map(({ campaignId, pending }) => ({
    campaignId,
    name: findCampaignRow(ctx, campaignId)?.name ?? campaignId,
    pending,
  }));
  return { queues, pending: queues.reduce((n, q) => n + q.pending, 0) };
}
