import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { agents, leads } from '../../db/schema.js';
import { transaction } from '../../db/tx.js';
import type { ProfileRef } from '../network/provider.js';
import { countAccountDaily, recordActivity } from '../activity/record.js';
import { accountRef, requireConnectedAccount } from '../accounts/resolve.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { isOnExclusionList } from '../leads/exclude.js';
import { handOffLead } from '../leads/handoff.js';
import { findLeadRow } from '../leads/lead.js';

export const SendMessageResult = z.object({ ok: z.boolean(), chatId: z.string(), messageId: z.string() });
export type SendMessageResult = z.infer<typeof SendMessageResult>;

export interface SendMessageInput {
  campaignId: string;
  leadId: string;
  text: string;
  accountId?: string | undefined;
}

/** Why the agent steps back when an operator writes to a lead in a conversation. */
export const MANUAL_HANDOFF_REASON = 'An operator messaged the lead directly, so the agent stopped replying automatically.';

/**
 * POST /inbox/messages: a synchronous direct message from an operator to a campaign lead.
 * The account is the one given, else the lead's, else the campaign agent's. The send is
 * recorded as a manual `message_sent` activity (never listed) and counts toward the account's
 * messages today, not toward campaign stats. As in the product inbox, a message into a
 * conversation the lead has replied to hands it to a person: the agent stops answering.
 */
export async function sendMessage(ctx: Ctx, input: SendMessageInput): Promise<SendMessageResult> {
  const campaign = requireCampaignRow(ctx, input.campaignId);
  const lead = findLeadRow(ctx, campaign.id, input.leadId);
  if (!lead) throw new ApiError('not_found', `Lead ${input.leadId} is not in campaign ${campaign.id}. List the campaign's leads for valid ids.`);

  const agentAccount = campaign.assignedTemplateId
    ? ctx.db.select({ accountId: agents.accountId }).from(agents).where(eq(agents.id, campaign.assignedTemplateId)).get()?.accountId
    : null;
  const accountId = input.accountId ?? lead.accountId ?? agentAccount ?? null;
  if (accountId === null) {
    throw validationError('Neither the lead nor the campaign agent has an account to send from. Pass accountId (see list_accounts).', ['accountId']);
  }
  const account = requireConnectedAccount(ctx, accountId);
  if (lead.excluded || isOnExclusionList(ctx, lead.networkUrl)) {
    throw new ApiError('conflict', `Lead ${lead.id} is excluded from outreach, so it is not messaged. Clear the exclusion first if this is intended.`);
  }
  const recipient: ProfileRef | null = lead.networkUrl
    ? { networkUrl: lead.networkUrl }
    : lead.providerId
      ? { providerId: lead.providerId }
      : null;
  if (recipient === null) throw validationError(`Lead ${lead.id} has no profile URL to message.`, ['leadId']);

  const sent = await ctx.network.sendMessage({
    account: accountRef(account),
    recipient,
    ...(lead.chatId ? { chatId: lead.chatId } : {}),
    text: input.text,
  });

  transaction(ctx.db, () => {
    const at = ctx.simClock.now();
    const current = ctx.db.select().from(leads).where(eq(leads.id, lead.id)).get();
    if (!current) return;
    const changes = { chatId: sent.chatId, needsReply: false, updatedAt: at };
    const inConversation = current.replied && current.stage !== 'handed_off';
    const updated = inConversation ? handOffLead(ctx, current, MANUAL_HANDOFF_REASON, at, account.id, changes) : current;
    if (!inConversation) ctx.db.update(leads).set(changes).where(eq(leads.id, lead.id)).run();
    recordActivity(ctx, { type: 'message_sent', at, lead: updated, text: input.text, accountId: account.id, manual: true });
    countAccountDaily(ctx, account.id, 'messagesSent', at);
  });
  return { ok: true, chatId: sent.chatId, messageId: sent.messageId };
}
