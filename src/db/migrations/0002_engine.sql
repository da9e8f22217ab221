CREATE TABLE `engine_intents` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`lead_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`account_id` text NOT NULL,
	`kind` text NOT NULL,
	`step` integer,
	`text` text,
	`state` text NOT NULL,
	`holder` text NOT NULL,
	`created_at` integer NOT NULL,
	`settled_at` integer,
	`chat_id` text,
	`message_id` text,
	`error_code` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `engine_intents_id_unique` ON `engine_intents` (`id`);--> statement-breakpoint
CREATE INDEX `engine_intents_state` ON `engine_intents` (`state`);--> statement-breakpoint
CREATE TABLE `engine_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`holder` text,
	`lease_expires_at` integer DEFAULT 0 NOT NULL,
	`sim_now` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sim_inbox` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`at` integer NOT NULL,
	`account_id` text NOT NULL,
	`network_url` text NOT NULL,
	`provider_id` text NOT NULL,
	`chat_id` text,
	`text` text,
	`delivered_at` integer
);
--> statement-breakpoint
CREATE INDEX `sim_inbox_due` ON `sim_inbox` (`delivered_at`,`at`,`id`);--> statement-breakpoint
ALTER TABLE `leads` ADD `next_action_at` integer DEFAULT 0;--> statement-breakpoint
ALTER TABLE `leads` ADD `sequence_step` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `leads` ADD `invited_at` integer;--> statement-breakpoint
ALTER TABLE `leads` ADD `connected_at` integer;--> statement-breakpoint
ALTER TABLE `leads` ADD `last_sequence_sent_at` integer;--> statement-breakpoint
ALTER TABLE `leads` ADD `send_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `leads` ADD `pending_reply_text` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `agent_send_kind` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `agent_send_text` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `agent_turns` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `leads_due` ON `leads` (`campaign_id`,`next_action_at`);--> statement-breakpoint
CREATE INDEX `leads_polite_close` ON `leads` (`polite_close_pending_at`);