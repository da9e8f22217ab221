import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ActivityTimeline } from '../../shared/components/ActivityTimeline.js';
import { EmptyState } from '../../shared/components/EmptyState.js';
import { ErrorNote } from '../../shared/components/Feedback.js';
import { activityLabel } from '../../shared/format.js';
import { alsoStale } from '../../shared/live.js';
import { useOffered } from '../../shared/offered.js';
import { unwrap, useCallTool, type ToolError } from '../../shared/seam.js';
import type { ActivityEvent, ToolOutput } from '../../shared/types.js';
import { HostChanges } from './live.js';
import { mountView, type ViewProps } from './shell.js';

type Page = ToolOutput<'get_recent_activity'>;

// An event comes with a campaign's counters (a `campaign` change) or a message (`conversation`).
alsoStale({ campaign: ['get_recent_activity'], conversation: ['get_recent_activity'] });

/** Pages read from the top to reach the newest event shown; past that the shown list starts again. */
const CATCH_UP_PAGES = 10;

/** What is shown: every event from the newest on, each once, and the cursor past the oldest. */
interface Shown {
  events: ActivityEvent[];
  older: string | null;
  /** Bumped when the list starts again, so an older page asked for before is not appended to it. */
  epoch: number;
}

/**
 * What a re-read found: the events newer than those shown (`older` undefined), or, when more
 * arrived than CATCH_UP_PAGES pages hold, the newest pages read and the cursor past them.
 */
interface Newer {
  events: ActivityEvent[];
  older?: string | null;
}

/** Each event once (the first seen), newest first; a stable sort keeps the server's order at equal times. */
const merge = (events: ActivityEvent[]): ActivityEvent[] =>
  [...new Map(events.map((e) => [e.id, e])).values()].sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0));

/**
 * The handed result, then older events page by page through the cursor past the oldest shown,
 * with the same filter. The view follows the changes (./live.tsx): a change makes its query
 * stale, and it reads from the top only until it meets an event already shown, then puts the
 * newer ones on top. The pages the user loaded and their cursor are never read again (past
 * events do not change), so no event is lost at a page boundary.
 */
function Activity({ data, args }: ViewProps<Page>) {
  const callTool = useCallTool();
  const { offers } = useOffered();
  const [shown, setShown] = useState<Shown>({ events: data.events, older: data.nextCursor, epoch: 0 });
  const current = useRef(shown);
  current.current = shown;
  const read = async (cursor: string | null) => unwrap<Page>(await callTool('get_recent_activity', cursor ? { ...args, cursor } : args));
  const newer = useQuery<Newer, ToolError>({
    queryKey: ['get_recent_activity', args],
    queryFn: async () => {
      const known = new Set(current.current.events.map((e) => e.id));
      const top = current.current.events[0]?.timestamp ?? '';
      const found: ActivityEvent[] = [];
      let cursor: string | null = null;
      for (let n = 0; n < CATCH_UP_PAGES; n++) {
        const page = await read(cursor);
        for (const event of page.events) {
          if (known.has(event.id) || event.timestamp < top) return { events: found };
          found.push(event);
        }
        cursor = page.nextCursor;
        if (!cursor) return { events: found };
      }
      return { events: found, older: cursor };
    },
    initialData: { events: [] },
    staleTime: 60_000,
    // A call opened on an older page (with a cursor) shows that page: there is nothing to put on top.
    enabled: !args.cursor,
  });
  useEffect(() => {
    const found = newer.data;
    if (found.events.length === 0) return;
    setShown((prev) =>
      found.older === undefined
        ? { ...prev, events: merge([...found.events, ...prev.events]) }
        : { events: found.events, older: found.older, epoch: prev.epoch + 1 },
    );
  }, [newer.data]);

  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ToolError | null>(null);
  const more = async () => {
    const { older, epoch } = shown;
    if (!older) return;
    setBusy(true);
    setError(null);
    try {
      const page = await read(older);
      setShown((prev) =>
        prev.epoch === epoch && prev.older === older ? { ...prev, events: merge([...prev.events, ...page.events]), older: page.nextCursor } : prev,
      );
    } catch (err) {
      setError(err as ToolError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="o-stack" aria-labelledby="activity-h">
      <h2 id="activity-h">Recent activity</h2>
      <ActivityTimeline
        events={shown.events}
        {...(typeof args.type === 'string'
          ? {
              empty: (
                <EmptyState title={`No “${activityLabel(args.type)}” events yet.`}>
                  Ask for recent activity without a type to see everything that happened.
                </EmptyState>
              ),
            }
          : {})}
      />
      {shown.older ? (
        <div className="o-row">
          <button type="button" className="o-button" disabled={busy || !offers('get_recent_activity')} onClick={() => void more()}>
            Older events
          </button>
        </div>
      ) : null}
      <ErrorNote error={error} prefix="Could not load older events" />
      <ErrorNote error={newer.error} prefix="Could not read the newest events" />
    </section>
  );
}

mountView<Page>({ name: 'activity', waiting: 'Waiting for the activity…', render: (props) => <Activity {...props} />, follow: HostChanges });
