import PQueue from 'p-queue';
import { accountRef, type AccountRow } from '../../core/accounts/resolve.js';
import type { Ctx } from '../../core/context.js';
import { bookInvitationFor } from '../../core/outreach/booking.js';
import { CommitGroup } from '../../core/outreach/commit-group.js';
import { type DayPins, unpinsAfterFailure, unpinsLead } from '../../core/outreach/due.js';
import { deferHeld, deferSends, splitByLimit, type PendingSend } from '../../core/outreach/deferral.js';
import { sendFailure } from '../../core/outreach/failures.js';
import { moveDueMany } from '../../core/outreach/queue.js';
import { accountReadiness, averageSpacing, firstSendAt, nextSendAt, sendingCounters, type AccountWait } from '../../core/outreach/readiness.js';
import { beginSend, callProvider, settleFailed, settleSent } from '../../core/outreach/sends.js';
import type { EngineSettings } from '../../core/outreach/settings.js';
import { bySendOrder } from '../../core/outreach/work.js';
import type { Allowance } from '../../core/safety/rules.js';
import type { EngineMemory } from './memory.js';

type SendOutcome = 'skipped' | 'sent' | 'failed' | 'blocked' | { heldUntil: number };

export interface LaneOptions {
  ctx: Ctx;
  settings: EngineSettings;
  memory: EngineMemory;
  /** The engine's sender pins: an invitation gone unpins its lead. */
  pins: DayPins;
  holder: string;
  /** Draws the randomised spacing between sends. */
  random: () => number;
  /** Whether a lane may go on with its next send (the engine runs and holds the lease). */
  mayContinue: () => boolean;
  /** Whether the engine stops: a send still waiting for a provider slot is then not begun. */
  stopped: () => boolean;
  /** A call went out but its result could not be recorded: the engine's next tick settles it. */
  unrecorded: () => void;
  /**
   * Whether the account is remembered idle from its send to the end of its spacing, so that its
   * campaigns are not read meanwhile. Not for a sender of a campaign whose steps send email: its
   * emails go from mailboxes with a pace of their own.
   */
  idleAfterSend: (accountId: string) => boolean;
}

/**
 * The engine's lanes and its provider-slot queue. Each account's sends of a tick go one after
 * another in its lane, in the core's order (bySendOrder), while the core says the account may
 * send (accountReadiness); what cannot go is held back where the core puts it (deferSends). All
 * lanes run at once; the p-queue bounds the provider calls in flight across accounts to
 * `concurrency`, and the sends' write steps are committed together (CommitGroup).
 */
export class SendLanes {
  /** Intents whose provider call is on the wire: recovery leaves them alone. */
  readonly inFlight = new Set<string>();
  private readonly queue: PQueue;
  private readonly group: CommitGroup;
  private lanes = new Map<string, PendingSend[]>();
  private held = new Map<string, { leadId: string; due: number | null }[]>();
  /** In this run, until when an account's lane found it unable to send anything (away, paused, idle), as the core's readiness said. */
  private waits = new Map<string, number>();
  private readonly ctx: Ctx;
  private readonly settings: EngineSettings;
  private readonly memory: EngineMemory;
  private readonly mayContinue: () => boolean;
  private readonly stopped: () => boolean;
  private readonly unrecorded: () => void;

  constructor(private readonly o: LaneOptions) {
    this.ctx = o.ctx;
    this.settings = o.settings;
    this.memory = o.memory;
    this.mayContinue = o.mayContinue;
    this.stopped = o.stopped;
    this.unrecorded = o.unrecorded;
    this.queue = new PQueue({ concurrency: o.settings.concurrency });
    this.group = new CommitGroup(o.ctx.db);
  }

  /**
   * Whether the account can send no further lead in this tick: the engine knows it idle, or its
   * sends are spaced and its lane already holds one (a lane makes at most one spaced send a tick).
   */
  busy(accountId: string, now: number): boolean {
    if (this.memory.until('idle', accountId) > now) return true;
    return this.settings.spacingMinMs > 0 && (this.lanes.get(accountId)?.length ?? 0) > 0;
  }

  /** A lead the account cannot send in this tick, left unworked: after the lanes run it is put behind the account's next send (core: deferHeld). */
  hold(accountId: string, leadId: string, due: number | null): void {
    const list = this.held.get(accountId) ?? [];
    list.push({ leadId, due });
    this.held.set(accountId, list);
  }

  push(send: PendingSend): void {
    const lane = this.lanes.get(send.accountId) ?? [];
    lane.push(send);
    this.lanes.set(send.accountId, lane);
  }

  /** Sends queued (or leads held) so far in this tick. */
  get queued(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.length;
    for (const leads of this.held.values()) n += leads.length;
    return n;
  }

  /**
   * Every lane at once; what is bounded is the provider calls in flight (see send). The lanes'
   * counters are read here in one statement: each lane checks its first send against them in this
   * same turn, before any send of the tick, so they are what it would read. Returns the calls made.
   */
  async run(): Promise<number> {
    const lanes = this.lanes;
    const at = this.ctx.simClock.now();
    const counters = sendingCounters(this.ctx, this.settings.safety, [...lanes.keys()], at, this.o.pins.counters);
    const held = this.held;
    this.lanes = new Map();
    this.held = new Map();
    this.waits = new Map();
    const accounts = new Set([...lanes.keys(), ...held.keys()]);
    const calls = await Promise.all(
      [...accounts].map(async (accountId) => {
        const items = lanes.get(accountId);
        const n = items ? await this.runLane(accountId, items.sort(bySendOrder), at, counters.get(accountId)) : 0;
        const leads = held.get(accountId);
        if (leads && this.mayContinue()) await this.deferHeld(accountId, leads);
        return n;
      }),
    );
    return calls.reduce((n, c) => n + c, 0);
  }

  /**
   * The leads held for an account, behind its next possible send once its lane has run: what the
   * engine now knows of its idle time and pace, and the wait its lane met (a paused or
   * disconnected account); at least now. The core queues them behind the leads held for it
   * before; the memory keeps where that queue ends (`queue`). Written in the commit of the lanes'
   * sends (CommitGroup).
   */
  private deferHeld(accountId: string, leads: readonly { leadId: string; due: number | null }[]): Promise<void> {
    const now = this.ctx.simClock.now();
    const next = Math.max(now, this.memory.until('idle', accountId), this.memory.until('pace', accountId), this.waits.get(accountId) ?? 0);
    const { moves, end } = deferHeld(leads, next, this.memory.until('queue', accountId), averageSpacing(this.settings));
    this.memory.set('queue', accountId, end);
    return this.group.run(() => moveDueMany(this.ctx, moves));
  }

  /** One account's sends, one after another, while the account may send. */
  private async runLane(accountId: string, queued: PendingSend[], countersAt: number, counters: Allowance | undefined): Promise<number> {
    let calls = 0;
    let items = queued;
    for (let i = 0; i < items.length; i++) {
      if (!this.mayContinue()) return calls;
      const item = items[i] as PendingSend;
      const now = this.ctx.simClock.now();
      const known = i === 0 && counters ? { at: countersAt, allowance: counters } : undefined;
      const ready = accountReadiness(this.ctx, this.settings.safety, accountId, item.kind, now, this.pace(accountId), known);
      if ('until' in ready && ready.why === 'capped') {
        // Only the sends counted against the limit reached wait; the lane goes on with the others.
        const { held, others } = splitByLimit(items.slice(i), item.kind);
        await this.defer(accountId, held, ready);
        items = items.slice(0, i).concat(others);
        i--;
        continue;
      }
      if ('until' in ready) {
        if (ready.why === 'idle') this.memory.set('idle', accountId, ready.until);
        this.waits.set(accountId, ready.until);
        await this.defer(accountId, items.slice(i), ready);
        return calls;
      }
      // An email's lane is its mailbox's: no network account sends it.
      const outcome = await this.send(item, 'account' in ready ? ready.account : null, now);
      if (typeof outcome === 'object') {
        // The core held the call (lock-step with another account): the account waits as when idle.
        this.memory.set('idle', accountId, outcome.heldUntil);
        await this.defer(accountId, items.slice(i), { until: outcome.heldUntil, why: 'idle' });
        return calls;
      }
      if (outcome !== 'skipped') calls++;
      if (outcome === 'blocked') {
        await this.defer(accountId, items.slice(i + 1), { until: this.memory.until('pace', accountId), why: 'blocked' });
        return calls;
      }
    }
    return calls;
  }

  /** What the engine knows of the account's pace; after a restart, from its last recorded call. */
  private pace(accountId: string): { notBefore: number; blocked: boolean } {
    const known = this.memory.get('pace', accountId);
    if (known) return { notBefore: known.until, blocked: known.value.blocked };
    const notBefore = firstSendAt(this.ctx, this.settings, accountId);
    this.memory.set('pace', accountId, notBefore, { blocked: false });
    return { notBefore, blocked: false };
  }

  /** Holds back the sends that cannot go now (core: deferSends), booking capped invitations in memory; the moves go in the lanes' commit. */
  private defer(accountId: string, items: readonly PendingSend[], wait: AccountWait): Promise<void> {
    const now = this.ctx.simClock.now();
    const step = averageSpacing(this.settings);
    const book = (until: number) => {
      const { at, booking } = bookInvitationFor(this.ctx, this.settings.safety, accountId, this.memory.get('booking', accountId)?.value, { until, now, step });
      this.memory.set('booking', accountId, booking.next, booking);
      return at;
    };
    const { moves, closes } = deferSends(items, wait, step, book);
    for (const c of closes) this.memory.set('close', c.leadId, c.at);
    return moves.length > 0 ? this.group.run(() => moveDueMany(this.ctx, moves)) : Promise.resolve();
  }

  /**
   * One send: the intent, the provider call, the result. A provider slot (the p-queue,
   * `concurrency` of them) is held from the intent to the call's end, so an intent is pending
   * only while its call is on the wire, and released before the result is recorded: the slot's
   * next send then begins in the same commit as the results before it (see CommitGroup).
   */
  private async send(item: PendingSend, account: AccountRow | null, decidedAt: number): Promise<SendOutcome> {
    const attempt = await this.queue.add(async () => {
      // A send still waiting for its slot when the engine stops is not begun.
      if (this.stopped()) return null;
      const begun = await this.group.run(() => beginSend(this.ctx, this.settings, this.o.holder, item.leadId, item.kind, item.accountId, decidedAt));
      if (!begun) return null;
      if ('heldUntil' in begun) return begun;
      this.inFlight.add(begun.intent.id);
      try {
        return { begun, result: await callProvider(this.ctx, begun, account ? accountRef(account) : null) };
      } catch (err) {
        return { begun, err };
      }
    });
    if (!attempt) return 'skipped';
    if ('heldUntil' in attempt) return attempt;
    const { intent, lead } = attempt.begun;
    let blockedUntil: number | null = null;
    try {
      if (!('err' in attempt)) {
        try {
          await this.group.run(() => settleSent(this.ctx, this.settings, intent, attempt.result));
        } catch (err) {
          // The call went out; only its record failed. The intent stays pending and the next
          // tick's recovery counts it as sent, so it is never sent again.
          this.ctx.log.error({ err, intentId: intent.id }, 'send made but not recorded; it will be counted as sent');
          this.unrecorded();
        }
        this.memory.forget('close', item.leadId);
        // An invitation or an email gone is no longer promised (see the engine's sender pins).
        if (unpinsLead(item.kind)) this.o.pins.release(item.accountId, item.leadId);
        return 'sent';
      }
      const send = { intentId: intent.id, leadId: item.leadId, kind: intent.kind, attempts: lead.sendAttempts };
      const { code, plan, closeAt } = sendFailure(this.ctx, this.settings.safety, send, account, attempt.err);
      blockedUntil = plan.accountBlockedUntil;
      const retryAt = await this.group.run(() => settleFailed(this.ctx, this.settings, intent, code, plan.retryAt));
      if (unpinsAfterFailure(item.kind, retryAt, this.ctx.simClock.now())) this.o.pins.release(item.accountId, item.leadId);
      if (closeAt !== null) this.memory.set('close', item.leadId, closeAt);
      return blockedUntil !== null ? 'blocked' : 'failed';
    } finally {
      this.inFlight.delete(intent.id);
      const next = nextSendAt(this.settings, this.ctx.simClock.now(), this.o.random);
      this.memory.set('pace', item.accountId, blockedUntil ?? next, { blocked: blockedUntil !== null });
      // Within its spacing the account sends nothing, of any kind (core: accountReadiness), so its
      // campaigns need not be read before then (unless one sends email). A mailbox's lane keeps its own spacing.
      if (account !== null && blockedUntil === null && next > this.memory.until('idle', item.accountId) && this.o.idleAfterSend(item.accountId))
        this.memory.set('idle', item.accountId, next);
      // What the account touched and may still invite this week moved with this send.
      this.memory.forget('touched', item.accountId);
    }
  }
}
