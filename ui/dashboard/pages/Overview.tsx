import { CampaignCard } from '../../shared/components/CampaignCard.js';
import { EmptyState } from '../../shared/components/EmptyState.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { InsightsPanel } from '../../shared/components/InsightsPanel.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { useTool } from '../../shared/hooks.js';
import { Link } from '../router.js';
import { StartConfirm } from './campaigns/StartConfirm.js';

/** Credits, workspace insights, the per-day chart and each campaign's funnel; a card's Start asks first, as on the campaign's page. */
export function OverviewPage() {
  const credits = useTool('get_credits', {});
  const insights = useTool('get_insights_overview', {}, { refetchInterval: 10_000 });
  const series = useTool('get_activity_series', { days: 30 }, { refetchInterval: 10_000 });
  const campaigns = useTool('list_campaigns', { limit: 12 });
  return (
    <>
      <h1 tabIndex={-1}>Overview</h1>
      <ErrorNote error={credits.error ?? insights.error ?? series.error} />
      {insights.data ? (
        <InsightsPanel
          insights={insights.data}
          {...(credits.data ? { credits: credits.data } : {})}
          {...(series.data ? { series: series.data } : {})}
          emptyNext={
            <p>
              Open a <Link to="/campaigns">campaign</Link> with leads and an agent and start it; its sends, acceptances and replies are charted here from the
              first day.
            </p>
          }
        />
      ) : (
        <Loading label="Loading insights…" />
      )}
      <section aria-labelledby="ov-campaigns" className="o-stack">
        <div className="o-row-between">
          <h2 id="ov-campaigns">Campaign funnels</h2>
          <Link to="/campaigns">All campaigns</Link>
        </div>
        <ErrorNote error={campaigns.error} />
        {campaigns.isPending ? <Loading label="Loading campaigns…" /> : null}
        {campaigns.data && campaigns.data.campaigns.length === 0 ? (
          <EmptyState title="No campaigns yet.">
            <p>
              <Link to="/campaigns">Create a campaign</Link>, give it an <Link to="/agents">agent</Link>, <Link to="/import">import its leads</Link>, then start
              it.
            </p>
          </EmptyState>
        ) : null}
        <div className="o-grid">
          {campaigns.data?.campaigns.map((c) => (
            <CampaignCard
              key={c.id}
              campaign={c}
              confirmStart={(campaign, start, cancel) => <StartConfirm campaign={campaign} start={start} cancel={cancel} />}
              title={
                <Link to={`/campaigns/${c.id}`}>
                  <Untrusted>{c.name}</Untrusted>
                </Link>
              }
            />
          ))}
        </div>
      </section>
    </>
  );
}
