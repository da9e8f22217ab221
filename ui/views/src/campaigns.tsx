import { useId, useState } from 'react';
import { CampaignCard, ErrorNote, Untrusted } from '../../shared/components/index.js';
import { StepFunnel } from '../../shared/components/StepFunnel.js';
import { useOffered } from '../../shared/offered.js';
import { unwrap, useCallTool, type ToolError } from '../../shared/seam.js';
import type { Campaign, ToolOutput } from '../../shared/types.js';
import { mountView, type ViewProps } from './shell.js';

type CampaignPage = ToolOutput<'list_campaigns'>;

/** list_campaigns hands a page, get_campaign one campaign: the same cards either way. */
const isPage = (data: CampaignPage | Campaign): data is CampaignPage => Array.isArray((data as CampaignPage).campaigns);

/**
 * A campaign's card, and under it its step funnel where the connection offers get_agent_stats
 * (the manage tool set): at once for one campaign, on demand for each card of a page, so a page
 * of campaigns costs no call until someone asks.
 */
function CampaignWithSteps({ campaign, single }: { campaign: Campaign; single: boolean }) {
  const id = useId();
  const { offers } = useOffered();
  const [open, setOpen] = useState(single);
  const agentId = campaign.assignedTemplateId;
  const offered = agentId !== null && offers('get_agent_stats');
  return (
    <div>
      <CampaignCard campaign={campaign}>
        {offered && !single ? (
          <button type="button" className="o-button" aria-expanded={open} aria-controls={`${id}-steps`} onClick={() => setOpen((o) => !o)}>
            {open ? 'Hide the steps of' : 'Show the steps of'} <Untrusted>{campaign.name}</Untrusted>
          </button>
        ) : null}
      </CampaignCard>
      {offered && open ? (
        <section id={`${id}-steps`} className="o-card" aria-labelledby={`${id}-h`}>
          <h3 id={`${id}-h`}>
            Steps and variants of <Untrusted>{campaign.name}</Untrusted>
          </h3>
          <StepFunnel agentId={agentId} campaignId={campaign.id} />
        </section>
      ) : null}
      {single && agentId !== null && !offered ? (
        <p className="o-muted">Per-step counts and A/B variants need a connection with the manage tool set (get_agent_stats).</p>
      ) : null}
    </div>
  );
}

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
  const single = !isPage(data);
  return (
    <section className="o-stack" aria-labelledby="campaigns-h">
      <h2 id="campaigns-h">{single ? 'Campaign' : 'Campaigns'}</h2>
      {campaigns.length === 0 ? <p className="o-muted">No campaign matches.</p> : null}
      {campaigns.map((c) => (
        <CampaignWithSteps key={c.id} campaign={c} single={single} />
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
