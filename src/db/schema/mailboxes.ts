import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { bool } from './columns.js';

/**
 * Mailboxes (migration 0027): the sending identities of the email channel. Passwords are never
 * stored: `smtp_password_env` and `imap_password_env` name the environment variables that hold
 * them. A simulated mailbox (`kind` sim, development only) has no servers.
 */
export const mailboxes = sqliteTable('mailboxes', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  id: text('id').notNull().unique(),
  name: text('name').notNull(),
  address: text('address').notNull().unique(),
  fromName: text('from_name'),
  /** smtp | sim */
  kind: text('kind').notNull(),
  smtpHost: text('smtp_host'),
  smtpPort: integer('smtp_port'),
  smtpSecure: bool('smtp_secure'),
  smtpUser: text('smtp_user'),
  smtpPasswordEnv: text('smtp_password_env'),
  imapHost: text('imap_host'),
  imapPort: integer('imap_port'),
  imapSecure: bool('imap_secure'),
  imapUser: text('imap_user'),
  imapPasswordEnv: text('imap_password_env'),
  dailyLimit: integer('daily_limit').notNull(),
  /** Sim-clock ms when the warm-up began; null: full limit at once. */
  warmUpStartedAt: integer('warm_up_started_at'),
  /** IANA zone of the working hours; null uses the config's default. */
  timeZone: text('time_zone'),
  /** JSON `{ start, end, days }` or `"always"`; null uses the config's default working hours. */
  workingHours: text('working_hours'),
  /** The shortest pause between two sends of the mailbox. */
  spacingSeconds: integer('spacing_seconds').notNull(),
  /** connected | paused | login_failed */
  status: text('status').notNull(),
  /** The last server refusal, for the operator; null while the mailbox works. */
  lastError: text('last_error'),
  /** Where reading the inbox stopped: the IMAP UIDVALIDITY and the last UID read. */
  inboxUidValidity: text('inbox_uid_validity'),
  inboxLastUid: integer('inbox_last_uid').notNull().default(0),
  /** Wall ms of the last completed inbox read; null before the first. */
  inboxReadAt: integer('inbox_read_at'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * Every email sent (migration 0027): its Message-ID, so a reply is matched by In-Reply-To or
 * References and a bounce by the original message it quotes. `state` sending while the server
 * has it, then sent or failed; bounced_at and replied_at record what came back.
 */
export const emailSends = sqliteTable(
  'email_sends',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    messageId: text('message_id').notNull().unique(),
    mailboxId: text('mailbox_id').notNull(),
    leadId: text('lead_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    /** The recipient, lower-cased. */
    address: text('address').notNull(),
    subject: text('subject').notNull(),
    /** sending | sent | failed */
    state: text('state').notNull(),
    error: text('error'),
    /** Sim-clock ms of the send's start. */
    at: integer('at').notNull(),
    bouncedAt: integer('bounced_at'),
    repliedAt: integer('replied_at'),
  },
  // The mailbox's sends by time with their state (migration 0032): a mailbox's rules count its sends
  // of the day and read its last one that did not fail on every email, from the index alone.
  (t) => [
    index('email_sends_mailbox_at_state').on(t.mailboxId, t.at, t.state),
    index('email_sends_lead').on(t.leadId, t.at),
    index('email_sends_address').on(t.address),
  ],
);

/** The workspace's excluded email addresses (migration 0027): never mailed again, by any campaign. */
export const emailExclusions = sqliteTable('email_exclusions', {
  /** Lower-cased. */
  address: text('address').primaryKey(),
  /** unsubscribed | bounced */
  reason: text('reason').notNull(),
  createdAt: integer('created_at').notNull(),
});
