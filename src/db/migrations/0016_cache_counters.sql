-- Every counter write sets a value never used before (random() >> 11, 53 bits), not value + 1: a write
-- rolled back then leaves the counter at a value no value kept in memory was paired with, so a
-- value loaded inside a transaction can be kept (src/db/cache.ts).
UPDATE `change_counters` SET `value` = random() >> 11;--> statement-breakpoint
INSERT INTO `change_counters` (`name`, `value`) VALUES ('keys', random() >> 11), ('workspace', random() >> 11), ('credits', random() >> 11);--> statement-breakpoint
DROP TRIGGER IF EXISTS `campaigns_insert_counter`;--> statement-breakpoint
CREATE TRIGGER `campaigns_insert_counter` AFTER INSERT ON `campaigns` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `campaigns_delete_counter`;--> statement-breakpoint
CREATE TRIGGER `campaigns_delete_counter` AFTER DELETE ON `campaigns` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `campaigns_update_counter`;--> statement-breakpoint
CREATE TRIGGER `campaigns_update_counter` AFTER UPDATE OF `status`, `assigned_template_id` ON `campaigns` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `agents_insert_counter`;--> statement-breakpoint
CREATE TRIGGER `agents_insert_counter` AFTER INSERT ON `agents` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `agents_delete_counter`;--> statement-breakpoint
CREATE TRIGGER `agents_delete_counter` AFTER DELETE ON `agents` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `agents_update_counter`;--> statement-breakpoint
CREATE TRIGGER `agents_update_counter` AFTER UPDATE ON `agents` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `accounts_insert_counter`;--> statement-breakpoint
CREATE TRIGGER `accounts_insert_counter` AFTER INSERT ON `accounts` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'accounts'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `accounts_delete_counter`;--> statement-breakpoint
CREATE TRIGGER `accounts_delete_counter` AFTER DELETE ON `accounts` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'accounts'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `accounts_update_counter`;--> statement-breakpoint
CREATE TRIGGER `accounts_update_counter` AFTER UPDATE ON `accounts` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'accounts'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `exclusions_insert_counter`;--> statement-breakpoint
CREATE TRIGGER `exclusions_insert_counter` AFTER INSERT ON `exclusions` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'exclusions'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `exclusions_delete_counter`;--> statement-breakpoint
CREATE TRIGGER `exclusions_delete_counter` AFTER DELETE ON `exclusions` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'exclusions'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `exclusions_update_counter`;--> statement-breakpoint
CREATE TRIGGER `exclusions_update_counter` AFTER UPDATE ON `exclusions` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'exclusions'; END;--> statement-breakpoint
CREATE TRIGGER `api_keys_insert_counter` AFTER INSERT ON `api_keys` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'keys'; END;--> statement-breakpoint
CREATE TRIGGER `api_keys_delete_counter` AFTER DELETE ON `api_keys` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'keys'; END;--> statement-breakpoint
CREATE TRIGGER `api_keys_update_counter` AFTER UPDATE ON `api_keys` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'keys'; END;--> statement-breakpoint
CREATE TRIGGER `workspace_insert_counter` AFTER INSERT ON `workspace` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'workspace'; END;--> statement-breakpoint
CREATE TRIGGER `workspace_delete_counter` AFTER DELETE ON `workspace` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'workspace'; END;--> statement-breakpoint
CREATE TRIGGER `workspace_update_counter` AFTER UPDATE OF `id`, `name`, `plan`, `plan_id`, `plan_active`, `white_label_isolated`, `blocked`, `cursor_secret`, `webhook_secret`, `created_at` ON `workspace` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'workspace'; END;--> statement-breakpoint
CREATE TRIGGER `credit_balance_insert_counter` AFTER INSERT ON `credit_balance` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'credits'; END;--> statement-breakpoint
CREATE TRIGGER `credit_balance_delete_counter` AFTER DELETE ON `credit_balance` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'credits'; END;--> statement-breakpoint
CREATE TRIGGER `credit_balance_update_counter` AFTER UPDATE ON `credit_balance` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'credits'; END;--> statement-breakpoint
DROP TRIGGER IF EXISTS `campaigns_approval_counter`;--> statement-breakpoint
CREATE TRIGGER `campaigns_approval_counter` AFTER UPDATE OF `approval` ON `campaigns` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'campaigns'; END;
