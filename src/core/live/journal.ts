import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/connection.js';
import { perDb } from '../../db/prepared.js';
import { type ApiError, validationError } from '../errors.js';
import { listenToChanges, type LiveChange } from './feed.js';

/*
 * The change journal: the change feed with a cursor, for a reader that cannot hold a stream open
 * and asks again instead (an MCP App view, whose host passes on resource reads but no
 * notifications). Each batch the feed hands on gets the next number of the journal; a reader
 * holds a cursor (the number it has seen) and waits for the batches after it. The journal keeps
 * recent batches, so a change that comes while the reader is busy re-reading what changed waits
 * for its next question instead of being lost.
 *
 * It listens to the feed from the first question until RETAIN_MS after the last one ended. A
 * restart of the journal (or of the process) starts a new epoch: a cursor of another epoch, or
 * older than what the journal still holds, is answered at once with `reset` (read everything
 * again), never with a silent gap.
 */

/** How long the journal keeps batches, and keeps listening, after its last reader. */
export const RETAIN_MS = 120_000;
/** At most this many batches are kept (the feed hands on at most four a second). */
const MAX_ENTRIES = 1024;
/**
 * A reader is answered at most once per this many milliseconds: a change that comes sooner
 * after the reader's previous answer is held and merged with what follows until then, so a
 * busy engine costs a reader one answer (and one re-read) a second.
 */
export const MIN_GAP_MS = 1_000;

export interface ChangesAnswer {
  /** Pass as `after` on the next question. */
  cursor: string;
  /** The changes in the reader's scope since its cursor, one per resource, in the order first heard. */
  changes: LiveChange[];
  /** The journal cannot say what changed since the cursor (another epoch, or too old): read everything again. */
  reset: boolean;
}

export interface ChangesQuestion {
  /** The cursor of the previous answer; absent for the first question, answered at once. */
  after: string | undefined;
  /** Which changes the reader may hear of and wants (its key's reach, a campaign). */
  wanted: (change: LiveChange) => boolean;
  /** The longest wait for a change, in milliseconds; then the answer says nothing changed. */
  waitMs: number;
  /** Ends the wait (the reader went away); the promise then rejects with its reason. */
  signal?: AbortSignal | undefined;
  /** Checked on every batch while waiting (a revoked key): an error ends the wait with it. */
  refusal?: (() => ApiError | null) | undefined;
}

interface Entry {
  seq: number;
  changes: readonly LiveChange[];
}

interface Cursor {
  epoch: string;
  seq: number;
  /** When the answer that minted it was given (epoch ms), for MIN_GAP_MS. */
  at: number;
}

const CURSOR = /^([a-z0-9]{8})\.(\d{1,15})\.(\d{1,15})$/;

const keyOf = (c: LiveChange): string =>
  c.resource === 'campaign' || c.resource === 'drafts' ? `${c.resource}:${c.campaignId}` : c.resource === 'conversation' ? `m:${c.leadId}` : c.resource;

class Journal {
  private epoch = '';
  private seq = 0;
  /** Batches up to this number have been dropped: a cursor below it has a gap. */
  private floor = 0;
  private entries: Entry[] = [];
  private readonly waiters = new Set<(entry: Entry) => void>();
  private stop: (() => void) | undefined;
  private idle: NodeJS.Timeout | undefined;
  private reading = 0;

  constructor(private readonly db: Db) {}

  get waiting(): number {
    return this.waiters.size;
  }

  async ask(q: ChangesQuestion): Promise<ChangesAnswer> {
    const cursor = q.after === undefined ? undefined : parseCursor(q.after);
    this.open();
    this.reading++;
    try {
      if (!cursor) return this.answer([], false);
      if (cursor.epoch !== this.epoch || cursor.seq < this.floor || cursor.seq > this.seq) return this.answer([], true);
      return await this.wait(q, cursor);
    } finally {
      if (--this.reading === 0) this.armIdle();
    }
  }

  private wait(q: ChangesQuestion, cursor: Cursor): Promise<ChangesAnswer> {
    const heard = new Map<string, LiveChange>();
    const take = (changes: readonly LiveChange[]) => {
      for (const c of changes) if (c.resource !== 'access' && q.wanted(c)) heard.set(keyOf(c), c);
    };
    for (const entry of this.entries) if (entry.seq > cursor.seq) take(entry.changes);
    return new Promise<ChangesAnswer>((resolve, reject) => {
      let gapTimer: NodeJS.Timeout | undefined;
      const finish = (end: () => void) => {
        clearTimeout(deadline);
        clearTimeout(gapTimer);
        this.waiters.delete(onEntry);
        q.signal?.removeEventListener('abort', onAbort);
        end();
      };
      const answerNow = () => finish(() => resolve(this.answer([...heard.values()], false)));
      // Answer once something was heard, no sooner than MIN_GAP_MS after the previous answer.
      const settle = () => {
        if (heard.size === 0 || gapTimer !== undefined) return;
        const due = cursor.at + MIN_GAP_MS - Date.now();
        if (due <= 0) answerNow();
        else gapTimer = setTimeout(answerNow, due);
      };
      const onEntry = (entry: Entry) => {
        const refusal = q.refusal?.() ?? null;
        if (refusal) return finish(() => reject(refusal));
        take(entry.changes);
        settle();
      };
      const onAbort = () => finish(() => reject(q.signal?.reason ?? new Error('The reader went away.')));
      const deadline = setTimeout(answerNow, Math.max(0, q.waitMs));
      if (q.signal?.aborted) return onAbort();
      const refusal = q.refusal?.() ?? null;
      if (refusal) return finish(() => reject(refusal));
      this.waiters.add(onEntry);
      q.signal?.addEventListener('abort', onAbort, { once: true });
      settle();
    });
  }

  private answer(changes: LiveChange[], reset: boolean): ChangesAnswer {
    return { cursor: `${this.epoch}.${this.seq}.${Date.now()}`, changes, reset };
  }

  private open(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    if (this.stop) return;
    this.epoch = randomBytes(5).toString('hex').slice(0, 8);
    this.seq = 0;
    this.floor = 0;
    this.entries = [];
    this.stop = listenToChanges({ db: this.db }, (changes) => this.record(changes));
  }

  private record(changes: readonly LiveChange[]): void {
    const entry: Entry = { seq: ++this.seq, changes };
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES) this.floor = (this.entries.shift() as Entry).seq;
    for (const waiter of [...this.waiters]) waiter(entry);
  }

  /** With no reader left, the journal stops listening after RETAIN_MS (a reader asks again well before). */
  private armIdle(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.reading > 0) return;
      this.stop?.();
      this.stop = undefined;
      this.entries = [];
    }, RETAIN_MS);
    this.idle.unref();
  }
}

function parseCursor(text: string): Cursor {
  const m = CURSOR.exec(text);
  if (!m) throw validationError('after must be the cursor of a previous answer, as given.', ['after']);
  return { epoch: m[1] as string, seq: Number(m[2]), at: Number(m[3]) };
}

/** One journal per database connection, built on the first question (it listens only once asked). */
const journalOf = perDb((db) => new Journal(db));

/**
 * Waits for the changes after a cursor: answers as soon as a wanted change is in the journal
 * (at most once per MIN_GAP_MS per reader), or after `waitMs` with no change. Without a cursor,
 * answers at once with the cursor to start from. Rejects with the question's refusal (a
 * revoked key) or its signal's reason (the reader went away).
 */
export function awaitChanges(ctx: { db: Db }, question: ChangesQuestion): Promise<ChangesAnswer> {
  return journalOf(ctx.db).ask(question);
}

/** How many readers wait on this database's journal now. */
export const waitingReaders = (ctx: { db: Db }): number => journalOf(ctx.db).waiting;
