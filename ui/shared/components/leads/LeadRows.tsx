import type { ReactNode } from 'react';
import { formatWhen } from '../../format.js';
import type { Lead } from '../../types.js';
import { Untrusted } from '../Untrusted.js';
import type { Selection } from './useSelection.js';
import '../data.css';

/** A lead's name from what it has: its full name, else its first and last names; null when it has none. */
export const personName = (lead: Pick<Lead, 'fullName' | 'firstName' | 'lastName'>): string | null =>
  lead.fullName ?? ([lead.firstName, lead.lastName].filter(Boolean).join(' ') || null);

/** What a lead is called on screen and in its checkbox's label: its name, else (not yet known) its profile URL. */
export const leadName = (lead: Lead): string => personName(lead) ?? lead.networkUrl ?? lead.id;

/** A page of leads as table rows, each with its checkbox and, optionally, an action. */
export function LeadRows({
  leads,
  caption,
  selection,
  busy,
  empty,
  rowAction,
}: {
  leads: readonly Lead[];
  caption: string;
  selection: Selection;
  busy: boolean;
  /** Shown in the table body when there are no leads. */
  empty: ReactNode;
  rowAction?: ((lead: Lead) => ReactNode) | undefined;
}) {
  return (
    <div className="o-table-wrap">
      <table className="o-table" aria-busy={busy}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">
              <input type="checkbox" aria-label="Select every lead on this page" checked={selection.allOnPage} onChange={selection.toggleAll} />
            </th>
            <th scope="col">Name</th>
            <th scope="col">Title and company</th>
            <th scope="col">Stage</th>
            <th scope="col">Tag</th>
            <th scope="col">Replied</th>
            {rowAction ? (
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {leads.length === 0 ? (
            <tr>
              <td colSpan={rowAction ? 7 : 6}>{empty}</td>
            </tr>
          ) : null}
          {leads.map((lead) => (
            <LeadRow key={lead.id} lead={lead} selection={selection} rowAction={rowAction} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LeadRow({ lead, selection, rowAction }: { lead: Lead; selection: Selection; rowAction?: ((lead: Lead) => ReactNode) | undefined }) {
  const name = leadName(lead);
  return (
    <tr>
      <td>
        <input type="checkbox" aria-label={`Select ${name}`} checked={selection.has(lead.id)} onChange={() => selection.toggle(lead.id)} />
      </td>
      <td className="o-lead-name">
        {lead.networkUrl ? (
          <a href={lead.networkUrl} target="_blank" rel="noreferrer noopener">
            <Untrusted>{name}</Untrusted>
          </a>
        ) : (
          <Untrusted>{name}</Untrusted>
        )}
        {lead.excluded ? <span className="o-badge"> excluded</span> : null}
      </td>
      <td>
        {lead.jobTitle || lead.companyName ? (
          <>
            <Untrusted fallback={null}>{lead.jobTitle}</Untrusted>
            {lead.jobTitle && lead.companyName ? ' · ' : null}
            <Untrusted fallback={null}>{lead.companyName}</Untrusted>
          </>
        ) : (
          '—'
        )}
      </td>
      <td>{lead.stage.replace(/_/g, ' ')}</td>
      <td>{lead.tag ?? '—'}</td>
      <td>
        {lead.replied ? formatWhen(lead.repliedAt) : 'No'}
        {lead.needsReply ? <span className="o-badge o-badge-paused"> needs reply</span> : null}
      </td>
      {rowAction ? <td>{rowAction(lead)}</td> : null}
    </tr>
  );
}
