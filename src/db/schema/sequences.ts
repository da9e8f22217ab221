import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Where each lead is in its agent's steps (src/core/sequences): the step it is at, since when,
 * or how its sequence ended. One row per lead that started a sequence.
 */
export const leadPositions = sqliteTable(
  'lead_positions',
  {
    leadId: text('lead_id').primaryKey(),
    campaignId: text('campaign_id').notNull(),
    agentId: text('agent_id').notNull(),
    /** The step the lead is at (`stp_…`); null once the sequence ended. */
    stepId: text('step_id'),
    /** Sim-clock ms when the lead reached that step: a `wait` or an `if` counts its hours from here. */
    enteredAt: integer('entered_at').notNull(),
    /** completed | replied | step_removed | failed | rejected | excluded | enrichment_failed; null while it runs. */
    endReason: text('end_reason'),
    endedAt: integer('ended_at'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('lead_positions_step').on(t.agentId, t.stepId)],
);

export const leadStepVariants = sqliteTable(
  'lead_step_variants',
  {
    leadId: text('lead_id').notNull(),
    stepId: text('step_id').notNull(),
    /** A, B, C… (A is the step's own text). */
    variant: text('variant').notNull(),
    drawnAt: integer('drawn_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.leadId, t.stepId] })],
);

/**
 * What happened at each step for each lead: sent (carried out), skipped (with why), accepted
 * (an invite's), replied (the last step sent before a reply). Kept for the dashboard's "why";
 * `step_stats` holds the same counted, for get_agent_stats.
 */
export const stepEvents = sqliteTable(
  'step_events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    leadId: text('lead_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    agentId: text('agent_id').notNull(),
    stepId: text('step_id').notNull(),
    kind: text('kind').notNull(),
    variant: text('variant').notNull(),
    /** sent | skipped | accepted | replied | bounced (an email step's send that bounced) */
    event: text('event').notNull(),
    /** Why a step was skipped (not_connected, no_posts, no_sales_navigator, …); null otherwise. */
    reason: text('reason'),
    at: integer('at').notNull(),
  },
  (t) => [
    index('step_events_lead').on(t.leadId, t.seq),
    index('step_events_step').on(t.agentId, t.stepId, t.seq),
    // Why steps were skipped, counted for the dashboard from the skips alone: sends, far more
    // numerous, stay out of this index.
    index('step_events_skips').on(t.agentId, t.campaignId, t.stepId, t.variant, t.reason).where(sql`${t.event} = 'skipped'`),
  ],
);

/** Per campaign, step and variant: the counts get_agent_stats sums, kept with each event. */
export const stepStats = sqliteTable(
  'step_stats',
  {
    agentId: text('agent_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    stepId: text('step_id').notNull(),
    variant: text('variant').notNull(),
    sent: integer('sent').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    accepted: integer('accepted').notNull().default(0),
    replied: integer('replied').notNull().default(0),
    /** An email step's sends that bounced (migration 0030). */
    bounced: integer('bounced').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.campaignId, t.stepId, t.variant] })],
);
