import { LeadsTable } from '../../shared/components/LeadsTable.js';
import type { ListLeadsResult, ToolArgs } from '../../shared/types.js';
import { mountView, type ViewProps } from './shell.js';

function Leads({ data, args }: ViewProps<ListLeadsResult>) {
  // Leads do not carry their campaign; the host hands over the call's arguments, which do.
  const campaignId = typeof args.campaignId === 'string' ? args.campaignId : null;
  if (!campaignId) return <p className="o-muted">The host did not pass the campaign of these leads, so the table cannot page or change them.</p>;
  // The table opens on the call's filter, sort and page size, so the handed page is shown as is.
  return <LeadsTable campaignId={campaignId} initial={data} initialArgs={{ ...args, campaignId } as ToolArgs<'list_leads'>} />;
}

mountView<ListLeadsResult>({ name: 'leads', waiting: 'Waiting for the leads…', render: (props) => <Leads {...props} /> });
