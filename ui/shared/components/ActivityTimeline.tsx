import { activityLabel, formatWhen } from '../format.js';
import type { ActivityEvent } from '../types.js';

export interface ActivityTimelineProps {
  /** The events of a get_recent_activity result, newest first. */
  events: ActivityEvent[];
  /** Renders a lead's name, e.g. as a link to its campaign in the dashboard. */
  leadLink?: (event: ActivityEvent) => React.ReactNode;
  label?: string;
}

/** Recent outreach, newest first, as an ordered list. */
export function ActivityTimeline({ events, leadLink, label = 'Recent activity' }: ActivityTimelineProps) {
  if (events.length === 0) return <p className="o-muted">No activity yet. Start a campaign to see sends, acceptances and replies here.</p>;
  return (
    <ol className="o-timeline" aria-label={label}>
      {events.map((event) => (
        <li key={event.id}>
          <time dateTime={event.timestamp}>{formatWhen(event.timestamp)}</time>
          <div>
            <strong>{activityLabel(event.type)}</strong> · {leadLink ? leadLink(event) : event.leadName}
            {event.companyName ? <span className="o-muted"> ({event.companyName})</span> : null}
          </div>
          {event.messagePreview ? <div className="o-muted">“{event.messagePreview}”</div> : null}
          {event.handOffReason ? <div className="o-muted">Reason: {event.handOffReason}</div> : null}
        </li>
      ))}
    </ol>
  );
}
