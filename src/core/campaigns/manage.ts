import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { campaigns } from '../../db/schema.js';
import { transaction } from '../../db/tx.js';
import { requireAgentRow } from '../agents/agents.js';
import type { Ctx } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { newId, PATH_ID } from '../ids.js';
import { type Campaign, requireCampaignRow, toCampaign, type CampaignRow } from './campaign.js';
import { insertCampaign } from './state-machine.js';

export const CampaignName = z.string().trim().min(1, 'must not be blank').max(120).describe('Campaign name, 1..120 characters.');
export const AssignedTemplateId = z
  .string()
  .regex(PATH_ID, 'must be an agent id')
  .nullable()
  .describe('The agent (tpl_…) that runs the campaign, from list_agents; null for none.');

export const CreateCampaignInput = z.strictObject({ name: CampaignName, assignedTemplateId: AssignedTemplateId.optional() });
export type CreateCampaignInput = z.output<typeof CreateCampaignInput>;
export const UpdateCampaignFields = { name: CampaignName.optional(), assignedTemplateId: AssignedTemplateId.optional() };
export const UpdateCampaignInput = z.strictObject(UpdateCampaignFields);
export type UpdateCampaignInput = z.output<typeof UpdateCampaignInput>;

/** A new campaign is in its created status (READY_TO_SEND) with no leads and zero stats. */
export function createCampaign(ctx: Ctx, input: CreateCampaignInput): Campaign {
  return transaction(ctx.db, () => {
    const agentId = input.assignedTemplateId ?? null;
    if (agentId !== null) requireAgentRow(ctx, agentId, 'assignedTemplateId');
    const now = ctx.clock.now();
    const id = newId('cmp');
    insertCampaign(ctx, { id, name: input.name, assignedTemplateId: agentId, createdAt: now, updatedAt: now }, { kind: 'plain' });
    return toCampaign(requireCampaignRow(ctx, id));
  });
}

/**
 * Renames, and assigns or clears the agent. Swapping the agent of a running campaign would
 * change the sequence under leads in flight, so it is refused until the campaign is paused.
 */
export function updateCampaign(ctx: Ctx, id: string, input: UpdateCampaignInput): Campaign {
  if (input.name === undefined && input.assignedTemplateId === undefined) {
    throw validationError('Give at least one of name and assignedTemplateId.', ['name', 'assignedTemplateId']);
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
    ctx.db.update(campaigns).set(set).where(eq(campaigns.id, id)).run();
    return toCampaign(requireCampaignRow(ctx, id));
  });
}
