import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useCan } from '../access.js';
import { useAccountNames } from '../accounts.js';
import { countSends, type Expected, isExpected, kindsInWords, reconcile, type Seen, sameAsSeen, seenOf, wordsDiffer } from '../drafts.js';
import { useDraftsFeed } from '../draftsFeed.js';
import { notOffered, useOffered } from '../offered.js';
import { ToolError, unwrap, useCallTool } from '../seam.js';
import type { Draft, DraftUpdateItem, ListDraftsResult, ToolArgs, UpdateDraftsResult } from '../types.js';
import { Confirm } from './Confirm.js';
import { CursorPager } from './CursorPager.js';
import { DraftCard, type Edit, type ItemError, isOpen, LIMITS, nameOf } from './DraftCard.js';
import { ErrorNote, Loading } from './Feedback.js';
import './drafts.css';

/** How long a rejection waits for Undo before it is sent to the server. */
export const REJECT_UNDO_MS = 8_000;

/** The shortcuts a long queue is worked with; the page lists them from here. */
export const DRAFT_SHORTCUTS: readonly [keys: string, what: string][] = [
  ['j or ↓', 'next draft'],
  ['k or ↑', 'previous draft'],
  ['x', 'select or unselect the draft'],
  ['e or Enter', 'edit its text (Esc leaves the text)'],
  ['a', 'approve the draft, with any edit'],
  ['r', 'reject the draft (Undo for a few seconds)'],
  ['u', 'undo the last rejection'],
  ['Shift+A', 'approve every selected draft (asks first)'],
];

export interface DraftQueueProps {
  /** The list_drafts call: a campaign, a status (pending by default), a page size. */
  args: ToolArgs<'list_drafts'>;
  /** Its result, when in hand (an MCP App view's handed result): shown with no first call. */
  initial?: ListDraftsResult;
  /** Listen for the keyboard shortcuts inside the queue. */
  shortcuts?: boolean;
  /** Milliseconds a rejection can be undone before it is sent. */
  rejectUndoMs?: number;
  /** Milliseconds between reads of the queue while visible. */
  pollMs?: number;
  /** A lead's name as a link to its own page, when the host has one. */
  leadLink?: (d: Draft, name: ReactNode) => ReactNode;
  /** More bulk actions beside "Select all" (the dashboard's "approve all matching"). */
  bulk?: ReactNode;
}

type Change = { draft: Draft; status?: 'approved' | 'rejected' };

/** `o` with only the entries `ok` keeps: `o` itself when it keeps them all, so a state set to it does not render again. */
const only = <T,>(o: Record<string, T>, ok: (key: string, value: T) => boolean): Record<string, T> => {
  const kept = Object.entries(o).filter(([k, v]) => ok(k, v));
  return kept.length === Object.keys(o).length ? o : Object.fromEntries(kept);
};

const names = (ds: readonly Draft[]) => (ds.length === 1 && ds[0] ? `the draft for ${nameOf(ds[0])}` : `${ds.length} drafts`);

/**
 * A queue of drafts, each with its lead beside its words: edit in place, approve one or a
 * selection, reject with a moment to undo. Every write carries the revision the reviewer saw,
 * so nothing is approved that the reviewer did not read; the queue reads itself again while
 * open and marks a draft another writer changed. A refused item stays on screen with the
 * server's reason, the draft as it now stands and the reviewer's own words.
 */
export function DraftQueue({ args, initial, shortcuts = false, rejectUndoMs = REJECT_UNDO_MS, pollMs, leadLink, bulk }: DraftQueueProps) {
  const id = useId();
  const callTool = useCallTool();
  const client = useQueryClient();
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const callArgs = { ...args, ...(cursor ? { cursor } : {}) };
  const list = useDraftsFeed(callArgs, initial && !cursor ? initial : undefined, pollMs);
  const { offers } = useOffered();
  const cannotUpdate = notOffered(offers, 'update_drafts');
  // The dashboard hides what the member's role cannot do (a viewer reads the queue only).
  const canDecide = useCan('update_drafts');
  const [edits, setEdits] = useState<Record<string, Edit>>({});
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [itemErrors, setItemErrors] = useState<Record<string, ItemError>>({});
  const [held, setHeld] = useState<Record<string, Draft>>({});
  const [seen, setSeen] = useState<Record<string, Seen>>({});
  const [expected, setExpected] = useState<Record<string, Expected>>({});
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [callError, setCallError] = useState<Error | null>(null);
  const [focusId, setFocusId] = useState<string | null>(null);
  const [wantFocus, setWantFocus] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Draft[] | null>(null);
  const [undo, setUndo] = useState<Draft[] | null>(null);
  const undoTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const rejecting = useRef<Draft[] | null>(null);
  const items = useRef(new Map<string, HTMLElement>());
  const order = useRef<string[]>([]);
  const accountName = useAccountNames(confirming !== null);

  const serverDrafts: Draft[] = list.data?.drafts ?? [];

  // What the reviewer has seen: drafts shown for the first time, and the reviewer's own saves.
  useEffect(() => {
    if (!list.data) return;
    const next = reconcile(seen, expected, list.data.drafts);
    if (next.seen !== seen) setSeen(next.seen);
    if (next.expected !== expected) setExpected(next.expected);
  }, [list.data, seen, expected]);

  // An edit stays the box's words until the list shows them: dropped at the save's answer, the box
  // would show the old words until the reread, and a keystroke then would land after them. Once
  // the list holds exactly the edit (the reviewer's own save, read back), it is no edit any more.
  useEffect(() => {
    const shown = new Map(list.data?.drafts.map((d) => [d.id, d]));
    setEdits((prev) =>
      only(prev, (k, e) => {
        const d = shown.get(k);
        return !d || wordsDiffer(d, e.text, e.subject ?? d.subject);
      }),
    );
  }, [list.data]);

  // On screen: the page's drafts, less those waiting out their Undo, plus those kept for an error.
  const hidden = new Set((undo ?? []).map((d) => d.id));
  const onPage = new Set(serverDrafts.map((d) => d.id));
  // A kept draft goes back where it stood, after the draft it followed on the last render.
  // A draft kept for an error that is newer than the page read (a conflict names the current
  // revision) stands in for the page's copy, so the reviewer sees what it says now.
  const merged = serverDrafts.map((d) => {
    const h = held[d.id];
    return h && (h.revision ?? 0) > (d.revision ?? 0) ? h : d;
  });
  for (const h of Object.values(held)) {
    if (onPage.has(h.id)) continue;
    const before = order.current.slice(0, Math.max(0, order.current.indexOf(h.id)));
    const anchor = before.reverse().find((x) => merged.some((d) => d.id === x));
    merged.splice(anchor === undefined ? 0 : merged.findIndex((d) => d.id === anchor) + 1, 0, h);
  }
  order.current = merged.map((d) => d.id);
  const drafts = merged.filter((d) => !hidden.has(d.id));
  const changedUnder = (d: Draft) => {
    const s = seen[d.id];
    return s !== undefined && !sameAsSeen(d, s) && !isExpected(d, expected[d.id]);
  };

  // Drop the selection of drafts no longer on the page (keyed by ids: a new array each render is no change).
  const shownKey = drafts.map((d) => d.id).join(',');
  useEffect(() => {
    const shown = new Set(shownKey.split(','));
    setSelected((prev) => ([...prev].every((x) => shown.has(x)) ? prev : new Set([...prev].filter((x) => shown.has(x)))));
  }, [shownKey]);

  // After an approval or a rejection the focus goes to the next draft, so the keys keep working.
  useEffect(() => {
    if (wantFocus === null) return;
    const el = items.current.get(wantFocus);
    if (el) {
      el.focus();
      setWantFocus(null);
    }
  });

  /** The draft to work on after `acted` leave the list: the next one, else the one before. */
  const nextAfter = (acted: readonly Draft[]): string | null => {
    const gone = new Set(acted.map((d) => d.id));
    const last = Math.max(...acted.map((d) => drafts.findIndex((x) => x.id === d.id)));
    const after = drafts.slice(last + 1).find((d) => !gone.has(d.id));
    const before = [...drafts.slice(0, Math.max(0, last))].reverse().find((d) => !gone.has(d.id));
    return (after ?? before)?.id ?? null;
  };

  const send = async (changes: Change[], verb: string): Promise<void> => {
    if (changes.length === 0) return;
    setDone(null);
    setCallError(null);
    const mine: Record<string, Expected> = {};
    const body = changes.map(({ draft, status }) => {
      const edit = edits[draft.id];
      const item: DraftUpdateItem = { id: draft.id };
      if (edit && edit.text !== draft.text) item.text = edit.text;
      if (edit && draft.kind === 'inmail' && edit.subject !== null && edit.subject !== draft.subject) item.subject = edit.subject;
      // The revision the reviewer saw (not the newest one read): a draft changed since is a conflict.
      const revision = seen[draft.id]?.revision ?? draft.revision;
      if (revision !== undefined) item.revision = revision;
      if (status) item.status = status;
      if (item.text !== undefined || item.subject !== undefined) mine[draft.id] = { text: item.text ?? draft.text, subject: item.subject ?? draft.subject };
      return item;
    });
    setExpected((prev) => ({ ...prev, ...mine }));
    setBusy(true);
    try {
      const r = unwrap<UpdateDraftsResult>(await callTool('update_drafts', { drafts: body }));
      const byId = new Map(changes.map((c) => [c.draft.id, c.draft]));
      const errors: Record<string, ItemError> = {};
      const keep: Record<string, Draft> = {};
      for (const item of r.results) {
        if (!item.error) continue;
        const current = item.error.current;
        errors[item.draftId] = { message: item.error.message, closed: current ? current.status !== 'pending' && current.status !== 'approved' : false };
        const was = byId.get(item.draftId);
        if (was) keep[item.draftId] = current ? { ...was, ...current, revision: current.revision ?? was.revision } : was;
      }
      const ok = new Set(r.results.filter((i) => i.status === 'updated').map((i) => i.draftId));
      const without = <T,>(o: Record<string, T>) => only(o, (k) => !ok.has(k));
      setItemErrors((prev) => ({ ...without(prev), ...errors }));
      setHeld((prev) => ({ ...without(prev), ...keep }));
      setExpected((prev) => only(prev, (k) => !errors[k]));
      setSelected((prev) => new Set([...prev].filter((k) => !ok.has(k))));
      const short = r.summary.total > r.summary.updated;
      setDone(`${verb}: ${r.summary.updated} of ${r.summary.total}${short ? ' (see the drafts marked below)' : ''}.`);
    } catch (err) {
      setExpected((prev) => only(prev, (k) => !mine[k]));
      setCallError(err instanceof Error ? err : new ToolError('failed', String(err)));
    } finally {
      // Busy until the queue is read again: a second save before then would carry the old revision.
      await Promise.all([client.invalidateQueries({ queryKey: ['list_drafts'] }), client.invalidateQueries({ queryKey: ['list_draft_queues'] })]);
      setBusy(false);
    }
  };
  const sendRef = useRef(send);
  sendRef.current = send;

  const approve = (ds: Draft[]) => {
    if (ds.length === 0) return;
    setWantFocus(nextAfter(ds));
    void send(
      ds.map((draft) => ({ draft, status: 'approved' as const })),
      'Approved',
    );
  };

  /** Sends the rejection waiting out its Undo, now. */
  const flushReject = useCallback(() => {
    if (undoTimer.current) clearTimeout(undoTimer.current);
    undoTimer.current = null;
    const ds = rejecting.current;
    rejecting.current = null;
    if (!ds) return;
    setUndo(null);
    void sendRef.current(
      ds.map((draft) => ({ draft, status: 'rejected' as const })),
      'Rejected',
    );
  }, []);

  /** A rejection leaves the list at once and is sent when its Undo window ends. */
  const reject = (ds: Draft[]) => {
    if (ds.length === 0) return;
    flushReject();
    setWantFocus(nextAfter(ds));
    rejecting.current = ds;
    setUndo(ds);
    setDone(null);
    undoTimer.current = setTimeout(flushReject, rejectUndoMs);
  };

  const undoReject = () => {
    if (undoTimer.current) clearTimeout(undoTimer.current);
    undoTimer.current = null;
    const ds = rejecting.current;
    rejecting.current = null;
    setUndo(null);
    if (ds?.[0]) {
      setWantFocus(ds[0].id);
      setDone(`Kept ${names(ds)}.`);
    }
  };

  // Leaving the queue (another page, another campaign) sends a rejection still waiting.
  useEffect(() => () => flushReject(), [flushReject]);

  const acknowledge = (d: Draft) => {
    setSeen((prev) => ({ ...prev, [d.id]: seenOf(d) }));
    setItemErrors(({ [d.id]: _, ...rest }) => rest);
  };
  const takeNew = (d: Draft) => {
    setEdits(({ [d.id]: _, ...rest }) => rest);
    acknowledge(d);
  };
  const dismiss = (d: Draft) => {
    setHeld(({ [d.id]: _, ...rest }) => rest);
    setItemErrors(({ [d.id]: _, ...rest }) => rest);
  };

  const canApprove = (d: Draft) => isOpen(d) && !changedUnder(d) && [...(edits[d.id]?.text ?? d.text)].length <= LIMITS[d.kind].text;

  const focusAt = (i: number) => {
    const next = drafts[Math.max(0, Math.min(drafts.length - 1, i))];
    if (!next) return;
    setFocusId(next.id);
    items.current.get(next.id)?.focus();
  };

  const openOnes = drafts.filter(isOpen);
  const chosen = openOnes.filter((d) => selected.has(d.id));
  const approvable = chosen.filter((d) => canApprove(d));
  const allChosen = openOnes.length > 0 && chosen.length === openOnes.length;

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (!shortcuts || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target as HTMLElement;
    const typing = target.tagName === 'TEXTAREA' || target.tagName === 'INPUT' || target.tagName === 'SELECT';
    const index = drafts.findIndex((d) => items.current.get(d.id)?.contains(target));
    if (typing) {
      if (e.key === 'Escape' && index >= 0) {
        e.preventDefault();
        focusAt(index);
      }
      return;
    }
    const draft = index >= 0 ? drafts[index] : undefined;
    const key = e.key;
    if (key === 'j' || key === 'ArrowDown') focusAt(index + 1);
    else if (key === 'k' || key === 'ArrowUp') focusAt(index >= 0 ? index - 1 : 0);
    else if (!canDecide) return;
    else if (key === 'u' && undo) undoReject();
    else if (key === 'A' && e.shiftKey) {
      if (approvable.length > 0) setConfirming(approvable);
    } else if (!draft || target !== items.current.get(draft.id)) return;
    else if (key === 'x') toggle(draft.id);
    else if (key === 'a' && canApprove(draft) && !busy) approve([draft]);
    else if (key === 'r' && isOpen(draft)) reject([draft]);
    else if ((key === 'e' || key === 'Enter') && isOpen(draft)) items.current.get(draft.id)?.querySelector<HTMLTextAreaElement>('textarea')?.focus();
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
  if (list.error && !list.data) return <ErrorNote error={list.error} />;
  const tabStop = drafts.some((d) => d.id === focusId) ? focusId : (drafts[0]?.id ?? null);
  const sends = confirming ? countSends(confirming) : null;
  const blocked = busy || cannotUpdate !== undefined;

  return (
    <section className="o-stack o-drafts" aria-labelledby={`${id}-h`} onKeyDown={onKeyDown}>
      <h2 id={`${id}-h`} className="sr-only">
        Drafts
      </h2>
      {drafts.length === 0 ? (
        <p className="o-muted">{(args.status ?? 'pending') === 'pending' ? 'Nothing waits for approval here.' : 'No drafts here.'}</p>
      ) : !canDecide ? null : (
        <div className="o-row o-drafts-bar">
          <label className="o-row">
            <input
              type="checkbox"
              checked={allChosen}
              disabled={openOnes.length === 0}
              onChange={() => setSelected(allChosen ? new Set() : new Set(openOnes.map((d) => d.id)))}
            />
            Select all on this page ({openOnes.length})
          </label>
          <button
            type="button"
            className="o-button o-button-primary"
            disabled={approvable.length === 0 || blocked}
            title={cannotUpdate}
            onClick={() => setConfirming(approvable)}
          >
            Approve selected ({approvable.length})
          </button>
          <button
            type="button"
            className="o-button o-button-danger"
            disabled={chosen.length === 0 || blocked}
            title={cannotUpdate}
            onClick={() => reject(chosen)}
          >
            Reject selected ({chosen.length})
          </button>
          {bulk}
        </div>
      )}
      {confirming && sends ? (
        <Confirm
          title={`Approve ${confirming.length === 1 ? '1 draft' : `${confirming.length} drafts`}?`}
          confirmLabel={`Approve and send ${kindsInWords(sends.kinds)}`}
          busy={busy}
          onCancel={() => setConfirming(null)}
          onConfirm={() => {
            const ds = confirming;
            setConfirming(null);
            approve(ds);
          }}
        >
          <p>The engine will send {kindsInWords(sends.kinds)}, exactly as they stand:</p>
          <ul>
            {sends.accounts.map((a) => (
              <li key={a.accountId}>
                {a.count} from {accountName(a.accountId)}
              </li>
            ))}
          </ul>
        </Confirm>
      ) : null}
      <div role="status" className="o-drafts-status">
        {undo ? (
          <p className="o-row">
            Rejected {names(undo)}.{' '}
            <button type="button" className="o-button" onClick={undoReject}>
              Undo
            </button>
          </p>
        ) : done ? (
          <p className="o-muted">{done}</p>
        ) : null}
      </div>
      <ErrorNote error={callError ?? list.error} prefix="Could not update or read the drafts" />
      <ol className="o-drafts-list" aria-label="Drafts, oldest first">
        {drafts.map((d) => (
          <li key={d.id}>
            <DraftCard
              draft={d}
              seen={seen[d.id]}
              changed={changedUnder(d)}
              edit={edits[d.id]}
              onEdit={(e) => setEdits((prev) => ({ ...prev, [d.id]: e }))}
              selected={selected.has(d.id)}
              onToggle={() => toggle(d.id)}
              error={itemErrors[d.id]}
              busy={busy}
              cannotUpdate={cannotUpdate}
              canDecide={canDecide}
              onSave={() => void send([{ draft: d }], 'Saved')}
              onApprove={() => approve([d])}
              onReject={() => reject([d])}
              onAcknowledge={() => acknowledge(d)}
              onUseNew={() => takeNew(d)}
              onDismiss={held[d.id] && !onPage.has(d.id) ? () => dismiss(d) : undefined}
              tabIndex={shortcuts ? (d.id === tabStop ? 0 : -1) : undefined}
              itemRef={(el) => {
                if (el) items.current.set(d.id, el);
                else items.current.delete(d.id);
              }}
              onFocus={() => setFocusId(d.id)}
              leadLink={leadLink ? (name) => leadLink(d, name) : undefined}
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
