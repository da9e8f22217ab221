import { type ReactNode, useId, useState } from 'react';
import { clip, type Seen, wordsDiffer } from '../drafts.js';
import { formatWhen } from '../format.js';
import type { Draft, DraftKind, DraftStatus } from '../types.js';
import { Untrusted, UntrustedBlock } from './Untrusted.js';
import './forms.css';

/** What a draft of each kind may hold, in characters (the server holds every edit to the same). */
export const LIMITS: Record<DraftKind, { text: number; subject: number | null; label: string }> = {
  invite: { text: 300, subject: null, label: 'Invitation note' },
  message: { text: 8000, subject: null, label: 'Message' },
  inmail: { text: 8000, subject: 200, label: 'InMail' },
  email: { text: 20000, subject: 200, label: 'Email' },
};

export const STATUS_LABELS: Record<DraftStatus, string> = {
  pending: 'Waiting for approval',
  approved: 'Approved',
  rejected: 'Rejected',
  sent: 'Sent',
  skipped: 'Skipped',
};

/** A headline or note longer than this shows cut, with a button for the rest. */
export const CLIP_AT = 160;

const chars = (s: string) => [...s].length;
export const nameOf = (d: Draft) => d.lead.fullName ?? d.leadId;
export const isOpen = (d: Draft) => d.status === 'pending' || d.status === 'approved';

export interface Edit {
  text: string;
  subject: string | null;
}

/** An item's refusal: the server's words, and the draft as it now stands when it said. */
export interface ItemError {
  message: string;
  closed: boolean;
}

export interface DraftCardProps {
  draft: Draft;
  /** What the reviewer saw of it; undefined on the first render. */
  seen: Seen | undefined;
  /** Changed since the reviewer saw it (by another writer): approval waits for a fresh look. */
  changed: boolean;
  edit: Edit | undefined;
  onEdit: (e: Edit) => void;
  selected: boolean;
  onToggle: () => void;
  error: ItemError | undefined;
  busy: boolean;
  cannotUpdate: string | undefined;
  /** False for a role that reads drafts but cannot decide them (a viewer): no selection, no editing, no buttons. */
  canDecide?: boolean;
  onSave: () => void;
  onApprove: () => void;
  onReject: () => void;
  /** The reviewer read the new words: keep their own edit (if any) and approve from here. */
  onAcknowledge: () => void;
  /** Drop the reviewer's edit for the new words. */
  onUseNew: () => void;
  /** Take a card kept for its error out of the list. */
  onDismiss: (() => void) | undefined;
  tabIndex: number | undefined;
  itemRef: (el: HTMLElement | null) => void;
  onFocus: () => void;
  /** The lead's name as a link to its own page, when the host has one (the dashboard). */
  leadLink: ((name: ReactNode) => ReactNode) | undefined;
}

/** Someone else's long text, cut to CLIP_AT characters with a button that shows it all. */
function Clipped({ text, className }: { text: string; className?: string }) {
  const [all, setAll] = useState(false);
  const { shown, clipped } = clip(text, CLIP_AT);
  return (
    <p className={className}>
      <Untrusted>{all || !clipped ? text : shown}</Untrusted>
      {clipped ? (
        <>
          {' '}
          <button type="button" className="o-button-link" aria-expanded={all} onClick={() => setAll(!all)}>
            {all ? 'Show less' : 'Show all'}
          </button>
        </>
      ) : null}
    </p>
  );
}

/** One draft: the lead's card beside the words, edited in place, approved or rejected. */
export function DraftCard({
  draft: d,
  seen,
  changed,
  edit,
  onEdit,
  selected,
  onToggle,
  error,
  busy,
  cannotUpdate,
  canDecide = true,
  onSave,
  onApprove,
  onReject,
  onAcknowledge,
  onUseNew,
  onDismiss,
  tabIndex,
  itemRef,
  onFocus,
  leadLink,
}: DraftCardProps) {
  const id = useId();
  const name = nameOf(d);
  const limits = LIMITS[d.kind];
  const text = edit?.text ?? d.text;
  const subject = edit?.subject ?? d.subject;
  const dirty = wordsDiffer(d, text, subject);
  const rewritten = text !== d.renderedText || (d.kind === 'inmail' && subject !== d.renderedSubject);
  const open = isOpen(d) && canDecide;
  const length = chars(text);
  const tooLong = length > limits.text;
  const blocked = busy || cannotUpdate !== undefined;
  const lead = d.lead;
  const role = [lead.jobTitle, lead.companyName].filter(Boolean).join(' at ');
  return (
    <article
      ref={itemRef}
      className={`o-card o-draft${selected ? ' o-draft-selected' : ''}${changed ? ' o-draft-changed' : ''}`}
      aria-label={`Draft for ${name}`}
      tabIndex={tabIndex}
      onFocus={(e) => {
        if (e.target === e.currentTarget) onFocus();
      }}
    >
      <div className="o-draft-lead">
        <h3>{leadLink ? leadLink(<Untrusted>{name}</Untrusted>) : <Untrusted>{name}</Untrusted>}</h3>
        {role ? (
          <p>
            <Untrusted>{role}</Untrusted>
          </p>
        ) : null}
        {lead.headline ? <Clipped className="o-muted" text={lead.headline} /> : null}
        {lead.location ? (
          <p className="o-muted">
            <Untrusted>{lead.location}</Untrusted>
          </p>
        ) : null}
        {lead.networkUrl ? (
          <p className="o-draft-url">
            <a href={lead.networkUrl} rel="noreferrer noopener" target="_blank">
              LinkedIn profile<span className="sr-only"> of {name}</span>
            </a>
          </p>
        ) : null}
        {lead.personalization ? (
          <div>
            <span className="o-label">Notes: </span>
            <Clipped text={lead.personalization} />
          </div>
        ) : null}
        <p className="o-muted">
          {limits.label}
          {d.variant ? `, variant ${d.variant}` : ''} · {formatWhen(d.createdAt)}
        </p>
        {open ? (
          <label className="o-row">
            <input type="checkbox" checked={selected} onChange={onToggle} />
            Select <Untrusted>{name}</Untrusted>
          </label>
        ) : (
          <span className="o-badge">{STATUS_LABELS[d.status as DraftStatus] ?? d.status}</span>
        )}
        {d.status === 'skipped' && d.skipReason ? <p className="o-muted">Skipped: {d.skipReason}</p> : null}
      </div>
      <div className="o-draft-words o-stack">
        {error ? (
          <div role="alert" className="o-alert o-alert-error">
            <p>{error.message}</p>
            {onDismiss ? (
              <button type="button" className="o-button" onClick={onDismiss}>
                Dismiss <span className="sr-only">the draft for {name}</span>
              </button>
            ) : null}
          </div>
        ) : null}
        {changed ? (
          <div className="o-alert o-alert-warning o-draft-changed-note">
            <p>
              <strong>Changed since you opened it</strong>. {edit ? 'Your text stays below; the draft now reads:' : 'The new text is below; before, it read:'}
            </p>
            {d.kind === 'inmail' && (edit ? d.subject : seen?.subject) ? (
              <p className="o-muted">
                Subject: <Untrusted>{edit ? d.subject : (seen?.subject ?? null)}</Untrusted>
              </p>
            ) : null}
            <UntrustedBlock className="o-draft-quote">{edit ? d.text : (seen?.text ?? '')}</UntrustedBlock>
            {open ? (
              <div className="o-row">
                <button type="button" className="o-button" onClick={onAcknowledge}>
                  {edit ? 'Keep my text' : 'I have read the new text'} <span className="sr-only">for {name}</span>
                </button>
                {edit ? (
                  <button type="button" className="o-button" onClick={onUseNew}>
                    Use the new text <span className="sr-only">for {name}</span>
                  </button>
                ) : null}
              </div>
            ) : null}
          </div>
        ) : null}
        {d.kind === 'inmail' ? (
          <div className="o-field">
            <label htmlFor={`${id}-subject`}>Subject for {name}</label>
            <input
              id={`${id}-subject`}
              className="o-input"
              dir="auto"
              value={subject ?? ''}
              readOnly={!open}
              onChange={(e) => onEdit({ text, subject: e.target.value })}
            />
          </div>
        ) : null}
        <div className="o-field">
          <label htmlFor={`${id}-text`}>
            {limits.label} for {name}
          </label>
          <textarea
            id={`${id}-text`}
            className="o-textarea"
            dir="auto"
            value={text}
            readOnly={!open}
            rows={d.kind === 'invite' ? 4 : 7}
            aria-describedby={`${id}-count`}
            onChange={(e) => onEdit({ text: e.target.value, subject })}
          />
          <span id={`${id}-count`} className={tooLong ? 'o-hint o-draft-over' : 'o-hint'}>
            {length} of {limits.text} characters
          </span>
        </div>
        {rewritten ? (
          <figure className="o-draft-template">
            <figcaption>Rendered from the template</figcaption>
            {d.kind === 'inmail' && d.renderedSubject !== subject ? (
              <p className="o-muted">
                Subject: <Untrusted>{d.renderedSubject}</Untrusted>
              </p>
            ) : null}
            <UntrustedBlock>{d.renderedText}</UntrustedBlock>
          </figure>
        ) : null}
        {d.drafterError ? <p className="o-hint">The model’s rewrite was not used: {d.drafterError}</p> : null}
        {open ? (
          <div className="o-row">
            <button type="button" className="o-button" disabled={!dirty || blocked || tooLong} title={cannotUpdate} onClick={onSave}>
              Save <span className="sr-only">the draft for {name}</span>
            </button>
            <button
              type="button"
              className="o-button o-button-primary"
              disabled={blocked || tooLong || changed}
              title={changed ? 'Read the new text first' : cannotUpdate}
              onClick={onApprove}
            >
              Approve <span className="sr-only">the draft for {name}</span>
            </button>
            <button type="button" className="o-button o-button-danger" disabled={blocked} title={cannotUpdate} onClick={onReject}>
              Reject <span className="sr-only">the draft for {name}</span>
            </button>
            {d.status === 'approved' ? <span className="o-badge o-badge-running">Approved</span> : null}
          </div>
        ) : null}
      </div>
    </article>
  );
}
