CREATE TABLE `mcp_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`api_key_id` text NOT NULL,
	`tool` text NOT NULL,
	`status` text NOT NULL,
	`status_message` text,
	`result` text,
	`error` text,
	`following` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mcp_tasks_expires` ON `mcp_tasks` (`expires_at`);