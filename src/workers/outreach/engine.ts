import { randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import { accountRef, findAccount, findAccounts, type AccountRow } from '../../core/accounts/resolve.js';
import type { Ctx } from '../../core/context.js';
import { ApiError, toApiError } from '../../core/errors.js';
import { networkError, type AccountRef } from '../../core/network/provider.js';
import { RuleBasedAgent, type AgentDecision, type ReplyAgent } from '../../core/outreach/agent.js';
import { CommitGroup } from '../../core/outreach/commit-group.js';
import { applyInboundAll } from '../../core/outreach/inbound.js';
import { acquireLease, recordSimTime, releaseLease } from '../../core/outreach/lease.js';
import { placeholders } from '../../core/outreach/personalize.js';
import type { SendKind } from '../../core/outreach/plan.js';
import {
  closingLeads,
  completeIfDone,
  freshLeadsOf,
  lastCallAt,
  nextScheduledOf,
  scheduledLeadsOf,
  excludeNow,
  failLead,
  moveDue,
  moveDueMany,
  pendingIntents,
  recordAgentDecision,
  runningCampaigns,
  withoutWorkLeft,
} from '../../core/outreach/queue.js';
import { beginSend, classify, recipientOf, settleAssumedSent, settleFailed, settleSent, type BegunSend } from '../../core/outreach/sends.js';
import { nextWorkingTime } from '../../core/safety/hours.js';
import { allowance, allowances, rhythmOf, type Allowance } from '../../core/safety/rules.js';
import { resolveEngineSettings, type EngineSettings } from '../../core/outreach/settings.js';
import { effectiveAccountId, loadCampaignInfo, loadRunningCampaigns, planFor, type CampaignInfo, type LeadRow } from '../../core/outreach/state.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** How long an account that is not connected is left alone before the engine looks again. */
const ACCOUNT_RETRY_MS = HOUR;
/** First backoff after a transient provider failure; doubles per attempt. */
const RETRY_BASE_MS = 15 * MINUTE;
/** How long `stop()` waits for a tick in progress. */
const STOP_WAIT_MS = 10_000;

/** Conversations first, then the sequence, then new invitations. */
/** Withdrawals come before new invitations: they free the account's pending-invitation count. */
const PRIORITY: Record<SendKind, number> = { polite_close: 0, agent_send: 1, message: 2, withdraw: 3, connect: 4 };
/**
 * Never-looked-at leads taken per campaign when it has nothing scheduled: an account sends one
 * at a time, so a few keep it busy and the rest of a backlog costs nothing until its turn.
 */
const FRESH_PER_PROBE = 5;
/**
 * Scheduled leads read per campaign and tick when sends are spaced (an account then makes one
 * call per tick): the one to send and a spare. Without spacing, the batch size.
 */
const PER_WAKE = 2;
/** How long an account found with no invitation left is taken at its word before it is asked again. */
const INVITE_FULL_RECHECK_MS = 15 * MINUTE;
/** Every this many ticks the completion rule looks at every running campaign, not only those with work. */
const FULL_COMPLETION_CHECK_EVERY = 20;
const DAY = 24 * HOUR;
const dayOf = (ms: number): number => Math.floor(ms / DAY);
/** The start of the next UTC day: when daily counters start again. */
const nextUtcDay = (ms: number): number => ms - (((ms % DAY) + DAY) % DAY) + DAY;
/**
 * When an account with no invitation left may invite again: tomorrow, or a later day when the
 * rolling week's cap, not today's, is what holds.
 */
const invitationsFreeAt = (a: Allowance, now: number): number => (a.weekFullUntil !== null ? Math.max(a.weekFullUntil, nextUtcDay(now)) : nextUtcDay(now));

export interface EngineOptions {
  settings?: EngineSettings;
  agent?: ReplyAgent;
  /** Draws the randomised spacing between sends; tests pass a fixed one. */
  random?: () => number;
  /** The lease holder name; unique per engine instance by default. */
  holder?: string;
}

export interface TickReport {
  /** Whether this engine held the lease (and so did any work). */
  leased: boolean;
  inbound: number;
  /** Leads looked at because they came due. */
  due: number;
  /** Provider calls made (successful or not). */
  sends: number;
  /** Campaigns completed in this tick. */
  completed: string[];
}

interface SendItem {
  leadId: string;
  kind: SendKind;
  accountId: string;
  /** The lead's next_action_at when it was picked up, so a deferral never overwrites a newer plan. */
  due: number | null;
  /** Whether the account is its campaign's sender, so the campaign waits while the account is idle. */
  followsSender: boolean;
}

type SendOutcome = 'skipped' | 'sent' | 'failed' | 'account_blocked';

const hasConversation = (lead: LeadRow): boolean => lead.chatId !== null || lead.messageSent || lead.replied || lead.sequenceStep > 0;

/**
 * The outreach engine. Every tick it drains inbound events, then works the leads that are due
 * in running campaigns (a due-work queue on `leads.next_action_at`, read for all awake
 * campaigns in one statement, so a tick costs a few statements plus the due leads), sending through the network provider with a
 * p-queue bounding provider concurrency; each account sends one message at a time, inside
 * working hours, under its daily caps and with randomised spacing. Time is `ctx.simClock`; the
 * lease that keeps one engine per database is on wall time (`ctx.clock`).
 *
 * The engine only schedules: the lease, the lanes, the queue and the timers. Everything it
 * records (intents, sends, stage moves, counters, inbound events, campaign completion) is a
 * core verb in src/core/outreach/.
 */
export class Engine {
  readonly holder: string;
  readonly settings: EngineSettings;
  private readonly agent: ReplyAgent;
  private readonly random: () => number;
  private readonly queue: PQueue;
  /** The write steps of the sends in flight, committed together (see CommitGroup). */
  private readonly group: CommitGroup;
  /** Per account: the earliest sim time of its next send (spacing). */
  private readonly nextSlot = new Map<string, number>();
  /** Per account: no sends before this sim time (quota or disconnection). */
  private readonly blockedUntil = new Map<string, number>();
  /** Per lead: a polite close waiting for its account. */
  private readonly closeDeferred = new Map<string, number>();
  private readonly inFlight = new Set<string>();
  private leased = false;
  /** Set when a send's result could not be recorded: the next tick settles it (see recover). */
  private recoverPending = false;
  private ticks = 0;
  /** Per account: until when it can send nothing (out of hours, or spacing). */
  private readonly idleUntil = new Map<string, number>();
  /**
   * Per account: until when it is known to have no invitation left today (or this week), so its
   * never-looked-at leads are not asked about on every tick. Kept at most
   * INVITE_FULL_RECHECK_MS, so a limit raised meanwhile is seen within that time.
   */
  private readonly inviteFullUntil = new Map<string, number>();
  /**
   * Per campaign: no lead of it has scheduled work due before this sim time, so it is not probed
   * for scheduled leads until then. Only the engine schedules work (next_action_at > 0); other
   * writers (the API, the CLI) only take work off (null) or hand over new leads (0, read apart).
   * So an entry can only go stale by the engine's own writes: it is dropped for every campaign a
   * tick touches (due leads, sends, inbound events, polite closes), and all are dropped when the
   * running campaigns change or the lease is taken anew.
   */
  private readonly quietUntil = new Map<string, number>();
  private runningSeen: readonly CampaignInfo[] | null = null;
  /** Per account: where its deferred invitations are booked (see `book`). */
  private readonly booking = new Map<string, { day: number; count: number; next: number; perDay: number }>();
  private renewedAt = 0;
  private stopping = false;
  private looping = false;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<TickReport> | null = null;

  constructor(
    private readonly ctx: Ctx,
    options: EngineOptions = {},
  ) {
    this.settings = options.settings ?? resolveEngineSettings();
    this.agent = options.agent ?? new RuleBasedAgent();
    this.random = options.random ?? Math.random;
    this.holder = options.holder ?? `engine-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.queue = new PQueue({ concurrency: this.settings.concurrency });
    this.group = new CommitGroup(ctx.db);
  }

  get holdsLease(): boolean {
    return this.leased;
  }

  /** Runs ticks in the background until `stop()`. A second engine on the same database waits as a standby. */
  start(): void {
    if (this.looping) return;
    this.looping = true;
    this.stopping = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.looping = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // A provider call that hangs must not hang shutdown; a send left in flight is settled by
    // its intent (the next engine counts it as sent, and a late result changes nothing).
    if (this.ticking) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)));
      await Promise.race([this.ticking.catch(() => undefined), timeout]);
      clearTimeout(timer);
    }
    if (this.leased) {
      recordSimTime(this.ctx.db, this.ctx.simClock.now());
      releaseLease(this.ctx.db, this.holder);
      this.leased = false;
    }
  }

  /** One pass of work. Ticks never overlap: a call during a tick joins it. */
  tick(): Promise<TickReport> {
    if (!this.ticking) {
      this.ticking = this.runTick().finally(() => {
        this.ticking = null;
      });
    }
    return this.ticking;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => void this.loopOnce(), ms);
    this.timer.unref();
  }

  private async loopOnce(): Promise<void> {
    this.timer = null;
    let delay = this.settings.maxTickMs;
    try {
      const r = await this.tick();
      if (!r.leased) delay = this.settings.leaseRenewMs;
      else if (r.inbound + r.due + r.sends > 0) delay = this.settings.minTickMs;
    } catch (err) {
      this.ctx.log.error({ err }, 'engine tick failed');
    }
    if (!this.stopping) this.schedule(delay);
  }

  private ensureLease(): boolean {
    const wallNow = this.ctx.clock.now();
    if (this.leased && wallNow - this.renewedAt < this.settings.leaseRenewMs) return true;
    const ok = acquireLease(this.ctx.db, this.ctx.clock, this.holder, this.settings.leaseTtlMs);
    if (ok) {
      this.renewedAt = wallNow;
      recordSimTime(this.ctx.db, this.ctx.simClock.now());
      if (!this.leased) {
        this.leased = true;
        this.quietUntil.clear();
        this.ctx.log.info({ holder: this.holder }, 'engine lease acquired');
        this.recover();
      }
    } else if (this.leased) {
      this.leased = false;
      this.ctx.log.warn({ holder: this.holder }, 'engine lease lost to another process');
    }
    return ok;
  }

  /**
   * Settles intents left pending by an engine that died mid-send. With the lease held, no
   * other engine can be sending them; they count as sent, so nothing is ever sent twice.
   */
  private recover(): void {
    const pending = pendingIntents(this.ctx);
    for (const intent of pending) {
      if (this.inFlight.has(intent.id)) continue;
      this.ctx.log.warn({ intentId: intent.id, leadId: intent.leadId, kind: intent.kind }, 'send outcome unknown after restart; counted as sent, not repeated');
      settleAssumedSent(this.ctx, this.settings, intent);
    }
  }

  private async runTick(): Promise<TickReport> {
    const report: TickReport = { leased: false, inbound: 0, due: 0, sends: 0, completed: [] };
    if (this.stopping || !this.ensureLease()) return report;
    report.leased = true;
    if (this.recoverPending) {
      this.recoverPending = false;
      this.recover();
    }

    const inbound = await this.drainInbound();
    report.inbound = inbound.count;

    // The list is kept (the same array) while no campaign changed; a new one clears the memo.
    const listed = loadRunningCampaigns(this.ctx);
    if (listed !== this.runningSeen) {
      this.quietUntil.clear();
      this.runningSeen = listed;
    }
    const running = runningCampaigns(this.ctx, listed);
    const lanes = new Map<string, SendItem[]>();
    const seen = new Set<string>();
    // Campaigns whose leads changed in this tick: only they can have just run out of work.
    const touched = new Set<string>(inbound.campaigns);
    for (const id of inbound.campaigns) this.quietUntil.delete(id);
    const now = this.ctx.simClock.now();
    const closing = closingLeads(this.ctx, this.settings.batchSize);
    for (const lead of closing) {
      if ((this.closeDeferred.get(lead.id) ?? 0) > now) continue;
      const info = loadCampaignInfo(this.ctx, lead.campaignId);
      if (!info) continue;
      seen.add(lead.id);
      this.quietUntil.delete(lead.campaignId);
      await this.guarded(lead, () => this.handleLead(lead, info, now, lanes));
    }
    // A campaign whose sending account is idle (out of hours, or within its spacing) waits
    // with it; its leads stay due. This keeps a tick's cost to the work that can be done.
    const awake = running.filter((info) => {
      const sender = info.agent?.accountId;
      return !sender || (this.idleUntil.get(sender) ?? 0) <= now;
    });
    // Leads with scheduled work first; then leads never looked at (due 0, the default of a new
    // row), a few at a time and only while the sender may still invite today. A backlog of a
    // million new leads then costs nothing until its turn. Each is one statement for all
    // campaigns, so a tick costs a few statements plus its due work.
    //
    // With spacing between sends an account makes one call per tick, so only a few leads are
    // read per campaign; the rest stay due, untouched, until its next turn. When none of those
    // few needed a send (waits re-planned, sequences finished), the campaign's next few are read
    // at once, up to the batch size, so such leads never hold a sender up.
    const perWake = this.settings.spacingMinMs > 0 ? Math.min(PER_WAKE, this.settings.batchSize) : this.settings.batchSize;
    const probed = awake.filter((info) => (this.quietUntil.get(info.id) ?? 0) <= now);
    const scheduledBy = scheduledLeadsOf(
      this.ctx,
      probed.map((info) => info.id),
      now,
      perWake,
    );
    // A probed campaign with nothing due sleeps until its next scheduled lead comes due.
    const quiet = probed.filter((info) => !scheduledBy.has(info.id)).map((info) => info.id);
    for (const [id, at] of nextScheduledOf(this.ctx, quiet, now)) this.quietUntil.set(id, at ?? Number.POSITIVE_INFINITY);
    const hungry = awake.filter((info) => !scheduledBy.has(info.id));
    const freshRoom = Math.min(FRESH_PER_PROBE, perWake);
    const quotas = this.freshQuotas(hungry, now, freshRoom);
    const freshBy = freshLeadsOf(
      this.ctx,
      hungry.filter((info) => (quotas.get(info.id) ?? 0) > 0).map((info) => info.id),
      freshRoom,
    );
    const queued = () => [...lanes.values()].reduce((n, items) => n + items.length, 0);
    for (const info of awake) {
      let scheduled = scheduledBy.get(info.id) ?? [];
      const fresh = (freshBy.get(info.id) ?? []).slice(0, quotas.get(info.id) ?? 0);
      let due = fresh.length > 0 ? scheduled.concat(fresh) : scheduled;
      if (due.length > 0) touched.add(info.id);
      const before = queued();
      for (let taken = 0; ; ) {
        let handled = 0;
        for (const lead of due) {
          if (seen.has(lead.id)) continue;
          seen.add(lead.id);
          handled++;
          await this.guarded(lead, () => this.handleLead(lead, info, now, lanes));
        }
        taken += due.length;
        if (handled === 0 || scheduled.length < perWake || queued() > before || taken >= this.settings.batchSize) break;
        scheduled = scheduledLeadsOf(this.ctx, [info.id], now, perWake).get(info.id) ?? [];
        due = scheduled;
      }
    }
    report.due = seen.size;

    // Every lane runs at once; what is bounded is the provider calls in flight (see send). The
    // lanes' accounts' counters are read here in one statement: each lane checks its first send
    // against them in this same turn, before any send of the tick, so they are what it would read.
    const readAt = this.ctx.simClock.now();
    const laneAccounts = [...findAccounts(this.ctx, [...lanes.keys()]).values()].filter((a) => a.status === 'connected' && a.active);
    const counters = { at: readAt, byAccount: allowances(this.ctx, laneAccounts, this.settings.safety, readAt) };
    const counts = await Promise.all(
      [...lanes].map(([accountId, items]) =>
        this.runLane(
          accountId,
          items.sort((a, b) => PRIORITY[a.kind] - PRIORITY[b.kind]),
          counters,
        ),
      ),
    );
    report.sends = counts.reduce<number>((n, c) => n + (c ?? 0), 0);

    // Only a campaign that had work or inbound events this tick can have just finished it; every
    // so often all are checked, for changes made elsewhere (leads deleted through the API). At 200
    // campaigns the check of every campaign on every tick was most of an idle tick's cost.
    const checkAll = this.ticks++ % FULL_COMPLETION_CHECK_EVERY === 0;
    for (const l of closing) touched.add(l.campaignId);
    for (const id of touched) this.quietUntil.delete(id);
    const candidates = withoutWorkLeft(
      this.ctx,
      running.filter((info) => checkAll || touched.has(info.id)).map((info) => info.id),
    );
    for (const id of candidates) if (completeIfDone(this.ctx, id, this.holder)) report.completed.push(id);
    return report;
  }

  /** Applies the network's inbound events; returns how many, and the campaigns whose leads they changed. */
  private async drainInbound(): Promise<{ count: number; campaigns: Set<string> }> {
    let events;
    try {
      events = await this.ctx.network.drainInbound(this.ctx.simClock.now());
    } catch (err) {
      this.ctx.log.warn({ err }, 'could not fetch inbound network events; will retry next tick');
      return { count: 0, campaigns: new Set() };
    }
    const campaigns = applyInboundAll(this.ctx, events, this.settings, (event, err) =>
      this.ctx.log.error({ err, eventId: event.id }, 'inbound event could not be applied'),
    );
    return { count: events.length, campaigns };
  }

  private async guarded(lead: LeadRow, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.ctx.log.error({ err, leadId: lead.id }, 'engine could not process lead; will retry');
      const retryAt = this.ctx.simClock.now() + RETRY_BASE_MS;
      this.moveDue(lead.id, lead.nextActionAt, retryAt);
      if (lead.politeClosePendingAt !== null) this.closeDeferred.set(lead.id, retryAt);
    }
  }

  private moveDue(leadId: string, from: number | null, to: number | null): void {
    moveDue(this.ctx, leadId, from, to);
  }

  /** Works one due lead: waits, final steps and agent decisions here; sends go to the account's lane. */
  private async handleLead(lead: LeadRow, info: CampaignInfo, now: number, lanes: Map<string, SendItem[]>): Promise<void> {
    const plan = planFor(this.ctx, lead, info, this.settings);
    if (plan === null || plan.at > now) return this.moveDue(lead.id, lead.nextActionAt, plan?.at ?? null);
    const accountId = effectiveAccountId(lead, info);
    const enqueue = (kind: SendKind, due: number | null) => {
      if (accountId === null) return this.moveDue(lead.id, due, now + ACCOUNT_RETRY_MS);
      const lane = lanes.get(accountId) ?? [];
      lane.push({ leadId: lead.id, kind, accountId, due, followsSender: accountId === info.agent?.accountId });
      lanes.set(accountId, lane);
    };
    const action = plan.action;
    switch (action.kind) {
      case 'finish':
        return this.moveDue(lead.id, lead.nextActionAt, null);
      case 'fail':
        return failLead(this.ctx, lead.id, info, this.settings);
      case 'decide': {
        const after = await this.decide(lead, info);
        if (after?.agentSendKind) enqueue('agent_send', after.nextActionAt);
        return;
      }
      case 'polite_close':
        if (lead.excluded || info.status !== 'CAMPAIGN_IN_PROGRESS' || !hasConversation(lead) || accountId === null) {
          // Nothing to close politely (or no traffic allowed): exclude at once, silently.
          return excludeNow(this.ctx, lead);
        }
        return enqueue('polite_close', lead.nextActionAt);
      default:
        return enqueue(action.kind, lead.nextActionAt);
    }
  }

  /** Asks the agent about the pending reply and stores its decision. */
  private async decide(lead: LeadRow, info: CampaignInfo): Promise<LeadRow | undefined> {
    const text = lead.pendingReplyText ?? '';
    let decision: AgentDecision;
    try {
      decision = await this.agent.decide({
        text,
        lead: { firstName: placeholders(lead).firstname ?? 'there', fullName: lead.fullName, companyName: lead.companyName, jobTitle: lead.jobTitle },
        turns: lead.agentTurns,
      });
    } catch (err) {
      this.ctx.log.error({ err, leadId: lead.id }, 'agent failed; handing the conversation to a person');
      decision = { kind: 'handoff', reason: 'The agent could not process the reply; a person should read it.' };
    }
    return recordAgentDecision(this.ctx, lead.id, text, decision, info, this.settings);
  }

  /**
   * One account's sends, one after another, while the account may send. Returns provider calls
   * made. `counters` are the account's counters read for the lane's first send (see runTick).
   */
  private async runLane(accountId: string, items: SendItem[], counters: { at: number; byAccount: Map<string, Allowance> }): Promise<number> {
    let calls = 0;
    for (let i = 0; i < items.length; i++) {
      if (this.stopping || !this.ensureLease()) return calls;
      const item = items[i] as SendItem;
      const now = this.ctx.simClock.now();
      const known = i === 0 && dayOf(counters.at) === dayOf(now) ? counters.byAccount.get(accountId) : undefined;
      const ready = this.accountWait(accountId, item.kind, now, known);
      if ('until' in ready) {
        this.defer(items.slice(i), ready.until, ready.capped, ready.idle);
        return calls;
      }
      const outcome = await this.send(item, ready.account, now);
      if (outcome !== 'skipped') calls++;
      if (outcome === 'account_blocked') {
        this.defer(items.slice(i + 1), this.blockedUntil.get(accountId) ?? this.ctx.simClock.now() + ACCOUNT_RETRY_MS);
        return calls;
      }
    }
    return calls;
  }

  /**
   * Whether the account may send this kind now (and the account), or until when it must wait: it
   * must be connected, inside its own working hours, past its spacing and under today's limits
   * (warm-up and the rolling week applied; `known` when they were just read). Every rule reads
   * stored state, so a restart or a pause forgets nothing. `idle` marks a wait for the hours or
   * the spacing, `capped` one for a daily or weekly cap.
   */
  private accountWait(
    accountId: string,
    kind: SendKind,
    now: number,
    known?: Allowance,
  ): { account: AccountRow } | { until: number; capped: boolean; idle: boolean } {
    const wait = (until: number, why: { capped?: boolean; idle?: boolean } = {}) => ({ until, capped: why.capped ?? false, idle: why.idle ?? false });
    const account = findAccount(this.ctx, accountId);
    // An operator's `active: false` stops all sending from the account until it is set back.
    if (account?.status !== 'connected' || !account.active) return wait(now + ACCOUNT_RETRY_MS);
    const blocked = this.blockedUntil.get(accountId) ?? 0;
    if (blocked > now) return wait(blocked);
    const safety = this.settings.safety;
    const rhythm = rhythmOf(account, safety);
    // Out of hours or within the spacing, nothing of this account can go: its campaigns are
    // not even probed for due leads until then (see runTick).
    const idle = Math.max(nextWorkingTime(now, rhythm), this.slotOf(accountId));
    if (idle > now) {
      this.idleUntil.set(accountId, idle);
      return wait(idle, { idle: true });
    }
    if (kind !== 'withdraw') {
      const a = known ?? allowance(this.ctx, account, safety, now);
      const capped = kind === 'connect' ? a.connectionRequestsSentToday >= a.connectionRequestLimit : a.messagesSentToday >= a.messageLimit;
      if (capped) return wait(nextWorkingTime(kind === 'connect' ? invitationsFreeAt(a, now) : nextUtcDay(now), rhythm), { capped: true });
    }
    return { account };
  }

  /** The earliest time of the account's next send; after a restart, from its last recorded call. */
  private slotOf(accountId: string): number {
    let slot = this.nextSlot.get(accountId);
    if (slot === undefined) {
      const last = lastCallAt(this.ctx, accountId);
      slot = last === null ? 0 : last + this.settings.spacingMinMs;
      this.nextSlot.set(accountId, slot);
    }
    return slot;
  }

  /**
   * Holds back sends that cannot go now. Held because the account is idle (out of hours or
   * within its spacing), a lead of a campaign that follows the account stays due as it is: its
   * campaign is not read again until the account wakes (see runTick), so nothing is written.
   * Otherwise sends are pushed back so they do not all come due at once: they queue behind at
   * the average spacing, and invitations held by a daily or weekly cap are booked on the day
   * they may go, no more a day than the account may send.
   */
  private defer(items: SendItem[], until: number, capped = false, idle = false): void {
    const now = this.ctx.simClock.now();
    const step = Math.max(1, Math.round((this.settings.spacingMinMs + this.settings.spacingMaxMs) / 2));
    const moves: { leadId: string; from: number | null; to: number }[] = [];
    items.forEach((item, j) => {
      if (idle && item.followsSender && item.kind !== 'polite_close') return;
      const at = capped && item.kind === 'connect' ? this.book(item.accountId, until, now) : until + j * step;
      if (item.kind === 'polite_close') this.closeDeferred.set(item.leadId, at);
      else moves.push({ leadId: item.leadId, from: item.due, to: at });
    });
    if (moves.length > 0) moveDueMany(this.ctx, moves);
  }

  /** The next booked invitation slot of an account, at or after `until`. */
  private book(accountId: string, until: number, now: number): number {
    const step = Math.max(1, Math.round((this.settings.spacingMinMs + this.settings.spacingMaxMs) / 2));
    let b = this.booking.get(accountId);
    if (b === undefined || b.next < until || b.next < now) {
      b = { day: dayOf(until), count: 0, next: until, perDay: this.invitesPerDay(accountId) };
      this.booking.set(accountId, b);
    }
    if (b.count >= b.perDay) {
      const account = findAccount(this.ctx, accountId);
      const open = account ? nextWorkingTime((b.day + 1) * DAY, rhythmOf(account, this.settings.safety)) : (b.day + 1) * DAY;
      b.day = dayOf(open);
      b.count = 0;
      b.next = open;
    }
    const at = b.next;
    b.count++;
    b.next = at + step;
    return at;
  }

  /** How many invitations a day the account may send: its daily limit, bounded by the weekly cap. */
  private invitesPerDay(accountId: string): number {
    const account = findAccount(this.ctx, accountId);
    if (!account) return 1;
    const weekly = account.weeklyConnectionRequestLimit ?? this.settings.safety.weeklyConnectionRequestLimit;
    return Math.max(1, Math.min(account.connectionRequestLimit, weekly));
  }

  /**
   * How many never-looked-at leads to take for each campaign: what its sender may still invite
   * today, at most `room`. The senders and their counters are read in one statement each.
   */
  private freshQuotas(campaigns: readonly CampaignInfo[], now: number, room: number): Map<string, number> {
    const out = new Map<string, number>();
    const full = (id: string) => (this.inviteFullUntil.get(id) ?? 0) > now;
    const senders = findAccounts(
      this.ctx,
      campaigns.flatMap((info) => (info.agent?.accountId && !full(info.agent.accountId) ? [info.agent.accountId] : [])),
    );
    const connected = [...senders.values()].filter((a) => a.status === 'connected');
    const room0 = allowances(this.ctx, connected, this.settings.safety, now);
    for (const [accountId, a] of room0) {
      if (a.connectionRequestsSentToday >= a.connectionRequestLimit)
        this.inviteFullUntil.set(accountId, Math.min(invitationsFreeAt(a, now), now + INVITE_FULL_RECHECK_MS));
    }
    for (const info of campaigns) {
      const accountId = info.agent?.accountId;
      // Without a sender the leads are handled at once (they fail or wait for an account).
      if (!accountId) {
        out.set(info.id, room);
        continue;
      }
      const a = room0.get(accountId);
      out.set(info.id, a ? Math.min(room, Math.max(0, a.connectionRequestLimit - a.connectionRequestsSentToday)) : 0);
    }
    return out;
  }

  private spacing(): number {
    const { spacingMinMs: min, spacingMaxMs: max } = this.settings;
    return min + Math.floor(this.random() * (max - min));
  }

  /**
   * One send: the intent, the provider call, the result. A provider slot (the p-queue,
   * `concurrency` of them) is held from the intent to the call's end, so an intent is pending
   * only while its call is on the wire, and released before the result is recorded: the slot's
   * next send then begins in the same commit as the results before it (see CommitGroup).
   */
  private async send(item: SendItem, account: AccountRow, decidedAt: number): Promise<SendOutcome> {
    const attempt = await this.queue.add(async () => {
      // A send still waiting for its slot when the engine stops is not begun.
      if (this.stopping) return null;
      const begun = await this.group.run(() => beginSend(this.ctx, this.settings, this.holder, item.leadId, item.kind, item.accountId, decidedAt));
      if (!begun) return null;
      this.inFlight.add(begun.intent.id);
      try {
        return { begun, result: await this.call(begun, accountRef(account)) };
      } catch (err) {
        return { begun, err };
      }
    });
    if (!attempt) return 'skipped';
    const { begun } = attempt;
    const { intent } = begun;
    try {
      if (!('err' in attempt)) {
        try {
          await this.group.run(() => settleSent(this.ctx, this.settings, intent, attempt.result));
        } catch (err) {
          // The call went out; only its record failed. The intent stays pending and the next
          // tick's recovery counts it as sent, so it is never sent again.
          this.ctx.log.error({ err, intentId: intent.id }, 'send made but not recorded; it will be counted as sent');
          this.recoverPending = true;
        }
        this.closeDeferred.delete(item.leadId);
        return 'sent';
      }
      const err = attempt.err;
      const error = toApiError(err);
      if (!(err instanceof ApiError)) this.ctx.log.warn({ err, intentId: intent.id }, 'provider call failed unexpectedly');
      const now = this.ctx.simClock.now();
      const cls = classify(error.code);
      let retryAt = now + RETRY_BASE_MS * 2 ** begun.lead.sendAttempts;
      if (cls === 'quota' || cls === 'account') {
        retryAt = cls === 'quota' ? nextWorkingTime(nextUtcDay(now), rhythmOf(account, this.settings.safety)) : now + ACCOUNT_RETRY_MS;
        this.blockedUntil.set(item.accountId, retryAt);
      }
      this.ctx.log.info({ leadId: item.leadId, kind: intent.kind, code: error.code }, 'send failed');
      await this.group.run(() => settleFailed(this.ctx, this.settings, intent, error.code, retryAt));
      if (item.kind === 'polite_close') this.closeDeferred.set(item.leadId, retryAt);
      return cls === 'quota' || cls === 'account' ? 'account_blocked' : 'failed';
    } finally {
      this.inFlight.delete(intent.id);
      this.nextSlot.set(item.accountId, this.ctx.simClock.now() + this.spacing());
    }
  }

  private async call({ intent, lead }: BegunSend, account: AccountRef): Promise<{ chatId?: string; messageId?: string }> {
    const recipient = recipientOf(lead);
    if (recipient === null) throw networkError('validation_error', 'The lead has no profile URL or provider id to reach.', { fields: ['networkUrl'] });
    if (intent.kind === 'connection_request') {
      await this.ctx.network.sendConnectionRequest({ ...recipient, account, note: intent.text });
      return {};
    }
    if (intent.kind === 'withdrawal') {
      await this.ctx.network.withdrawInvitation({ ...recipient, account });
      return {};
    }
    return this.ctx.network.sendMessage({ account, recipient, ...(lead.chatId ? { chatId: lead.chatId } : {}), text: intent.text ?? '' });
  }
}
