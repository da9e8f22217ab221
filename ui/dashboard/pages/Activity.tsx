import { useId, useState } from 'react';
import { ActivityTimeline } from '../../shared/components/ActivityTimeline.js';
import { EmptyState } from '../../shared/components/EmptyState.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { activityLabel } from '../../shared/format.js';
import { useTool } from '../../shared/hooks.js';
import type { ActivityType, ToolArgs } from '../../shared/types.js';
import { Link } from '../router.js';
import { CursorPager } from '../../shared/components/CursorPager.js';

const TYPES: Record<ActivityType, true> = {
  connection_request_sent: true,
  connection_accepted: true,
  message_sent: true,
  reply_received: true,
  agent_replied: true,
  cta_sent: true,
  agent_handed_off: true,
};

/** How often the first page refreshes while it is on screen. */
export const ACTIVITY_POLL_MS = 3_000;

/** Recent activity; the newest page refreshes every few seconds while you watch. */
export function ActivityPage() {
  const id = useId();
  const [type, setType] = useState<ActivityType | ''>('');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const args: ToolArgs<'get_recent_activity'> = { limit: 50, ...(type ? { type } : {}), ...(cursor ? { cursor } : {}) };
  // Only the newest page polls: an older page stays put while you read it.
  const activity = useTool('get_recent_activity', args, { refetchInterval: cursor ? false : ACTIVITY_POLL_MS, keepPrevious: true });
  return (
    <>
      <h1 tabIndex={-1}>Activity</h1>
      <p className="o-muted">{cursor ? 'Showing older events.' : `Updates every ${ACTIVITY_POLL_MS / 1000} seconds.`}</p>
      <div className="o-field">
        <label htmlFor={`${id}-type`}>Event type</label>
        <select
          id={`${id}-type`}
          className="o-select"
          value={type}
          onChange={(e) => {
            setType(e.target.value as ActivityType | '');
            setCursors([]);
          }}
        >
          <option value="">All events</option>
          {(Object.keys(TYPES) as ActivityType[]).map((t) => (
            <option key={t} value={t}>
              {activityLabel(t)}
            </option>
          ))}
        </select>
      </div>
      <ErrorNote error={activity.error} />
      {activity.isPending ? <Loading label="Loading activity…" /> : null}
      {activity.data ? (
        <div className="o-card" aria-busy={activity.isFetching}>
          <ActivityTimeline
            events={activity.data.events}
            leadLink={(e) => (
              <Link to={`/leads/${encodeURIComponent(e.campaignId)}/${encodeURIComponent(e.leadId)}`}>
                <Untrusted fallback="a lead not yet named">{e.leadName}</Untrusted>
              </Link>
            )}
            empty={
              type || cursor ? (
                <EmptyState title={type ? `No “${activityLabel(type)}” events yet.` : 'No older events.'}>
                  {type ? 'Choose “All events” to see everything that happened.' : 'Go back to newer events.'}
                </EmptyState>
              ) : (
                <EmptyState title="No activity yet.">
                  <p>
                    Start a <Link to="/campaigns">campaign</Link> that has leads and an agent: its connection requests, acceptances, messages and replies appear
                    here as they happen.
                  </p>
                </EmptyState>
              )
            }
          />
        </div>
      ) : null}
      <CursorPager label="Activity pages" cursors={cursors} setCursors={setCursors} nextCursor={activity.data?.nextCursor} />
    </>
  );
}
