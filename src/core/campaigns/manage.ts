import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { requireAgentRow } from '../agents/agents.js';
import type { Ctx } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { newId, PATH_ID } from '../ids.js';
import { noteChange } from '../live/feed.js';
import { findAccount } from '../accounts/resolve.js';
import { releasePendingDrafts } from '../drafts/store.js';
import { wakeDecidedLeads } from '../outreach/wake.js';
import { type Campaign, CampaignApproval, mailboxIdsOf, requireCampaignRow, senderAccountIdsOf, toCampaign, type CampaignRow } from './campaign.js';
import { findMailbox } from '../mailboxes/store.js';
import { insertCampaign } from './state-machine.js';
import { updateCampaignColumns } from './store.js';
import { noteAuditTarget } from '../audit/current.js';

export const CampaignName = z.string().trim().min(1, 'must not be blank').max(120).describe('Campaign name, 1..120 characters.');
export const AssignedTemplateId = z
  .string()
  .regex(PATH_ID, 'must be an agent id')
  .nullable()
  .describe('The agent (tpl_…) that runs the campaign, from list_agents; null for none.');

export const Approval = CampaignApproval.describe('required: notes and messages wait as drafts to approve (list_drafts); default off.');

export const SENDERS_MAX = 20;
export const SenderAccountIds = z
  .array(z.string().regex(PATH_ID, 'must be an account id'))
  .max(SENDERS_MAX)
  .describe(`0..${SENDERS_MAX} account ids that send; each lead keeps the one with the most invitations left when it starts. Empty: the agent's account.`);

export const MAILBOXES_MAX = 20;
export const MailboxIds = z
  .array(z.string().regex(PATH_ID, 'must be a mailbox id'))
  .max(MAILBOXES_MAX)
  .describe(
    `0..${MAILBOXES_MAX} mailbox ids (list_mailboxes) that send the email steps; each lead keeps the one with the most emails left when it first gets one.`,
  );

export const CreateCampaignInput = z.strictObject({
  name: CampaignName,
  assignedTemplateId: AssignedTemplateId.optional(),
  senderAccountIds: SenderAccountIds.optional(),
  approval: Approval.optional(),
  mailboxIds: MailboxIds.optional(),
});
export type CreateCampaignInput = z.output<typeof CreateCampaignInput>;
export const UpdateCampaignFields = {
  name: CampaignName.optional(),
  assignedTemplateId: AssignedTemplateId.optional(),
  senderAccountIds: SenderAccountIds.optional(),
  approval: Approval.optional().describe('required or off, any time; off sends pending drafts as they stand.'),
  mailboxIds: MailboxIds.optional(),
};
export const UpdateCampaignInput = z.strictObject(UpdateCampaignFields);
export type UpdateCampaignInput = z.output<typeof UpdateCampaignInput>;

/**
 * The senders as stored: each must be a known account (404 naming `senderAccountIds[i]`); a
 * repeated id counts once, in its first place.
 */
function checkedSenders(ctx: Ctx, ids: readonly string[]): string[] {
  ids.forEach((id, i) => {
    if (!findAccount(ctx, id)) {
      throw new ApiError('not_found', `Account ${id} not found. Call list_accounts (GET /accounts) for valid ids.`, { fields: [`senderAccountIds[${i}]`] });
    }
  });
  return [...new Set(ids)];
}

/** The mailboxes as stored: each must be a known mailbox (404 naming `mailboxIds[i]`); a repeated id counts once. */
function checkedMailboxes(ctx: Ctx, ids: readonly string[]): string[] {
  ids.forEach((id, i) => {
    if (!findMailbox(ctx, id)) {
      throw new ApiError('not_found', `Mailbox ${id} not found. Call list_mailboxes (GET /mailboxes) for valid ids.`, { fields: [`mailboxIds[${i}]`] });
    }
  });
  return [...new Set(ids)];
}

/** A new campaign is in its created status (READY_TO_SEND) with no leads and zero stats. */
export function createCampaign(ctx: Ctx, input: CreateCampaignInput): Campaign {
  return transaction(ctx.db, () => {
    const agentId = input.assignedTemplateId ?? null;
    if (agentId !== null) requireAgentRow(ctx, agentId, 'assignedTemplateId');
    const senders = checkedSenders(ctx, input.senderAccountIds ?? []);
    const mailboxes = checkedMailboxes(ctx, input.mailboxIds ?? []);
    const now = ctx.clock.now();
    const id = newId('cmp');
    noteAuditTarget(id);
    insertCampaign(
      ctx,
      {
        id,
        name: input.name,
        assignedTemplateId: agentId,
        senderAccountIds: JSON.stringify(senders),
        mailboxIds: JSON.stringify(mailboxes),
        approval: input.approval ?? 'off',
        createdAt: now,
        updatedAt: now,
      },
      { kind: 'plain' },
    );
    return toCampaign(requireCampaignRow(ctx, id));
  });
}

/**
 * Renames, assigns or clears the agent, sets the senders, and turns approval on or off. Swapping
 * the agent or the senders of a running campaign would change the sequence or the accounts under
 * leads in flight, so it is refused until the campaign is paused. Approval may change at any
 * time: turning it off approves the drafts still pending, in the same transaction, so the engine
 * sends them as they stand.
 */
export function updateCampaign(ctx: Ctx, id: string, input: UpdateCampaignInput): Campaign {
  if (
    input.name === undefined &&
    input.assignedTemplateId === undefined &&
    input.senderAccountIds === undefined &&
    input.approval === undefined &&
    input.mailboxIds === undefined
  ) {
    throw validationError('Give at least one of name, assignedTemplateId, senderAccountIds, approval and mailboxIds.', [
      'name',
      'assignedTemplateId',
      'senderAccountIds',
      'approval',
      'mailboxIds',
    ]);
  }
  return transaction(ctx.db, () => {
    const row = requireCampaignRow(ctx, id);
    const set: Partial<CampaignRow> = { updatedAt: ctx.clock.now() };
    if (input.name !== undefined) set.name = input.name;
    if (input.assignedTemplateId !== undefined && input.assignedTemplateId !== row.assignedTemplateId) {
      if (row.status === 'CAMPAIGN_IN_PROGRESS') {
        throw new ApiError('conflict', `Campaign ${id} is running; pause it (pause_campaign) before changing its agent, then start it again.`);
      }
      if (input.assignedTemplateId !== null) requireAgentRow(ctx, input.assignedTemplateId, 'assignedTemplateId');
      set.assignedTemplateId = input.assignedTemplateId;
    }
    if (input.senderAccountIds !== undefined) {
      const senders = checkedSenders(ctx, input.senderAccountIds);
      if (JSON.stringify(senders) !== JSON.stringify(senderAccountIdsOf(row))) {
        if (row.status === 'CAMPAIGN_IN_PROGRESS') {
          throw new ApiError('conflict', `Campaign ${id} is running; pause it (pause_campaign) before changing its senders, then start it again.`);
        }
        set.senderAccountIds = JSON.stringify(senders);
      }
    }
    if (input.mailboxIds !== undefined) {
      const mailboxes = checkedMailboxes(ctx, input.mailboxIds);
      if (JSON.stringify(mailboxes) !== JSON.stringify(mailboxIdsOf(row))) {
        if (row.status === 'CAMPAIGN_IN_PROGRESS') {
          throw new ApiError('conflict', `Campaign ${id} is running; pause it (pause_campaign) before changing its mailboxes, then start it again.`);
        }
        set.mailboxIds = JSON.stringify(mailboxes);
      }
    }
    if (input.approval !== undefined && input.approval !== row.approval) {
      set.approval = input.approval;
      // Approval off: the pending drafts go as they stand, and their leads are due now.
      if (input.approval === 'off') wakeDecidedLeads(ctx, releasePendingDrafts(ctx, id));
    }
    updateCampaignColumns(ctx, id, set);
    noteChange(ctx, { resource: 'campaign', campaignId: id });
    return toCampaign(requireCampaignRow(ctx, id));
  });
}
