ALTER TABLE `accounts` ADD `weekly_connection_request_limit` integer;--> statement-breakpoint
ALTER TABLE `accounts` ADD `warm_up_started_at` integer;--> statement-breakpoint
ALTER TABLE `accounts` ADD `time_zone` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `working_hours` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `invitation_withdrawn_at` integer;--> statement-breakpoint
ALTER TABLE `unipile_invitations` ADD `invitation_id` text;--> statement-breakpoint
CREATE INDEX `engine_intents_account` ON `engine_intents` (`account_id`,`created_at`);