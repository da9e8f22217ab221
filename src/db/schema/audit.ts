import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The audit trail (src/core/audit): one row per write, inserted in the transaction of the write
 * it records. Append-only: triggers (migration 0025) refuse every UPDATE and DELETE. It holds
 * ids, names and a short summary, never a secret, a key or a message body.
 */
export const auditEvents = sqliteTable(
  'audit_events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** `aud_…`, in time order */
    id: text('id').notNull().unique(),
    /** member | key | oauth_client */
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id').notNull(),
    actorName: text('actor_name').notNull(),
    /** The tool or action, e.g. `add_leads_batch`, `members.add`. */
    action: text('action').notNull(),
    /** The target ids as a JSON array of strings. */
    targets: text('targets').notNull(),
    summary: text('summary').notNull(),
    /** Wall-clock ms. */
    at: integer('at').notNull(),
  },
  (t) => [index('audit_events_at').on(t.at, t.seq), index('audit_events_actor').on(t.actorId, t.seq)],
);

/** One row per target of an audit event, so a filter by target reads an index; append-only like its event. */
export const auditTargets = sqliteTable(
  'audit_targets',
  {
    targetId: text('target_id').notNull(),
    eventSeq: integer('event_seq').notNull(),
  },
  (t) => [primaryKey({ columns: [t.targetId, t.eventSeq] })],
);
