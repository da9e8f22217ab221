-- Triggers guard and never decide (docs/architecture.md, "Triggers"). What the triggers dropped
-- here did now happens in TypeScript, where a reader can follow it:
-- * drafts_decided_wake woke a lead when a person approved or rejected its draft: that is now the
--   core verb wakeDecidedLeads (src/core/outreach/wake.ts), which every caller of a decision calls;
-- * the draft state machine (status, claim, skip reason, revision) is written once, in the drafts
--   store (DRAFT_TRANSITIONS in src/core/drafts/store.ts); the writer guards of 0019 still refuse a
--   write that does not come from that store;
-- * the change counters of 0009, 0015, 0016 and 0019 told the cache what moved: each connection
--   now learns its own writes from TEMP triggers that write no table (src/db/cache-signal.ts) and
--   other connections' commits from PRAGMA data_version, so the table goes too.
DROP TRIGGER IF EXISTS `drafts_decided_wake`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `drafts_status_insert_guard`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `drafts_status_transition_guard`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `drafts_skip_reason_guard`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `drafts_insert_revision_guard`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `drafts_revision_guard`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `campaigns_insert_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `campaigns_delete_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `campaigns_update_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `agents_insert_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `agents_delete_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `agents_update_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `accounts_insert_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `accounts_delete_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `accounts_update_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `exclusions_insert_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `exclusions_delete_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `exclusions_update_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `api_keys_insert_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `api_keys_delete_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `api_keys_update_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `workspace_insert_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `workspace_delete_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `workspace_update_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `credit_balance_insert_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `credit_balance_delete_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `credit_balance_update_counter`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `campaigns_approval_counter`;--> statement-breakpoint
DROP TABLE `change_counters`;
