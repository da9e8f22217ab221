CREATE TABLE `audit_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text NOT NULL,
	`actor_name` text NOT NULL,
	`action` text NOT NULL,
	`targets` text NOT NULL,
	`summary` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_events_id_unique` ON `audit_events` (`id`);--> statement-breakpoint
CREATE INDEX `audit_events_at` ON `audit_events` (`at`,`seq`);--> statement-breakpoint
CREATE INDEX `audit_events_actor` ON `audit_events` (`actor_id`,`seq`);--> statement-breakpoint
CREATE TABLE `audit_targets` (
	`target_id` text NOT NULL,
	`event_seq` integer NOT NULL,
	PRIMARY KEY(`target_id`, `event_seq`)
);
--> statement-breakpoint
CREATE TABLE `members` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	`disabled_at` integer,
	CONSTRAINT "members_role" CHECK("members"."role" in ('owner', 'admin', 'operator', 'reviewer', 'viewer'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `members_email_unique` ON `members` (`email`);--> statement-breakpoint
ALTER TABLE `drafts` ADD `decided_by_type` text;--> statement-breakpoint
ALTER TABLE `drafts` ADD `decided_by_id` text;--> statement-breakpoint
ALTER TABLE `drafts` ADD `decided_by_name` text;--> statement-breakpoint
ALTER TABLE `login_tokens` ADD `member_id` text;--> statement-breakpoint
ALTER TABLE `operator_sessions` ADD `member_id` text;--> statement-breakpoint
CREATE INDEX `operator_sessions_member` ON `operator_sessions` (`member_id`);--> statement-breakpoint
CREATE TRIGGER `audit_events_append_only_update` BEFORE UPDATE ON `audit_events` BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;--> statement-breakpoint
CREATE TRIGGER `audit_events_append_only_delete` BEFORE DELETE ON `audit_events` BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;--> statement-breakpoint
CREATE TRIGGER `audit_targets_append_only_update` BEFORE UPDATE ON `audit_targets` BEGIN SELECT RAISE(ABORT, 'audit_targets is append-only'); END;--> statement-breakpoint
CREATE TRIGGER `audit_targets_append_only_delete` BEFORE DELETE ON `audit_targets` BEGIN SELECT RAISE(ABORT, 'audit_targets is append-only'); END;--> statement-breakpoint
CREATE TRIGGER `members_no_delete` BEFORE DELETE ON `members` BEGIN SELECT RAISE(ABORT, 'members are disabled, never deleted'); END;--> statement-breakpoint
UPDATE `operator_sessions` SET `revoked_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `revoked_at` IS NULL AND `member_id` IS NULL;--> statement-breakpoint
UPDATE `login_tokens` SET `used_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `used_at` IS NULL AND `member_id` IS NULL;
