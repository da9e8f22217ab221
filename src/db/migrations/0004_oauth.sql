CREATE TABLE `oauth_clients` (
	`id` text PRIMARY KEY NOT NULL,
	`fingerprint` text NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_clients_fingerprint_unique` ON `oauth_clients` (`fingerprint`);--> statement-breakpoint
CREATE TABLE `oauth_codes` (
	`digest` text PRIMARY KEY NOT NULL,
	`grant_id` text NOT NULL,
	`form_nonce` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`code_challenge` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_codes_form_nonce_unique` ON `oauth_codes` (`form_nonce`);--> statement-breakpoint
CREATE INDEX `oauth_codes_expires` ON `oauth_codes` (`expires_at`);--> statement-breakpoint
CREATE TABLE `oauth_grants` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`api_key_id` text NOT NULL,
	`scopes` text DEFAULT '' NOT NULL,
	`resource` text,
	`created_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE INDEX `oauth_grants_key` ON `oauth_grants` (`api_key_id`);--> statement-breakpoint
CREATE TABLE `oauth_tokens` (
	`digest` text PRIMARY KEY NOT NULL,
	`grant_id` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `oauth_tokens_grant` ON `oauth_tokens` (`grant_id`);--> statement-breakpoint
CREATE INDEX `oauth_tokens_expires` ON `oauth_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `server_secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created_at` integer NOT NULL
);
