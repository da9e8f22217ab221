-- One writer of drafts (src/db/drafts-writer.ts): every insert, change and delete needs the gate
-- that only src/core/drafts/store.ts opens.
CREATE TRIGGER `drafts_writer_insert_guard` BEFORE INSERT ON `drafts` WHEN NOT drafts_writer() BEGIN SELECT RAISE(ABORT, 'drafts are written only by the drafts store (src/core/drafts/store.ts)'); END;--> statement-breakpoint
CREATE TRIGGER `drafts_writer_update_guard` BEFORE UPDATE ON `drafts` WHEN NOT drafts_writer() BEGIN SELECT RAISE(ABORT, 'drafts are written only by the drafts store (src/core/drafts/store.ts)'); END;--> statement-breakpoint
CREATE TRIGGER `drafts_writer_delete_guard` BEFORE DELETE ON `drafts` WHEN NOT drafts_writer() BEGIN SELECT RAISE(ABORT, 'drafts are deleted only by the drafts store (src/core/drafts/store.ts)'); END;--> statement-breakpoint
-- The draft state machine (DRAFT_TRANSITIONS in src/core/drafts/store.ts), held for every writer:
-- a draft starts pending or approved; pending -> approved | rejected; approved -> rejected |
-- pending | sent; sent and rejected are final; a claimed draft (on the wire) only becomes sent,
-- and only a claimed one does.
CREATE TRIGGER `drafts_status_insert_guard` BEFORE INSERT ON `drafts` WHEN NEW.`status` NOT IN ('pending', 'approved') BEGIN SELECT RAISE(ABORT, 'a draft starts pending or approved'); END;--> statement-breakpoint
CREATE TRIGGER `drafts_status_transition_guard` BEFORE UPDATE OF `status` ON `drafts` WHEN NEW.`status` IS NOT OLD.`status` AND NOT (
  (OLD.`status` = 'pending' AND NEW.`status` IN ('approved', 'rejected') AND OLD.`sending_intent_id` IS NULL)
  OR (OLD.`status` = 'approved' AND NEW.`status` IN ('rejected', 'pending') AND OLD.`sending_intent_id` IS NULL)
  OR (OLD.`status` = 'approved' AND NEW.`status` = 'sent' AND OLD.`sending_intent_id` IS NOT NULL)
) BEGIN SELECT RAISE(ABORT, 'this change of a draft''s status is not a transition of the draft state machine (DRAFT_TRANSITIONS in src/core/drafts/store.ts)'); END;
--> statement-breakpoint
-- A campaign's senders are kept with it in the engine's cache (src/db/cache.ts): changing them
-- moves the campaigns counter, as a change of its status or agent does.
DROP TRIGGER IF EXISTS `campaigns_update_counter`;--> statement-breakpoint
CREATE TRIGGER `campaigns_update_counter` AFTER UPDATE OF `status`, `assigned_template_id`, `sender_account_ids` ON `campaigns` BEGIN UPDATE `change_counters` SET `value` = random() >> 11 WHERE `name` = 'campaigns'; END;
