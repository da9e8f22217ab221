CREATE TABLE `lookalike_jobs` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`kind` text NOT NULL,
	`seed` text NOT NULL,
	`job_title_keywords` text NOT NULL,
	`countries` text NOT NULL,
	`query_key` text NOT NULL,
	`protect_across_campaigns` integer NOT NULL,
	`requested` integer NOT NULL,
	`reserved` integer NOT NULL,
	`reserved_credits` integer NOT NULL,
	`reserved_top_up` integer NOT NULL,
	`inserted` integer DEFAULT 0 NOT NULL,
	`resume` text,
	`cursor` text,
	`exhausted` integer DEFAULT false NOT NULL,
	`state` text NOT NULL,
	`outcome` text,
	`error_code` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer DEFAULT 0 NOT NULL,
	`leased_by` text,
	`leased_until` integer,
	`refunded` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lookalike_jobs_id_unique` ON `lookalike_jobs` (`id`);--> statement-breakpoint
CREATE INDEX `lookalike_jobs_due` ON `lookalike_jobs` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `lookalike_jobs_query` ON `lookalike_jobs` (`campaign_id`,`query_key`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `lookalike_jobs_one_pending` ON `lookalike_jobs` (`campaign_id`) WHERE "lookalike_jobs"."state" = 'pending';