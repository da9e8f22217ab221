CREATE TABLE `lead_email` (
	`lead_id` text PRIMARY KEY NOT NULL,
	`mailbox_id` text NOT NULL,
	`pinned_at` integer NOT NULL,
	`replied_at` integer,
	`bounced_at` integer
);
--> statement-breakpoint
CREATE INDEX `lead_email_mailbox` ON `lead_email` (`mailbox_id`);--> statement-breakpoint
ALTER TABLE `campaigns` ADD `mailbox_ids` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `step_stats` ADD `bounced` integer DEFAULT 0 NOT NULL;