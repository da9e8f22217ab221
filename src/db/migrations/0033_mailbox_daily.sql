CREATE TABLE `mailbox_daily` (
	`mailbox_id` text NOT NULL,
	`day` text NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`mailbox_id`, `day`)
);
--> statement-breakpoint
-- The days already sent, counted as the mailbox's rules counted them (every send but a failed one).
INSERT INTO `mailbox_daily` (`mailbox_id`, `day`, `sent`)
SELECT `mailbox_id`, date(`at` / 1000, 'unixepoch'), count(*) FROM `email_sends` WHERE `state` != 'failed' GROUP BY 1, 2;
