import { useState } from 'react';
import { CampaignCard, ErrorNote } from '../../shared/components/index.js';
import { useOffered } from '../../shared/offered.js';
import { unwrap, useCallTool, type ToolError } from '../../shared/seam.js';
import type { Campaign, ToolOutput } from '../../shared/types.js';
import { mountView, type ViewProps } from './shell.js';

type CampaignPage = ToolOutput<'list_campaigns'>;

/** list_campaigns hands a page, get_campaign one campaign: the same cards either way. */
const isPage = (data: CampaignPage | Campaign): data is CampaignPage => Array.isArray((data as CampaignPage).campaigns);

function Campaigns({ data, args }: ViewProps<CampaignPage | Campaign>) {
  const callTool = useCallTool();
  const { offers } = useOffered();
  const first = isPage(data) ? data : { campaigns: [data], nextCursor: null };
  const [more, setMore] = useState<CampaignPage>({ campaigns: [], nextCursor: first.nextCursor });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ToolError | null>(null);
  const next = async () => {
    if (!more.nextCursor) return;
    setBusy(true);
    setError(null);
    try {
      const page = unwrap<CampaignPage>(await callTool('list_campaigns', { ...args, cursor: more.nextCursor }));
      setMore((prev) => ({ campaigns: [...prev.campaigns, ...page.campaigns], nextCursor: page.nextCursor }));
    } catch (err) {
      setError(err as ToolError);
    } finally {
      setBusy(false);
    }
  };
  const campaigns = [...first.campaigns, ...more.campaigns];
  return (
    <section className="o-stack" aria-labelledby="campaigns-h">
      <h2 id="campaigns-h">{isPage(data) ? 'Campaigns' : 'Campaign'}</h2>
      {campaigns.length === 0 ? <p className="o-muted">No campaign matches.</p> : null}
      {campaigns.map((c) => (
        <CampaignCard key={c.id} campaign={c} />
      ))}
      {more.nextCursor ? (
        <div className="o-row">
          <button type="button" className="o-button" disabled={busy || !offers('list_campaigns')} onClick={() => void next()}>
            More campaigns
          </button>
        </div>
      ) : null}
      <ErrorNote error={error} prefix="Could not load more campaigns" />
    </section>
  );
}

mountView<CampaignPage | Campaign>({ name: 'campaigns', waiting: 'Waiting for the campaigns…', render: (props) => <Campaigns {...props} /> });
