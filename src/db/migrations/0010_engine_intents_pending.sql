DROP INDEX `engine_intents_state`;--> statement-breakpoint
CREATE INDEX `engine_intents_pending` ON `engine_intents` (`lead_id`) WHERE "engine_intents"."state" = 'pending';--> statement-breakpoint
DROP TRIGGER `campaigns_update_counter`;--> statement-breakpoint
CREATE TRIGGER `campaigns_update_counter` AFTER UPDATE OF `status`, `assigned_template_id`, `name` ON `campaigns` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'campaigns'; END;
