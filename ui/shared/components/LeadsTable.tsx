import { useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState, type ReactNode } from 'react';
import { toolKey, useTool } from '../hooks.js';
import type { Lead, LeadSort, ListLeadsResult, ToolArgs } from '../types.js';
import { EmptyState } from './EmptyState.js';
import { ErrorNote, Loading } from './Feedback.js';
import { useCan } from '../access.js';
import { BulkActions } from './leads/BulkActions.js';
import { filterOf, filterValue, leadsArgs, type LeadFilter } from './leads/filters.js';
import { LeadFilterBar } from './leads/LeadFilterBar.js';
import { LeadRows } from './leads/LeadRows.js';
import { LeadSearch } from './leads/LeadSearch.js';
import { useCursorStack } from './leads/useCursorStack.js';
import { useSelection } from './leads/useSelection.js';

export { filterOf, leadsArgs, type LeadFilter } from './leads/filters.js';

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
  rowAction?: (lead: Lead) => ReactNode;
  /** Offer a search box (search_leads, an operator tool: the dashboard only). */
  searchable?: boolean;
  /** The next step when the campaign has no leads yet (a link in the dashboard; words in a view). */
  emptyNext?: ReactNode;
}

/**
 * A campaign's leads: list_leads with one filter, a sort from its matrix and keyset paging, or
 * the matches of a search; bulk tag / exclude / include / delete (delete asks first) through the
 * batch tools, on the leads ticked across pages.
 */
export function LeadsTable({ campaignId, initial, initialArgs, pageSize: pageSizeProp, rowAction, searchable = false, emptyNext }: LeadsTableProps) {
  const ids = useId();
  const pageSize = pageSizeProp ?? initialArgs?.limit ?? 50;
  const [opening] = useState(() => ({ filter: filterOf(initialArgs), sort: initialArgs?.sort ?? ('createdAt' as LeadSort) }));
  const [filter, setFilter] = useState<LeadFilter>(opening.filter);
  const [sort, setSort] = useState<LeadSort>(opening.sort);
  const [query, setQuery] = useState('');
  const paging = useCursorStack();

  const args = useMemo(() => leadsArgs(campaignId, filter, sort, paging.cursor, pageSize), [campaignId, filter, sort, paging.cursor, pageSize]);
  const isOpeningPage = filterValue(filter) === filterValue(opening.filter) && sort === opening.sort && paging.cursor === null;
  const searching = query !== '';
  const page = useTool('list_leads', args, { keepPrevious: true, enabled: !searching, ...(initial && isOpeningPage ? { initialData: initial } : {}) });
  const found = useTool('search_leads', { campaignId, query, limit: pageSize }, { enabled: searching, keepPrevious: true });
  const shown = searching ? found : page;
  const leads = shown.data?.leads ?? [];
  const selection = useSelection(leads.map((l) => l.id));
  // Each read is cached under the arguments it was asked with (filter, sort, page), and the table
  // shows only the entry of the current ones: a re-read of a page the user left (a change made it
  // stale) lands under that page and never replaces what is shown. Leaving a page also cancels
  // its read in flight.
  const client = useQueryClient();
  const leave = () => void client.cancelQueries({ queryKey: toolKey('list_leads', args), exact: true });
  // The dashboard hides the bulk actions from a role that can do neither (a viewer, a reviewer).
  const canUpdate = useCan('update_leads_batch');
  const canDelete = useCan('delete_leads_batch');

  const empty = searching ? (
    <span className="o-muted">No lead’s name, last name or company starts with “{query}”, and no profile URL matches.</span>
  ) : filter.kind !== 'none' || paging.cursor !== null ? (
    <span className="o-muted">No leads match this filter.</span>
  ) : (
    <EmptyState title="This campaign has no leads yet.">{emptyNext ?? 'Add leads (add_lead, add_leads_batch) to start reaching out.'}</EmptyState>
  );

  return (
    <section aria-labelledby={`${ids}-h`} className="o-stack">
      <h2 id={`${ids}-h`}>Leads</h2>
      {searchable ? (
        <LeadSearch
          query={query}
          onSearch={(q) => {
            setQuery(q);
            selection.clear();
          }}
        />
      ) : null}
      {searching ? (
        <p role="status">
          {found.data
            ? `${found.data.leads.length}${found.data.more ? '+' : ''} lead${found.data.leads.length === 1 ? '' : 's'} found for “${query}”.`
            : 'Searching…'}
          {found.data?.more ? ' Type more of the name to narrow them down.' : ''}
        </p>
      ) : (
        <LeadFilterBar
          filter={filter}
          sort={sort}
          onChange={(f, s) => {
            leave();
            setFilter(f);
            setSort(s);
            paging.reset();
            selection.clear();
          }}
        />
      )}
      {canUpdate || canDelete ? <BulkActions campaignId={campaignId} selection={selection} /> : null}
      <ErrorNote error={shown.error} />
      {shown.isPending && !(searching ? found.data : page.data) ? <Loading label={searching ? 'Searching…' : 'Loading leads…'} /> : null}
      {shown.data ? (
        <LeadRows
          leads={leads}
          caption={searching ? `Leads matching ${query}` : `Leads of this campaign, page ${paging.page}`}
          selection={selection}
          busy={shown.isFetching}
          empty={empty}
          rowAction={rowAction}
        />
      ) : null}
      {searching ? null : (
        <nav className="o-row" aria-label="Lead pages">
          <button
            type="button"
            className="o-button"
            disabled={paging.page <= 1}
            onClick={() => {
              leave();
              paging.previous();
            }}
          >
            Previous page
          </button>
          <span>Page {paging.page}</span>
          <button
            type="button"
            className="o-button"
            // Only the page the user asked for, still loading, holds the button: a re-read of
            // the page shown (a change made it stale) does not.
            disabled={!page.data?.nextCursor || page.isPlaceholderData}
            onClick={() => {
              const next = page.data?.nextCursor;
              if (!next) return;
              leave();
              paging.next(next);
            }}
          >
            Next page
          </button>
        </nav>
      )}
    </section>
  );
}
