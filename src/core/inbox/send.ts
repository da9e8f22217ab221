import { z } from 'zod';
import { accountRef, requireConnectedAccount } from '../accounts/resolve.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { ApiError, toApiError, validationError } from '../errors.js';
import { refuseExcludedLead } from '../leads/exclude.js';
import { findLeadRow } from '../leads/lead.js';
import { beginManualSend, recipientOf, settleManualFailed, settleManualSent } from '../outreach/sends.js';
import { composeFullName } from '../text.js';
import { agentAccountId } from '../agents/store.js';

export const SendMessageResult = z.object({ ok: z.boolean(), chatId: z.string(), messageId: z.string() });
export type SendMessageResult = z.infer<typeof SendMessageResult>;

export interface SendMessageInput {
  campaignId: string;
  leadId: string;
  text: string;
  accountId?: string | undefined;
  /** Who is writing: an integration through the API (default), or the operator from the dashboard inbox. */
  sender?: 'api' | 'operator';
}

/** Who sends to whom: every check a send makes before it records anything. */
function planSend(ctx: Ctx, input: SendMessageInput) {
  const campaign = requireCampaignRow(ctx, input.campaignId);
  const lead = findLeadRow(ctx, campaign.id, input.leadId);
  if (!lead) throw new ApiError('not_found', `Lead ${input.leadId} is not in campaign ${campaign.id}. List the campaign's leads for valid ids.`);

  const agentAccount = campaign.assignedTemplateId ? agentAccountId(ctx, campaign.assignedTemplateId) : null;
  const accountId = input.accountId ?? lead.accountId ?? agentAccount ?? null;
  if (accountId === null) {
    throw validationError('Neither the lead nor the campaign agent has an account to send from. Pass accountId (see list_accounts).', ['accountId']);
  }
  const account = requireConnectedAccount(ctx, accountId);
  refuseExcludedLead(ctx, lead, 'linkedin');
  const recipient = recipientOf(lead);
  if (recipient === null) throw validationError(`Lead ${lead.id} has no profile URL to message.`, ['leadId']);
  return { campaign, lead, account, recipient };
}

/** The longest part of a message quoted in its confirmation. */
const QUOTED = 200;

/**
 * The send as one question for the person to confirm, naming the account and the lead, with
 * the message quoted; null when the send would be refused anyway (sendMessage says why then).
 */
export function sendQuestion(ctx: Ctx, input: SendMessageInput): string | null {
  let plan: ReturnType<typeof planSend>;
  try {
    plan = planSend(ctx, input);
  } catch {
    return null;
  }
  const { lead, account } = plan;
  const who = composeFullName(lead.fullName, lead.firstName, lead.lastName) ?? lead.networkUrl ?? lead.id;
  const chars = [...input.text];
  const quoted = chars.length > QUOTED ? `${chars.slice(0, QUOTED).join('')}…` : input.text;
  return `Send this message from ${account.name} to ${who}?\n\n"${quoted}"`;
}

/**
 * POST /inbox/messages: a synchronous direct message from an operator to a campaign lead.
 * The account is the one given, else the lead's, else the campaign agent's. The send is
 * recorded as a manual `message_sent` activity (never listed) and counts toward the account's
 * messages today, not toward campaign stats. As in the product inbox, a message into a
 * conversation the lead has replied to hands it to a person: the agent stops answering. The
 * message enters the lead's thread, as the operator's or the API's.
 *
 * Like the engine, it records an intent before calling the provider. Once the provider has
 * sent, the caller is told so even if recording the send fails (the intent stays pending and
 * the engine's recovery counts it): answering with an error would release the idempotency key,
 * and a retry would send the message twice.
 */
export async function sendMessage(ctx: Ctx, input: SendMessageInput): Promise<SendMessageResult> {
  const { campaign, lead, account, recipient } = planSend(ctx, input);

  const intent = beginManualSend(ctx, { leadId: lead.id, campaignId: campaign.id, accountId: account.id, text: input.text, sender: input.sender ?? 'api' });
  let sent: { chatId: string; messageId: string };
  try {
    sent = await ctx.network.sendMessage({
      account: accountRef(account),
      recipient,
      ...(lead.chatId ? { chatId: lead.chatId } : {}),
      text: input.text,
    });
  } catch (err) {
    try {
      settleManualFailed(ctx, intent, toApiError(err).code);
    } catch (settleErr) {
      ctx.log.error({ err: settleErr, intentId: intent.id }, 'could not close a failed send_message intent');
    }
    throw err;
  }
  try {
    settleManualSent(ctx, intent, sent);
  } catch (err) {
    ctx.log.error({ err, intentId: intent.id, leadId: lead.id }, 'send_message was sent but not recorded; the engine will count it on recovery');
  }
  return { ok: true, chatId: sent.chatId, messageId: sent.messageId };
}
