import { ErrorNote, Loading } from '../../../shared/components/Feedback.js';
import { formatNumber } from '../../../shared/format.js';
import { useTool } from '../../../shared/hooks.js';
import { Link } from '../../router.js';
import { RejectedRows } from './RejectedRows.js';
import { Summary } from './Summary.js';

/** How often the progress bar asks get_import while an import runs. */
export const IMPORT_POLL_MS = 500;

/** A running import's bar; once it ends, its counts, the rows not created and any line that stopped it. */
export function ImportProgress({ importId, fileName }: { importId: string; fileName: string }) {
  const status = useTool('get_import', { importId }, { refetchInterval: (d) => (d && d.status !== 'running' ? false : IMPORT_POLL_MS) });
  if (status.isPending) return <Loading label="Starting the import…" />;
  if (status.error) return <ErrorNote error={status.error} />;
  const s = status.data;
  const state = s.status === 'running' ? 'Importing…' : s.status === 'done' ? 'Import finished' : s.stoppedAt ? 'Import stopped' : 'Import failed';
  return (
    <section className="o-card o-stack" aria-label="Import progress">
      <label htmlFor={`p-${importId}`} className="o-label">
        {state} ({formatNumber(s.rowsDone)} of {formatNumber(s.rowsTotal)} rows)
      </label>
      <progress id={`p-${importId}`} className="o-progress" max={Math.max(s.rowsTotal, 1)} value={s.rowsDone} />
      {s.status === 'failed' ? (
        <p role="alert" className="o-alert o-alert-error">
          {s.stoppedAt ? `Stopped at line ${s.stoppedAt.line}. ` : ''}
          {s.error ?? 'The import stopped. Run it again: rows already imported are not charged twice.'}
        </p>
      ) : null}
      {s.status !== 'running' ? (
        <div role="status" className="o-stack">
          <Summary summary={s.summary} label="Import result" />
          <p>
            {formatNumber(s.creditsCharged)} credits charged. <Link to={`/campaigns/${s.campaignId}`}>See the campaign’s leads</Link>
          </p>
        </div>
      ) : null}
      {s.rows ? <RejectedRows rows={s.rows} csv={s.rejectedCsv} fileName={fileName} title="Rows not imported" /> : null}
    </section>
  );
}
