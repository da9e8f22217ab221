import { cached, versionOf } from '../../db/cache.js';
import type { agents } from '../../db/schema.js';
import { campaignStatements } from '../../db/sql/campaigns.js';
import { leadStatements, updateLeadById, type LeadRow } from '../../db/sql/leads.js';
import type { Ctx } from '../context.js';
import { isOnExclusionList } from '../leads/exclude.js';
import { planLead, type Plan, type SequenceMessage } from './plan.js';
import type { EngineSettings } from './settings.js';

export type { LeadRow };
type AgentRow = typeof agents.$inferSelect;

/** What the engine needs to know about a campaign to work its leads. */
export interface CampaignInfo {
  id: string;
  status: string;
  agent: AgentRow | null;
  sequence: readonly SequenceMessage[];
}

/** Parsed sequences by their JSON: the engine reads a campaign's agent for every lead it handles. */
const parsed = new Map<string, readonly SequenceMessage[]>();
const PARSED_MAX = 1000;

/** The agent's message sequence; anything unreadable counts as no sequence. Shared and frozen: never change it. */
export function parseSequence(json: string): readonly SequenceMessage[] {
  let sequence = parsed.get(json);
  if (sequence === undefined) {
    sequence = Object.freeze(readSequence(json).map((m) => Object.freeze(m)));
    if (parsed.size >= PARSED_MAX) parsed.clear();
    parsed.set(json, sequence);
  }
  return sequence;
}

function readSequence(json: string): SequenceMessage[] {
  try {
    const value: unknown = JSON.parse(json);
    if (!Array.isArray(value)) return [];
    return value.flatMap((m: unknown) => {
      if (typeof m !== 'object' || m === null) return [];
      const { text, delayHours } = m as { text?: unknown; delayHours?: unknown };
      if (typeof text !== 'string' || text.trim() === '') return [];
      return [{ text, delayHours: typeof delayHours === 'number' && delayHours >= 0 ? delayHours : 24 }];
    });
  } catch {
    return [];
  }
}

/** Running campaigns, in order and by id, kept while the `campaigns` counter stands still. */
const running = cached('campaigns', (db) => {
  const list = Object.freeze(
    campaignStatements(db)
      .running()
      .map((row) =>
        Object.freeze({ ...row, agent: row.agent ? Object.freeze(row.agent) : null, sequence: row.agent ? parseSequence(row.agent.messages) : [] }),
      ),
  );
  return { list, byId: new Map(list.map((info) => [info.id, info])) };
});

/** Every campaign in progress with its agent (the engine reads them on every tick). Shared: never change it. */
export function loadRunningCampaigns(ctx: Ctx): readonly CampaignInfo[] {
  return running(ctx.db).list;
}

/** A campaign with its agent; a running one from memory (see `running`). Shared: never change it. */
export function loadCampaignInfo(ctx: Ctx, campaignId: string): CampaignInfo | null {
  const kept = running(ctx.db).byId.get(campaignId);
  if (kept) return kept;
  const row = campaignStatements(ctx.db).withAgent(campaignId);
  if (!row) return null;
  return { ...row, sequence: row.agent ? parseSequence(row.agent.messages) : [] };
}

/** The account that contacts a lead: its own, else its campaign agent's (self-hosting.md, Accounts). */
export const effectiveAccountId = (lead: LeadRow, info: CampaignInfo): string | null => lead.accountId ?? info.agent?.accountId ?? null;

export function planFor(ctx: Ctx, lead: LeadRow, info: CampaignInfo, settings: EngineSettings): Plan | null {
  return planLead(lead, {
    sequence: info.sequence,
    onExclusionList: isOnExclusionList(ctx, lead.networkUrl),
    invitationTimeoutMs: settings.invitationTimeoutMs,
    replyWaitMs: settings.replyWaitMs,
    withdrawStale: settings.safety.withdrawStaleInvitations,
  });
}

export const getLead = (ctx: Ctx, id: string): LeadRow | undefined => leadStatements(ctx.db).byId.get(id);

/** Writes changes to one lead (a statement prepared per set of changed columns: the engine writes leads on every send). */
export const updateLead = updateLeadById;

/**
 * Updates a lead, then stores when its next action is due; returns the updated row. A caller
 * that read the lead in the same transaction passes it as `current`: the row after the change is
 * then known without reading it again, and both writes are one.
 */
export function updateAndReplan(
  ctx: Ctx,
  leadId: string,
  changes: Partial<LeadRow>,
  info: CampaignInfo,
  settings: EngineSettings,
  current?: LeadRow,
): LeadRow | undefined {
  const known = current !== undefined && current.id === leadId;
  if (!known) updateLead(ctx.db, leadId, changes);
  const lead = known ? { ...current, ...changes } : getLead(ctx, leadId);
  if (!lead) return undefined;
  const plan = planFor(ctx, lead, info, settings);
  // "As soon as possible" is stored as now, not 0: a 0 marks a lead the engine has never
  // looked at, which it takes only as fast as the account may invite (see the engine's tick).
  const nextActionAt = plan === null ? null : plan.at === 0 ? Math.max(1, ctx.simClock.now()) : plan.at;
  const replanned = nextActionAt !== lead.nextActionAt;
  // A known lead's changes were not written yet: they go in the same write as its due time.
  if (known) updateLead(ctx.db, leadId, replanned ? { ...changes, nextActionAt } : changes);
  else if (replanned) updateLead(ctx.db, leadId, { nextActionAt });
  return replanned ? { ...lead, nextActionAt } : lead;
}

/**
 * What the engine's memory depends on in the database: the versions of the campaigns (with their
 * agents) and of the accounts. When it changes, the engine forgets what it learned.
 */
export const memoryStamp = (ctx: Ctx): string => `${versionOf(ctx.db, 'campaigns')}:${versionOf(ctx.db, 'accounts')}`;
