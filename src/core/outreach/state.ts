import { kindOfSend } from '../steps/registry.js';
import { cached, versionOf } from '../../db/cache.js';
import type { Db } from '../../db/connection.js';
import type { agents } from '../../db/schema.js';
import { campaignStatements, type CampaignWithAgent } from '../../db/sql/campaigns.js';
import { leadStatements, updateLeadById, type LeadRow } from '../../db/sql/leads.js';
import { findAccount } from '../accounts/resolve.js';
import { stepsOf } from '../agents/agents.js';
import { mailboxIdsOf, senderAccountIdsOf } from '../campaigns/campaign.js';
import { emailFactsOf } from '../email/lead.js';
import { stepsReadEmail, stepsWaitOnEmail } from '../agents/steps.js';
import type { Ctx } from '../context.js';
import { isOnExclusionList } from '../leads/exclude.js';
import { campaignHasDrafts } from '../drafts/store.js';
import { getPosition, type LeadPosition } from '../sequences/store.js';
import { draftLookup, replyDraftOf } from './approval.js';
import { planLead, type Plan, type SequenceMessage } from './plan.js';
import { indexSequence, type SequenceIndex, type WalkStart } from './sequence.js';
import type { EngineSettings } from './settings.js';
import { memo } from '../memo.js';

export type { LeadRow };
type AgentRow = typeof agents.$inferSelect;

/** What the engine needs to know about a campaign to work its leads. */
export interface CampaignInfo {
  id: string;
  status: string;
  agent: AgentRow | null;
  sequence: readonly SequenceMessage[];
  /** The agent's steps (the older shape read as steps), indexed for the step runner. */
  steps: SequenceIndex;
  /** The campaign's `senderAccountIds`; empty: the agent's account sends, as before senders. */
  senderIds: readonly string[];
  /** The campaign's `mailboxIds`: the mailboxes its email steps go from. */
  mailboxIds: readonly string[];
  /** Whether the agent's steps read the email channel (an email step, an `if` on an email): the runner then looks the lead's email state up. */
  readsEmail: boolean;
  /**
   * Whether an `if` of the steps waits on an email (a reply, a bounce): only then are the lead's
   * first reply to an email and first bounce looked up (nothing else reads them).
   */
  readsEmailEvents: boolean;
  /** Whether each note, message and InMail waits as a draft for a person's approval. */
  approval: 'off' | 'required';
  /**
   * Whether the engine looks drafts up for this campaign's leads: while approval is required, or
   * when drafts are left from a time it was (turning it off sends them as they stand). A campaign
   * that never required approval costs no draft lookup. Kept with the campaign, which is read
   * again when its approval changes.
   */
  draftsInUse: boolean;
}

/** The accounts that send a campaign's leads: its senders, else its agent's account. */
export const sendersOf = (info: CampaignInfo): readonly string[] =>
  info.senderIds.length > 0 ? info.senderIds : info.agent?.accountId ? [info.agent.accountId] : [];

/** Indexed steps by agent and text: the engine reads a campaign's steps for every lead it plans. */
const indexed = memo<string, SequenceIndex>(1000);
const NO_STEPS = indexSequence([], false);

/**
 * The agent's steps, indexed. An agent written with connectionNote and messages reads as steps;
 * its `if accepted` window is the engine's invitation timeout, applied by the runner itself, so
 * the hours given here do not matter.
 */
export function sequenceOf(agent: AgentRow | null): SequenceIndex {
  if (agent === null) return NO_STEPS;
  const key = `${agent.id}\u0000${agent.steps ?? ''}\u0000${agent.connectionNote ?? ''}\u0000${agent.messages}`;
  return indexed.get(key, () => indexSequence(stepsOf(agent, 21 * 24), agent.steps === null));
}

function infoOf(db: Db, row: CampaignWithAgent): CampaignInfo {
  const sending = campaignStatements(db).sending.get(row.id);
  const approval = sending?.approval === 'required' ? 'required' : 'off';
  const steps = sequenceOf(row.agent);
  const email = emailReadsOf(steps);
  return {
    id: row.id,
    status: row.status,
    agent: row.agent,
    sequence: row.agent ? parseSequence(row.agent.messages) : [],
    steps,
    senderIds: Object.freeze(senderAccountIdsOf({ senderAccountIds: sending?.senders ?? '[]' })),
    mailboxIds: Object.freeze(mailboxIdsOf({ mailboxIds: sending?.mailboxes ?? '[]' })),
    readsEmail: email.reads,
    readsEmailEvents: email.events,
    approval,
    draftsInUse: approval === 'required' || campaignHasDrafts({ db }, row.id),
  };
}

/** Whether indexed steps read the email channel, and its events, kept per index (the engine keeps its indexes). */
const emailReads = new WeakMap<SequenceIndex, { reads: boolean; events: boolean }>();
function emailReadsOf(steps: SequenceIndex): { reads: boolean; events: boolean } {
  let known = emailReads.get(steps);
  if (known === undefined) {
    known = { reads: stepsReadEmail(steps.steps), events: stepsWaitOnEmail(steps.steps) };
    emailReads.set(steps, known);
  }
  return known;
}

/** Parsed sequences by their JSON: the engine reads a campaign's agent for every lead it handles. */
const parsed = memo<string, readonly SequenceMessage[]>(1000);

/** The agent's message sequence; anything unreadable counts as no sequence. Shared and frozen: never change it. */
export function parseSequence(json: string): readonly SequenceMessage[] {
  return parsed.get(json, () => Object.freeze(readSequence(json).map((m) => Object.freeze(m))));
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
      .map((row) => Object.freeze(infoOf(db, { ...row, agent: row.agent ? Object.freeze(row.agent) : null }))),
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
  return infoOf(ctx.db, row);
}

/** The account that contacts a lead: its own, else its campaign agent's (self-hosting.md, Accounts). */
export const effectiveAccountId = (lead: LeadRow, info: CampaignInfo): string | null => lead.accountId ?? info.agent?.accountId ?? null;

/**
 * The lead's plan. `position` is the lead's stored position when the caller just wrote it (the
 * step runner after moving the lead), so it is not read again.
 */
export function planFor(ctx: Ctx, lead: LeadRow, info: CampaignInfo, settings: EngineSettings, position?: WalkStart | 'ended' | null): Plan | null {
  const start = position !== undefined ? position : storedStart(ctx, lead.id, info);
  const plan = (salesNavigator: boolean | null) =>
    planLead(lead, {
      sequence: info.sequence,
      steps: info.steps,
      position: start,
      salesNavigator,
      approval: info.approval === 'required',
      ...(info.draftsInUse ? { draftOf: draftLookup(ctx, lead, info.approval === 'required') } : {}),
      replyDraft: lead.agentSendKind === null || !info.draftsInUse ? null : replyDraftOf(ctx, lead),
      now: ctx.simClock.now(),
      onExclusionList: isOnExclusionList(ctx, lead.networkUrl),
      ...(info.readsEmail ? { email: emailFactsOf(ctx, lead, info.readsEmailEvents) } : {}),
      invitationTimeoutMs: settings.invitationTimeoutMs,
      replyWaitMs: settings.replyWaitMs,
      withdrawStale: settings.safety.withdrawStaleInvitations,
    });
  const first = plan(null);
  // Only a kind that needs Sales Navigator (an InMail) asks about the sender's; without it the step is skipped.
  if (!first || kindOfSend(first.action.kind)?.salesNavigator !== true) return first;
  const sender = effectiveAccountId(lead, info);
  const account = sender === null ? undefined : findAccount(ctx, sender);
  return account && !account.hasSalesNavigator ? plan(false) : first;
}

/**
 * Where the step runner finds the lead: its stored position, `ended`, or null when it has none
 * to go on from (none stored, one for another agent's steps, or, for the older shape, a step the
 * agent no longer has: such a lead is placed from its counters, as it always was).
 */
export const storedStart = (ctx: Pick<Ctx, 'db'>, leadId: string, info: CampaignInfo): WalkStart | 'ended' | null => startFrom(getPosition(ctx, leadId), info);

/** `storedStart` of a position already read. */
export function startFrom(pos: LeadPosition | undefined, info: CampaignInfo): WalkStart | 'ended' | null {
  if (!pos || pos.agentId !== info.agent?.id) return null;
  if (pos.endedAt !== null) return 'ended';
  if (info.steps.legacy && (pos.stepId === null || !info.steps.byId.has(pos.stepId))) return null;
  return { stepId: pos.stepId, enteredAt: pos.enteredAt, recorded: true, virtual: false };
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
  position?: WalkStart | 'ended' | null,
): LeadRow | undefined {
  const known = current !== undefined && current.id === leadId;
  if (!known) updateLead(ctx.db, leadId, changes);
  const lead = known ? { ...current, ...changes } : getLead(ctx, leadId);
  if (!lead) return undefined;
  const plan = planFor(ctx, lead, info, settings, position);
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
