CREATE TABLE `account_daily` (
	`account_id` text NOT NULL,
	`day` text NOT NULL,
	`connection_requests_sent` integer DEFAULT 0 NOT NULL,
	`connection_requests_accepted` integer DEFAULT 0 NOT NULL,
	`messages_sent` integer DEFAULT 0 NOT NULL,
	`profile_lookups` integer DEFAULT 0 NOT NULL,
	`search_results` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`account_id`, `day`)
);
--> statement-breakpoint
CREATE TABLE `accounts` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`has_sales_navigator` integer DEFAULT false NOT NULL,
	`connection_request_limit` integer DEFAULT 25 NOT NULL,
	`message_limit` integer DEFAULT 50 NOT NULL,
	`provider_account_id` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_id_unique` ON `accounts` (`id`);--> statement-breakpoint
CREATE TABLE `activity` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`at` integer NOT NULL,
	`lead_id` text NOT NULL,
	`lead_name` text,
	`company_name` text,
	`campaign_id` text NOT NULL,
	`message_preview` text,
	`hand_off_reason` text,
	`account_id` text,
	`manual` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `activity_id_unique` ON `activity` (`id`);--> statement-breakpoint
CREATE INDEX `activity_at` ON `activity` (`manual`,`at`,`seq`);--> statement-breakpoint
CREATE INDEX `activity_type_at` ON `activity` (`manual`,`type`,`at`,`seq`);--> statement-breakpoint
CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`account_id` text,
	`connection_note` text,
	`messages` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`env` text NOT NULL,
	`prefix` text NOT NULL,
	`digest` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_digest` ON `api_keys` (`digest`);--> statement-breakpoint
CREATE TABLE `campaigns` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`assigned_template_id` text,
	`importing` integer DEFAULT false NOT NULL,
	`total_leads` integer DEFAULT 0 NOT NULL,
	`connection_requests_sent` integer DEFAULT 0 NOT NULL,
	`connection_requests_accepted` integer DEFAULT 0 NOT NULL,
	`messages_sent` integer DEFAULT 0 NOT NULL,
	`replies_received` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `campaigns_id_unique` ON `campaigns` (`id`);--> statement-breakpoint
CREATE INDEX `campaigns_status` ON `campaigns` (`status`,`seq`);--> statement-breakpoint
CREATE INDEX `campaigns_updated` ON `campaigns` (`updated_at`,`seq`);--> statement-breakpoint
CREATE TABLE `credit_balance` (
	`id` integer PRIMARY KEY NOT NULL,
	`credits` integer DEFAULT 0 NOT NULL,
	`top_up_credits` integer DEFAULT 0 NOT NULL,
	`lookalike_credits` integer DEFAULT 0 NOT NULL,
	`lookalike_top_up_credits` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `credit_ledger` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`bucket` text NOT NULL,
	`delta` integer NOT NULL,
	`reason` text NOT NULL,
	`ref` text
);
--> statement-breakpoint
CREATE INDEX `credit_ledger_ref` ON `credit_ledger` (`ref`);--> statement-breakpoint
CREATE TABLE `exclusions` (
	`network_url` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `idempotency_records` (
	`api_key_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`state` text NOT NULL,
	`status` integer,
	`body` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_expires` ON `idempotency_records` (`expires_at`);--> statement-breakpoint
CREATE TABLE `leads` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`account_id` text,
	`network_url` text,
	`full_name` text,
	`first_name` text,
	`last_name` text,
	`job_title` text,
	`company_name` text,
	`company_network` text,
	`website` text,
	`email` text,
	`location` text,
	`headline` text,
	`personalization` text,
	`work_experience` text DEFAULT '[]' NOT NULL,
	`tag` text,
	`tagged_at` integer,
	`stage` text DEFAULT 'new' NOT NULL,
	`excluded` integer DEFAULT false NOT NULL,
	`replied` integer DEFAULT false NOT NULL,
	`needs_reply` integer DEFAULT false NOT NULL,
	`replied_at` integer,
	`last_inbound_message_at` integer,
	`connection_request_accepted` integer DEFAULT false NOT NULL,
	`message_sent` integer DEFAULT false NOT NULL,
	`source` text DEFAULT 'manual' NOT NULL,
	`provider_id` text,
	`chat_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `leads_id_unique` ON `leads` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `leads_campaign_url` ON `leads` (`campaign_id`,`network_url`);--> statement-breakpoint
CREATE INDEX `leads_url` ON `leads` (`network_url`);--> statement-breakpoint
CREATE INDEX `leads_created` ON `leads` (`campaign_id`,`created_at`,`seq`);--> statement-breakpoint
CREATE INDEX `leads_tag_created` ON `leads` (`campaign_id`,`tag`,`created_at`,`seq`);--> statement-breakpoint
CREATE INDEX `leads_tag_tagged` ON `leads` (`campaign_id`,`tag`,`tagged_at`,`seq`);--> statement-breakpoint
CREATE INDEX `leads_replied_created` ON `leads` (`campaign_id`,`replied`,`created_at`,`seq`);--> statement-breakpoint
CREATE INDEX `leads_replied_replied` ON `leads` (`campaign_id`,`replied`,`replied_at`,`seq`);--> statement-breakpoint
CREATE INDEX `leads_replied_inbound` ON `leads` (`campaign_id`,`replied`,`last_inbound_message_at`,`seq`);--> statement-breakpoint
CREATE INDEX `leads_inbound` ON `leads` (`campaign_id`,`last_inbound_message_at`,`seq`);--> statement-breakpoint
CREATE INDEX `leads_needs_reply_created` ON `leads` (`campaign_id`,`needs_reply`,`created_at`,`seq`);--> statement-breakpoint
CREATE INDEX `leads_excluded_created` ON `leads` (`campaign_id`,`excluded`,`created_at`,`seq`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`disabled_reason` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`created_at` integer NOT NULL,
	`payload` text NOT NULL,
	`fanned_out_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_events_id_unique` ON `webhook_events` (`id`);--> statement-breakpoint
CREATE INDEX `webhook_events_fanout` ON `webhook_events` (`fanned_out_at`,`seq`);--> statement-breakpoint
CREATE TABLE `workspace` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`plan` text NOT NULL,
	`plan_id` text NOT NULL,
	`plan_active` integer DEFAULT true NOT NULL,
	`white_label_isolated` integer DEFAULT false NOT NULL,
	`blocked` integer DEFAULT false NOT NULL,
	`cursor_secret` text NOT NULL,
	`webhook_secret` text,
	`replies_received` integer DEFAULT 0 NOT NULL,
	`connection_requests_sent` integer DEFAULT 0 NOT NULL,
	`connection_requests_accepted` integer DEFAULT 0 NOT NULL,
	`messages_sent` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
