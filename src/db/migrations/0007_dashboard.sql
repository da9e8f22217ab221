CREATE TABLE `conversations` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`lead_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`last_inbound_at` integer DEFAULT 0 NOT NULL,
	`last_message_at` integer NOT NULL,
	`last_direction` text NOT NULL,
	`last_sender` text NOT NULL,
	`last_preview` text NOT NULL,
	`message_count` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_lead_id_unique` ON `conversations` (`lead_id`);--> statement-breakpoint
CREATE INDEX `conversations_inbound` ON `conversations` (`last_inbound_at`,`seq`);--> statement-breakpoint
CREATE TABLE `lead_imports` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`status` text NOT NULL,
	`csv` text,
	`map` text DEFAULT '{}' NOT NULL,
	`rows_total` integer NOT NULL,
	`rows_done` integer DEFAULT 0 NOT NULL,
	`summary` text NOT NULL,
	`credits_charged` integer DEFAULT 0 NOT NULL,
	`error` text,
	`heartbeat_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lead_imports_id_unique` ON `lead_imports` (`id`);--> statement-breakpoint
CREATE INDEX `lead_imports_status` ON `lead_imports` (`status`);--> statement-breakpoint
CREATE TABLE `login_tokens` (
	`digest` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `login_tokens_expires` ON `login_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `messages` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`lead_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`account_id` text,
	`direction` text NOT NULL,
	`sender` text NOT NULL,
	`text` text NOT NULL,
	`at` integer NOT NULL,
	`external_id` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_id_unique` ON `messages` (`id`);--> statement-breakpoint
CREATE INDEX `messages_lead` ON `messages` (`lead_id`,`at`,`seq`);--> statement-breakpoint
CREATE TABLE `operator_sessions` (
	`digest` text PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operator_sessions_id_unique` ON `operator_sessions` (`id`);--> statement-breakpoint
CREATE INDEX `operator_sessions_expires` ON `operator_sessions` (`expires_at`);