/**
 * The one SQLite schema, one file per entity under ./schema/, re-exported here (drizzle-kit and
 * every import read this file). Timestamps are epoch milliseconds (integers) so that keyset cursors
 * compare numbers; the API renders them as ISO 8601. Text ids (`lead_…`, `cmp_…`) are the public
 * identities; integer `seq` columns are the stable tie-breakers for keyset pagination.
 */
export * from './schema/workspace.js';
export * from './schema/credits.js';
export * from './schema/auth.js';
export * from './schema/oauth.js';
export * from './schema/accounts.js';
export * from './schema/agents.js';
export * from './schema/campaigns.js';
export * from './schema/leads.js';
export * from './schema/activity.js';
export * from './schema/idempotency.js';
export * from './schema/tasks.js';
export * from './schema/webhooks.js';
export * from './schema/outreach.js';
export * from './schema/simulator.js';
export * from './schema/unipile.js';
export * from './schema/lookalike.js';
export * from './schema/conversations.js';
export * from './schema/imports.js';
export * from './schema/drafts.js';
export * from './schema/sequences.js';
export * from './schema/members.js';
export * from './schema/audit.js';
export * from './schema/mailboxes.js';
export * from './schema/crm.js';
export * from './schema/lead-email.js';
export * from './schema/mailbox-daily.js';
export * from './schema/call-minutes.js';
