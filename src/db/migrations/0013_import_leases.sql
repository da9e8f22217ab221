CREATE TABLE `lead_import_rows` (
	`import_id` text NOT NULL,
	`line` integer NOT NULL,
	`status` text NOT NULL,
	`field` text,
	`message` text NOT NULL,
	`cells` text NOT NULL,
	PRIMARY KEY(`import_id`, `line`)
);
--> statement-breakpoint
ALTER TABLE `campaigns` ADD `importing_holder` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `importing_host` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `importing_pid` integer;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `importing_until` integer;--> statement-breakpoint
ALTER TABLE `engine_state` ADD `holder_host` text;--> statement-breakpoint
ALTER TABLE `engine_state` ADD `holder_pid` integer;--> statement-breakpoint
ALTER TABLE `lead_imports` ADD `stopped_line` integer;--> statement-breakpoint
ALTER TABLE `lead_imports` ADD `header` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `lead_imports` ADD `delimiter` text DEFAULT ',' NOT NULL;--> statement-breakpoint
UPDATE `campaigns` SET `importing_holder` = 'lookalike:' || (SELECT `id` FROM `lookalike_jobs` WHERE `lookalike_jobs`.`campaign_id` = `campaigns`.`id` AND `lookalike_jobs`.`state` = 'pending' ORDER BY `seq` LIMIT 1) WHERE `importing` = 1 AND EXISTS (SELECT 1 FROM `lookalike_jobs` WHERE `lookalike_jobs`.`campaign_id` = `campaigns`.`id` AND `lookalike_jobs`.`state` = 'pending');--> statement-breakpoint
UPDATE `campaigns` SET `importing` = 0 WHERE `importing` = 1 AND `importing_holder` IS NULL;--> statement-breakpoint
CREATE TRIGGER `campaigns_state_insert_guard` BEFORE INSERT ON `campaigns` WHEN NOT campaign_state_writer() BEGIN SELECT RAISE(ABORT, 'campaigns rows are written only by the campaign state machine (src/core/campaigns/state-machine.ts)'); END;--> statement-breakpoint
CREATE TRIGGER `campaigns_state_update_guard` BEFORE UPDATE OF `status`, `importing`, `importing_holder`, `importing_host`, `importing_pid`, `importing_until` ON `campaigns` WHEN NOT campaign_state_writer() BEGIN SELECT RAISE(ABORT, 'campaigns.status and the importing lease are written only by the campaign state machine (src/core/campaigns/state-machine.ts)'); END;
