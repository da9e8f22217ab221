import { useEffect, useState, type ReactNode } from 'react';
import { useAgentName } from '../agents.js';
import { useToolMutation } from '../hooks.js';
import { useCan } from '../access.js';
import { notOffered, useOffered } from '../offered.js';
import { campaignStatusLabel, formatNumber, formatRate } from '../format.js';
import type { Campaign } from '../types.js';
import { EmptyState } from './EmptyState.js';
import { ErrorNote } from './Feedback.js';
import { Untrusted } from './Untrusted.js';
import './data.css';

const STARTABLE = new Set(['READY_TO_SEND', 'CAMPAIGN_PAUSED', 'FAILED']);

function badgeClass(status: string): string {
  if (status === 'CAMPAIGN_IN_PROGRESS') return 'o-badge o-badge-running';
  if (status === 'CAMPAIGN_PAUSED') return 'o-badge o-badge-paused';
  if (status === 'FAILED') return 'o-badge o-badge-failed';
  return 'o-badge';
}

const sentNothing = (c: Campaign) => c.stats.connectionRequestsSent === 0 && c.stats.messagesSent === 0;

/** What a campaign that has sent nothing needs next, in words that hold in the dashboard and in a view. */
export function campaignNextStep(c: Campaign): string {
  if (c.totalLeads === 0) return 'It has no leads yet: import a CSV or add leads, then start it.';
  if (!c.assignedTemplateId) return 'Assign it an agent (the messages it sends), then start it.';
  if (c.status === 'CAMPAIGN_IN_PROGRESS') return 'It is running: the first connection requests go out as the sending account’s daily limits allow.';
  if (STARTABLE.has(c.status)) return 'Start it to send the first connection requests.';
  if (c.status === 'PENDING' || c.status === 'PREPARING') return 'Its leads are being found; it can start once they are in.';
  return 'It sent nothing before it ended.';
}

/**
 * A campaign's funnel: requests sent, accepted, messaged, replied. Each step is a meter
 * against the requests sent, with its count, so it reads without colour or a chart. A campaign
 * that has sent nothing shows its next step instead of four empty meters.
 */
export function CampaignFunnel({ campaign }: { campaign: Campaign }) {
  const s = campaign.stats;
  if (sentNothing(campaign)) return <EmptyState title="Nothing sent yet.">{campaignNextStep(campaign)}</EmptyState>;
  const top = Math.max(s.connectionRequestsSent, s.messagesSent, 1);
  const steps = [
    { label: 'Requests sent', value: s.connectionRequestsSent, note: '' },
    { label: 'Accepted', value: s.connectionRequestsAccepted, note: formatRate(s.acceptanceRate) },
    { label: 'Messages sent', value: s.messagesSent, note: '' },
    { label: 'Replies', value: s.repliesReceived, note: formatRate(s.replyRate) },
  ];
  return (
    <div role="group" aria-label={`Funnel of ${campaign.name}`}>
      {steps.map((step) => (
        <div className="o-meter-row" key={step.label}>
          <span>{step.label}</span>
          <meter min={0} max={top} value={step.value} aria-label={`${step.label}: ${step.value}`} />
          <span>
            {formatNumber(step.value)}
            {step.note ? <span className="o-muted"> · {step.note}</span> : null}
          </span>
        </div>
      ))}
    </div>
  );
}

/** "120 leads · agent Warm intro", the agent by name (never its id). */
function LeadsAndAgent({ campaign }: { campaign: Campaign }) {
  const agentName = useAgentName(campaign.assignedTemplateId);
  return (
    <p className="o-muted">
      {formatNumber(campaign.totalLeads)} leads ·{' '}
      {campaign.assignedTemplateId ? (
        agentName ? (
          <>
            agent <Untrusted>{agentName}</Untrusted>
          </>
        ) : (
          'an agent assigned'
        )
      ) : (
        'no agent assigned'
      )}
    </p>
  );
}

export interface CampaignCardProps {
  /** The campaign as get_campaign / list_campaigns returned it. */
  campaign: Campaign;
  /** Rendered as the card's title: a link in the dashboard, plain text in a view. */
  title?: ReactNode;
  headingLevel?: 2 | 3;
  /** Called with the campaign as start/pause left it. */
  onChanged?: (campaign: Campaign) => void;
  /**
   * A confirmation to show before Start (the dashboard's, naming who sends to how many);
   * `start` runs it, `cancel` closes it. Without it, Start runs at once (a view's host asks).
   */
  confirmStart?: (campaign: Campaign, start: () => void, cancel: () => void) => ReactNode;
  children?: ReactNode;
}

/** Status, lead count and agent, funnel, and Start / Pause through start_campaign / pause_campaign. */
export function CampaignCard({ campaign, title, headingLevel = 3, onChanged, confirmStart, children }: CampaignCardProps) {
  const [asking, setAsking] = useState(false);
  // The card shows the campaign that start/pause returned until a fresher one comes in as a
  // prop (the list's own re-read, which a slow or failed call may hold back).
  const [latest, setLatest] = useState<Campaign | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a fresher campaign prop replaces the one start/pause returned
  useEffect(() => setLatest(null), [campaign]);
  const shown = latest && latest.id === campaign.id ? latest : campaign;

  const invalidates = ['get_campaign', 'list_campaigns', 'get_insights_overview'] as const;
  const start = useToolMutation('start_campaign', invalidates);
  const pause = useToolMutation('pause_campaign', invalidates);
  const busy = start.isPending || pause.isPending;
  const { offers } = useOffered();
  // The dashboard hides Start and Pause from a role that cannot run campaigns; an MCP view greys them instead (offers).
  const canStart = useCan('start_campaign');
  const canPause = useCan('pause_campaign');
  const Heading = headingLevel === 2 ? 'h2' : 'h3';

  const run = (which: 'start' | 'pause') => {
    const mutation = which === 'start' ? start : pause;
    const other = which === 'start' ? pause : start;
    // Clears the other's refusal; a call on its way keeps its answer.
    if (!other.isPending) other.reset();
    mutation.mutate(
      { campaignId: shown.id },
      {
        onSuccess: (result) => {
          setLatest(result.campaign);
          onChanged?.(result.campaign);
        },
      },
    );
  };

  return (
    <article className="o-card" aria-label={`Campaign ${shown.name}`}>
      <div className="o-row-between">
        <Heading>{title ?? <Untrusted>{shown.name}</Untrusted>}</Heading>
        <span className={badgeClass(shown.status)}>{campaignStatusLabel(shown.status)}</span>
      </div>
      <LeadsAndAgent campaign={shown} />
      <CampaignFunnel campaign={shown} />
      <div className="o-row" aria-live="polite">
        {STARTABLE.has(shown.status) && canStart ? (
          <button
            type="button"
            className="o-button o-button-primary"
            disabled={busy || !offers('start_campaign')}
            title={notOffered(offers, 'start_campaign')}
            onClick={() => (confirmStart ? setAsking(true) : run('start'))}
          >
            {shown.status === 'CAMPAIGN_PAUSED' ? 'Resume' : 'Start'} <Untrusted>{shown.name}</Untrusted>
          </button>
        ) : null}
        {shown.status === 'CAMPAIGN_IN_PROGRESS' && canPause ? (
          <button
            type="button"
            className="o-button"
            disabled={busy || !offers('pause_campaign')}
            title={notOffered(offers, 'pause_campaign')}
            onClick={() => run('pause')}
          >
            Pause <Untrusted>{shown.name}</Untrusted>
          </button>
        ) : null}
        {children}
      </div>
      {asking && confirmStart
        ? confirmStart(
            shown,
            () => {
              setAsking(false);
              run('start');
            },
            () => setAsking(false),
          )
        : null}
      <ErrorNote error={start.error} prefix="Could not start" />
      <ErrorNote error={pause.error} prefix="Could not pause" />
    </article>
  );
}
