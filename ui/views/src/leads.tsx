import { LeadsTable } from '../../shared/components/LeadsTable.js';
import { alsoStale } from '../../shared/live.js';
import type { ListLeadsResult, ToolArgs } from '../../shared/types.js';
import { HostChanges } from './live.js';
import { mountView, type ViewProps } from './shell.js';

// A lead's status and its campaign's counters move together (a `campaign` change), and a reply
// or a sent message (a `conversation` change of one of its leads) moves its status too.
alsoStale({ campaign: ['list_leads'], conversation: ['list_leads'] });

/**
 * The page the host's call returned, kept current: the view follows its campaign's changes
 * (./live.tsx), and a change makes the table's list_leads read stale, so the page shown (with
 * the filter, sort and page the user chose) is read again through the host.
 */
function Leads({ data, args }: ViewProps<ListLeadsResult>) {
  // Leads do not carry their campaign; the host hands over the call's arguments, which do.
  const campaignId = typeof args.campaignId === 'string' ? args.campaignId : null;
  if (!campaignId) return <p className="o-muted">The host did not pass the campaign of these leads, so the table cannot page or change them.</p>;
  // The table opens on the call's filter, sort and page size, so the handed page is shown as is.
  return <LeadsTable campaignId={campaignId} initial={data} initialArgs={{ ...args, campaignId } as ToolArgs<'list_leads'>} />;
}

mountView<ListLeadsResult>({ name: 'leads', waiting: 'Waiting for the leads…', render: (props) => <Leads {...props} />, follow: HostChanges });
