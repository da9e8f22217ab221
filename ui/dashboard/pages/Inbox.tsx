import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { EmptyState } from '../../shared/components/EmptyState.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { formatWhen } from '../../shared/format.js';
import { useCan } from '../../shared/access.js';
import { newIdempotencyKey, useTool, useToolMutation } from '../../shared/hooks.js';
import type { Conversation, ConversationFilter, LeadTag } from '../../shared/types.js';
import { CHANNEL_LABEL, ChannelBadge, MessageThread } from './MessageThread.js';
import { Link, navigate, useLocation } from '../router.js';
import { CursorPager } from '../../shared/components/CursorPager.js';
import { useLivePoll } from '../../shared/live.js';

const FILTERS: { value: ConversationFilter; label: string }[] = [
  { value: 'needs_reply', label: 'Needs reply' },
  { value: 'handed_off', label: 'Handed off' },
  { value: 'all', label: 'All' },
];

const TAGS: readonly LeadTag[] = ['Meeting request', 'Interested', 'Information request', 'Not interested', 'Wrong person', 'To be defined'];
const BY: Record<NonNullable<Conversation['suggestion']>['suggestedBy'], string> = { rule: 'a rule', model: 'the model', assistant: 'the assistant' };
const percent = (confidence: number) => `${Math.round(confidence * 100)}%`;

/** Where a key press belongs to a field, not to the page's shortcut. */
const typing = (target: EventTarget | null): boolean =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/**
 * The triage's suggestion beside the thread: confirming sets the lead's tag (update_lead, the
 * same verb as everywhere, auto-exclusion included), by the button or the Y key.
 */
/** A thread's badge after a space outside it: apart from the name and the badge before it, and flush left when it wraps. */
function SpacedBadge({ className, children }: { className?: string; children: ReactNode }) {
  return (
    <>
      {' '}
      <span className={className ? `o-badge ${className}` : 'o-badge'}>{children}</span>
    </>
  );
}

function Suggestion({ conversation }: { conversation: Conversation }) {
  const id = useId();
  const { lead, campaign, suggestion } = conversation;
  const confirm = useToolMutation('update_lead', ['get_conversation', 'list_conversations', 'list_leads']);
  // A role that cannot tag (a reviewer) sees the suggestion without the button or its key.
  const canTag = useCan('update_lead');
  const pending = suggestion !== null && suggestion.tag !== lead.tag && canTag;
  const run = () => {
    if (!suggestion || confirm.isPending) return;
    confirm.mutate({ campaignId: campaign.id, leadId: lead.id, tag: suggestion.tag });
  };
  useEffect(() => {
    if (!pending) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== 'y' || e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
      e.preventDefault();
      run();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });
  if (!suggestion) return null;
  return (
    <section className="o-card d-suggestion" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Suggested tag: {suggestion.tag}</h3>
      <p className="o-muted">
        By {BY[suggestion.suggestedBy]}, {percent(suggestion.confidence)} sure
        {suggestion.reason ? (
          <>
            {' '}
            · <Untrusted>{suggestion.reason}</Untrusted>
          </>
        ) : null}
      </p>
      {pending ? (
        <div className="o-row">
          <button type="button" className="o-button o-button-primary" aria-keyshortcuts="Y" disabled={confirm.isPending} onClick={run}>
            Confirm “{suggestion.tag}” (Y)
          </button>
          {suggestion.tag === 'Not interested' || suggestion.tag === 'Wrong person' ? (
            <span className="o-muted">Confirming excludes the lead from outreach.</span>
          ) : null}
        </div>
      ) : lead.tag !== null ? (
        <p role="status">Tagged {lead.tag}.</p>
      ) : null}
      <ErrorNote error={confirm.error} prefix="Could not tag" />
    </section>
  );
}

function Thread({ leadId }: { leadId: string }) {
  const id = useId();
  const conversation = useTool('get_conversation', { leadId }, { refetchInterval: useLivePoll(5_000) });
  const [text, setText] = useState('');
  // One key per draft: a retried Send of the same text cannot send it twice.
  const [key, setKey] = useState(newIdempotencyKey);
  const [sent, setSent] = useState<string | null>(null);
  // The channel the person picked for this reply; null follows the thread's (where the lead last wrote).
  const [picked, setPicked] = useState<'linkedin' | 'email' | null>(null);
  const reply = useToolMutation('reply_conversation', ['get_conversation', 'list_conversations']);
  const done = useToolMutation('mark_conversation_done', ['get_conversation', 'list_conversations', 'list_leads']);
  const canReply = useCan('reply_conversation');
  // Links only to the pages the role opens (a reviewer's are Drafts and the inbox), as the menu does.
  const canOpenCampaign = useCan('get_campaign');
  const canOpenLead = useCan('get_lead', 'get_insights_overview');
  const canDone = useCan('mark_conversation_done');

  if (conversation.isPending) return <Loading label="Loading the conversation…" />;
  if (conversation.error) return <ErrorNote error={conversation.error} />;
  const { lead, campaign, messages, reply: how } = conversation.data;
  // Email is offered only when a reply by email may go: not to an address that is gone, bounced or unsubscribed.
  const byEmail = how.email !== null && how.email.unavailable === undefined ? how.email : null;
  const channel = byEmail === null ? 'linkedin' : (picked ?? how.channel);
  // A thread with both channels lets the person choose; an email thread answers by email.
  const choice = byEmail !== null && messages.some((m) => m.channel === 'linkedin');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSent(null);
    const words = text;
    reply.mutate(
      { leadId, text: words, channel, idempotencyKey: key },
      {
        onSuccess: () => {
          // Words typed while the reply was on its way are the next reply's, and stay.
          setText((now) => (now === words ? '' : now));
          setKey(newIdempotencyKey());
          setSent(channel === 'email' ? 'Reply sent by email.' : 'Reply sent.');
        },
      },
    );
  };
  return (
    <section className="o-card o-stack" aria-labelledby={`${id}-h`}>
      <div className="o-row-between">
        <h2 id={`${id}-h`}>
          <Untrusted fallback="A lead not yet named">{lead.name}</Untrusted>
        </h2>
        <span>
          {lead.tag ? <span className="o-badge">{lead.tag}</span> : null}{' '}
          {lead.needsReply ? <span className="o-badge o-badge-paused">Needs reply</span> : <span className="o-badge">Answered</span>}
        </span>
      </div>
      {lead.jobTitle || lead.companyName ? (
        <p className="o-muted">
          <Untrusted fallback={null}>{lead.jobTitle}</Untrusted>
          {lead.jobTitle && lead.companyName ? ' · ' : null}
          <Untrusted fallback={null}>{lead.companyName}</Untrusted>
        </p>
      ) : null}
      <p>
        Campaign:{' '}
        {canOpenCampaign ? (
          <Link to={`/campaigns/${campaign.id}`}>
            <Untrusted>{campaign.name ?? campaign.id}</Untrusted>
          </Link>
        ) : (
          <Untrusted>{campaign.name ?? campaign.id}</Untrusted>
        )}
        {lead.handedOff ? <span className="o-badge"> handed off to you</span> : null}
        {canOpenLead ? (
          <>
            {' · '}
            <Link to={`/leads/${encodeURIComponent(campaign.id)}/${encodeURIComponent(lead.id)}`}>Lead page</Link>
          </>
        ) : null}
      </p>
      {messages.length === 0 ? <p className="o-muted">No messages stored for this lead yet.</p> : null}
      <Suggestion conversation={conversation.data} />
      <MessageThread messages={messages} />
      {canReply || canDone ? (
        <form onSubmit={submit} className="o-stack">
          {canReply ? (
            <div className="o-field">
              {choice ? (
                <fieldset className="d-reply-channel">
                  <legend>Reply by</legend>
                  {(['email', 'linkedin'] as const).map((c) => (
                    <label key={c}>
                      <input type="radio" name={`${id}-channel`} value={c} checked={channel === c} onChange={() => setPicked(c)} /> {CHANNEL_LABEL[c]}
                    </label>
                  ))}
                </fieldset>
              ) : null}
              <label htmlFor={`${id}-reply`}>Your reply</label>
              {channel === 'email' && byEmail ? (
                <span id={`${id}-reply-h`} className="o-hint">
                  Goes out by email from {byEmail.from}
                  {byEmail.to ? ` to ${byEmail.to}` : ''}, as “<Untrusted>{byEmail.subject}</Untrusted>”, in the same thread, with the unsubscribe link.
                </span>
              ) : how.email?.unavailable ? (
                <span id={`${id}-reply-h`} className="o-hint">
                  Email is not available: <Untrusted>{how.email.unavailable.message}</Untrusted> This reply goes out as a LinkedIn message from the lead's
                  sender.
                </span>
              ) : messages.some((m) => m.channel === 'email') ? (
                <span id={`${id}-reply-h`} className="o-hint">
                  Goes out as a LinkedIn message from the lead's sender.
                </span>
              ) : null}
              <textarea
                id={`${id}-reply`}
                aria-describedby={messages.some((m) => m.channel === 'email') ? `${id}-reply-h` : undefined}
                className="o-textarea"
                required
                maxLength={8000}
                value={text}
                onChange={(e) => setText(e.target.value)}
              />
            </div>
          ) : null}
          <div className="o-row">
            {canReply ? (
              <button type="submit" className="o-button o-button-primary" disabled={reply.isPending || text.trim() === ''}>
                Send reply
              </button>
            ) : null}
            {canDone ? (
              <button type="button" className="o-button" disabled={done.isPending || !lead.needsReply} onClick={() => done.mutate({ leadId })}>
                Mark done
              </button>
            ) : null}
            {sent ? <span role="status">{sent}</span> : null}
          </div>
          <ErrorNote error={reply.error} prefix="Could not send" />
          <ErrorNote error={done.error} prefix="Could not mark done" />
        </form>
      ) : null}
    </section>
  );
}

/** Threads newest-inbound first, filtered; the chosen thread in full, with reply and done. */
export function InboxPage({ leadId }: { leadId: string | null }) {
  const { query } = useLocation();
  const filter = (FILTERS.find((f) => f.value === query.get('filter'))?.value ?? 'needs_reply') as ConversationFilter;
  const suggested = TAGS.find((t) => t === query.get('suggested'));
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const threads = useTool(
    'list_conversations',
    { filter, limit: 50, ...(suggested ? { suggestedTag: suggested } : {}), ...(cursor ? { cursor } : {}) },
    { refetchInterval: useLivePoll(5_000), keepPrevious: true },
  );
  const params = (f: ConversationFilter, s: LeadTag | undefined) => {
    const q = new URLSearchParams();
    if (f && f !== 'needs_reply') q.set('filter', f);
    if (s) q.set('suggested', s);
    const text = q.toString();
    return text ? `?${text}` : '';
  };
  const suffix = params(filter, suggested);
  const selectId = useId();
  return (
    <>
      <h1 tabIndex={-1}>Inbox</h1>
      <nav className="d-tabs" aria-label="Inbox filter">
        {FILTERS.map((f) => (
          <Link
            key={f.value}
            to={`/inbox${leadId ? `/${leadId}` : ''}${params(f.value, suggested)}`}
            className={f.value === filter ? 'o-button o-button-primary' : 'o-button'}
            aria-current={f.value === filter ? 'page' : undefined}
            onClick={() => setCursors([])}
          >
            {f.label}
          </Link>
        ))}
      </nav>
      <div className="o-field d-suggested-filter">
        <label htmlFor={selectId}>Suggested tag</label>
        <select
          id={selectId}
          className="o-select"
          value={suggested ?? ''}
          onChange={(e) => {
            setCursors([]);
            navigate(
              `/inbox${leadId ? `/${leadId}` : ''}${params(
                filter,
                TAGS.find((t) => t === e.target.value),
              )}`,
            );
          }}
        >
          <option value="">Any</option>
          {TAGS.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      <div className="d-inbox">
        <section aria-label="Threads">
          <ErrorNote error={threads.error} />
          {threads.isPending ? <Loading label="Loading threads…" /> : null}
          {threads.data && threads.data.conversations.length === 0 && !cursor ? (
            <EmptyState
              title={
                filter === 'needs_reply'
                  ? 'No conversation needs a reply.'
                  : filter === 'handed_off'
                    ? 'Nothing is handed off to you.'
                    : 'No conversations yet.'
              }
            >
              {filter === 'all'
                ? 'A thread appears here when a lead replies to a running campaign, or when you message a lead.'
                : 'Choose “All” to read every conversation.'}
            </EmptyState>
          ) : null}
          <ul className="d-thread-list">
            {threads.data?.conversations.map((t) => (
              <li key={t.leadId}>
                <Link to={`/inbox/${t.leadId}${suffix}`} aria-current={t.leadId === leadId ? 'true' : undefined}>
                  <ChannelBadge channel={t.lastMessage.channel} />{' '}
                  <strong>
                    <Untrusted fallback="A lead not yet named">{t.name}</Untrusted>
                  </strong>
                  {t.needsReply ? <SpacedBadge className="o-badge-paused">needs reply</SpacedBadge> : null}
                  {t.handedOff ? <SpacedBadge>handed off</SpacedBadge> : null}
                  {t.tag ? <SpacedBadge>{t.tag}</SpacedBadge> : null}
                  {t.suggestion && t.suggestion.tag !== t.tag ? <SpacedBadge className="o-badge-suggested">suggested: {t.suggestion.tag}</SpacedBadge> : null}
                  <br />
                  <span className="o-muted">
                    {t.companyName ? (
                      <>
                        <Untrusted>{t.companyName}</Untrusted> ·{' '}
                      </>
                    ) : null}
                    <Untrusted>{t.campaign.name ?? t.campaign.id}</Untrusted>
                  </span>
                  <br />
                  <span>
                    {t.lastMessage.sender === 'mail_server' ? <span className="o-badge o-badge-failed">Bounced</span> : null}
                    {t.lastMessage.sender === 'mail_server' ? ' ' : null}
                    {t.lastMessage.direction === 'inbound' ? '' : 'You: '}
                    <Untrusted>{t.lastMessage.preview}</Untrusted>
                  </span>
                  <br />
                  <time className="o-muted" dateTime={t.lastMessage.at}>
                    {formatWhen(t.lastMessage.at)}
                  </time>
                </Link>
              </li>
            ))}
          </ul>
          <CursorPager label="Thread pages" cursors={cursors} setCursors={setCursors} nextCursor={threads.data?.nextCursor} />
        </section>
        {leadId ? <Thread key={leadId} leadId={leadId} /> : <p className="o-muted">Choose a thread to read it in full and answer.</p>}
      </div>
    </>
  );
}
