import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { bool } from './columns.js';

export const accounts = sqliteTable('accounts', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  id: text('id').notNull().unique(),
  name: text('name').notNull(),
  /** connected | connecting | failed | disconnected */
  status: text('status').notNull(),
  active: bool('active').notNull().default(true),
  hasSalesNavigator: bool('has_sales_navigator').notNull().default(false),
  connectionRequestLimit: integer('connection_request_limit').notNull().default(25),
  messageLimit: integer('message_limit').notNull().default(50),
  /** The provider's own id for this account (e.g. a Unipile account id); never returned. */
  providerAccountId: text('provider_account_id'),
  createdAt: integer('created_at').notNull(),
  /** Rolling 7-day cap on connection requests; null uses the config's default (100). */
  weeklyConnectionRequestLimit: integer('weekly_connection_request_limit'),
  /** Sim-clock ms when the account's warm-up began; null means no warm-up (full limits at once). */
  warmUpStartedAt: integer('warm_up_started_at'),
  /** IANA time zone of the account's working hours; null uses the config's default. */
  timeZone: text('time_zone'),
  /** JSON `{ start, end, days }` or `"always"`; null uses the config's default working hours. */
  workingHours: text('working_hours'),
  /** Profile visits per UTC day (a sequence's `visit` steps). */
  profileVisitLimit: integer('profile_visit_limit').notNull().default(40),
  /** Post reactions per UTC day (a sequence's `like_post` steps). */
  postReactionLimit: integer('post_reaction_limit').notNull().default(30),
});

/** Per-account counters for one UTC day; a missing row means all zeros. */
export const accountDaily = sqliteTable(
  'account_daily',
  {
    accountId: text('account_id').notNull(),
    day: text('day').notNull(),
    connectionRequestsSent: integer('connection_requests_sent').notNull().default(0),
    connectionRequestsAccepted: integer('connection_requests_accepted').notNull().default(0),
    messagesSent: integer('messages_sent').notNull().default(0),
    profileLookups: integer('profile_lookups').notNull().default(0),
    searchResults: integer('search_results').notNull().default(0),
    profileVisits: integer('profile_visits').notNull().default(0),
    postReactions: integer('post_reactions').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day] })],
);
