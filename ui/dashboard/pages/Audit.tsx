import { useId, useState, type FormEvent } from 'react';
import { CursorPager } from '../../shared/components/CursorPager.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Table } from '../../shared/components/Table.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { formatWhen } from '../../shared/format.js';
import { useTool } from '../../shared/hooks.js';
import { unwrap, useCallTool } from '../../shared/seam.js';
import type { AuditEvent, ToolArgs, ToolOutput } from '../../shared/types.js';

type Filters = Pick<ToolArgs<'list_audit_events'>, 'actorId' | 'targetId' | 'since' | 'until'>;

/** A local date-time input (`2026-11-29T10:00`) as ISO 8601, or undefined when empty. */
const isoOf = (local: string): string | undefined => (local === '' ? undefined : new Date(local).toISOString());

/** One CSV cell: quoted, with a leading =, +, - or @ defused so a spreadsheet never runs it. */
function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

export function auditCsv(events: readonly AuditEvent[]): string {
  const head = ['at', 'actorType', 'actorId', 'actorName', 'action', 'targetIds', 'summary'];
  const rows = events.map((e) => [e.at, e.actor.type, e.actor.id, e.actor.name, e.action, e.targetIds.join(' '), e.summary]);
  return `${[head, ...rows].map((r) => r.map(cell).join(',')).join('\r\n')}\r\n`;
}

/** The most rows one export reads (100 pages of 100). */
const EXPORT_MAX = 10_000;

/** The trail for the owner and admins: who changed what and when, filtered, paged, exported as CSV. */
export function AuditPage() {
  const id = useId();
  const callTool = useCallTool();
  const [draft, setDraft] = useState({ actorId: '', targetId: '', since: '', until: '' });
  const [filters, setFilters] = useState<Filters>({});
  const [cursors, setCursors] = useState<string[]>([]);
  const [exporting, setExporting] = useState<string | null>(null);
  const [exportError, setExportError] = useState<Error | null>(null);
  const cursor = cursors.at(-1);
  const list = useTool('list_audit_events', { ...filters, limit: 50, ...(cursor ? { cursor } : {}) }, { keepPrevious: true });

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next: Filters = {};
    if (draft.actorId.trim()) next.actorId = draft.actorId.trim();
    if (draft.targetId.trim()) next.targetId = draft.targetId.trim();
    const since = isoOf(draft.since);
    const until = isoOf(draft.until);
    if (since) next.since = since;
    if (until) next.until = until;
    setFilters(next);
    setCursors([]);
  };

  const exportCsv = async () => {
    setExportError(null);
    setExporting('Reading the trail…');
    try {
      const events: AuditEvent[] = [];
      let next: string | null = null;
      do {
        const page: ToolOutput<'list_audit_events'> = unwrap(
          await callTool('list_audit_events', { ...filters, limit: 100, ...(next ? { cursor: next } : {}) }),
        );
        events.push(...page.events);
        next = page.nextCursor;
      } while (next && events.length < EXPORT_MAX);
      const url = URL.createObjectURL(new Blob([auditCsv(events)], { type: 'text/csv;charset=utf-8' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `audit-${new Date().toISOString().slice(0, 10)}.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setExporting(
        `Exported ${events.length} event${events.length === 1 ? '' : 's'}${next ? ` (the first ${EXPORT_MAX}; narrow the filters for the rest)` : ''}.`,
      );
    } catch (err) {
      setExporting(null);
      setExportError(err as Error);
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>Audit</h1>
      <p>Every change to this workspace, newest first: who made it (a member, an API key or a connected assistant), what it touched, and when.</p>
      <form className="o-card o-stack" onSubmit={apply} aria-labelledby={`${id}-h`}>
        <h2 id={`${id}-h`}>Filters</h2>
        <div className="o-row">
          <div className="o-field">
            <label htmlFor={`${id}-actor`}>Actor id</label>
            <input
              id={`${id}-actor`}
              className="o-input"
              placeholder="usr_… or key_…"
              value={draft.actorId}
              onChange={(e) => setDraft({ ...draft, actorId: e.target.value })}
            />
          </div>
          <div className="o-field">
            <label htmlFor={`${id}-target`}>Target id</label>
            <input
              id={`${id}-target`}
              className="o-input"
              placeholder="cmp_…, lead_…, drf_…"
              value={draft.targetId}
              onChange={(e) => setDraft({ ...draft, targetId: e.target.value })}
            />
          </div>
          <div className="o-field">
            <label htmlFor={`${id}-since`}>From</label>
            <input
              id={`${id}-since`}
              type="datetime-local"
              className="o-input"
              value={draft.since}
              onChange={(e) => setDraft({ ...draft, since: e.target.value })}
            />
          </div>
          <div className="o-field">
            <label htmlFor={`${id}-until`}>Until</label>
            <input
              id={`${id}-until`}
              type="datetime-local"
              className="o-input"
              value={draft.until}
              onChange={(e) => setDraft({ ...draft, until: e.target.value })}
            />
          </div>
          <button type="submit" className="o-button o-button-primary">
            Apply filters
          </button>
          <button type="button" className="o-button" disabled={exporting === 'Reading the trail…'} onClick={() => void exportCsv()}>
            Export CSV
          </button>
        </div>
        {exporting ? <p role="status">{exporting}</p> : null}
        <ErrorNote error={exportError} prefix="Could not export" />
      </form>
      <ErrorNote error={list.error} />
      {list.isPending ? <Loading label="Loading the audit trail…" /> : null}
      {list.data ? (
        <section className="o-card o-stack" aria-label="Audit events">
          <Table caption="Audit events" busy={list.isFetching} columns={['When', 'Who', 'What', 'Targets']}>
            {list.data.events.length === 0 ? (
              <tr>
                <td colSpan={4}>No event matches.</td>
              </tr>
            ) : null}
            {list.data.events.map((e) => (
              <tr key={e.id}>
                <td>{formatWhen(e.at)}</td>
                <td>
                  <Untrusted>{e.actor.name}</Untrusted>{' '}
                  <span className="o-hint">
                    ({e.actor.type === 'oauth_client' ? 'assistant' : e.actor.type} <span className="o-mono">{e.actor.id}</span>)
                  </span>
                </td>
                <td>
                  <Untrusted>{e.summary}</Untrusted> <span className="o-mono o-hint">{e.action}</span>
                </td>
                <td className="o-mono">{e.targetIds.join(', ') || '—'}</td>
              </tr>
            ))}
          </Table>
          <CursorPager label="Audit pages" cursors={cursors} setCursors={setCursors} nextCursor={list.data.nextCursor} />
        </section>
      ) : null}
    </>
  );
}
