import { useId, useRef, useState, type FormEvent } from 'react';
import { CursorPager } from '../../shared/components/CursorPager.js';
import { EmptyState } from '../../shared/components/EmptyState.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Table } from '../../shared/components/Table.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { formatNumber, formatWhen } from '../../shared/format.js';
import { useCan } from '../../shared/access.js';
import { useTool, useToolMutation } from '../../shared/hooks.js';
import type { ToolOutput } from '../../shared/types.js';

const INVALIDATES = ['list_exclusions', 'list_leads', 'search_leads', 'get_campaign', 'list_campaigns'] as const;

/** What an add or an import did, in one sentence. */
export function addedSentence(r: ToolOutput<'add_exclusions'>): string {
  const already = r.alreadyExcluded.length ? ` (${formatNumber(r.alreadyExcluded.length)} already on the list)` : '';
  return `Added ${formatNumber(r.added.length)} profile${r.added.length === 1 ? '' : 's'} to the list${already}; ${formatNumber(r.leadsExcluded)} lead${r.leadsExcluded === 1 ? '' : 's'} newly excluded.`;
}

/** Profile URLs typed or pasted, one a line (commas and spaces separate them too). */
const urlsOf = (text: string): string[] => text.split(/[\s,]+/).filter((u) => u !== '');

function AddForm({ onDone }: { onDone: (message: string) => void }) {
  const id = useId();
  const [text, setText] = useState('');
  const add = useToolMutation('add_exclusions', INVALIDATES);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const sent = text;
    add.mutate(
      { urls: urlsOf(sent) },
      {
        onSuccess: (r) => {
          // URLs typed while the call was on its way were not sent, and stay.
          setText((now) => (now === sent ? '' : now));
          onDone(addedSentence(r));
        },
      },
    );
  };
  return (
    <form className="o-card" onSubmit={submit} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Add profiles</h2>
      <div className="o-field">
        <label htmlFor={`${id}-urls`}>Profile URLs, one a line</label>
        <textarea
          id={`${id}-urls`}
          className="o-textarea"
          required
          aria-describedby={`${id}-hint`}
          placeholder="https://www.linkedin.com/in/…"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <span id={`${id}-hint`} className="o-hint">
          Up to 1,000 at a time. Every lead with one of these profiles is excluded in every campaign, now and when added later.
        </span>
      </div>
      <button type="submit" className="o-button o-button-primary" disabled={add.isPending || urlsOf(text).length === 0}>
        Add to the list
      </button>
      <ErrorNote error={add.error} prefix="Could not add" />
    </form>
  );
}

function ImportForm({ onDone }: { onDone: (message: string) => void }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const importFile = useToolMutation('import_exclusions', INVALIDATES);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    const text = await file.text();
    importFile.mutate(
      { file: text },
      {
        onSuccess: (r) => {
          setFile(null);
          if (input.current) input.current.value = '';
          onDone(`${file.name}: ${addedSentence(r)}`);
        },
      },
    );
  };
  return (
    <form className="o-card" onSubmit={(e) => void submit(e)} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Import a file</h2>
      <div className="o-field">
        <label htmlFor={`${id}-file`}>Exclusion file (.csv or .txt)</label>
        <input
          ref={input}
          id={`${id}-file`}
          type="file"
          accept=".csv,.txt,text/csv,text/plain"
          aria-describedby={`${id}-hint`}
          onChange={(e) => {
            if (!importFile.isPending) importFile.reset();
            setFile(e.target.files?.[0] ?? null);
          }}
        />
        <span id={`${id}-hint`} className="o-hint">
          One profile URL a line, or a CSV with a profile URL column (for example “LinkedIn URL”). Nothing is added if one URL is not a profile URL.
        </span>
      </div>
      <button type="submit" className="o-button" disabled={!file || importFile.isPending}>
        Import {file ? <Untrusted>{file.name}</Untrusted> : 'the file'}
      </button>
      <ErrorNote error={importFile.error} prefix="Could not import" />
    </form>
  );
}

/** The exclusion list: profiles never contacted, added by hand or from a file, newest first. */
export function ExclusionsPage() {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const list = useTool('list_exclusions', { limit: 50, ...(cursor ? { cursor } : {}) }, { keepPrevious: true });
  const remove = useToolMutation('remove_exclusions', INVALIDATES);
  const canAdd = useCan('add_exclusions');
  const canImport = useCan('import_exclusions');
  const canRemove = useCan('remove_exclusions');
  const [notice, setNotice] = useState<string | null>(null);
  const done = (message: string) => {
    setNotice(message);
    setCursors([]);
  };
  return (
    <>
      <h1 tabIndex={-1}>Exclusions</h1>
      <p>
        Profiles on this list are never contacted, in any campaign. Taking a profile off the list does not include its leads again: each stays excluded until
        you select it on its campaign’s page and choose Include.
      </p>
      {canAdd || canImport ? (
        <div className="o-grid">
          {canAdd ? <AddForm onDone={done} /> : null}
          {canImport ? <ImportForm onDone={done} /> : null}
        </div>
      ) : null}
      {notice ? (
        <p role="status" className="o-alert o-alert-success">
          {notice}
        </p>
      ) : null}
      <ErrorNote error={list.error} />
      <ErrorNote error={remove.error} prefix="Could not remove" />
      {list.isPending ? <Loading label="Loading the exclusion list…" /> : null}
      {list.data && list.data.exclusions.length === 0 && !cursor ? (
        <EmptyState title="No profile is excluded yet.">
          Add profile URLs above, or import a file, to make sure those people are never contacted. A lead tagged “Not interested” or “Wrong person” is excluded
          on its own.
        </EmptyState>
      ) : null}
      {list.data && (list.data.exclusions.length > 0 || cursor) ? (
        <section className="o-card" aria-label="Excluded profiles">
          <Table caption="Excluded profiles, newest first" busy={list.isFetching} columns={['Profile URL', 'Added', { hidden: 'Actions' }]}>
            {list.data.exclusions.map((e) => (
              <tr key={e.networkUrl}>
                <td className="o-mono">
                  <Untrusted>{e.networkUrl}</Untrusted>
                </td>
                <td>{formatWhen(e.createdAt)}</td>
                <td>
                  {canRemove ? (
                    <button
                      type="button"
                      className="o-button"
                      disabled={remove.isPending}
                      onClick={() => remove.mutate({ urls: [e.networkUrl] }, { onSuccess: () => setNotice(`Removed ${e.networkUrl} from the list.`) })}
                    >
                      Remove <span className="sr-only">{e.networkUrl}</span>
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
          <CursorPager label="Exclusion pages" cursors={cursors} setCursors={setCursors} nextCursor={list.data.nextCursor} />
        </section>
      ) : null}
    </>
  );
}
