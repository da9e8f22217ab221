DROP INDEX `engine_intents_account_kind`;--> statement-breakpoint
CREATE INDEX `engine_intents_account_kind` ON `engine_intents` (`account_id`,`kind`,`created_at`,`state`,`lead_id`);
