import { z } from 'zod';
import { invitationTimeoutHours, requireAgentRow, stepsOf } from '../agents/agents.js';
import { VARIANT_LETTERS, variantCount, walkSteps, type VariantLetter } from '../agents/steps.js';
import { requireCampaignFilter } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { skipCounts, stepCounts } from './store.js';

export const VariantStats = z.object({
  variant: z.string(),
  sent: z.number().int(),
  accepted: z.number().int(),
  replied: z.number().int(),
  skipped: z.number().int(),
  /** An email step's sends that bounced; only on email steps. */
  bounced: z.number().int().optional(),
});

export const AgentStats = z.object({
  agentId: z.string(),
  steps: z.array(z.object({ stepId: z.string(), kind: z.string(), path: z.string(), variants: z.array(VariantStats) })),
});
export type AgentStats = z.infer<typeof AgentStats>;

/**
 * Per step of the agent (in document order, with its path) and per variant: how often it was
 * carried out, accepted (invites only), replied to (the last invite, message or InMail before a
 * reply) and skipped. Over every campaign, or one. A step's variants are its own (A and its
 * alternatives), plus any letter drawn before its variants were cut down, so no count is lost.
 */
export function getAgentStats(ctx: Ctx, input: { agentId: string; campaignId?: string | undefined }): AgentStats {
  const row = requireAgentRow(ctx, input.agentId, 'agentId');
  requireCampaignFilter(ctx, input.campaignId);
  const counts = new Map<string, Map<string, { sent: number; accepted: number; replied: number; skipped: number; bounced: number }>>();
  for (const c of stepCounts(ctx, input.agentId, input.campaignId)) {
    const byVariant = counts.get(c.stepId) ?? new Map();
    byVariant.set(c.variant, { sent: c.sent, accepted: c.accepted, replied: c.replied, skipped: c.skipped, bounced: c.bounced });
    counts.set(c.stepId, byVariant);
  }
  const steps = walkSteps(stepsOf(row, invitationTimeoutHours(ctx))).map(({ step, path }) => {
    const seen = counts.get(step.id) ?? new Map();
    const letters = new Set<string>([...VARIANT_LETTERS.slice(0, variantCount(step)), ...seen.keys()]);
    const variants = [...letters]
      .sort((a, b) => VARIANT_LETTERS.indexOf(a as VariantLetter) - VARIANT_LETTERS.indexOf(b as VariantLetter))
      .map((variant) => {
        const c = seen.get(variant) ?? { sent: 0, accepted: 0, replied: 0, skipped: 0, bounced: 0 };
        const counted = { variant, sent: c.sent, accepted: step.kind === 'invite' ? c.accepted : 0, replied: c.replied, skipped: c.skipped };
        return step.kind === 'email' ? { ...counted, bounced: c.bounced } : counted;
      });
    return { stepId: step.id, kind: step.kind, path, variants };
  });
  return { agentId: row.id, steps };
}

export const SkipReasons = z.object({
  agentId: z.string(),
  /** Per step, variant and reason (not_connected, no_posts, …): how many leads that step skipped for it. */
  skips: z.array(z.object({ stepId: z.string(), variant: z.string(), reason: z.string(), count: z.number().int() })),
});
export type SkipReasons = z.infer<typeof SkipReasons>;

/**
 * Why an agent's steps were skipped, over every campaign or one: the reasons behind
 * get_agent_stats' `skipped`, which the dashboard shows beside each step. Read from the skips
 * alone (a partial index), so a large campaign's sends cost nothing here.
 */
export function getSkipReasons(ctx: Ctx, input: { agentId: string; campaignId?: string | undefined }): SkipReasons {
  const row = requireAgentRow(ctx, input.agentId, 'agentId');
  requireCampaignFilter(ctx, input.campaignId);
  const skips = skipCounts(ctx, row.id, input.campaignId);
  return { agentId: row.id, skips };
}
