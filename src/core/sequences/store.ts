import { createHash } from 'node:crypto';
import { and, asc, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import { perDb } from '../../db/prepared.js';
import { leadPositions, leadStepVariants, stepEvents, stepStats } from '../../db/schema.js';
import { transaction } from '../../db/tx.js';
import type { StepKind, VariantLetter } from '../agents/steps.js';
import { VARIANT_LETTERS } from '../agents/steps.js';
import type { Ctx } from '../context.js';

/**
 * What the step runner stores about each lead's way through its agent's steps: where it is
 * (`lead_positions`), the variant drawn at each step (`lead_step_variants`), and what happened
 * at each step (`step_events`, counted in `step_stats` for get_agent_stats). Each verb writes
 * in the caller's transaction when one is open, else in its own. Times are the engine's clock.
 */

/** How a lead's sequence ended. */
export const END_REASONS = ['completed', 'replied', 'step_removed', 'failed', 'rejected', 'excluded'] as const;
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

type PositionRow = typeof leadPositions.$inferSelect;
const toPosition = (r: PositionRow): LeadPosition => ({
  leadId: r.leadId,
  campaignId: r.campaignId,
  agentId: r.agentId,
  stepId: r.stepId,
  enteredAt: r.enteredAt,
  endReason: r.endReason as EndReason | null,
  endedAt: r.endedAt,
});

// Prepared once per database: the runner reads and moves a position for every step it takes.
const positionStatements = perDb((db) => ({
  get: db
    .select()
    .from(leadPositions)
    .where(eq(leadPositions.leadId, sql.placeholder('leadId')))
    .prepare(),
  move: db
    .update(leadPositions)
    .set({ stepId: sql`${sql.placeholder('stepId')}`, enteredAt: sql`${sql.placeholder('at')}`, updatedAt: sql`${sql.placeholder('at')}` })
    .where(and(eq(leadPositions.leadId, sql.placeholder('leadId')), sql`${leadPositions.endedAt} IS NULL`))
    .prepare(),
}));

/** Where the lead is, or undefined when it has not started a sequence. */
export function getPosition(ctx: Pick<Ctx, 'db'>, leadId: string): LeadPosition | undefined {
  const row = positionStatements(ctx.db).get.get({ leadId });
  return row ? toPosition(row) : undefined;
}

/**
 * Puts the lead at the first step of its sequence. A lead that already has a position keeps
 * it (a retry of the start after a crash finds the lead where it is): returns the position.
 */
export function startSequence(ctx: Pick<Ctx, 'db'>, input: { leadId: string; campaignId: string; agentId: string; stepId: string; at: number }): LeadPosition {
  return transaction(ctx.db, () => {
    ctx.db
      .insert(leadPositions)
      .values({ ...input, enteredAt: input.at, updatedAt: input.at })
      .onConflictDoNothing()
      .run();
    return getPosition(ctx, input.leadId) as LeadPosition;
  });
}

/** Moves the lead to another step (entered at `at`). A lead whose sequence ended stays ended: false then. */
export function moveToStep(ctx: Pick<Ctx, 'db'>, input: { leadId: string; stepId: string; at: number }): boolean {
  return positionStatements(ctx.db).move.run({ leadId: input.leadId, stepId: input.stepId, at: input.at }).changes === 1;
}

/** Ends the lead's sequence with a reason; the first end wins. Returns whether this call ended it. */
export function endSequence(ctx: Pick<Ctx, 'db'>, input: { leadId: string; reason: EndReason; at: number }): boolean {
  return (
    ctx.db
      .update(leadPositions)
      .set({ stepId: null, endReason: input.reason, endedAt: input.at, updatedAt: input.at })
      .where(and(eq(leadPositions.leadId, input.leadId), sql`${leadPositions.endedAt} IS NULL`))
      .run().changes === 1
  );
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
  const n = createHash('sha256').update(`${leadId}:${stepId}`).digest().readUInt32BE(0);
  return VARIANT_LETTERS[n % Math.max(1, Math.min(count, VARIANT_LETTERS.length))] as VariantLetter;
}

const variantStatements = perDb((db) => ({
  get: db
    .select({ variant: leadStepVariants.variant })
    .from(leadStepVariants)
    .where(and(eq(leadStepVariants.leadId, sql.placeholder('leadId')), eq(leadStepVariants.stepId, sql.placeholder('stepId'))))
    .prepare(),
  insert: db
    .insert(leadStepVariants)
    .values({ leadId: sql.placeholder('leadId'), stepId: sql.placeholder('stepId'), variant: sql.placeholder('variant'), drawnAt: sql.placeholder('at') })
    .onConflictDoNothing()
    .prepare(),
}));

/** The variant drawn for the lead at the step, or undefined before the step first ran. */
export function variantOf(ctx: Pick<Ctx, 'db'>, leadId: string, stepId: string): VariantLetter | undefined {
  return variantStatements(ctx.db).get.get({ leadId, stepId })?.variant as VariantLetter | undefined;
}

/**
 * The lead's variant at a step with `count` variants: drawn evenly the first time the step runs
 * for the lead, and the same ever after, retries and restarts included (a draw already stored
 * wins, even if the step's variants changed since).
 */
export function drawVariant(ctx: Pick<Ctx, 'db'>, input: { leadId: string; stepId: string; count: number; at: number }): VariantLetter {
  return transaction(ctx.db, () => {
    const s = variantStatements(ctx.db);
    const drawn = s.get.get({ leadId: input.leadId, stepId: input.stepId })?.variant as VariantLetter | undefined;
    if (drawn) return drawn;
    const variant = evenDraw(input.leadId, input.stepId, input.count);
    s.insert.run({ leadId: input.leadId, stepId: input.stepId, variant, at: input.at });
    return variant;
  });
}

/** What happened at a step. `accepted` and `replied` are recorded by recordAccepted and recordReplied. */
export type StepEventType = 'sent' | 'skipped' | 'accepted' | 'replied';

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

/** Steps whose sending reaches the lead: a reply counts for the last of these sent before it. */
const REPLY_STEPS: readonly StepKind[] = ['invite', 'message', 'inmail'];

const COUNTER = { sent: stepStats.sent, skipped: stepStats.skipped, accepted: stepStats.accepted, replied: stepStats.replied } as const;

const eventStatements = perDb((db) => {
  const bump = (event: StepEventType) =>
    db
      .insert(stepStats)
      .values({
        agentId: sql.placeholder('agentId'),
        campaignId: sql.placeholder('campaignId'),
        stepId: sql.placeholder('stepId'),
        variant: sql.placeholder('variant'),
        [event]: 1,
      })
      .onConflictDoUpdate({
        target: [stepStats.agentId, stepStats.campaignId, stepStats.stepId, stepStats.variant],
        set: { [event]: sql`${COUNTER[event]} + 1` },
      })
      .prepare();
  return {
    insert: db
      .insert(stepEvents)
      .values({
        leadId: sql.placeholder('leadId'),
        campaignId: sql.placeholder('campaignId'),
        agentId: sql.placeholder('agentId'),
        stepId: sql.placeholder('stepId'),
        kind: sql.placeholder('kind'),
        variant: sql.placeholder('variant'),
        event: sql.placeholder('event'),
        reason: sql`${sql.placeholder('reason')}`,
        at: sql.placeholder('at'),
      })
      .prepare(),
    bump: { sent: bump('sent'), skipped: bump('skipped'), accepted: bump('accepted'), replied: bump('replied') },
  };
});

function record(ctx: Pick<Ctx, 'db'>, e: StepEvent): void {
  const s = eventStatements(ctx.db);
  s.insert.run({ ...e });
  s.bump[e.event].run({ agentId: e.agentId, campaignId: e.campaignId, stepId: e.stepId, variant: e.variant });
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

type EventRow = typeof stepEvents.$inferSelect;
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
    const done = ctx.db
      .select({ seq: stepEvents.seq })
      .from(stepEvents)
      .where(and(eq(stepEvents.leadId, input.leadId), eq(stepEvents.event, 'accepted')))
      .get();
    if (done) return null;
    const invite = ctx.db
      .select()
      .from(stepEvents)
      .where(and(eq(stepEvents.leadId, input.leadId), eq(stepEvents.kind, 'invite'), eq(stepEvents.event, 'sent')))
      .orderBy(desc(stepEvents.seq))
      .get();
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
    const done = ctx.db
      .select({ seq: stepEvents.seq })
      .from(stepEvents)
      .where(and(eq(stepEvents.leadId, input.leadId), eq(stepEvents.event, 'replied')))
      .get();
    if (done) return null;
    const last = ctx.db
      .select()
      .from(stepEvents)
      .where(and(eq(stepEvents.leadId, input.leadId), eq(stepEvents.event, 'sent'), inArray(stepEvents.kind, [...REPLY_STEPS]), lte(stepEvents.at, input.at)))
      .orderBy(desc(stepEvents.at), desc(stepEvents.seq))
      .get();
    if (!last) return null;
    const event: StepEvent = { ...toEvent(last), event: 'replied', reason: null, at: input.at };
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
}

/** The counts of an agent's steps per variant, over all campaigns or one. */
export function stepCounts(ctx: Pick<Ctx, 'db'>, agentId: string, campaignId?: string): StepCounts[] {
  return ctx.db
    .select({
      stepId: stepStats.stepId,
      variant: stepStats.variant,
      sent: sql<number>`sum(${stepStats.sent})`,
      accepted: sql<number>`sum(${stepStats.accepted})`,
      replied: sql<number>`sum(${stepStats.replied})`,
      skipped: sql<number>`sum(${stepStats.skipped})`,
    })
    .from(stepStats)
    .where(and(eq(stepStats.agentId, agentId), campaignId === undefined ? undefined : eq(stepStats.campaignId, campaignId)))
    .groupBy(stepStats.stepId, stepStats.variant)
    .all() as StepCounts[];
}
