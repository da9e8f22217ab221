ALTER TABLE `api_keys` ADD `scope` text;--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `key_scope` text;