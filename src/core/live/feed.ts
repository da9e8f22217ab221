import { dataVersion } from '../../db/cache.js';
import type { Db } from '../../db/connection.js';

/**
 * The change feed: what a live face (MCP resource subscriptions, the dashboard's event stream)
 * needs to know to refresh. Core notes a change where it writes it (the drafts store, the
 * campaign state machine and its counters, the message log); the feed coalesces the changes and
 * hands them, in batches, to whoever listens. It names resources, never carries their data: a
 * listener reads what changed through the usual verbs, with its own caller's scope.
 *
 * - `campaign`: a campaign's status, settings, importing mark or counters (stats, lead totals).
 * - `drafts`: the draft queue of a campaign (a draft created, edited, approved, rejected,
 *   skipped, sent or deleted).
 * - `conversation`: a message to or from a lead was recorded.
 * - `workspace`: another process committed to the database (the CLI, a second server): anything
 *   may have changed, and the feed cannot say what.
 * - `access`: a credential lost its access (an API key or an OAuth grant was revoked). No
 *   resource changed; a listener holding a stream open for a credential checks it again, so a
 *   revoked key's stream ends within a window, not at the next change of data.
 */
export type LiveChange =
  | { resource: 'campaign'; campaignId: string }
  | { resource: 'drafts'; campaignId: string }
  | { resource: 'conversation'; leadId: string; campaignId: string | null }
  | { resource: 'workspace' }
  | { resource: 'access' };

export type ChangeListener = (changes: readonly LiveChange[]) => void;

/**
 * How long the feed gathers changes before it hands them on. A busy engine writes a campaign's
 * counters and drafts many times a second; a listener hears of each resource at most once per
 * window, at its end (trailing), with every change of the window merged.
 */
export const LIVE_WINDOW_MS = 250;

const keyOf = (c: LiveChange): string => {
  switch (c.resource) {
    case 'campaign':
      return `c:${c.campaignId}`;
    case 'drafts':
      return `d:${c.campaignId}`;
    case 'conversation':
      return `m:${c.leadId}`;
    case 'workspace':
      return 'w';
    case 'access':
      return 'a';
  }
};

class Feed {
  private readonly listeners = new Set<ChangeListener>();
  private readonly pending = new Map<string, LiveChange>();
  private flushTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private seenVersion = -1;

  constructor(private readonly db: Db) {}

  get listening(): boolean {
    return this.listeners.size > 0;
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    if (this.pollTimer === undefined) {
      this.seenVersion = this.readVersion();
      this.pollTimer = setInterval(() => this.poll(), LIVE_WINDOW_MS);
      this.pollTimer.unref();
    }
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
      clearInterval(this.pollTimer);
      this.pollTimer = undefined;
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
      this.pending.clear();
    };
  }

  note(change: LiveChange): void {
    if (this.listeners.size === 0) return;
    this.pending.set(keyOf(change), change);
    if (this.flushTimer === undefined) {
      this.flushTimer = setTimeout(() => this.flush(), LIVE_WINDOW_MS);
      this.flushTimer.unref();
    }
  }

  private flush(): void {
    this.flushTimer = undefined;
    const batch = [...this.pending.values()];
    this.pending.clear();
    if (batch.length === 0) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(batch);
      } catch {
        // A listener's failure (a closed stream) is its own; the others still hear of the batch.
      }
    }
  }

  private readVersion(): number {
    try {
      return dataVersion(this.db);
    } catch {
      return this.seenVersion; // the connection closed: nothing more to learn
    }
  }

  /** Another process committed since the last look: say so once, as a workspace change. */
  private poll(): void {
    const version = this.readVersion();
    if (version === this.seenVersion) return;
    this.seenVersion = version;
    this.note({ resource: 'workspace' });
  }
}

const feeds = new WeakMap<Db, Feed>();

function feedOf(db: Db): Feed {
  let feed = feeds.get(db);
  if (!feed) {
    feed = new Feed(db);
    feeds.set(db, feed);
  }
  return feed;
}

/**
 * Listens to the changes of this database, in batches at most one per LIVE_WINDOW_MS. While
 * anyone listens, the feed also looks every window for commits of other processes (SQLite's
 * `PRAGMA data_version`, one statement). Returns the function that stops listening.
 */
export function listenToChanges(ctx: { db: Db }, listener: ChangeListener): () => void {
  return feedOf(ctx.db).subscribe(listener);
}

/** Whether anyone listens: a writer skips the reads a change note needs when nobody does. */
export const anyoneListening = (ctx: { db: Db }): boolean => feeds.get(ctx.db)?.listening ?? false;

/**
 * Notes a change. Called by the writers of core beside their write, inside its transaction or
 * not: a change whose transaction rolls back is still heard, which costs a listener one
 * needless read and never a missed change. Free when nobody listens.
 */
export function noteChange(ctx: { db: Db }, change: LiveChange): void {
  feeds.get(ctx.db)?.note(change);
}
