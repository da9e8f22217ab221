import { hash } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { drafts, leadPositions, stepEvents, stepStats } from '../../db/schema.js';
import { transaction } from '../../db/tx.js';
import type { StepKind, VariantLetter } from '../agents/steps.js';
import { VARIANT_LETTERS } from '../agents/steps.js';
import { sequenceStatements } from '../../db/sql/sequences.js';
import { campaignReach } from '../auth/scope.js';
import type { Ctx } from '../context.js';

/**
 * What the step runner stores about each lead's way through its agent's steps: where it is
 * (`lead_positions`), the variant drawn at each step (`lead_step_variants`), and what happened
 * at each step (`step_events`, counted in `step_stats` for get_agent_stats). Each verb writes
 * in the caller's transaction when one is open, else in its own. Times are the engine's clock.
 */

/** How a lead's sequence ended. */
export const END_REASONS = ['completed', 'replied', 'step_removed', 'failed', 'rejected', 'excluded', 'enrichment_failed'] as const;
export type EndReason = (typeof END_REASONS)[number];

export interface LeadPosition {
  leadId: string;
  campaignId: string;
  agentId: string;
  /** The step the lead is at; null once its sequence ended. */
  stepId: string | null;
  /** When the lead reached the step: a `wait` or an `if` counts its hours from here. */
  enteredAt: number;
  endReason: EndReason | null;
  endedAt: number | null;
}

/** Where the lead is, or undefined when it has not started a sequence. */
export function getPosition(ctx: Pick<Ctx, 'db'>, leadId: string): LeadPosition | undefined {
  return sequenceStatements(ctx.db).position.get(leadId) as LeadPosition | undefined;
}

/**
 * Puts the lead at the first step of its sequence. A lead that already has a position keeps
 * it (a retry of the start after a crash finds the lead where it is): returns the position.
 */
export function startSequence(ctx: Pick<Ctx, 'db'>, input: { leadId: string; campaignId: string; agentId: string; stepId: string; at: number }): LeadPosition {
  return transaction(ctx.db, () => {
    sequenceStatements(ctx.db).start.run({ ...input, endReason: null, endedAt: null });
    return getPosition(ctx, input.leadId) as LeadPosition;
  });
}

/**
 * Puts the lead at a step of its agent's steps, or ends its sequence there, whatever position it
 * had: the step runner's write when it places a lead it had no position for, or one whose
 * position was for another agent's steps (the campaign's agent was changed).
 */
export function placeLead(
  ctx: Pick<Ctx, 'db'>,
  input: { leadId: string; campaignId: string; agentId: string; stepId: string | null; at: number; endReason?: EndReason | null },
): void {
  const ended = input.endReason ?? null;
  sequenceStatements(ctx.db).place.run({
    leadId: input.leadId,
    campaignId: input.campaignId,
    agentId: input.agentId,
    stepId: ended === null ? input.stepId : null,
    at: input.at,
    endReason: ended,
    endedAt: ended === null ? null : input.at,
  });
}

/** Moves the lead to another step (entered at `at`). A lead whose sequence ended stays ended: false then. */
export function moveToStep(ctx: Pick<Ctx, 'db'>, input: { leadId: string; stepId: string; at: number }): boolean {
  return sequenceStatements(ctx.db).move.run({ leadId: input.leadId, stepId: input.stepId, at: input.at }).changes === 1;
}

/** Ends the lead's sequence with a reason; the first end wins. Returns whether this call ended it. */
export function endSequence(ctx: Pick<Ctx, 'db'>, input: { leadId: string; reason: EndReason; at: number }): boolean {
  return sequenceStatements(ctx.db).end.run({ leadId: input.leadId, reason: input.reason, at: input.at }).changes === 1;
}

/** Leads of an agent at one of these steps (for a dashboard's "who is where", and for tests). */
export function leadsAtSteps(ctx: Pick<Ctx, 'db'>, agentId: string, stepIds: readonly string[]): { leadId: string; stepId: string }[] {
  if (stepIds.length === 0) return [];
  return ctx.db
    .select({ leadId: leadPositions.leadId, stepId: leadPositions.stepId })
    .from(leadPositions)
    .where(and(eq(leadPositions.agentId, agentId), inArray(leadPositions.stepId, [...stepIds])))
    .all() as { leadId: string; stepId: string }[];
}

/** An even draw that does not depend on when or how often it is made: a hash of lead and step. */
function evenDraw(leadId: string, stepId: string, count: number): VariantLetter {
  const n = hash('sha256', `${leadId}:${stepId}`, 'buffer').readUInt32BE(0);
  return VARIANT_LETTERS[n % Math.max(1, Math.min(count, VARIANT_LETTERS.length))] as VariantLetter;
}

/** The variant drawn for the lead at the step, or undefined before the step first ran. */
export function variantOf(ctx: Pick<Ctx, 'db'>, leadId: string, stepId: string): VariantLetter | undefined {
  return sequenceStatements(ctx.db).variant.get(leadId, stepId) as VariantLetter | undefined;
}

/**
 * The lead's variant at a step with `count` variants: drawn evenly the first time the step runs
 * for the lead, and the same ever after, retries and restarts included (a draw already stored
 * wins, even if the step's variants changed since).
 */
export function drawVariant(ctx: Pick<Ctx, 'db'>, input: { leadId: string; stepId: string; count: number; at: number }): VariantLetter {
  return transaction(ctx.db, () => {
    const s = sequenceStatements(ctx.db);
    const drawn = s.variant.get(input.leadId, input.stepId) as VariantLetter | undefined;
    if (drawn) return drawn;
    const variant = evenDraw(input.leadId, input.stepId, input.count);
    s.insertVariant.run(input.leadId, input.stepId, variant, input.at);
    return variant;
  });
}

/** What happened at a step. `accepted` and `replied` are recorded by recordAccepted and recordReplied. */
export type StepEventType = 'sent' | 'skipped' | 'accepted' | 'replied' | 'bounced';

/** Why a step was skipped, as get_agent_stats counts it and the dashboard shows it. */
export const SKIP_REASONS = [
  'not_connected',
  'no_posts',
  'no_sales_navigator',
  'inmail_unreachable',
  'no_inmail_credits',
  'no_pending_invitation',
  'already_connected',
  'already_invited',
  'no_email',
  'unsubscribed',
  'bounced',
  'email_refused',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export interface StepEvent {
  leadId: string;
  campaignId: string;
  agentId: string;
  stepId: string;
  kind: StepKind;
  variant: VariantLetter;
  event: StepEventType;
  reason: string | null;
  at: number;
}

function record(ctx: Pick<Ctx, 'db'>, e: StepEvent): void {
  const s = sequenceStatements(ctx.db);
  s.insertEvent.run(e);
  s.count[e.event].run(e.agentId, e.campaignId, e.stepId, e.variant);
}

/**
 * A step carried out (`sent`: an invitation or message sent, a profile visited, a post liked, an
 * invitation withdrawn, a wait or an if begun) or `skipped` with its reason. Skipped steps are
 * recorded, never silent.
 */
export function recordStep(
  ctx: Pick<Ctx, 'db'>,
  input: Omit<StepEvent, 'event' | 'reason'> & ({ event: 'sent'; reason?: null } | { event: 'skipped'; reason: SkipReason | string }),
): void {
  transaction(ctx.db, () => record(ctx, { ...input, reason: input.event === 'skipped' ? input.reason : null }));
}

type EventRow = Pick<typeof stepEvents.$inferSelect, 'leadId' | 'campaignId' | 'agentId' | 'stepId' | 'kind' | 'variant' | 'event' | 'reason' | 'at'>;
const toEvent = (r: EventRow): StepEvent => ({
  leadId: r.leadId,
  campaignId: r.campaignId,
  agentId: r.agentId,
  stepId: r.stepId,
  kind: r.kind as StepKind,
  variant: r.variant as VariantLetter,
  event: r.event as StepEventType,
  reason: r.reason,
  at: r.at,
});

/**
 * The lead's invitation was accepted: counted once, for the invite step that sent it (the
 * lead's last `sent` invite). Returns the event, or null when there is no invite to credit or
 * the acceptance was already counted.
 */
export function recordAccepted(ctx: Pick<Ctx, 'db'>, input: { leadId: string; at: number }): StepEvent | null {
  return transaction(ctx.db, () => {
    const s = sequenceStatements(ctx.db);
    if (s.has.accepted.get(input.leadId) !== undefined) return null;
    const invite = s.lastInvite.get(input.leadId);
    if (!invite) return null;
    const event: StepEvent = { ...toEvent(invite), event: 'accepted', reason: null, at: input.at };
    record(ctx, event);
    return event;
  });
}

/**
 * The lead replied: counted once, for the last invite, message or InMail sent to the lead at
 * or before `at`. Returns the event, or null when nothing was sent before or a reply was
 * already counted.
 */
export function recordReplied(ctx: Pick<Ctx, 'db'>, input: { leadId: string; at: number }): StepEvent | null {
  return transaction(ctx.db, () => {
    const s = sequenceStatements(ctx.db);
    if (s.has.replied.get(input.leadId) !== undefined) return null;
    const last = s.lastReaching.get(input.leadId, input.at);
    if (!last) return null;
    const event: StepEvent = { ...toEvent(last), event: 'replied', reason: null, at: input.at };
    record(ctx, event);
    return event;
  });
}

/**
 * An email to the lead bounced: counted for the email step that sent it (the last email sent to
 * the lead before the bounce came back). Returns the event, or null when no email step sent one
 * (an email sent outside a sequence).
 */
export function recordBounced(ctx: Pick<Ctx, 'db'>, input: { leadId: string; at: number }): StepEvent | null {
  return transaction(ctx.db, () => {
    const last = sequenceStatements(ctx.db).lastEmail.get(input.leadId, input.at);
    if (!last) return null;
    const event: StepEvent = { ...toEvent(last), event: 'bounced', reason: null, at: input.at };
    record(ctx, event);
    return event;
  });
}

/** Everything that happened to a lead at its steps, oldest first. */
export function stepEventsOf(ctx: Pick<Ctx, 'db'>, leadId: string): StepEvent[] {
  return ctx.db.select().from(stepEvents).where(eq(stepEvents.leadId, leadId)).orderBy(asc(stepEvents.seq)).all().map(toEvent);
}

export interface StepCounts {
  stepId: string;
  variant: VariantLetter;
  sent: number;
  accepted: number;
  replied: number;
  skipped: number;
  bounced: number;
}

/** The counts of an agent's steps per variant, over all campaigns or one. */
export function stepCounts(ctx: Pick<Ctx, 'db' | 'campaigns'>, agentId: string, campaignId?: string): StepCounts[] {
  return ctx.db
    .select({
      stepId: stepStats.stepId,
      variant: stepStats.variant,
      sent: sql<number>`sum(${stepStats.sent})`,
      accepted: sql<number>`sum(${stepStats.accepted})`,
      replied: sql<number>`sum(${stepStats.replied})`,
      skipped: sql<number>`sum(${stepStats.skipped})`,
      bounced: sql<number>`sum(${stepStats.bounced})`,
    })
    .from(stepStats)
    .where(
      and(
        eq(stepStats.agentId, agentId),
        campaignId === undefined ? undefined : eq(stepStats.campaignId, campaignId),
        campaignReach(ctx, stepStats.campaignId),
      ),
    )
    .groupBy(stepStats.stepId, stepStats.variant)
    .all() as StepCounts[];
}

/**
 * How many leads each step and variant of the agent skipped, per reason (unknown when none was
 * recorded), over every campaign or one, within the call's campaigns; by step, variant, most
 * skips first. Read from the skips alone (a partial index).
 */
export function skipCounts(ctx: Ctx, agentId: string, campaignId: string | undefined): { stepId: string; variant: string; reason: string; count: number }[] {
  return ctx.db
    .select({
      stepId: stepEvents.stepId,
      variant: stepEvents.variant,
      reason: sql<string>`coalesce(${stepEvents.reason}, 'unknown')`,
      count: sql<number>`count(*)`,
    })
    .from(stepEvents)
    .where(
      and(
        eq(stepEvents.agentId, agentId),
        campaignId === undefined ? undefined : eq(stepEvents.campaignId, campaignId),
        campaignReach(ctx, stepEvents.campaignId),
        // A literal, as the partial index's own condition reads, so SQLite picks that index.
        sql`${stepEvents.event} = 'skipped'`,
      ),
    )
    .groupBy(stepEvents.stepId, stepEvents.variant, stepEvents.reason)
    .orderBy(stepEvents.stepId, stepEvents.variant, sql`count(*) desc`, stepEvents.reason)
    .all();
}

/** Every draft of the lead, oldest first. */
export const draftRowsOfLead = (ctx: Pick<Ctx, 'db'>, leadId: string): (typeof drafts.$inferSelect)[] =>
  ctx.db.select().from(drafts).where(eq(drafts.leadId, leadId)).orderBy(asc(drafts.createdAt)).all();
