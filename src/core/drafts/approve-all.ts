import { namedAccountCounts } from '../accounts/resolve.js';
import { requireCampaignFilter } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { validationError } from '../errors.js';
import { noteAuditTarget } from '../audit/current.js';
import { wakeDecidedLeads } from '../outreach/wake.js';
import { transaction } from '../../db/tx.js';
import { DRAFT_KINDS, type DraftKind } from './rules.js';
import { approvePendingSnapshot, pendingDraftGroups } from './store.js';
import { type DraftKindCounts, noKinds } from './update.js';

/**
 * "Approve all N matching" for a long queue, in two steps. The preview counts the pending drafts
 * (of a campaign, or of every campaign) per sender and kind, for a confirmation that names
 * them, and hands back a token binding that snapshot: the highest draft seq and the wall time
 * of the preview. The approval then approves exactly the drafts the preview counted that have
 * not changed since: a draft made or edited after the preview stays pending, for a person to
 * see. The token is signed with the workspace's cursor secret and bound to the filter, so it
 * cannot be forged, nor used for another campaign.
 */

export interface ApprovePreview {
  count: number;
  /** Per sender, most first; `name` is the account's or mailbox's name (a mailbox without one: its address), else its id; null: no sender known. */
  accounts: { accountId: string | null; name: string | null; count: number }[];
  kinds: DraftKindCounts;
  token: string;
}

const scopeOf = (campaignId: string | undefined) => `approve-all|${campaignId ?? ''}`;

export function previewApproveDrafts(ctx: Ctx, secret: string, input: { campaignId?: string | undefined }): ApprovePreview {
  requireCampaignFilter(ctx, input.campaignId);
  const at = ctx.clock.now();
  const { groups, maxSeq } = pendingDraftGroups(ctx, input.campaignId);
  const byAccount = new Map<string | null, number>();
  const kinds = noKinds();
  for (const g of groups) {
    byAccount.set(g.accountId, (byAccount.get(g.accountId) ?? 0) + g.count);
    if (!(DRAFT_KINDS as readonly string[]).includes(g.kind)) continue;
    const kind = g.kind as DraftKind;
    // `email` is not among noKinds' zeros (it appears once an email draft is counted): `+=` on
    // it alone would make NaN, which JSON writes as null.
    kinds[kind] = (kinds[kind] ?? 0) + g.count;
  }
  const accounts = namedAccountCounts(ctx, byAccount);
  const count = accounts.reduce((n, a) => n + a.count, 0);
  return { count, accounts, kinds, token: encodeCursor(secret, scopeOf(input.campaignId), [maxSeq, at]) };
}

export function approveMatchingDrafts(
  ctx: Ctx,
  secret: string,
  input: { campaignId?: string | undefined; token: string },
): { approved: number; leftPending: number } {
  requireCampaignFilter(ctx, input.campaignId);
  const refused = () => validationError('token: not a token of preview_approve_drafts for this filter; preview again and confirm what it counts.', ['token']);
  let key: unknown[];
  try {
    key = decodeCursor(secret, scopeOf(input.campaignId), input.token, 'token');
  } catch {
    throw refused();
  }
  const [maxSeq, at] = key;
  if (typeof maxSeq !== 'number' || typeof at !== 'number') throw refused();
  return transaction(ctx.db, () => {
    const { approved, leftPending, draftIds, leadIds } = approvePendingSnapshot(ctx, input.campaignId, maxSeq, at);
    // The trail names the drafts approved (as update_drafts' event does), so a search by draft finds who approved it.
    for (const id of draftIds) noteAuditTarget(id);
    // The hand-off to the engine: the approved drafts' leads are due now.
    wakeDecidedLeads(ctx, leadIds);
    return { approved, leftPending };
  });
}
