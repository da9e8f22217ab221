import { useEffect, useId, useRef, useState } from 'react';
import { useCan } from '../../access.js';
import { useToolMutation } from '../../hooks.js';
import { notOffered, useOffered } from '../../offered.js';
import { LEAD_TAGS, type LeadTag } from '../../types.js';
import { ErrorNote } from '../Feedback.js';
import type { Selection } from './useSelection.js';
import '../forms.css';

const INVALIDATES = ['list_leads', 'search_leads', 'get_campaign', 'list_campaigns'] as const;

/**
 * Tag, exclude, include and delete the selected leads through the batch tools (100 at most per
 * call, as the tools take). Delete asks first, and focus goes to the question and back. A done
 * action unticks its leads, so the next action (a delete) is on the leads ticked since.
 */
export function BulkActions({ campaignId, selection }: { campaignId: string; selection: Selection }) {
  const id = useId();
  const [bulkTag, setBulkTag] = useState('');
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const deleteButtonRef = useRef<HTMLButtonElement>(null);
  const update = useToolMutation('update_leads_batch', INVALIDATES);
  const remove = useToolMutation('delete_leads_batch', INVALIDATES);
  const { offers } = useOffered();
  const canUpdate = useCan('update_leads_batch');
  const canDelete = useCan('delete_leads_batch');

  useEffect(() => {
    if (confirmingDelete) confirmRef.current?.focus();
  }, [confirmingDelete]);

  const chosen = selection.ids;
  const updateEach = (change: { tag?: LeadTag | null; excluded?: boolean }, verb: string) =>
    update.mutate(
      { campaignId, updates: chosen.map((leadId) => ({ leadId, ...change })) },
      {
        onSuccess: (r) => {
          setNotice(`${verb} ${r.summary.updated} of ${r.summary.total} leads.`);
          selection.done(chosen);
        },
      },
    );
  const applyTag = () => {
    if (bulkTag) updateEach({ tag: bulkTag === '__clear' ? null : (bulkTag as LeadTag) }, 'Tagged');
  };
  const confirmDelete = () =>
    remove.mutate(
      { campaignId, leadIds: chosen },
      {
        onSuccess: (r) => {
          setNotice(`Deleted ${r.summary.deleted} of ${r.summary.total} leads.`);
          setConfirmingDelete(false);
          selection.done(chosen);
          deleteButtonRef.current?.focus();
        },
      },
    );
  const updating = update.isPending || !offers('update_leads_batch');

  return (
    <>
      <div className="o-row" role="group" aria-label="Bulk actions on selected leads">
        <span aria-live="polite">{selection.size} selected</span>
        {canUpdate ? (
          <>
            <label htmlFor={`${id}-bulktag`} className="sr-only">
              Tag to apply
            </label>
            <select id={`${id}-bulktag`} className="o-select" value={bulkTag} onChange={(e) => setBulkTag(e.target.value)}>
              <option value="">Choose a tag…</option>
              {LEAD_TAGS.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
              <option value="__clear">Clear tag</option>
            </select>
            {(
              [
                ['Apply tag', !bulkTag, applyTag],
                ['Exclude', false, () => updateEach({ excluded: true }, 'Excluded')],
                ['Include', false, () => updateEach({ excluded: false }, 'Included')],
              ] as const
            ).map(([label, notReady, onClick]) => (
              <button
                key={label}
                type="button"
                className="o-button"
                disabled={!selection.size || notReady || updating}
                title={notOffered(offers, 'update_leads_batch')}
                onClick={onClick}
              >
                {label}
              </button>
            ))}
          </>
        ) : null}
        {canDelete ? (
          <button
            ref={deleteButtonRef}
            type="button"
            className="o-button"
            disabled={!selection.size || remove.isPending || !offers('delete_leads_batch')}
            title={notOffered(offers, 'delete_leads_batch')}
            onClick={() => setConfirmingDelete(true)}
          >
            Delete…
          </button>
        ) : null}
      </div>
      {confirmingDelete ? (
        <div role="alertdialog" aria-labelledby={`${id}-confirm`} className="o-alert o-alert-warning">
          <p id={`${id}-confirm`}>
            Delete {selection.size} lead{selection.size === 1 ? '' : 's'} permanently? Credits spent on them are not refunded, and this cannot be undone.
          </p>
          <div className="o-row">
            <button ref={confirmRef} type="button" className="o-button o-button-danger" disabled={remove.isPending} onClick={confirmDelete}>
              Delete permanently
            </button>
            <button
              type="button"
              className="o-button"
              onClick={() => {
                setConfirmingDelete(false);
                deleteButtonRef.current?.focus();
              }}
            >
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      {notice ? (
        <p role="status" className="o-alert o-alert-success">
          {notice}
        </p>
      ) : null}
      <ErrorNote error={update.error} prefix="Could not update" />
      <ErrorNote error={remove.error} prefix="Could not delete" />
    </>
  );
}
