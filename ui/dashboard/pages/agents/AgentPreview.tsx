import { useEffect, useId, useMemo, useState } from 'react';
import { EmptyState } from '../../../shared/components/EmptyState.js';
import { ErrorNote } from '../../../shared/components/Feedback.js';
import { Untrusted, UntrustedBlock } from '../../../shared/components/Untrusted.js';
import { useTool } from '../../../shared/hooks.js';
import { branchLabel, formatHours, stepKindLabel } from '../../../shared/steps.js';
import type { AgentPreviewResult, AgentStep } from '../../../shared/types.js';
import { type PathStop, sequencePaths } from './paths.js';

type RenderedStep = AgentPreviewResult['steps'][number];

/**
 * The saved sequence as one lead would get it on each path, through preview_agent: the first
 * campaign with leads and its first lead by default, or any the operator picks; one path at a
 * time (accepted or not, replied or not), each step's texts rendered for the lead, variants side
 * by side. `version` changes on each save, and the preview follows.
 */
export function AgentPreview({ agentId, version, steps, dirty }: { agentId: string; version: number; steps: AgentStep[]; dirty: boolean }) {
  const id = useId();
  const campaigns = useTool('list_campaigns', { limit: 100 });
  const [campaignId, setCampaignId] = useState('');
  const firstWithLeads = campaigns.data?.campaigns.find((c) => c.totalLeads > 0)?.id ?? '';
  const chosenCampaign = campaignId || firstWithLeads;
  const leads = useTool('list_leads', { campaignId: chosenCampaign, limit: 50 }, { enabled: chosenCampaign !== '' });
  const [leadId, setLeadId] = useState('');
  const chosenLead = leadId || leads.data?.leads[0]?.id || '';
  const lead = leads.data?.leads.find((l) => l.id === chosenLead);
  const preview = useTool('preview_agent', { agentId, leadId: chosenLead }, { enabled: chosenLead !== '' });
  const { refetch } = preview;
  useEffect(() => {
    if (version > 0 && chosenLead) void refetch();
  }, [version, chosenLead, refetch]);

  const { paths, more } = useMemo(() => sequencePaths(steps), [steps]);
  const [pathIndex, setPathIndex] = useState(0);
  const path = paths[Math.min(pathIndex, paths.length - 1)];
  const rendered = useMemo(() => new Map((preview.data?.steps ?? []).map((s) => [s.stepId, s])), [preview.data]);

  return (
    <section className="o-card" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Preview</h2>
      {dirty ? (
        <p className="o-alert o-alert-warning" role="note">
          The preview shows the saved sequence: save to see your changes here.
        </p>
      ) : null}
      <div className="o-row">
        <div className="o-field">
          <label htmlFor={`${id}-c`}>Campaign</label>
          <select
            id={`${id}-c`}
            className="o-select"
            value={chosenCampaign}
            onChange={(e) => {
              setCampaignId(e.target.value);
              setLeadId('');
            }}
          >
            {campaigns.data?.campaigns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-l`}>Lead</label>
          <select id={`${id}-l`} className="o-select" value={chosenLead} onChange={(e) => setLeadId(e.target.value)}>
            {leads.data?.leads.map((l) => (
              <option key={l.id} value={l.id}>
                {l.fullName ?? l.networkUrl ?? l.id}
              </option>
            ))}
          </select>
        </div>
      </div>
      {paths.length > 1 ? (
        <fieldset className="s-paths">
          <legend>Path</legend>
          {paths.map((p, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: paths are listed in a fixed order derived from the steps
            <label key={i}>
              <input type="radio" name={`${id}-path`} checked={path === p} onChange={() => setPathIndex(i)} />
              {p.label}
            </label>
          ))}
          {more ? <p className="o-hint">The first {paths.length} paths are listed; this sequence has more.</p> : null}
        </fieldset>
      ) : null}
      {!chosenLead && (campaigns.data || leads.data) ? (
        <EmptyState title="No lead to preview with yet.">Add leads to a campaign to see this agent’s messages as a real lead would get them.</EmptyState>
      ) : null}
      <ErrorNote error={preview.error} />
      {preview.data && path ? (
        <div aria-live="polite" aria-label="Rendered sequence" role="region">
          <h3>
            {paths.length > 1 ? `${path.label}: ` : ''}what <Untrusted fallback="this lead">{lead?.fullName ?? null}</Untrusted> gets
          </h3>
          <ol className="s-path">
            {path.stops.map((stop) => (
              <Stop key={`${stop.step.id}:${stop.branch ?? ''}`} stop={stop} rendered={rendered.get(stop.step.id)} />
            ))}
            <li className="o-muted">{path.endsAtReply ? 'The reply ends the sequence; the inbox takes over.' : 'End of the sequence.'}</li>
          </ol>
        </div>
      ) : null}
    </section>
  );
}

function Variants({ rendered }: { rendered: RenderedStep | undefined }) {
  const variants = rendered?.variants ?? [];
  if (variants.length === 0) return <p className="o-muted">…</p>;
  return (
    <div className="s-rendered">
      {variants.map((v) => (
        <figure key={v.variant}>
          {variants.length > 1 ? <figcaption>Variant {v.variant}</figcaption> : null}
          {v.text === null ? (
            <p className="o-msg o-msg-out">
              <em>Sent without a note.</em>
            </p>
          ) : (
            <UntrustedBlock className="o-msg o-msg-out">{v.text}</UntrustedBlock>
          )}
        </figure>
      ))}
    </div>
  );
}

function Stop({ stop, rendered }: { stop: PathStop; rendered: RenderedStep | undefined }) {
  const { step, number } = stop;
  const head = `Step ${number}: `;
  switch (step.kind) {
    case 'invite':
      return (
        <li>
          {head}sends the invitation
          <Variants rendered={rendered} />
        </li>
      );
    case 'message':
      return (
        <li>
          {head}sends a message (skipped if the lead is not a connection)
          <Variants rendered={rendered} />
        </li>
      );
    case 'inmail':
      return (
        <li>
          {head}sends an InMail: <Untrusted fallback="…">{rendered?.subject}</Untrusted>
          <Variants rendered={rendered} />
        </li>
      );
    case 'email':
      return (
        <li>
          {head}sends an email (skipped without an address, or to one that unsubscribed or bounced):{' '}
          <Untrusted fallback="…">{rendered?.subject ?? step.subject}</Untrusted>
          <Variants rendered={rendered} />
        </li>
      );
    case 'wait':
      return (
        <li>
          {head}waits {formatHours(step.hours)}
        </li>
      );
    case 'if':
      return (
        <li className="s-outcome">
          {head}
          {branchLabel(step.condition, step.withinHours, stop.branch ?? 'then', step.tags)}
        </li>
      );
    default:
      return (
        <li>
          {head}
          {stepKindLabel(step.kind).toLowerCase()}
        </li>
      );
  }
}
