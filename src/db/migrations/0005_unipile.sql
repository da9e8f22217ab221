CREATE TABLE `unipile_contacts` (
	`provider_id` text PRIMARY KEY NOT NULL,
	`network_url` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `unipile_contacts_url` ON `unipile_contacts` (`network_url`);--> statement-breakpoint
CREATE TABLE `unipile_inbound` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`account_id` text NOT NULL,
	`network_url` text NOT NULL,
	`provider_id` text NOT NULL,
	`chat_id` text,
	`text` text,
	`at` integer NOT NULL,
	`received_at` integer NOT NULL,
	`delivered_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `unipile_inbound_id_unique` ON `unipile_inbound` (`id`);--> statement-breakpoint
CREATE INDEX `unipile_inbound_due` ON `unipile_inbound` (`delivered_at`,`at`,`id`);--> statement-breakpoint
CREATE TABLE `unipile_invitations` (
	`account_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`invited_at` integer NOT NULL,
	`accepted_at` integer,
	PRIMARY KEY(`account_id`, `provider_id`)
);
--> statement-breakpoint
CREATE INDEX `unipile_invitations_pending` ON `unipile_invitations` (`account_id`,`accepted_at`);