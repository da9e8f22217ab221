CREATE TABLE `change_counters` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer DEFAULT 0 NOT NULL
);--> statement-breakpoint
INSERT INTO `change_counters` (`name`, `value`) VALUES ('campaigns', 0), ('accounts', 0), ('exclusions', 0);--> statement-breakpoint
CREATE TRIGGER `campaigns_insert_counter` AFTER INSERT ON `campaigns` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
CREATE TRIGGER `campaigns_delete_counter` AFTER DELETE ON `campaigns` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
CREATE TRIGGER `campaigns_update_counter` AFTER UPDATE OF `status`, `assigned_template_id` ON `campaigns` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
CREATE TRIGGER `agents_insert_counter` AFTER INSERT ON `agents` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
CREATE TRIGGER `agents_delete_counter` AFTER DELETE ON `agents` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
CREATE TRIGGER `agents_update_counter` AFTER UPDATE ON `agents` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'campaigns'; END;--> statement-breakpoint
CREATE TRIGGER `accounts_insert_counter` AFTER INSERT ON `accounts` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'accounts'; END;--> statement-breakpoint
CREATE TRIGGER `accounts_delete_counter` AFTER DELETE ON `accounts` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'accounts'; END;--> statement-breakpoint
CREATE TRIGGER `accounts_update_counter` AFTER UPDATE ON `accounts` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'accounts'; END;--> statement-breakpoint
CREATE TRIGGER `exclusions_insert_counter` AFTER INSERT ON `exclusions` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'exclusions'; END;--> statement-breakpoint
CREATE TRIGGER `exclusions_delete_counter` AFTER DELETE ON `exclusions` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'exclusions'; END;--> statement-breakpoint
CREATE TRIGGER `exclusions_update_counter` AFTER UPDATE ON `exclusions` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'exclusions'; END;
