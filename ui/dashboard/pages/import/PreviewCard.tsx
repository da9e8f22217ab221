import { useId } from 'react';
import { ErrorNote } from '../../../shared/components/Feedback.js';
import { formatNumber } from '../../../shared/format.js';
import type { ToolError } from '../../../shared/seam.js';
import type { ImportField, ImportPreview } from '../../../shared/types.js';
import { ColumnMapping } from './ColumnMapping.js';
import { CreditCheck } from './CreditCheck.js';
import { RejectedRows } from './RejectedRows.js';
import { Summary } from './Summary.js';
import { Untrusted } from '../../../shared/components/Untrusted.js';

/**
 * The dry run of a file: its mapping (editable), the counts a real run would give, the credits
 * it needs against those available, the rows it would not create, a malformed line that would
 * stop it, and the button that starts the real run.
 */
export function PreviewCard({
  preview,
  fileName,
  map,
  auto,
  onRemap,
  onStart,
  starting,
  started,
  startError,
}: {
  preview: ImportPreview;
  fileName: string;
  map: Record<string, ImportField>;
  auto: Record<string, ImportField | null>;
  onRemap: (header: string, field: ImportField | '') => void;
  onStart: () => void;
  starting: boolean;
  started: boolean;
  startError: ToolError | null;
}) {
  const id = useId();
  const rows = preview.summary.total;
  const short = preview.shortOfCredits > 0;
  return (
    <section className="o-card o-stack" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>
        Preview of <Untrusted>{fileName}</Untrusted>
      </h2>
      <p className="o-muted">
        Delimiter “{preview.delimiter === '\t' ? 'tab' : preview.delimiter}”. Nothing has been imported yet; these are the counts a real run would give.
      </p>
      <ColumnMapping idPrefix={id} columns={preview.columns} map={map} auto={auto} onChange={onRemap} />
      {preview.unmappedColumns.length ? <p className="o-muted">Ignored columns: {preview.unmappedColumns.join(', ')}</p> : null}
      <Summary summary={preview.summary} label="Dry-run counts" />
      <CreditCheck preview={preview} />
      {preview.stoppedAt ? (
        <p role="alert" className="o-alert o-alert-error">
          The import will stop at line {preview.stoppedAt.line}: <Untrusted>{preview.stoppedAt.message}</Untrusted> Only the {formatNumber(rows)} row
          {rows === 1 ? '' : 's'} before it would be read.
        </p>
      ) : null}
      <RejectedRows rows={preview.rows} csv={preview.rejectedCsv || undefined} fileName={fileName} title="Rows that would not be imported" />
      <div>
        <button type="button" className="o-button o-button-primary" disabled={starting || started || rows === 0} onClick={onStart}>
          {short ? `Import anyway (${formatNumber(preview.shortOfCredits)} rows short of credits)` : `Import ${formatNumber(rows)} rows`}
        </button>
      </div>
      <ErrorNote error={startError} prefix="Could not start the import" />
    </section>
  );
}
