CREATE TABLE `email_exclusions` (
	`address` text PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `email_sends` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`message_id` text NOT NULL,
	`mailbox_id` text NOT NULL,
	`lead_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`address` text NOT NULL,
	`subject` text NOT NULL,
	`state` text NOT NULL,
	`error` text,
	`at` integer NOT NULL,
	`bounced_at` integer,
	`replied_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_sends_id_unique` ON `email_sends` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `email_sends_message_id_unique` ON `email_sends` (`message_id`);--> statement-breakpoint
CREATE INDEX `email_sends_mailbox_at` ON `email_sends` (`mailbox_id`,`at`);--> statement-breakpoint
CREATE INDEX `email_sends_lead` ON `email_sends` (`lead_id`,`at`);--> statement-breakpoint
CREATE INDEX `email_sends_address` ON `email_sends` (`address`);--> statement-breakpoint
CREATE TABLE `mailboxes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`address` text NOT NULL,
	`from_name` text,
	`kind` text NOT NULL,
	`smtp_host` text,
	`smtp_port` integer,
	`smtp_secure` integer,
	`smtp_user` text,
	`smtp_password_env` text,
	`imap_host` text,
	`imap_port` integer,
	`imap_secure` integer,
	`imap_user` text,
	`imap_password_env` text,
	`daily_limit` integer NOT NULL,
	`warm_up_started_at` integer,
	`time_zone` text,
	`working_hours` text,
	`spacing_seconds` integer NOT NULL,
	`status` text NOT NULL,
	`last_error` text,
	`inbox_uid_validity` text,
	`inbox_last_uid` integer DEFAULT 0 NOT NULL,
	`inbox_read_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mailboxes_id_unique` ON `mailboxes` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `mailboxes_address_unique` ON `mailboxes` (`address`);--> statement-breakpoint
CREATE TABLE `sim_mail` (
	`uid` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`mailbox_id` text NOT NULL,
	`visible_at` integer NOT NULL,
	`raw` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sim_mail_mailbox` ON `sim_mail` (`mailbox_id`,`uid`);--> statement-breakpoint
ALTER TABLE `conversations` ADD `last_channel` text DEFAULT 'linkedin' NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `channel` text DEFAULT 'linkedin' NOT NULL;