CREATE TABLE `drafts` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`lead_id` text NOT NULL,
	`step_id` text,
	`slot` text NOT NULL,
	`variant` text,
	`kind` text NOT NULL,
	`account_id` text,
	`subject` text,
	`text` text NOT NULL,
	`rendered_subject` text,
	`rendered_text` text NOT NULL,
	`status` text NOT NULL,
	`drafter_error` text,
	`sending_intent_id` text,
	`sent_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `drafts_id_unique` ON `drafts` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `drafts_lead_slot` ON `drafts` (`lead_id`,`slot`);--> statement-breakpoint
CREATE INDEX `drafts_campaign_status` ON `drafts` (`campaign_id`,`status`,`seq`);--> statement-breakpoint
CREATE INDEX `drafts_status` ON `drafts` (`status`,`seq`);--> statement-breakpoint
CREATE INDEX `drafts_campaign` ON `drafts` (`campaign_id`,`seq`);--> statement-breakpoint
ALTER TABLE `campaigns` ADD `approval` text DEFAULT 'off' NOT NULL;--> statement-breakpoint
CREATE TRIGGER `campaigns_approval_counter` AFTER UPDATE OF `approval` ON `campaigns` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'campaigns'; END;
