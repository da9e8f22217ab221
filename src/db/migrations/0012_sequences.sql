CREATE TABLE `lead_positions` (
	`lead_id` text PRIMARY KEY NOT NULL,
	`campaign_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`step_id` text,
	`entered_at` integer NOT NULL,
	`end_reason` text,
	`ended_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `lead_positions_step` ON `lead_positions` (`agent_id`,`step_id`);--> statement-breakpoint
CREATE TABLE `lead_step_variants` (
	`lead_id` text NOT NULL,
	`step_id` text NOT NULL,
	`variant` text NOT NULL,
	`drawn_at` integer NOT NULL,
	PRIMARY KEY(`lead_id`, `step_id`)
);
--> statement-breakpoint
CREATE TABLE `sim_tallies` (
	`key` text PRIMARY KEY NOT NULL,
	`count` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `step_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`lead_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`step_id` text NOT NULL,
	`kind` text NOT NULL,
	`variant` text NOT NULL,
	`event` text NOT NULL,
	`reason` text,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `step_events_lead` ON `step_events` (`lead_id`,`seq`);--> statement-breakpoint
CREATE INDEX `step_events_step` ON `step_events` (`agent_id`,`step_id`,`seq`);--> statement-breakpoint
CREATE TABLE `step_stats` (
	`agent_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`step_id` text NOT NULL,
	`variant` text NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`skipped` integer DEFAULT 0 NOT NULL,
	`accepted` integer DEFAULT 0 NOT NULL,
	`replied` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`agent_id`, `campaign_id`, `step_id`, `variant`)
);
--> statement-breakpoint
ALTER TABLE `account_daily` ADD `profile_visits` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `account_daily` ADD `post_reactions` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `profile_visit_limit` integer DEFAULT 40 NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `post_reaction_limit` integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `steps` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `sender_account_ids` text DEFAULT '[]' NOT NULL;