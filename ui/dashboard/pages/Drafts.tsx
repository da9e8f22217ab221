import { useEffect, useId, useState } from 'react';
import { DRAFT_SHORTCUTS, DraftQueue } from '../../shared/components/DraftQueue.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { useTool } from '../../shared/hooks.js';
import type { DraftStatus, ToolArgs } from '../../shared/types.js';
import { Link } from '../router.js';
import { ApproveAllMatching } from './drafts/ApproveAll.js';
import { useCan } from '../../shared/access.js';
import { useLivePoll } from '../../shared/live.js';

const STATUSES: { value: DraftStatus; label: string }[] = [
  { value: 'pending', label: 'Waiting for approval' },
  { value: 'approved', label: 'Approved, not sent yet' },
  { value: 'sent', label: 'Sent' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'skipped', label: 'Skipped' },
];

/** How many drafts wait, for the navigation; polled, like the other counters. */
export function DraftsNavCount() {
  const queues = useTool('list_draft_queues', {}, { refetchInterval: useLivePoll(10_000) });
  const n = queues.data?.pending ?? 0;
  if (n === 0) return null;
  return (
    <span className="o-badge o-badge-paused o-nav-count">
      <span aria-hidden="true">{n}</span>
      <span className="sr-only">, {n} waiting</span>
    </span>
  );
}

/**
 * Drafts of campaigns whose approval is required: one queue per campaign, each draft with its
 * lead beside its words, edited in place and approved or rejected one at a time or as a
 * selection; keyboard shortcuts for a long queue.
 */
export function DraftsPage({ campaignId: initialCampaign = null }: { campaignId?: string | null }) {
  const id = useId();
  const queues = useTool('list_draft_queues', {}, { refetchInterval: useLivePoll(10_000) });
  const [picked, setPicked] = useState<string | null>(initialCampaign);
  const [status, setStatus] = useState<DraftStatus>('pending');
  const [bulkResult, setBulkResult] = useState<string | null>(null);
  const canApproveAll = useCan('preview_approve_drafts', 'approve_matching_drafts');
  const canChangeSettings = useCan('update_campaign');
  const first = queues.data?.queues[0]?.campaignId ?? null;
  const campaignId = picked ?? first;
  // The queue shown stays shown when its last draft is decided (approve all, the last approval):
  // the reviewer reads the result there, and the page does not jump to another campaign.
  useEffect(() => {
    if (picked === null && first !== null) setPicked(first);
  }, [picked, first]);
  const campaigns = useTool('list_campaigns', { limit: 100 });
  const pendingHere = queues.data?.queues.find((q) => q.campaignId === campaignId)?.pending ?? 0;
  // Whether approval is on where the reviewer looks: the chosen campaign, or (none chosen) any campaign; unknown until the list is in.
  const chosen = campaigns.data?.campaigns.find((c) => c.id === campaignId);
  const approvalOn = campaigns.data ? (chosen ? chosen.approval === 'required' : campaigns.data.campaigns.some((c) => c.approval === 'required')) : null;
  // The queues with drafts first, then every other campaign (to read its sent or rejected drafts).
  const options = [
    ...(queues.data?.queues ?? []).map((q) => ({ id: q.campaignId, label: `${q.name} (${q.pending} waiting)` })),
    ...(campaigns.data?.campaigns ?? []).filter((c) => !queues.data?.queues.some((q) => q.campaignId === c.id)).map((c) => ({ id: c.id, label: c.name })),
  ];
  return (
    <>
      <h1 tabIndex={-1}>Drafts</h1>
      <p className="o-muted">
        In a campaign whose approval is required, every note and message waits here until a person approves it; only approved drafts are sent, exactly as they
        stand. A rejected draft ends that lead’s sequence.
      </p>
      <ErrorNote error={queues.error} />
      {queues.isPending ? <Loading label="Loading the queues…" /> : null}
      {queues.data && queues.data.pending === 0 && status === 'pending' ? (
        <p>
          Nothing waits for approval now: drafts appear here as leads reach steps that need approval.
          {/* Only where approval is off, and only to a role that may turn it on. */}
          {approvalOn === false && canChangeSettings ? (
            chosen ? (
              <>
                {' '}
                This campaign sends without approval: to review its notes and messages here first, turn on <em>Require approval before anything is sent</em> in{' '}
                <Link to={`/campaigns/${encodeURIComponent(chosen.id)}`}>its settings</Link>.
              </>
            ) : (
              <>
                {' '}
                No campaign requires approval: to review a campaign’s notes and messages here first, turn on <em>Require approval before anything is sent</em>{' '}
                in its settings.
              </>
            )
          ) : null}
        </p>
      ) : null}
      <div className="o-row">
        <div className="o-field">
          <label htmlFor={`${id}-campaign`}>Campaign</label>
          <select
            id={`${id}-campaign`}
            className="o-select"
            value={campaignId ?? ''}
            onChange={(e) => {
              setBulkResult(null);
              setPicked(e.target.value || null);
            }}
          >
            {campaignId === null ? <option value="">Choose a campaign</option> : null}
            {options.map((o) => (
              <option key={o.id} value={o.id}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-status`}>Show</label>
          <select id={`${id}-status`} className="o-select" value={status} onChange={(e) => setStatus(e.target.value as DraftStatus)}>
            {STATUSES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <details className="o-card">
        <summary>Keyboard shortcuts</summary>
        <p className="o-muted">In the queue, when a draft (not its text) has the focus:</p>
        <dl className="o-shortcuts">
          {DRAFT_SHORTCUTS.map(([keys, what]) => (
            <div key={keys}>
              <dt>
                <kbd>{keys}</kbd>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
      </details>
      {bulkResult ? (
        <p role="status" className="o-muted">
          {bulkResult}
        </p>
      ) : null}
      {campaignId ? (
        <DraftQueue
          key={`${campaignId}|${status}`}
          args={{ campaignId, status: status as ToolArgs<'list_drafts'>['status'], limit: 25 }}
          shortcuts
          leadLink={(d, name) => <Link to={`/leads/${encodeURIComponent(d.campaignId)}/${encodeURIComponent(d.leadId)}`}>{name}</Link>}
          bulk={status === 'pending' && canApproveAll ? <ApproveAllMatching campaignId={campaignId} pending={pendingHere} onResult={setBulkResult} /> : null}
        />
      ) : null}
    </>
  );
}
