import type { Dispatch, SetStateAction } from 'react';

/**
 * Newer/Older paging over a keyset list: `cursors` is the stack of cursors that led to the page
 * on screen (empty on the first page), `nextCursor` the list's answer for the page after it.
 * `labels` names the two buttons for a list in another order (oldest first: Previous, Next).
 */
export function CursorPager({
  label,
  cursors,
  setCursors,
  nextCursor,
  labels = ['Newer', 'Older'],
}: {
  label: string;
  cursors: readonly string[];
  setCursors: Dispatch<SetStateAction<string[]>>;
  nextCursor: string | null | undefined;
  labels?: readonly [back: string, forward: string];
}) {
  return (
    <nav className="o-row" aria-label={label}>
      <button type="button" className="o-button" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
        {labels[0]}
      </button>
      <button
        type="button"
        className="o-button"
        disabled={!nextCursor}
        onClick={() => {
          if (nextCursor) setCursors((c) => [...c, nextCursor]);
        }}
      >
        {labels[1]}
      </button>
    </nav>
  );
}
