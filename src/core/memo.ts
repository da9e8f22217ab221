/**
 * Memos of pure functions (a day's name, a zone's offset, a parsed sequence): values computed
 * from their key alone, kept so hot paths do not compute them again. Each is bounded (emptied
 * when it reaches `max` keys) and registered here, so `forgetMemos` empties every one of them: a
 * test that wants a cold start, or a process that opens another database, calls it. Values read
 * from the database are never memoized here: they live in the cache (src/db/cache.ts), which
 * follows the database's writes.
 */
export interface Memo<K, V> {
  /** The value kept for `key`, else `compute(key)`, kept. */
  get(key: K, compute: (key: K) => V): V;
  readonly size: number;
}

const memos = new Set<Map<unknown, unknown>>();

export function memo<K, V>(max: number): Memo<K, V> {
  const kept = new Map<K, V>();
  memos.add(kept as Map<unknown, unknown>);
  return {
    get(key, compute) {
      let value = kept.get(key);
      if (value === undefined && !kept.has(key)) {
        value = compute(key);
        if (kept.size >= max) kept.clear();
        kept.set(key, value);
      }
      return value as V;
    },
    get size() {
      return kept.size;
    },
  };
}

/** Empties every memo. */
export function forgetMemos(): void {
  for (const kept of memos) kept.clear();
}
