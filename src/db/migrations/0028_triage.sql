ALTER TABLE `conversations` ADD `suggested_tag` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `suggested_by` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `suggested_confidence` real;--> statement-breakpoint
ALTER TABLE `conversations` ADD `suggested_reason` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `suggested_at` integer;--> statement-breakpoint
ALTER TABLE `conversations` ADD `triage_pending_at` integer;--> statement-breakpoint
ALTER TABLE `conversations` ADD `triage_lease_until` integer;--> statement-breakpoint
CREATE INDEX `conversations_suggested` ON `conversations` (`suggested_tag`,`last_inbound_at`,`seq`);--> statement-breakpoint
CREATE INDEX `conversations_triage_pending` ON `conversations` (`triage_pending_at`);