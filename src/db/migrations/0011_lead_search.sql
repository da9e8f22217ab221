-- Lead search within a campaign (src/core/leads/search.ts, search_leads). Expression indexes,
-- written here because drizzle-kit splits an index expression at its commas; each expression
-- must stay identical to its twin in search.ts, or SQLite stops using the index (the plan test
-- in test/leads/search.test.ts fails then).
CREATE INDEX `leads_search_name` ON `leads` (`campaign_id`, coalesce(nullif(trim(full_name), ''), trim(coalesce(trim(first_name), '') || ' ' || coalesce(trim(last_name), ''))) COLLATE NOCASE);--> statement-breakpoint
CREATE INDEX `leads_search_last_name` ON `leads` (`campaign_id`, coalesce(nullif(trim(last_name), ''), nullif(substr(trim(full_name), instr(trim(full_name), ' ') + 1), trim(full_name))) COLLATE NOCASE);--> statement-breakpoint
CREATE INDEX `leads_search_company` ON `leads` (`campaign_id`, trim(company_name) COLLATE NOCASE);
