import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Durable webhook outbox: one row per event, written in the same transaction as its cause. */
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    type: text('type').notNull(),
    createdAt: integer('created_at').notNull(),
    /** The full JSON payload as it is delivered. */
    payload: text('payload').notNull(),
    /** Set once deliveries have been planned for every subscribed endpoint. */
    fannedOutAt: integer('fanned_out_at'),
  },
  (t) => [index('webhook_events_fanout').on(t.fannedOutAt, t.seq)],
);

export const webhookEndpoints = sqliteTable('webhook_endpoints', {
  id: text('id').primaryKey(),
  url: text('url').notNull(),
  /** JSON array of event types. */
  events: text('events').notNull(),
  /** active | disabled */
  status: text('status').notNull().default('active'),
  disabledReason: text('disabled_reason'),
  createdAt: integer('created_at').notNull(),
});

/**
 * One event owed to one endpoint. A redelivery after a final state is a new row with the same
 * event, so each row's attempts follow one run of the retry schedule.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    eventId: text('event_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    /** pending | succeeded | failed */
    state: text('state').notNull().default('pending'),
    /** Attempts started by this delivery; the schedule step of the next one. */
    attempts: integer('attempts').notNull().default(0),
    /** Due time of the next attempt; null once the delivery is final. */
    nextAttemptAt: integer('next_attempt_at'),
    /**
     * Set while an attempt is in flight. A process killed mid-attempt leaves it behind, and the
     * delivery is claimed again once it passes; meanwhile no other worker may send it.
     */
    leasedUntil: integer('leased_until'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.state, t.endpointId, t.nextAttemptAt),
    index('webhook_deliveries_event').on(t.eventId),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.seq),
  ],
);

/** The delivery log: one row per attempt, written when it starts and completed when it ends. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    deliveryId: text('delivery_id').notNull(),
    /** 1-based within its delivery. */
    attempt: integer('attempt').notNull(),
    at: integer('at').notNull(),
    /** HTTP status; null when no answer came (timeout, refused, interrupted). */
    status: integer('status'),
    durationMs: integer('duration_ms'),
    error: text('error'),
    /** The first KiB of the receiver's answer. */
    responseExcerpt: text('response_excerpt'),
    /** Null while in flight, and on an attempt cut off by a crash. */
    finishedAt: integer('finished_at'),
  },
  (t) => [index('webhook_attempts_delivery').on(t.deliveryId, t.seq)],
);
