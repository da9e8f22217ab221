CREATE TABLE `crm_contacts` (
	`lead_id` text PRIMARY KEY NOT NULL,
	`crm` text NOT NULL,
	`contact_id` text NOT NULL,
	`linked_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `crm_contacts_contact` ON `crm_contacts` (`crm`,`contact_id`);--> statement-breakpoint
CREATE TABLE `crm_pull_state` (
	`crm` text PRIMARY KEY NOT NULL,
	`cursor` text,
	`last_polled_at` integer,
	`interval_ms` integer NOT NULL,
	`last_error` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `crm_pushes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`lead_id` text NOT NULL,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`leased_until` integer,
	`last_error` text,
	`crm_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crm_pushes_id_unique` ON `crm_pushes` (`id`);--> statement-breakpoint
CREATE INDEX `crm_pushes_due` ON `crm_pushes` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `crm_pushes_lead` ON `crm_pushes` (`lead_id`,`state`,`seq`);--> statement-breakpoint
CREATE INDEX `crm_pushes_lead_kind` ON `crm_pushes` (`lead_id`,`kind`);--> statement-breakpoint
CREATE TABLE `crm_sync_log` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`direction` text NOT NULL,
	`kind` text NOT NULL,
	`lead_id` text,
	`push_id` text,
	`contact_id` text,
	`outcome` text NOT NULL,
	`detail` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crm_sync_log_id_unique` ON `crm_sync_log` (`id`);--> statement-breakpoint
CREATE INDEX `crm_sync_log_direction` ON `crm_sync_log` (`direction`,`seq`);--> statement-breakpoint
CREATE INDEX `crm_sync_log_outcome` ON `crm_sync_log` (`outcome`,`seq`);--> statement-breakpoint
CREATE INDEX `crm_sync_log_lead` ON `crm_sync_log` (`lead_id`,`seq`);