import { useId, useState, type ChangeEvent } from 'react';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { useTool, useToolMutation } from '../../shared/hooks.js';
import type { ImportField, ImportPreview } from '../../shared/types.js';
import { Link, useLocation } from '../router.js';
import { ImportProgress } from './import/ImportProgress.js';
import { PreviewCard } from './import/PreviewCard.js';

/** The file chosen and the mapping the operator made of it. */
interface Chosen {
  csv: string;
  fileName: string;
  map: Record<string, ImportField>;
  /** The automatic mapping of the file, from its first preview: an override equal to it is dropped. */
  auto: Record<string, ImportField | null>;
}

const withMap = (map: Record<string, ImportField>) => (Object.keys(map).length ? { map } : {});

/** Upload a CSV, check the column mapping, the dry-run counts and the credits, then import with a progress bar. */
export function ImportPage() {
  const id = useId();
  const { query } = useLocation();
  const campaigns = useTool('list_campaigns', { limit: 100 });
  const [campaignId, setCampaignId] = useState(query.get('campaign') ?? '');
  const target = campaignId || campaigns.data?.campaigns[0]?.id || '';
  const [file, setFile] = useState<Chosen | null>(null);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [importId, setImportId] = useState<string | null>(null);
  const previewCall = useToolMutation('preview_import');
  const start = useToolMutation('start_import', ['list_campaigns', 'get_campaign', 'list_leads', 'get_credits']);

  const runPreview = (next: Chosen, campaign = target, first = false) => {
    setPreview(null);
    previewCall.mutate(
      { campaignId: campaign, csv: next.csv, ...withMap(next.map) },
      {
        onSuccess: (p) => {
          setPreview(p);
          if (first) setFile({ ...next, auto: Object.fromEntries(p.columns.map((c) => [c.header, c.field])) });
        },
      },
    );
  };
  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const picked = e.target.files?.[0];
    setImportId(null);
    if (!picked) return;
    const next: Chosen = { csv: await picked.text(), fileName: picked.name, map: {}, auto: {} };
    setFile(next);
    runPreview(next, target, true);
  };
  const remap = (header: string, field: ImportField | '') => {
    if (!file) return;
    const map = { ...file.map };
    if (field === '' || field === file.auto[header]) delete map[header];
    else map[header] = field;
    const next = { ...file, map };
    setFile(next);
    runPreview(next);
  };
  const chooseCampaign = (next: string) => {
    setCampaignId(next);
    setPreview(null);
    setImportId(null);
    if (file) runPreview(file, next);
  };

  return (
    <>
      <h1 tabIndex={-1}>Import leads</h1>
      <div className="o-card o-stack">
        <div className="o-field">
          <label htmlFor={`${id}-c`}>Campaign</label>
          <select id={`${id}-c`} className="o-select" value={target} onChange={(e) => chooseCampaign(e.target.value)}>
            {campaigns.data?.campaigns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-f`}>CSV file (UTF-8 with a header row; comma, semicolon or tab)</label>
          <input id={`${id}-f`} className="o-input" type="file" accept=".csv,.tsv,.txt,text/csv" disabled={!target} onChange={onFile} />
        </div>
        {!target && campaigns.data ? (
          <p>
            Create a campaign first: <Link to="/campaigns">Campaigns</Link>.
          </p>
        ) : null}
      </div>
      {previewCall.isPending ? <Loading label="Reading the file…" /> : null}
      <ErrorNote error={previewCall.error} prefix="Cannot import this file" />
      {preview && file ? (
        <PreviewCard
          preview={preview}
          fileName={file.fileName}
          map={file.map}
          auto={file.auto}
          onRemap={remap}
          starting={start.isPending}
          started={importId !== null}
          startError={start.error}
          onStart={() => start.mutate({ campaignId: target, csv: file.csv, ...withMap(file.map) }, { onSuccess: (r) => setImportId(r.importId) })}
        />
      ) : null}
      {importId && file ? <ImportProgress importId={importId} fileName={file.fileName} /> : null}
    </>
  );
}
