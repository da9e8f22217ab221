ALTER TABLE `drafts` ADD `revision` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `drafts` ADD `skip_reason` text;--> statement-breakpoint
ALTER TABLE `drafts` ADD `approved_at` integer;--> statement-breakpoint
-- The draft state machine gains `skipped` (DRAFT_TRANSITIONS in src/core/drafts/store.ts): a
-- pending or approved draft whose step can no longer be sent ends skipped, with its reason. A
-- claimed draft (on the wire) may end skipped too, when the provider refused the words.
DROP TRIGGER IF EXISTS `drafts_status_transition_guard`;--> statement-breakpoint
CREATE TRIGGER `drafts_status_transition_guard` BEFORE UPDATE OF `status` ON `drafts` WHEN NEW.`status` IS NOT OLD.`status` AND NOT (
  (OLD.`status` = 'pending' AND NEW.`status` IN ('approved', 'rejected', 'skipped') AND OLD.`sending_intent_id` IS NULL)
  OR (OLD.`status` = 'approved' AND NEW.`status` IN ('rejected', 'pending') AND OLD.`sending_intent_id` IS NULL)
  OR (OLD.`status` = 'approved' AND NEW.`status` = 'sent' AND OLD.`sending_intent_id` IS NOT NULL)
  OR (OLD.`status` = 'approved' AND NEW.`status` = 'skipped')
) BEGIN SELECT RAISE(ABORT, 'this change of a draft''s status is not a transition of the draft state machine (DRAFT_TRANSITIONS in src/core/drafts/store.ts)'); END;--> statement-breakpoint
-- A skipped draft says why, and only a skipped one has a reason.
CREATE TRIGGER `drafts_skip_reason_guard` BEFORE UPDATE ON `drafts` WHEN drafts_writer() AND (NEW.`status` = 'skipped') IS NOT (NEW.`skip_reason` IS NOT NULL) BEGIN SELECT RAISE(ABORT, 'a skipped draft has a skip_reason, and no other draft has one'); END;--> statement-breakpoint
CREATE TRIGGER `drafts_insert_revision_guard` BEFORE INSERT ON `drafts` WHEN drafts_writer() AND (NEW.`revision` IS NOT 1 OR NEW.`skip_reason` IS NOT NULL) BEGIN SELECT RAISE(ABORT, 'a draft starts at revision 1, with no skip_reason'); END;--> statement-breakpoint
-- (The guards below hold for a writer through the gate; without it, the writer guards of 0019 refuse first.)
-- Revisions: each change of a draft's words moves its revision by exactly one, and nothing else
-- moves it. A writer that guards its change by the revision it read (compare-and-set) therefore
-- never overwrites words it did not see.
CREATE TRIGGER `drafts_revision_guard` BEFORE UPDATE ON `drafts` WHEN drafts_writer() AND NEW.`revision` IS NOT (
  OLD.`revision` + CASE WHEN NEW.`text` IS NOT OLD.`text` OR NEW.`subject` IS NOT OLD.`subject` THEN 1 ELSE 0 END
) BEGIN SELECT RAISE(ABORT, 'a draft''s revision grows by one with each change of its text or subject, and only then'); END;
