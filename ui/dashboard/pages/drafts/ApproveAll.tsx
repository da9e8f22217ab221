import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Confirm } from '../../../shared/components/Confirm.js';
import { ErrorNote } from '../../../shared/components/Feedback.js';
import { kindsInWords } from '../../../shared/drafts.js';
import { formatNumber } from '../../../shared/format.js';
import { useToolMutation } from '../../../shared/hooks.js';
import type { ApprovePreview } from '../../../shared/types.js';

/**
 * "Approve all N matching": every draft of the campaign that waits, across all pages, in one
 * server-side approval. The preview names what would be sent (per sender, per kind) and hands
 * back a token; the approval takes the token, so it approves no more than the reviewer was
 * shown. Drafts that changed after the preview stay pending, and the result says how many.
 */
export function ApproveAllMatching({ campaignId, pending, onResult }: { campaignId: string; pending: number; onResult: (words: string | null) => void }) {
  const client = useQueryClient();
  const preview = useToolMutation('preview_approve_drafts');
  const approve = useToolMutation('approve_matching_drafts', ['list_drafts', 'list_draft_queues']);
  const [shown, setShown] = useState<ApprovePreview | null>(null);
  if (pending === 0 && !shown) return null;
  return (
    <>
      <button
        type="button"
        className="o-button"
        disabled={preview.isPending || approve.isPending || pending === 0}
        onClick={() => {
          onResult(null);
          approve.reset();
          preview.mutate({ campaignId }, { onSuccess: (p) => setShown(p) });
        }}
      >
        Approve all {formatNumber(pending)} matching…
      </button>
      <ErrorNote error={preview.error} prefix="Could not count the drafts" />
      <ErrorNote error={approve.error} prefix="Could not approve" />
      {shown ? (
        shown.count === 0 ? (
          <p role="status" className="o-muted">
            No draft waits for approval in this campaign any more.
          </p>
        ) : (
          <Confirm
            title={`Approve all ${formatNumber(shown.count)} waiting ${shown.count === 1 ? 'draft' : 'drafts'} of this campaign?`}
            confirmLabel={`Approve and send ${kindsInWords(shown.kinds)}`}
            busy={approve.isPending}
            onCancel={() => setShown(null)}
            onConfirm={() => {
              const token = shown.token;
              // A promise, not mutate's own callbacks: those do not run once this button is gone
              // (it goes with the queue's last draft), and the page must still say what happened.
              approve
                .mutateAsync({ campaignId, token })
                .then((r) => {
                  setShown(null);
                  onResult(
                    `Approved ${formatNumber(r.approved)}.${
                      r.leftPending > 0 ? ` ${formatNumber(r.leftPending)} left waiting: they changed or arrived after the count; review them below.` : ''
                    }`,
                  );
                  void client.invalidateQueries({ queryKey: ['list_drafts'] });
                })
                .catch(() => {
                  // Shown by the ErrorNote above, from the mutation's own state.
                });
            }}
          >
            <p>On every page, not only this one. The engine will send {kindsInWords(shown.kinds)}, exactly as they stand:</p>
            <ul>
              {shown.accounts.map((a) => (
                <li key={a.accountId}>
                  {formatNumber(a.count)} from {a.name ?? `account ${a.accountId}`}
                </li>
              ))}
            </ul>
          </Confirm>
        )
      ) : null}
    </>
  );
}
