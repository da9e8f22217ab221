CREATE TABLE `lead_enrichment` (
	`lead_id` text PRIMARY KEY NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`enriched_at` integer,
	`updated_at` integer NOT NULL
);
