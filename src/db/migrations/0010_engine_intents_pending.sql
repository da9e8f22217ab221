DROP INDEX `engine_intents_state`;--> statement-breakpoint
CREATE INDEX `engine_intents_pending` ON `engine_intents` (`lead_id`) WHERE "engine_intents"."state" = 'pending';