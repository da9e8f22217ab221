import { useId } from 'react';
import { formatNumber } from '../../../shared/format.js';
import type { RejectedRow } from '../../../shared/types.js';
import { Untrusted } from '../../../shared/components/Untrusted.js';

/** The table shows this many rows; the CSV has them all. */
export const ROWS_SHOWN = 100;

const STATUS: Record<RejectedRow['status'], string> = {
  duplicate: 'Duplicate',
  excluded: 'Excluded',
  validation_error: 'Invalid',
  insufficient_credits: 'No credit',
  failed: 'Failed',
};

/** Offers `csv` as a file download, without leaving the page. */
export function downloadCsv(csv: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** `leads.csv` → `leads-not-imported.csv`. */
export const rejectedFileName = (fileName: string): string => `${fileName.replace(/\.[^.]*$/, '') || 'leads'}-not-imported.csv`;

/**
 * Every row that was (or would be) not created: its line in the file, why, and the field at
 * fault; and all of them as a CSV with the file's columns and a reason, to fix and import again.
 */
export function RejectedRows({ rows, csv, fileName, title }: { rows: readonly RejectedRow[]; csv: string | undefined; fileName: string; title: string }) {
  const id = useId();
  if (rows.length === 0) return null;
  return (
    <section className="o-stack" aria-labelledby={`${id}-h`}>
      <div className="o-row-between">
        <h3 id={`${id}-h`}>
          {title} ({formatNumber(rows.length)})
        </h3>
        {csv ? (
          <button type="button" className="o-button" onClick={() => downloadCsv(csv, rejectedFileName(fileName))}>
            Download these rows as CSV
          </button>
        ) : null}
      </div>
      <div className="o-table-wrap">
        <table className="o-table">
          <caption className="sr-only">{title}</caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Outcome</th>
              <th scope="col">Field</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {rows.slice(0, ROWS_SHOWN).map((r) => (
              <tr key={r.line}>
                <td>{r.line}</td>
                <td>{STATUS[r.status]}</td>
                <td>{r.field ?? '—'}</td>
                <td>
                  <Untrusted>{r.message}</Untrusted>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length > ROWS_SHOWN ? (
        <p className="o-muted">
          The first {ROWS_SHOWN} of {formatNumber(rows.length)} are listed; the CSV has them all.
        </p>
      ) : null}
    </section>
  );
}
