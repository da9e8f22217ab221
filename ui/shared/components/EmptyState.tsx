import type { ReactNode } from 'react';
import './data.css';

/**
 * What to show where a chart, list or funnel has nothing in it yet: what is missing and the next
 * step, instead of a flat line at zero or an empty frame.
 */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="o-empty">
      <p className="o-empty-title">{title}</p>
      {children ? <div className="o-empty-next">{children}</div> : null}
    </div>
  );
}
