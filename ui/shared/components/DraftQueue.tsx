import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { formatWhen } from '../format.js';
import { useTool, useToolMutation } from '../hooks.js';
import { notOffered, useOffered } from '../offered.js';
import type { Draft, DraftKind, DraftStatus, ListDraftsResult, ToolArgs } from '../types.js';
import { CursorPager } from './CursorPager.js';
import { ErrorNote, Loading } from './Feedback.js';
import './drafts.css';

/** What a draft of each kind may hold, in characters (the server holds every edit to the same). */
const LIMITS: Record<DraftKind, { text: number; subject: number | null; label: string }> = {
  invite: { text: 300, subject: null, label: 'Invitation note' },
  message: { text: 8000, subject: null, label: 'Message' },
  inmail: { text: 8000, subject: 200, label: 'InMail' },
};

const STATUS_LABELS: Record<DraftStatus, string> = { pending: 'Waiting for approval', approved: 'Approved', rejected: 'Rejected', sent: 'Sent' };

const chars = (s: string) => [...s].length;
const nameOf = (d: Draft) => d.lead.fullName ?? d.leadId;

/** The shortcuts a long queue is worked with; the page lists them from here. */
export const DRAFT_SHORTCUTS: readonly [keys: string, what: string][] = [
  ['j or ↓', 'next draft'],
  ['k or ↑', 'previous draft'],
  ['x', 'select or unselect the draft'],
  ['e or Enter', 'edit its text (Esc leaves the text)'],
  ['a', 'approve the draft, with any edit'],
  ['r', 'reject the draft'],
  ['Shift+A', 'approve every selected draft'],
];

export interface DraftQueueProps {
  /** The list_drafts call: a campaign, a status (pending by default), a page size. */
  args: ToolArgs<'list_drafts'>;
  /** Its result, when in hand (an MCP App view's handed result): shown with no first call. */
  initial?: ListDraftsResult;
  /** Listen for the keyboard shortcuts inside the queue. */
  shortcuts?: boolean;
}

interface Edit {
  text: string;
  subject: string | null;
}

/**
 * A queue of drafts, each with its lead beside its words: edit in place, approve one or a
 * selection, reject. The words a model or a person changed are shown beside the rendered
 * template, so the reviewer sees what changed. Every action is one update_drafts call.
 */
export function DraftQueue({ args, initial, shortcuts = false }: DraftQueueProps) {
  const id = useId();
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const callArgs = { ...args, ...(cursor ? { cursor } : {}) };
  const list = useTool('list_drafts', callArgs, { keepPrevious: true, ...(initial && !cursor ? { initialData: initial } : {}) });
  const update = useToolMutation('update_drafts', ['list_drafts', 'list_draft_queues']);
  const { offers } = useOffered();
  const cannotUpdate = notOffered(offers, 'update_drafts');
  const [edits, setEdits] = useState<Record<string, Edit>>({});
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [itemErrors, setItemErrors] = useState<Record<string, string>>({});
  const [done, setDone] = useState<string | null>(null);
  const [focusIndex, setFocusIndex] = useState(0);
  const items = useRef<(HTMLElement | null)[]>([]);

  const drafts = list.data?.drafts ?? [];
  const open = (d: Draft) => d.status === 'pending' || d.status === 'approved';

  // Drop the selection of drafts no longer on the page (keyed by ids: a new array each render is no change).
  const shownKey = drafts.map((d) => d.id).join(',');
  useEffect(() => {
    const shown = new Set(shownKey.split(','));
    setSelected((prev) => ([...prev].every((x) => shown.has(x)) ? prev : new Set([...prev].filter((x) => shown.has(x)))));
  }, [shownKey]);

  const apply = (changes: { draft: Draft; status?: 'approved' | 'rejected' }[], verb: string) => {
    if (changes.length === 0) return;
    setDone(null);
    const body = changes.map(({ draft, status }) => {
      const edit = edits[draft.id];
      const item: ToolArgs<'update_drafts'>['drafts'][number] = { id: draft.id };
      if (edit && edit.text !== draft.text) item.text = edit.text;
      if (edit && draft.kind === 'inmail' && edit.subject !== null && edit.subject !== draft.subject) item.subject = edit.subject;
      if (status) item.status = status;
      return item;
    });
    update.mutate(
      { drafts: body },
      {
        onSuccess: (r) => {
          const errors: Record<string, string> = {};
          for (const item of r.results) if (item.error) errors[item.draftId] = item.error.message;
          setItemErrors(errors);
          const ok = new Set(r.results.filter((i) => i.status === 'updated').map((i) => i.draftId));
          setEdits((prev) => Object.fromEntries(Object.entries(prev).filter(([k]) => !ok.has(k))));
          setSelected((prev) => new Set([...prev].filter((k) => !ok.has(k))));
          setDone(`${verb}: ${r.summary.updated} of ${r.summary.total}${r.summary.total > r.summary.updated ? ' (see the drafts marked below)' : ''}.`);
        },
      },
    );
  };

  const focusItem = (i: number) => {
    const next = Math.max(0, Math.min(drafts.length - 1, i));
    setFocusIndex(next);
    items.current[next]?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (!shortcuts || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target as HTMLElement;
    const typing = target.tagName === 'TEXTAREA' || target.tagName === 'INPUT' || target.tagName === 'SELECT';
    const index = items.current.findIndex((el) => el?.contains(target));
    if (typing) {
      if (e.key === 'Escape' && index >= 0) {
        e.preventDefault();
        focusItem(index);
      }
      return;
    }
    const draft = drafts[index >= 0 ? index : focusIndex];
    const key = e.key;
    if (key === 'j' || key === 'ArrowDown') focusItem((index >= 0 ? index : -1) + 1);
    else if (key === 'k' || key === 'ArrowUp') focusItem((index >= 0 ? index : 1) - 1);
    else if (key === 'A' && e.shiftKey)
      apply(
        drafts.filter((d) => selected.has(d.id) && open(d)).map((d) => ({ draft: d, status: 'approved' as const })),
        'Approved',
      );
    else if (!draft || index < 0 || target !== items.current[index]) return;
    else if (key === 'x') toggle(draft.id);
    else if (key === 'a' && open(draft)) apply([{ draft, status: 'approved' }], 'Approved');
    else if (key === 'r' && open(draft)) apply([{ draft, status: 'rejected' }], 'Rejected');
    else if ((key === 'e' || key === 'Enter') && open(draft)) items.current[index]?.querySelector<HTMLTextAreaElement>('textarea')?.focus();
    else return;
    e.preventDefault();
  };

  const toggle = (draftId: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(draftId)) next.delete(draftId);
      else next.add(draftId);
      return next;
    });

  if (list.isPending) return <Loading label="Loading the drafts…" />;
  if (list.error) return <ErrorNote error={list.error} />;
  const openOnes = drafts.filter(open);
  const chosen = openOnes.filter((d) => selected.has(d.id));
  const allChosen = openOnes.length > 0 && chosen.length === openOnes.length;

  return (
    <section className="o-stack o-drafts" aria-labelledby={`${id}-h`} onKeyDown={onKeyDown}>
      <h2 id={`${id}-h`} className="sr-only">
        Drafts
      </h2>
      {drafts.length === 0 ? (
        <p className="o-muted">{(args.status ?? 'pending') === 'pending' ? 'Nothing waits for approval here.' : 'No drafts here.'}</p>
      ) : (
        <div className="o-row o-drafts-bar">
          <label className="o-row">
            <input
              type="checkbox"
              checked={allChosen}
              disabled={openOnes.length === 0}
              onChange={() => setSelected(allChosen ? new Set() : new Set(openOnes.map((d) => d.id)))}
            />
            Select all on this page
          </label>
          <button
            type="button"
            className="o-button o-button-primary"
            disabled={chosen.length === 0 || update.isPending || cannotUpdate !== undefined}
            title={cannotUpdate}
            onClick={() =>
              apply(
                chosen.map((d) => ({ draft: d, status: 'approved' as const })),
                'Approved',
              )
            }
          >
            Approve selected ({chosen.length})
          </button>
          <button
            type="button"
            className="o-button o-button-danger"
            disabled={chosen.length === 0 || update.isPending || cannotUpdate !== undefined}
            title={cannotUpdate}
            onClick={() =>
              apply(
                chosen.map((d) => ({ draft: d, status: 'rejected' as const })),
                'Rejected',
              )
            }
          >
            Reject selected ({chosen.length})
          </button>
        </div>
      )}
      <p role="status" className="o-muted">
        {done}
      </p>
      <ErrorNote error={update.error} prefix="Could not update the drafts" />
      <ol className="o-drafts-list" aria-label="Drafts, oldest first">
        {drafts.map((d, i) => (
          <li key={d.id}>
            <DraftItem
              draft={d}
              edit={edits[d.id]}
              onEdit={(e) => setEdits((prev) => ({ ...prev, [d.id]: e }))}
              selected={selected.has(d.id)}
              onToggle={() => toggle(d.id)}
              error={itemErrors[d.id]}
              busy={update.isPending}
              cannotUpdate={cannotUpdate}
              onSave={() => apply([{ draft: d }], 'Saved')}
              onApprove={() => apply([{ draft: d, status: 'approved' }], 'Approved')}
              onReject={() => apply([{ draft: d, status: 'rejected' }], 'Rejected')}
              tabIndex={shortcuts ? (i === focusIndex ? 0 : -1) : undefined}
              itemRef={(el) => {
                items.current[i] = el;
              }}
              onFocus={() => setFocusIndex(i)}
            />
          </li>
        ))}
      </ol>
      {cursors.length > 0 || list.data?.nextCursor ? (
        <CursorPager
          label="Draft pages"
          cursors={cursors}
          setCursors={setCursors}
          nextCursor={list.data?.nextCursor}
          labels={['Previous drafts', 'Next drafts']}
        />
      ) : null}
    </section>
  );
}

interface DraftItemProps {
  draft: Draft;
  edit: Edit | undefined;
  onEdit: (e: Edit) => void;
  selected: boolean;
  onToggle: () => void;
  error: string | undefined;
  busy: boolean;
  cannotUpdate: string | undefined;
  onSave: () => void;
  onApprove: () => void;
  onReject: () => void;
  tabIndex: number | undefined;
  itemRef: (el: HTMLElement | null) => void;
  onFocus: () => void;
}

function DraftItem({
  draft: d,
  edit,
  onEdit,
  selected,
  onToggle,
  error,
  busy,
  cannotUpdate,
  onSave,
  onApprove,
  onReject,
  tabIndex,
  itemRef,
  onFocus,
}: DraftItemProps) {
  const id = useId();
  const name = nameOf(d);
  const limits = LIMITS[d.kind];
  const text = edit?.text ?? d.text;
  const subject = edit?.subject ?? d.subject;
  const dirty = text !== d.text || (d.kind === 'inmail' && subject !== d.subject);
  const changed = text !== d.renderedText || (d.kind === 'inmail' && subject !== d.renderedSubject);
  const open = d.status === 'pending' || d.status === 'approved';
  const length = chars(text);
  const tooLong = length > limits.text;
  const blocked = busy || cannotUpdate !== undefined;
  const lead = d.lead;
  const role = [lead.jobTitle, lead.companyName].filter(Boolean).join(' at ');
  return (
    <article
      ref={itemRef}
      className={`o-card o-draft${selected ? ' o-draft-selected' : ''}`}
      aria-label={`Draft for ${name}`}
      tabIndex={tabIndex}
      onFocus={(e) => {
        if (e.target === e.currentTarget) onFocus();
      }}
    >
      <div className="o-draft-lead">
        <h3>{lead.networkUrl ? <a href={lead.networkUrl}>{name}</a> : name}</h3>
        {role ? <p>{role}</p> : null}
        {lead.headline ? <p className="o-muted">{lead.headline}</p> : null}
        {lead.location ? <p className="o-muted">{lead.location}</p> : null}
        {lead.personalization ? (
          <p>
            <span className="o-label">Notes: </span>
            {lead.personalization}
          </p>
        ) : null}
        <p className="o-muted">
          {limits.label}
          {d.variant ? `, variant ${d.variant}` : ''} · {formatWhen(d.createdAt)}
        </p>
        {open ? (
          <label className="o-row">
            <input type="checkbox" checked={selected} onChange={onToggle} />
            Select {name}
          </label>
        ) : (
          <span className="o-badge">{STATUS_LABELS[d.status]}</span>
        )}
      </div>
      <div className="o-draft-words o-stack">
        {d.kind === 'inmail' ? (
          <div className="o-field">
            <label htmlFor={`${id}-subject`}>Subject for {name}</label>
            <input
              id={`${id}-subject`}
              className="o-input"
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
        {changed ? (
          <figure className="o-draft-template">
            <figcaption>Rendered from the template</figcaption>
            {d.kind === 'inmail' && d.renderedSubject !== subject ? <p className="o-muted">Subject: {d.renderedSubject}</p> : null}
            <p>{d.renderedText}</p>
          </figure>
        ) : null}
        {d.drafterError ? <p className="o-hint">The model’s rewrite was not used: {d.drafterError}</p> : null}
        {error ? (
          <p role="alert" className="o-alert o-alert-error">
            {error}
          </p>
        ) : null}
        {open ? (
          <div className="o-row">
            <button type="button" className="o-button" disabled={!dirty || blocked || tooLong} title={cannotUpdate} onClick={onSave}>
              Save <span className="sr-only">the draft for {name}</span>
            </button>
            <button type="button" className="o-button o-button-primary" disabled={blocked || tooLong} title={cannotUpdate} onClick={onApprove}>
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
