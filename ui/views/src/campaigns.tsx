import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { CampaignCard } from '../../shared/components/CampaignCard.js';
import { ErrorNote } from '../../shared/components/Feedback.js';
import { StepFunnel } from '../../shared/components/StepFunnel.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { useOffered } from '../../shared/offered.js';
import { unwrap, useCallTool, type ToolError } from '../../shared/seam.js';
import type { Campaign, ToolOutput } from '../../shared/types.js';
import { HostChanges } from './live.js';
import { mountView, type ViewProps } from './shell.js';

type CampaignPage = ToolOutput<'list_campaigns'>;

/** list_campaigns hands a page, get_campaign one campaign: the same cards either way. */
const isPage = (data: CampaignPage | Campaign): data is CampaignPage => Array.isArray((data as CampaignPage).campaigns);
const asPage = (data: CampaignPage | Campaign): CampaignPage => (isPage(data) ? data : { campaigns: [data], nextCursor: null });
/** The campaigns shown and a further page, each once: a campaign created meanwhile shifts the next page by one. */
const merge = (shown: Campaign[], page: CampaignPage): CampaignPage => ({
  campaigns: [...new Map([...shown, ...page.campaigns].map((c) => [c.id, c])).values()],
  nextCursor: page.nextCursor,
});

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

/**
 * The campaigns the host's call returned, kept current: the view follows the server's changes
 * (./live.tsx), and a change to a campaign makes this query stale, so it calls the same tool
 * again through the host, with the same arguments, and re-reads as many pages as were loaded.
 * Cards keep their place (their keys are the campaigns' ids), and so do opened step funnels.
 */
function Campaigns({ data, args }: ViewProps<CampaignPage | Campaign>) {
  const callTool = useCallTool();
  const client = useQueryClient();
  const { offers } = useOffered();
  const single = !isPage(data);
  const key = [single ? 'get_campaign' : 'list_campaigns', args];
  /** Pages loaded with More, besides the first: a refresh reads as many again. */
  const loaded = useRef(0);
  const read = async (cursor: string | null) => asPage(unwrap<CampaignPage | Campaign>(await callTool(key[0] as string, cursor ? { ...args, cursor } : args)));
  const query = useQuery<CampaignPage, ToolError>({
    queryKey: key,
    queryFn: async () => {
      let page = await read(null);
      let out = page;
      // `loaded` is read at each turn: a More that lands meanwhile is read again too.
      for (let n = 0; n < loaded.current && page.nextCursor; n++) {
        page = await read(page.nextCursor);
        out = merge(out.campaigns, page);
      }
      return out;
    },
    // The handed result is fresh: no call until a change (or a start or pause) makes it stale.
    initialData: asPage(data),
    staleTime: 60_000,
  });
  const { campaigns, nextCursor } = query.data;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ToolError | null>(null);
  const next = async () => {
    if (!nextCursor) return;
    setBusy(true);
    setError(null);
    try {
      const page = await read(nextCursor);
      loaded.current++;
      client.setQueryData<CampaignPage>(key, (shown) => merge(shown?.campaigns ?? [], page));
    } catch (err) {
      setError(err as ToolError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="o-stack" aria-labelledby="campaigns-h">
      <h2 id="campaigns-h">{single ? 'Campaign' : 'Campaigns'}</h2>
      {campaigns.length === 0 ? <p className="o-muted">No campaign matches.</p> : null}
      {campaigns.map((c) => (
        <CampaignWithSteps key={c.id} campaign={c} single={single} />
      ))}
      {nextCursor ? (
        <div className="o-row">
          <button type="button" className="o-button" disabled={busy || !offers('list_campaigns')} onClick={() => void next()}>
            More campaigns
          </button>
        </div>
      ) : null}
      <ErrorNote error={error ?? query.error} prefix={error ? 'Could not load more campaigns' : 'Could not refresh the campaigns'} />
    </section>
  );
}

mountView<CampaignPage | Campaign>({
  name: 'campaigns',
  waiting: 'Waiting for the campaigns…',
  render: (props) => <Campaigns {...props} />,
  follow: HostChanges,
});
