import type { KeysetSource } from '../db/keyset.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from './cursor.js';

export type { KeysetRange, KeysetSource } from '../db/keyset.js';

/** Where a keyset walk ordered by (sort DESC, seq DESC) stopped: the last row served. */
export interface KeysetPosition {
  value: number;
  seq: number;
}

export interface KeysetQuery<T> {
  /** Resource, parent and filter the cursor is bound to (e.g. `leads|cmp_1|tag=Interested|taggedAt`). */
  scope: string;
  cursor: string | undefined;
  limit: number;
  source: KeysetSource<T>;
  position(row: T): KeysetPosition;
}

/**
 * One page of a newest-first list, and the signed cursor of the next one. The position comes
 * from the cursor itself, not from the row's current values, so a row whose sort value moves
 * after it was served cannot make a page repeat or skip rows. The row must still exist, still
 * match the filter and still have a sort value (spec, leads rule 4); otherwise the cursor is
 * refused rather than silently restarting at page one.
 */
export function keysetPage<T>(secret: string, q: KeysetQuery<T>): { items: T[]; nextCursor: string | null } {
  let after: KeysetPosition | undefined;
  if (q.cursor !== undefined) {
    const [value, seq, ...rest] = decodeCursor(secret, q.scope, q.cursor);
    if (rest.length || !Number.isSafeInteger(value) || !Number.isSafeInteger(seq)) throw invalidCursor();
    after = { value: value as number, seq: seq as number };
    if (!q.source.holds(after.seq)) throw invalidCursor();
  }
  const want = q.limit + 1;
  let rows: T[];
  if (!after) {
    rows = q.source.fetch({ kind: 'first' }, want);
  } else {
    // Two index seeks instead of one `(sort, seq) < (?, ?)`: SQLite does not seek on a row
    // value whose last term is the rowid, so that form walks every earlier tie of the
    // cursor's sort value and a deep page in a batch-inserted campaign costs O(offset).
    rows = q.source.fetch({ kind: 'ties', value: after.value, seq: after.seq }, want);
    if (rows.length < want) rows = rows.concat(q.source.fetch({ kind: 'older', value: after.value }, want - rows.length));
  }
  return pageOf(rows, q.limit, (last) => {
    const p = q.position(last);
    return encodeCursor(secret, q.scope, [p.value, p.seq]);
  });
}
