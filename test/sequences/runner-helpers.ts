import { and, asc, eq } from 'drizzle-orm';
import type { Step, StepInput } from '../../src/core/agents/steps.js';
import { updateAgent } from '../../src/core/agents/agents.js';
import { startCampaign } from '../../src/core/campaigns/lifecycle.js';
import { updateCampaign } from '../../src/core/campaigns/manage.js';
import { auditSafety } from '../../src/core/safety/audit.js';
import { getPosition, stepEventsOf } from '../../src/core/sequences/store.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { engineIntents } from '../../src/db/schema.js';
import type { EngineConfig } from '../../src/workers/outreach/index.js';
import { engineSettings, engineWorkspace, harness, RecordingNetwork, type Harness, type LeadSpec } from '../engine/helpers.js';

export interface StepsHarness extends Harness {
  net: RecordingNetwork;
  /** The agent's steps as stored (with their ids). */
  steps: Step[];
  /** The network calls made for a lead, by its slug. */
  callsOf: (slug: string) => { op: string; text: string | null }[];
  /** The step events of a lead: `kind:event[:reason]`. */
  eventsOf: (leadId: string) => string[];
  position: (leadId: string) => ReturnType<typeof getPosition>;
  intents: (leadId?: string) => (typeof engineIntents.$inferSelect)[];
  audit: () => ReturnType<typeof auditSafety>;
}

export interface StepsOptions {
  config?: EngineConfig;
  senders?: string[];
  approval?: 'off' | 'required';
  /** Changes to the workspace before it is loaded (accounts' limits, more accounts). */
  workspace?: (ws: WorkspaceFileInput) => void;
}

/**
 * The engine test workspace (test/engine/helpers.ts) with its agent written as `steps` and its
 * campaign started through the lifecycle verb, on the simulator behind a recording network.
 */
export async function stepsHarness(steps: StepInput[], leads: (string | LeadSpec)[], opts: StepsOptions = {}): Promise<StepsHarness> {
  const ws = engineWorkspace(leads, { status: 'READY_TO_SEND' });
  if (opts.approval) Object.assign(ws.campaigns![0]!, { approval: opts.approval });
  opts.workspace?.(ws);
  let net!: RecordingNetwork;
  const h = harness(ws, {
    config: { replyWaitDays: 0, ...opts.config },
    network: (ctx) => {
      net = new RecordingNetwork(ctx.network);
      return net;
    },
  });
  const agent = updateAgent(h.ctx, 'tpl', { steps });
  if (opts.senders) updateCampaign(h.ctx, 'cmp', { senderAccountIds: opts.senders });
  await startCampaign(h.ctx, 'cmp');
  const settings = engineSettings({ replyWaitDays: 0, ...opts.config });
  return {
    ...h,
    net,
    steps: agent.steps,
    callsOf: (slug) => net.calls.filter((c) => c.networkUrl?.endsWith(`/in/${slug}`)).map((c) => ({ op: c.op, text: c.text })),
    eventsOf: (leadId) => stepEventsOf(h.ctx, leadId).map((e) => [e.kind, e.event, ...(e.reason ? [e.reason] : [])].join(':')),
    position: (leadId) => getPosition(h.ctx, leadId),
    intents: (leadId) =>
      h.ctx.db
        .select()
        .from(engineIntents)
        .where(leadId ? and(eq(engineIntents.leadId, leadId)) : undefined)
        .orderBy(asc(engineIntents.seq))
        .all(),
    audit: () => auditSafety(h.ctx, { safety: settings.safety, spacingMinMs: settings.spacingMinMs }),
  };
}
