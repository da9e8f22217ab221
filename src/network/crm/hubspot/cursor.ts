/**
 * The change read's cursor: the last modification time read (ms) and the ids already read at
 * exactly that time. HubSpot's search sorts on one property only, so contacts changed in the same
 * millisecond have no stable order between them; the next read asks for `>= t` and drops the ids
 * it has seen, so none is missed and none is read twice. Opaque to core (base64url JSON).
 */
export interface ChangeCursor {
  t: number;
  ids: string[];
}

export function encodeCursor(c: ChangeCursor): string {
  return Buffer.from(JSON.stringify(c), 'utf8').toString('base64url');
}

/** Null for the start; throws on a cursor this adapter did not write. */
export function decodeCursor(cursor: string | null): ChangeCursor | null {
  if (cursor === null) return null;
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<ChangeCursor>;
    if (typeof c.t === 'number' && Number.isFinite(c.t) && Array.isArray(c.ids) && c.ids.every((id) => typeof id === 'string')) return { t: c.t, ids: c.ids };
  } catch {
    // falls through to the error below
  }
  throw new Error('not a HubSpot change cursor');
}
