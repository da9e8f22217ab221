-- The lead search indexes of 0011 hold only the leads that have the key: a lead with no name (added
-- by its profile URL alone) is in neither name index, and a lead with no company is not in the
-- company index. Naming such a lead (enrichment, src/core/outreach/enrich.ts) is then one insert
-- into each index instead of a move out of the crowd of blank keys. The key expressions are those
-- of 0011, unchanged; each condition is `<key> <> ''` (false for NULL too), and the search
-- statements (src/db/sql/leads.ts, SEARCH_EXPRESSIONS) state the same condition, which is what
-- lets SQLite use a partial index (the plan test in test/leads/search.test.ts fails otherwise). A
-- search for a non-empty prefix never matched a blank key, so its results are the same.
DROP INDEX IF EXISTS `leads_search_name`;--> statement-breakpoint
DROP INDEX IF EXISTS `leads_search_last_name`;--> statement-breakpoint
DROP INDEX IF EXISTS `leads_search_company`;--> statement-breakpoint
CREATE INDEX `leads_search_name` ON `leads` (`campaign_id`, coalesce(nullif(trim(full_name), ''), trim(coalesce(trim(first_name), '') || ' ' || coalesce(trim(last_name), ''))) COLLATE NOCASE) WHERE coalesce(nullif(trim(full_name), ''), trim(coalesce(trim(first_name), '') || ' ' || coalesce(trim(last_name), ''))) <> '';--> statement-breakpoint
CREATE INDEX `leads_search_last_name` ON `leads` (`campaign_id`, coalesce(nullif(trim(last_name), ''), nullif(substr(trim(full_name), instr(trim(full_name), ' ') + 1), trim(full_name))) COLLATE NOCASE) WHERE coalesce(nullif(trim(last_name), ''), nullif(substr(trim(full_name), instr(trim(full_name), ' ') + 1), trim(full_name))) <> '';--> statement-breakpoint
CREATE INDEX `leads_search_company` ON `leads` (`campaign_id`, trim(company_name) COLLATE NOCASE) WHERE trim(company_name) <> '';
