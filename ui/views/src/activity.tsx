import { useState } from 'react';
import { ActivityTimeline } from '../../shared/components/ActivityTimeline.js';
import { EmptyState } from '../../shared/components/EmptyState.js';
import { ErrorNote } from '../../shared/components/Feedback.js';
import { activityLabel } from '../../shared/format.js';
import { useOffered } from '../../shared/offered.js';
import { unwrap, useCallTool, type ToolError } from '../../shared/seam.js';
import type { ActivityEvent, ToolOutput } from '../../shared/types.js';
import { mountView, type ViewProps } from './shell.js';

type Page = ToolOutput<'get_recent_activity'>;

/** The handed result, then older events page by page through its cursor, with the same filter. */
function Activity({ data, args }: ViewProps<Page>) {
  const callTool = useCallTool();
  const { offers } = useOffered();
  const [older, setOlder] = useState<{ events: ActivityEvent[]; nextCursor: string | null }>({ events: [], nextCursor: data.nextCursor });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ToolError | null>(null);
  const more = async () => {
    if (!older.nextCursor) return;
    setBusy(true);
    setError(null);
    try {
      const page = unwrap<Page>(await callTool('get_recent_activity', { ...args, cursor: older.nextCursor }));
      setOlder((prev) => ({ events: [...prev.events, ...page.events], nextCursor: page.nextCursor }));
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
        events={[...data.events, ...older.events]}
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
      {older.nextCursor ? (
        <div className="o-row">
          <button type="button" className="o-button" disabled={busy || !offers('get_recent_activity')} onClick={() => void more()}>
            Older events
          </button>
        </div>
      ) : null}
      <ErrorNote error={error} prefix="Could not load older events" />
    </section>
  );
}

mountView<Page>({ name: 'activity', waiting: 'Waiting for the activity…', render: (props) => <Activity {...props} /> });
