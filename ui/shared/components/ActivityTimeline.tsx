import type { ReactNode } from 'react';
import { activityLabel, formatWhen } from '../format.js';
import type { ActivityEvent } from '../types.js';
import { EmptyState } from './EmptyState.js';
import { Untrusted, UntrustedBlock } from './Untrusted.js';
import './data.css';
import './timeline.css';

export interface ActivityTimelineProps {
  /** The events of a get_recent_activity result, newest first. */
  events: ActivityEvent[];
  /** Renders a lead's name, e.g. as a link to its campaign in the dashboard. */
  leadLink?: (event: ActivityEvent) => ReactNode;
  label?: string;
  /** What to show when there are no events (the default: what to do to get some). */
  empty?: ReactNode;
}

/** Recent outreach, newest first, as an ordered list. */
export function ActivityTimeline({ events, leadLink, label = 'Recent activity', empty }: ActivityTimelineProps) {
  if (events.length === 0) {
    return (
      empty ?? (
        <EmptyState title="No activity yet.">
          Start a campaign that has leads and an agent: its connection requests, acceptances, messages and replies appear here as they happen.
        </EmptyState>
      )
    );
  }
  return (
    <ol className="o-timeline" aria-label={label}>
      {events.map((event) => (
        <li key={event.id}>
          <time dateTime={event.timestamp}>{formatWhen(event.timestamp)}</time>
          <div>
            <strong>{activityLabel(event.type)}</strong> · {leadLink ? leadLink(event) : <Untrusted>{event.leadName}</Untrusted>}
            {event.companyName ? (
              <span className="o-muted">
                {' '}
                (<Untrusted>{event.companyName}</Untrusted>)
              </span>
            ) : null}
          </div>
          {event.messagePreview ? (
            <UntrustedBlock as="div" className="o-muted">
              “{event.messagePreview}”
            </UntrustedBlock>
          ) : null}
          {event.handOffReason ? (
            <div className="o-muted">
              Reason: <Untrusted>{event.handOffReason}</Untrusted>
            </div>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
