import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useTool, useToolMutation } from '../hooks.js';
import { notOffered, useOffered } from '../offered.js';
import { formatWhen } from '../format.js';
import { LEAD_SORT_LABELS, LEAD_TAGS, type Lead, type LeadSort, type LeadTag, type ListLeadsResult, type ToolArgs } from '../types.js';
import { ErrorNote, Loading } from './Feedback.js';

/** The one filter list_leads allows at a time. */
export type LeadFilter =
  | { kind: 'none' }
  | { kind: 'tag'; tag: LeadTag }
  | { kind: 'replied'; value: boolean }
  | { kind: 'needsReply'; value: boolean }
  | { kind: 'excluded' };

/** The sorts list_leads accepts with each filter (its sort matrix); others are refused by the server. */
const SORTS_BY_FILTER: Record<LeadFilter['kind'], readonly LeadSort[]> = {
  none: ['createdAt', 'lastInboundMessageAt'],
  tag: ['createdAt', 'taggedAt'],
  replied: ['createdAt', 'repliedAt', 'lastInboundMessageAt'],
  needsReply: ['createdAt'],
  excluded: ['createdAt'],
};

const FILTER_OPTIONS: { value: string; label: string; filter: LeadFilter }[] = [
  { value: 'none', label: 'All leads', filter: { kind: 'none' } },
  { value: 'needsReply:true', label: 'Needs reply', filter: { kind: 'needsReply', value: true } },
  { value: 'needsReply:false', label: 'Does not need reply', filter: { kind: 'needsReply', value: false } },
  { value: 'replied:true', label: 'Replied', filter: { kind: 'replied', value: true } },
  { value: 'replied:false', label: 'Not replied', filter: { kind: 'replied', value: false } },
  { value: 'excluded', label: 'Excluded', filter: { kind: 'excluded' } },
  ...LEAD_TAGS.map((tag) => ({ value: `tag:${tag}`, label: `Tag: ${tag}`, filter: { kind: 'tag', tag } as LeadFilter })),
];

const filterValue = (f: LeadFilter): string =>
  f.kind === 'none' ? 'none' : f.kind === 'excluded' ? 'excluded' : f.kind === 'tag' ? `tag:${f.tag}` : `${f.kind}:${String(f.value)}`;

/** list_leads arguments for a filter, sort and page. */
export function leadsArgs(campaignId: string, filter: LeadFilter, sort: LeadSort, cursor: string | null, limit = 50): ToolArgs<'list_leads'> {
  const args: ToolArgs<'list_leads'> = { campaignId, sort, limit };
  if (filter.kind === 'tag') args.tag = filter.tag;
  if (filter.kind === 'replied') args.replied = filter.value;
  if (filter.kind === 'needsReply') args.needsReply = filter.value;
  if (filter.kind === 'excluded') args.excluded = true;
  if (cursor) args.cursor = cursor;
  return args;
}

export interface LeadsTableProps {
  campaignId: string;
  /** A list_leads result for the first page with no filter and the default sort, when in hand. */
  initial?: ListLeadsResult;
  /**
   * The list_leads arguments `initial` answered (a view's handed call): the table opens on
   * its filter, sort and page size, so the handed page is shown as is, with no first call.
   */
  initialArgs?: ToolArgs<'list_leads'>;
  pageSize?: number;
  /** Shown per row, e.g. a link to the inbox thread. */
  rowAction?: (lead: Lead) => React.ReactNode;
}

/**
 * A campaign's leads: list_leads with one filter, a sort from its matrix, keyset paging, and
 * bulk tag / exclude / delete (delete asks first) through the batch tools.
 */
/** The table's filter for a list_leads call: the one filter it carries, if any. */
export function filterOf(args: ToolArgs<'list_leads'> | undefined): LeadFilter {
  if (args?.tag) return { kind: 'tag', tag: args.tag };
  if (args?.replied !== undefined) return { kind: 'replied', value: args.replied };
  if (args?.needsReply !== undefined) return { kind: 'needsReply', value: args.needsReply };
  if (args?.excluded) return { kind: 'excluded' };
  return { kind: 'none' };
}

export function LeadsTable({ campaignId, initial, initialArgs, pageSize: pageSizeProp, rowAction }: LeadsTableProps) {
  const ids = useId();
  const pageSize = pageSizeProp ?? initialArgs?.limit ?? 50;
  const [initialFilter] = useState<LeadFilter>(() => filterOf(initialArgs));
  const [initialSort] = useState<LeadSort>(() => initialArgs?.sort ?? 'createdAt');
  const [filter, setFilter] = useState<LeadFilter>(initialFilter);
  const [sort, setSort] = useState<LeadSort>(initialSort);
  // Keyset paging: the cursors of the pages before this one, so Previous can go back.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulkTag, setBulkTag] = useState<string>('');
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const deleteButtonRef = useRef<HTMLButtonElement>(null);

  const args = useMemo(() => leadsArgs(campaignId, filter, sort, cursor, pageSize), [campaignId, filter, sort, cursor, pageSize]);
  const isInitialPage = filterValue(filter) === filterValue(initialFilter) && sort === initialSort && cursor === null;
  const page = useTool('list_leads', args, { keepPrevious: true, ...(initial && isInitialPage ? { initialData: initial } : {}) });

  const invalidates = ['list_leads', 'get_campaign', 'list_campaigns'] as const;
  const update = useToolMutation('update_leads_batch', invalidates);
  const remove = useToolMutation('delete_leads_batch', invalidates);
  const { offers } = useOffered();

  useEffect(() => {
    if (confirmingDelete) confirmRef.current?.focus();
  }, [confirmingDelete]);

  const resetPaging = () => {
    setCursors([null]);
    setSelected(new Set());
  };
  const changeFilter = (value: string) => {
    const next = FILTER_OPTIONS.find((o) => o.value === value)?.filter ?? { kind: 'none' };
    setFilter(next);
    if (!SORTS_BY_FILTER[next.kind].includes(sort)) setSort('createdAt');
    resetPaging();
  };

  const leads = page.data?.leads ?? [];
  const allOnPage = leads.length > 0 && leads.every((l) => selected.has(l.id));
  const toggle = (id: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const toggleAll = () => setSelected(allOnPage ? new Set() : new Set(leads.map((l) => l.id)));

  const chosen = [...selected];
  const applyTag = () => {
    if (!bulkTag) return;
    const tag = bulkTag === '__clear' ? null : (bulkTag as LeadTag);
    update.mutate(
      { campaignId, updates: chosen.map((leadId) => ({ leadId, tag })) },
      { onSuccess: (r) => setNotice(`Tagged ${r.summary.updated} of ${r.summary.total} leads.`) },
    );
  };
  const exclude = () =>
    update.mutate(
      { campaignId, updates: chosen.map((leadId) => ({ leadId, excluded: true })) },
      { onSuccess: (r) => setNotice(`Excluded ${r.summary.updated} of ${r.summary.total} leads.`) },
    );
  const confirmDelete = () =>
    remove.mutate(
      { campaignId, leadIds: chosen },
      {
        onSuccess: (r) => {
          setNotice(`Deleted ${r.summary.deleted} of ${r.summary.total} leads.`);
          setConfirmingDelete(false);
          setSelected(new Set());
          deleteButtonRef.current?.focus();
        },
      },
    );

  return (
    <section aria-labelledby={`${ids}-h`} className="o-stack">
      <h2 id={`${ids}-h`}>Leads</h2>
      <div className="o-row">
        <div className="o-field">
          <label htmlFor={`${ids}-filter`}>Show</label>
          <select id={`${ids}-filter`} className="o-select" value={filterValue(filter)} onChange={(e) => changeFilter(e.target.value)}>
            {FILTER_OPTIONS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
        <div className="o-field">
          <label htmlFor={`${ids}-sort`}>Sort by (newest first)</label>
          <select
            id={`${ids}-sort`}
            className="o-select"
            value={sort}
            onChange={(e) => {
              setSort(e.target.value as LeadSort);
              resetPaging();
            }}
          >
            {SORTS_BY_FILTER[filter.kind].map((s) => (
              <option key={s} value={s}>
                {LEAD_SORT_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
      </div>

      <div className="o-row" role="group" aria-label="Bulk actions on selected leads">
        <span aria-live="polite">{selected.size} selected</span>
        <label htmlFor={`${ids}-bulktag`} className="sr-only">
          Tag to apply
        </label>
        <select id={`${ids}-bulktag`} className="o-select" value={bulkTag} onChange={(e) => setBulkTag(e.target.value)}>
          <option value="">Choose a tag…</option>
          {LEAD_TAGS.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
          <option value="__clear">Clear tag</option>
        </select>
        <button
          type="button"
          className="o-button"
          disabled={!selected.size || !bulkTag || update.isPending || !offers('update_leads_batch')}
          title={notOffered(offers, 'update_leads_batch')}
          onClick={applyTag}
        >
          Apply tag
        </button>
        <button
          type="button"
          className="o-button"
          disabled={!selected.size || update.isPending || !offers('update_leads_batch')}
          title={notOffered(offers, 'update_leads_batch')}
          onClick={exclude}
        >
          Exclude
        </button>
        <button
          ref={deleteButtonRef}
          type="button"
          className="o-button"
          disabled={!selected.size || remove.isPending || !offers('delete_leads_batch')}
          title={notOffered(offers, 'delete_leads_batch')}
          onClick={() => setConfirmingDelete(true)}
        >
          Delete…
        </button>
      </div>
      {confirmingDelete ? (
        <div role="alertdialog" aria-labelledby={`${ids}-confirm`} className="o-alert o-alert-warning">
          <p id={`${ids}-confirm`}>
            Delete {selected.size} lead{selected.size === 1 ? '' : 's'} permanently? Credits spent on them are not refunded, and this cannot be undone.
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
      <ErrorNote error={page.error} />

      {page.isPending ? <Loading label="Loading leads…" /> : null}
      {page.data ? (
        <div className="o-table-wrap">
          <table className="o-table" aria-busy={page.isFetching}>
            <caption className="sr-only">Leads of this campaign, page {cursors.length}</caption>
            <thead>
              <tr>
                <th scope="col">
                  <input type="checkbox" aria-label="Select every lead on this page" checked={allOnPage} onChange={toggleAll} />
                </th>
                <th scope="col">Name</th>
                <th scope="col">Title and company</th>
                <th scope="col">Stage</th>
                <th scope="col">Tag</th>
                <th scope="col">Replied</th>
                {rowAction ? (
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {leads.length === 0 ? (
                <tr>
                  <td colSpan={rowAction ? 7 : 6} className="o-muted">
                    No leads match.
                  </td>
                </tr>
              ) : null}
              {leads.map((lead) => {
                const name = lead.fullName ?? lead.networkUrl ?? lead.id;
                return (
                  <tr key={lead.id}>
                    <td>
                      <input type="checkbox" aria-label={`Select ${name}`} checked={selected.has(lead.id)} onChange={() => toggle(lead.id)} />
                    </td>
                    <td>
                      {lead.networkUrl ? (
                        <a href={lead.networkUrl} target="_blank" rel="noreferrer noopener">
                          {name}
                        </a>
                      ) : (
                        name
                      )}
                      {lead.excluded ? <span className="o-badge"> excluded</span> : null}
                    </td>
                    <td>{[lead.jobTitle, lead.companyName].filter(Boolean).join(' · ') || '—'}</td>
                    <td>{lead.stage.replace(/_/g, ' ')}</td>
                    <td>{lead.tag ?? '—'}</td>
                    <td>
                      {lead.replied ? formatWhen(lead.repliedAt) : 'No'}
                      {lead.needsReply ? <span className="o-badge o-badge-paused"> needs reply</span> : null}
                    </td>
                    {rowAction ? <td>{rowAction(lead)}</td> : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      <nav className="o-row" aria-label="Lead pages">
        <button type="button" className="o-button" disabled={cursors.length <= 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Previous page
        </button>
        <span>Page {cursors.length}</span>
        <button
          type="button"
          className="o-button"
          disabled={!page.data?.nextCursor || page.isFetching}
          onClick={() => {
            const next = page.data?.nextCursor;
            if (next) setCursors((c) => [...c, next]);
          }}
        >
          Next page
        </button>
      </nav>
    </section>
  );
}
