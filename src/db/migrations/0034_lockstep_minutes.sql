CREATE TABLE `account_call_minutes` (
	`account_id` text NOT NULL,
	`day` integer NOT NULL,
	`minutes` text NOT NULL,
	`calls` integer NOT NULL,
	PRIMARY KEY(`account_id`, `day`)
);
--> statement-breakpoint
CREATE INDEX `account_call_minutes_day` ON `account_call_minutes` (`day`,`minutes`,`account_id`);--> statement-breakpoint
DROP INDEX `engine_intents_at`;--> statement-breakpoint
CREATE INDEX `engine_intents_account_kind` ON `engine_intents` (`account_id`,`kind`,`created_at`);--> statement-breakpoint
INSERT INTO `account_call_minutes` (`account_id`, `day`, `minutes`, `calls`)
SELECT `account_id`, `created_at` / 86400000, group_concat((`created_at` % 86400000) / 60000, ',' ORDER BY `created_at`), count(*)
FROM `engine_intents` WHERE `kind` NOT IN ('manual_message', 'email') GROUP BY `account_id`, `created_at` / 86400000;
