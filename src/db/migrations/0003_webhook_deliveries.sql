CREATE TABLE `webhook_attempts` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`at` integer NOT NULL,
	`status` integer,
	`duration_ms` integer,
	`error` text,
	`response_excerpt` text,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery` ON `webhook_attempts` (`delivery_id`,`seq`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`event_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`leased_until` integer,
	`last_status` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_id_unique` ON `webhook_deliveries` (`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`state`,`endpoint_id`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint` ON `webhook_deliveries` (`endpoint_id`,`seq`);