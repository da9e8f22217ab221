import { useEffect, useId, useMemo, useState } from 'react';
import { EmptyState } from '../../../shared/components/EmptyState.js';
import { ErrorNote } from '../../../shared/components/Feedback.js';
import { Untrusted, UntrustedBlock } from '../../../shared/components/Untrusted.js';
import { useTool } from '../../../shared/hooks.js';
import { branchLabel, formatHours, stepKindLabel } from '../../../shared/steps.js';
import type { AgentPreviewResult, AgentStep, StepInput } from '../../../shared/types.js';
import { type PathStop, sequencePaths } from './paths.js';
import { type EditStep, toInput } from './sequence.js';

type RenderedStep = AgentPreviewResult['steps'][number];

/** How long the editor must rest before the preview asks for the words as they are now. */
const DRAFT_PREVIEW_DELAY_MS = 400;

/**
 * Steps as typed (not saved: new ones have no id), named by their paths (`steps[1].then[0]`),
 * which is how the server names them in a preview of an unsaved sequence.
 */
function byPath(steps: readonly StepInput[], prefix = 'steps'): AgentStep[] {
  return steps.map((s, i) => {
    const path = `${prefix}[${i}]`;
    // biome-ignore lint/suspicious/noThenProperty: an if step's branches are named then and else; the object is never awaited.
    if (s.kind === 'if') return { ...s, id: path, then: byPath(s.then ?? [], `${path}.then`), else: byPath(s.else ?? [], `${path}.else`) } as AgentStep;
    return { ...s, id: path } as AgentStep;
  });
}

/**
 * The sequence as one lead would get it on each path: the first campaign with leads and its
 * first lead by default, or any the operator picks; one path at a time (accepted or not, replied
 * or not), each step's texts rendered for the lead, variants side by side. It is live: the saved
 * sequence through preview_agent, and while the editor holds changes (or the agent is new), the
 * sequence as it is being written through preview_agent_draft, a moment after typing stops.
 */
export function AgentPreview({
  agentId,
  version,
  steps: saved,
  dirty,
  editing,
}: {
  agentId: string | null;
  version: number;
  steps: AgentStep[];
  dirty: boolean;
  editing: readonly EditStep[];
}) {
  const id = useId();
  const live = dirty || agentId === null;
  const [typed, setTyped] = useState<StepInput[] | null>(null);
  useEffect(() => {
    if (!live) return setTyped(null);
    const timer = setTimeout(() => setTyped(toInput(editing)), DRAFT_PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [live, editing]);
  const campaigns = useTool('list_campaigns', { limit: 100 });
  const [campaignId, setCampaignId] = useState('');
  const firstWithLeads = campaigns.data?.campaigns.find((c) => c.totalLeads > 0)?.id ?? '';
  const chosenCampaign = campaignId || firstWithLeads;
  const leads = useTool('list_leads', { campaignId: chosenCampaign, limit: 50 }, { enabled: chosenCampaign !== '' });
  const [leadId, setLeadId] = useState('');
  const chosenLead = leadId || leads.data?.leads[0]?.id || '';
  const lead = leads.data?.leads.find((l) => l.id === chosenLead);
  const savedPreview = useTool('preview_agent', { agentId: agentId ?? '', leadId: chosenLead }, { enabled: chosenLead !== '' && agentId !== null });
  const draftPreview = useTool(
    'preview_agent_draft',
    { ...(agentId === null ? {} : { agentId }), leadId: chosenLead, steps: typed ?? [] },
    { enabled: chosenLead !== '' && live && typed !== null && typed.length > 0, keepPrevious: true },
  );
  // The saved sequence's preview stays until the first one of the words as typed arrives.
  const showingDraft = live && typed !== null && draftPreview.data !== undefined;
  const preview = showingDraft ? draftPreview : savedPreview;
  const { refetch } = savedPreview;
  useEffect(() => {
    if (version > 0 && chosenLead) void refetch();
  }, [version, chosenLead, refetch]);

  // The typed steps are named by path, as the server names a draft's; the saved ones by id.
  const steps = useMemo(() => (showingDraft && typed ? byPath(typed) : saved), [showingDraft, typed, saved]);
  const { paths, more } = useMemo(() => sequencePaths(steps), [steps]);
  const [pathIndex, setPathIndex] = useState(0);
  const path = paths[Math.min(pathIndex, paths.length - 1)];
  const rendered = useMemo(() => new Map((preview.data?.steps ?? []).map((s) => [showingDraft ? s.path : s.stepId, s])), [preview.data, showingDraft]);

  return (
    <section className="o-card" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Preview</h2>
      {live ? (
        <p className="o-hint" role="note">
          The preview follows the sequence as you write it{agentId === null ? '' : ', before you save it'}.
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
      {live && draftPreview.error ? (
        <ErrorNote error={draftPreview.error} prefix="The preview waits for a sequence that could be saved" />
      ) : (
        <ErrorNote error={savedPreview.error} />
      )}
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
          {variants.length > 1 && v.subject !== undefined ? (
            <p className="o-muted">
              Subject: <Untrusted fallback="…">{v.subject}</Untrusted>
            </p>
          ) : null}
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
