import { formatNumber } from '../../../shared/format.js';
import type { ImportSummary } from '../../../shared/types.js';

/** The batch summary's counts, as a preview or a result shows them. */
export function Summary({ summary, label }: { summary: ImportSummary; label: string }) {
  const rows: [string, number][] = [
    ['Rows', summary.total],
    ['New leads', summary.created],
    ['Duplicates', summary.duplicate],
    ['Excluded', summary.excluded],
    ['Invalid rows', summary.validation_error],
    ['Short of credits', summary.insufficient_credits],
    ['Failed', summary.failed],
  ];
  return (
    <dl className="o-stats" aria-label={label}>
      {rows.map(([k, v]) => (
        <div className="o-stat" key={k}>
          <dt>{k}</dt>
          <dd>{formatNumber(v)}</dd>
        </div>
      ))}
    </dl>
  );
}
