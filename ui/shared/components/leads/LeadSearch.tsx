import { useId, useState, type FormEvent } from 'react';
import '../forms.css';

/**
 * Find a lead of the campaign by the start of its name, last name or company, or by its profile
 * URL (search_leads). The table shows the matches until the search is cleared.
 */
export function LeadSearch({ query, onSearch }: { query: string; onSearch: (query: string) => void }) {
  const id = useId();
  const [text, setText] = useState(query);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSearch(text.trim());
  };
  return (
    <form role="search" className="o-row o-search" aria-label="Find a lead" onSubmit={submit}>
      <div className="o-field">
        <label htmlFor={`${id}-q`}>Find a lead by name, company or profile URL</label>
        <input id={`${id}-q`} className="o-input" type="search" maxLength={200} value={text} onChange={(e) => setText(e.target.value)} />
      </div>
      <button type="submit" className="o-button" disabled={text.trim() === ''}>
        Find
      </button>
      {query ? (
        <button
          type="button"
          className="o-button"
          onClick={() => {
            setText('');
            onSearch('');
          }}
        >
          Show all leads
        </button>
      ) : null}
    </form>
  );
}
