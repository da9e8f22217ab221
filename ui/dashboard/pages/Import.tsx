import { useId, useState, type ChangeEvent } from 'react';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { formatNumber } from '../../shared/format.js';
import { useTool, useToolMutation } from '../../shared/hooks.js';
import type { ImportField, ImportPreview, ImportSummary } from '../../shared/types.js';
import { Link, useLocation } from '../router.js';

/** How often the progress bar asks get_import while an import runs. */
export const IMPORT_POLL_MS = 500;

/** Every lead field a column can fill, checked against the tool's own list by the type-check. */
const FIELD_SET: Record<ImportField, true> = {
  networkUrl: true,
  fullName: true,
  firstName: true,
  lastName: true,
  jobTitle: true,
  companyName: true,
  email: true,
  location: true,
  headline: true,
  personalization: true,
};
const FIELDS = Object.keys(FIELD_SET) as ImportField[];

function Summary({ summary, label }: { summary: ImportSummary; label: string }) {
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

function Progress({ importId }: { importId: string }) {
  const status = useTool('get_import', { importId }, { refetchInterval: (d) => (d && d.status !== 'running' ? false : IMPORT_POLL_MS) });
  if (status.isPending) return <Loading label="Starting the import…" />;
  if (status.error) return <ErrorNote error={status.error} />;
  const s = status.data;
  return (
    <section className="o-card o-stack" aria-label="Import progress">
      <label htmlFor={`p-${importId}`} className="o-label">
        {s.status === 'running' ? 'Importing…' : s.status === 'done' ? 'Import finished' : 'Import failed'} ({formatNumber(s.rowsDone)} of{' '}
        {formatNumber(s.rowsTotal)} rows)
      </label>
      <progress id={`p-${importId}`} className="o-progress" max={Math.max(s.rowsTotal, 1)} value={s.rowsDone} />
      {s.status === 'failed' ? (
        <p role="alert" className="o-alert o-alert-error">
          {s.error ?? 'The import stopped. Run it again: rows already imported are not charged twice.'}
        </p>
      ) : null}
      {s.status !== 'running' ? (
        <div role="status">
          <Summary summary={s.summary} label="Import result" />
          <p>
            {formatNumber(s.creditsCharged)} credits charged. <Link to={`/campaigns/${s.campaignId}`}>See the campaign’s leads</Link>
          </p>
        </div>
      ) : null}
    </section>
  );
}

/** Upload a CSV, check the column mapping and the dry-run counts, then import with a progress bar. */
export function ImportPage() {
  const id = useId();
  const { query } = useLocation();
  const campaigns = useTool('list_campaigns', { limit: 100 });
  const [campaignId, setCampaignId] = useState(query.get('campaign') ?? '');
  const chosen = campaignId || campaigns.data?.campaigns[0]?.id || '';
  const [csv, setCsv] = useState<string | null>(null);
  const [fileName, setFileName] = useState('');
  const [map, setMap] = useState<Record<string, ImportField>>({});
  // The automatic mapping of the file, from its first preview: an override equal to it is dropped.
  const [auto, setAuto] = useState<Record<string, ImportField | null>>({});
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [importId, setImportId] = useState<string | null>(null);
  const previewCall = useToolMutation('preview_import');
  const start = useToolMutation('start_import', ['list_campaigns', 'get_campaign', 'list_leads', 'get_credits']);

  const runPreview = (text: string, nextMap: Record<string, ImportField>, first = false) => {
    setPreview(null);
    previewCall.mutate(
      { campaignId: chosen, csv: text, ...(Object.keys(nextMap).length ? { map: nextMap } : {}) },
      {
        onSuccess: (p) => {
          setPreview(p);
          if (first) setAuto(Object.fromEntries(p.columns.map((c) => [c.header, c.field])));
        },
      },
    );
  };
  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    setImportId(null);
    if (!file) return;
    const text = await file.text();
    setFileName(file.name);
    setCsv(text);
    setMap({});
    runPreview(text, {}, true);
  };
  const remap = (header: string, field: ImportField | '') => {
    const next = { ...map };
    if (field === '' || field === auto[header]) delete next[header];
    else next[header] = field;
    setMap(next);
    if (csv) runPreview(csv, next);
  };

  return (
    <>
      <h1 tabIndex={-1}>Import leads</h1>
      <div className="o-card o-stack">
        <div className="o-field">
          <label htmlFor={`${id}-c`}>Campaign</label>
          <select
            id={`${id}-c`}
            className="o-select"
            value={chosen}
            onChange={(e) => {
              setCampaignId(e.target.value);
              setPreview(null);
              setImportId(null);
              if (csv) runPreview(csv, map);
            }}
          >
            {campaigns.data?.campaigns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-f`}>CSV file (UTF-8 with a header row; comma, semicolon or tab)</label>
          <input id={`${id}-f`} className="o-input" type="file" accept=".csv,.tsv,.txt,text/csv" disabled={!chosen} onChange={onFile} />
        </div>
        {!chosen && campaigns.data ? (
          <p>
            Create a campaign first: <Link to="/campaigns">Campaigns</Link>.
          </p>
        ) : null}
      </div>
      {previewCall.isPending ? <Loading label="Reading the file…" /> : null}
      <ErrorNote error={previewCall.error} prefix="Cannot import this file" />
      {preview ? (
        <section className="o-card o-stack" aria-labelledby={`${id}-ph`}>
          <h2 id={`${id}-ph`}>Preview of {fileName}</h2>
          <p className="o-muted">
            Delimiter “{preview.delimiter === '\t' ? 'tab' : preview.delimiter}”. Nothing has been imported yet; these are the counts a real run would give.
          </p>
          <table className="o-table">
            <caption className="sr-only">Column mapping</caption>
            <thead>
              <tr>
                <th scope="col">Column</th>
                <th scope="col">Lead field</th>
              </tr>
            </thead>
            <tbody>
              {preview.columns.map((col) => (
                <tr key={col.header}>
                  <th scope="row">{col.header}</th>
                  <td>
                    <label htmlFor={`${id}-map-${col.header}`} className="sr-only">
                      Field for column {col.header}
                    </label>
                    <select
                      id={`${id}-map-${col.header}`}
                      className="o-select"
                      value={map[col.header] ?? col.field ?? ''}
                      onChange={(e) => remap(col.header, e.target.value as ImportField | '')}
                    >
                      {/* The tool's map can add or change a column's field, not drop an automatic one. */}
                      {auto[col.header] ? null : <option value="">Ignore</option>}
                      {FIELDS.map((f) => (
                        <option key={f} value={f}>
                          {f}
                        </option>
                      ))}
                    </select>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {preview.unmappedColumns.length ? <p className="o-muted">Ignored columns: {preview.unmappedColumns.join(', ')}</p> : null}
          <Summary summary={preview.summary} label="Dry-run counts" />
          <p>
            <strong>{formatNumber(preview.creditsNeeded)}</strong> credits needed.
          </p>
          <button
            type="button"
            className="o-button o-button-primary"
            disabled={start.isPending || importId !== null || !csv}
            onClick={() => {
              if (!csv) return;
              start.mutate({ campaignId: chosen, csv, ...(Object.keys(map).length ? { map } : {}) }, { onSuccess: (r) => setImportId(r.importId) });
            }}
          >
            Import {formatNumber(preview.summary.total)} rows
          </button>
          <ErrorNote error={start.error} prefix="Could not start the import" />
        </section>
      ) : null}
      {importId ? <Progress importId={importId} /> : null}
    </>
  );
}
