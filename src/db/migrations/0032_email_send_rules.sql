DROP INDEX `email_sends_mailbox_at`;--> statement-breakpoint
CREATE INDEX `email_sends_mailbox_at_state` ON `email_sends` (`mailbox_id`,`at`,`state`);