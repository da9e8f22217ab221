ALTER TABLE `leads` ADD `polite_close_pending_at` integer;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_credit_balance` (
	`id` integer PRIMARY KEY NOT NULL,
	`credits` integer DEFAULT 0 NOT NULL,
	`top_up_credits` integer DEFAULT 0 NOT NULL,
	`lookalike_credits` integer DEFAULT 0 NOT NULL,
	`lookalike_top_up_credits` integer DEFAULT 0 NOT NULL,
	CONSTRAINT "credit_balance_credits_nonnegative" CHECK("__new_credit_balance"."credits" >= 0),
	CONSTRAINT "credit_balance_top_up_nonnegative" CHECK("__new_credit_balance"."top_up_credits" >= 0),
	CONSTRAINT "credit_balance_lookalike_nonnegative" CHECK("__new_credit_balance"."lookalike_credits" >= 0),
	CONSTRAINT "credit_balance_lookalike_top_up_nonnegative" CHECK("__new_credit_balance"."lookalike_top_up_credits" >= 0)
);
--> statement-breakpoint
INSERT INTO `__new_credit_balance`("id", "credits", "top_up_credits", "lookalike_credits", "lookalike_top_up_credits") SELECT "id", "credits", "top_up_credits", "lookalike_credits", "lookalike_top_up_credits" FROM `credit_balance`;--> statement-breakpoint
DROP TABLE `credit_balance`;--> statement-breakpoint
ALTER TABLE `__new_credit_balance` RENAME TO `credit_balance`;--> statement-breakpoint
PRAGMA foreign_keys=ON;