import type { ReactNode } from 'react';

/** A column's heading: its words, or `{ hidden }` for words only a screen reader reads (an actions column). */
export type TableColumn = string | { hidden: string };

export interface TableProps {
  /** What the table lists, read by screen readers (the page's heading already shows it). */
  caption: string;
  columns: readonly TableColumn[];
  /** The rows are being refetched (a new page, a filter). */
  busy?: boolean | undefined;
  /** The table is its own card; false when it sits in a card or section that has one. */
  card?: boolean;
  /** The body's rows. */
  children: ReactNode;
}

/** A list page's table: the scrolling wrapper, the caption, the header row and the body. */
export function Table({ caption, columns, busy, card = false, children }: TableProps) {
  return (
    <div className={card ? 'o-card o-table-wrap' : 'o-table-wrap'}>
      <table className="o-table" aria-busy={busy}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={typeof c === 'string' ? c : c.hidden} scope="col">
                {typeof c === 'string' ? c : <span className="sr-only">{c.hidden}</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
