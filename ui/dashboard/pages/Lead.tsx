import { useId } from 'react';
import { STATUS_LABELS } from '../../shared/components/DraftCard.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { personName } from '../../shared/components/leads/LeadRows.js';
import { Untrusted, UntrustedBlock } from '../../shared/components/Untrusted.js';
import { formatWhen } from '../../shared/format.js';
import { useTool } from '../../shared/hooks.js';
import { placeSteps, skipReasonLabel, stepKindLabel } from '../../shared/steps.js';
import type { AgentStep, DraftStatus } from '../../shared/types.js';
import { MessageThread } from './MessageThread.js';
import { Link } from '../router.js';

const EVENT_LABELS: Record<string, string> = { sent: 'Sent', skipped: 'Skipped', accepted: 'Accepted', replied: 'Replied' };
const END_LABELS: Record<string, string> = {
  completed: 'finished every step',
  replied: 'stopped: the lead replied',
  step_removed: 'stopped: its step was removed from the agent',
  failed: 'stopped: a step failed',
  rejected: 'stopped: a draft was rejected',
  excluded: 'stopped: the lead was excluded',
};

/** A field of the profile, "—" when the lead has none. */
function Field({ label, children }: { label: string; children: string | null | undefined }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <Untrusted>{children}</Untrusted>
      </dd>
    </div>
  );
}

/** How many variants a step has: its own words (A) and its `variants` (B to E); 1 for a step that takes none (a wait, an if, a visit). */
const variantCount = (step: AgentStep): number => 1 + ('variants' in step && Array.isArray(step.variants) ? step.variants.length : 0);

/** Where the lead is in its agent's steps, what happened at each step (why a step was skipped), oldest first. */
function Sequence({ campaignId, leadId }: { campaignId: string; leadId: string }) {
  const id = useId();
  const seq = useTool('get_lead_sequence', { campaignId, leadId }, { refetchInterval: 10_000 });
  const agentId = seq.data?.position?.agentId ?? null;
  const agent = useTool('get_agent', { agentId: agentId ?? '' }, { enabled: agentId !== null });
  const placed = placeSteps(agent.data?.steps ?? []);
  /** "step 3, Message", or the step's id when the agent no longer has it. */
  const stepName = (stepId: string) => {
    const p = placed.find((x) => x.step.id === stepId);
    return p ? `step ${p.number}, ${stepKindLabel(p.step.kind)}` : `step ${stepId}`;
  };
  /**
   * What an event adds to its step's name: the variant drawn, only where the step has variants (an
   * A/B test) or the letter is past A (the step lost its variants since); and the kind, for a step
   * the agent no longer has. A wait or an if never names a variant.
   */
  const eventDetail = (e: { stepId: string; kind: string; variant: string }) => {
    const p = placed.find((x) => x.step.id === e.stepId);
    const variant =
      e.kind !== 'wait' && e.kind !== 'if' && (e.variant !== 'A' || (p !== undefined && variantCount(p.step) > 1)) ? `variant ${e.variant}` : null;
    const parts = [p ? null : stepKindLabel(e.kind), variant].filter((x): x is string => x !== null);
    return parts.length > 0 ? ` (${parts.join(', ')})` : '';
  };
  return (
    <section className="o-card o-stack" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Sequence</h2>
      <ErrorNote error={seq.error} />
      {seq.isPending ? <Loading label="Loading the sequence…" /> : null}
      {seq.data ? (
        <>
          <p>
            {seq.data.position === null
              ? 'Not started: the lead starts its agent’s steps when the campaign runs.'
              : seq.data.position.stepId !== null
                ? `At ${stepName(seq.data.position.stepId)}, since ${formatWhen(seq.data.position.enteredAt)}.`
                : `Ended ${formatWhen(seq.data.position.endedAt)}: ${END_LABELS[seq.data.position.endReason ?? ''] ?? seq.data.position.endReason}.`}
          </p>
          {seq.data.events.length > 0 ? (
            <ol className="o-stack" aria-label="Steps, oldest first">
              {seq.data.events.map((e) => (
                <li key={`${e.at}-${e.stepId}-${e.event}`}>
                  <strong>{EVENT_LABELS[e.event] ?? e.event}</strong> · {stepName(e.stepId)}
                  {eventDetail(e)} · <time dateTime={e.at}>{formatWhen(e.at)}</time>
                  {e.reason ? <span className="o-muted"> · why: {skipReasonLabel(e.reason)}</span> : null}
                </li>
              ))}
            </ol>
          ) : null}
          <h3>Drafts</h3>
          {seq.data.drafts.length === 0 ? <p className="o-muted">No drafts for this lead.</p> : null}
          <ul className="o-stack">
            {seq.data.drafts.map((d) => {
              const draft = d as typeof d & { skipReason?: string | null };
              return (
                <li key={d.id}>
                  <strong>{d.kind === 'invite' ? 'Invitation note' : d.kind === 'inmail' ? 'InMail' : 'Message'}</strong> ·{' '}
                  {STATUS_LABELS[d.status as DraftStatus] ?? d.status}
                  {draft.skipReason ? ` (${skipReasonLabel(draft.skipReason)})` : ''} · {formatWhen(d.updatedAt)}
                  {d.subject ? (
                    <p className="o-muted">
                      Subject: <Untrusted>{d.subject}</Untrusted>
                    </p>
                  ) : null}
                  <UntrustedBlock className="o-draft-quote">{d.text}</UntrustedBlock>
                  {d.status === 'pending' ? <Link to="/drafts">Review it on the Drafts page</Link> : null}
                </li>
              );
            })}
          </ul>
        </>
      ) : null}
    </section>
  );
}

/** The conversation with the lead, oldest first, when there is one. */
function Conversation({ leadId }: { leadId: string }) {
  const id = useId();
  const conversation = useTool('get_conversation', { leadId });
  return (
    <section className="o-card o-stack" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Conversation</h2>
      <ErrorNote error={conversation.error} />
      {conversation.data ? (
        conversation.data.messages.length === 0 ? (
          <p className="o-muted">No messages yet.</p>
        ) : (
          <>
            <MessageThread messages={conversation.data.messages} />
            <Link to={`/inbox/${leadId}?filter=all`}>Answer in the inbox</Link>
          </>
        )
      ) : null}
    </section>
  );
}

/** One lead: its profile, where it is in its sequence (and why steps were skipped), its conversation and its drafts. */
export function LeadPage({ campaignId, leadId }: { campaignId: string; leadId: string }) {
  const id = useId();
  const lead = useTool('get_lead', { campaignId, leadId });
  const campaign = useTool('get_campaign', { campaignId });
  const name = lead.data ? personName(lead.data) : null;
  return (
    <>
      <p>
        <Link to={`/campaigns/${encodeURIComponent(campaignId)}`}>
          ← <Untrusted fallback="Campaign">{campaign.data?.name}</Untrusted>
        </Link>
      </p>
      <h1 tabIndex={-1}>
        <Untrusted fallback="A lead not yet named">{name}</Untrusted>
      </h1>
      <ErrorNote error={lead.error} />
      {lead.isPending ? <Loading label="Loading the lead…" /> : null}
      {lead.data ? (
        <section className="o-card" aria-labelledby={`${id}-h`}>
          <h2 id={`${id}-h`}>Profile</h2>
          {name === null ? <p className="o-muted">Its name is not known yet: it is filled from the profile before the first message is written.</p> : null}
          <dl className="o-profile">
            <Field label="Name">{name}</Field>
            <Field label="Headline">{lead.data.headline}</Field>
            <Field label="Job title">{lead.data.jobTitle}</Field>
            <Field label="Company">{lead.data.companyName}</Field>
            <Field label="Location">{lead.data.location}</Field>
            <div>
              <dt>Profile</dt>
              <dd>
                {lead.data.networkUrl ? (
                  <a href={lead.data.networkUrl} target="_blank" rel="noreferrer noopener" className="o-u">
                    {lead.data.networkUrl}
                  </a>
                ) : (
                  '—'
                )}
              </dd>
            </div>
            <div>
              <dt>Stage</dt>
              <dd>
                {lead.data.stage.replace(/_/g, ' ')}
                {lead.data.excluded ? ' · excluded' : ''}
                {lead.data.tag ? ` · ${lead.data.tag}` : ''}
              </dd>
            </div>
          </dl>
        </section>
      ) : null}
      {lead.data ? (
        <>
          <Sequence campaignId={campaignId} leadId={leadId} />
          <Conversation leadId={leadId} />
        </>
      ) : null}
    </>
  );
}
