import { randomUUID } from 'node:crypto';
import type { Ctx } from '../../core/context.js';
import { RuleBasedAgent, type AgentDecision, type AgentInput, type ReplyAgent } from '../../core/outreach/agent.js';
import { applyInboundAll } from '../../core/outreach/inbound.js';
import { acquireLease, recordSimTime, releaseLease } from '../../core/outreach/lease.js';
import { dayPins, readDue, workCampaignDue, type DayPins, type DueMemory } from '../../core/outreach/due.js';
import { closingLeads, completeFinished, runningCampaigns } from '../../core/outreach/queue.js';
import { heldForSender } from '../../core/outreach/deferral.js';
import { settleAbandoned } from '../../core/outreach/sends.js';
import { resolveEngineSettings, type EngineSettings } from '../../core/outreach/settings.js';
import { loadCampaignInfo, memoryStamp, sendersOf, type CampaignInfo, type LeadRow } from '../../core/outreach/state.js';
import { enrichLead } from '../../core/outreach/enrich.js';
import { AGENT_FAILED, afterAgent, afterDraft, afterEnrich, leadFailed, workLead } from '../../core/outreach/work.js';
import { prepareDraft } from '../../core/drafts/prepare.js';
import { SendLanes } from './lanes.js';
import { EngineMemory } from './memory.js';

/** How long `stop()` waits for a tick in progress. */
const STOP_WAIT_MS = 10_000;

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
  /** Of those, leads not worked because their sender could not send them in this tick: each was put behind its sender's next send. */
  held: number;
  /** Provider calls made (successful or not). */
  sends: number;
  /** Campaigns completed in this tick. */
  completed: string[];
}

/**
 * The outreach engine. It only schedules: the lease that keeps one engine per database, the
 * lanes (each account's sends, one after another), the provider-slot queue (p-queue, at most
 * `concurrency` calls in flight across accounts) and the timers (its loop, and its memory of when
 * to look at what again: ./memory.ts). Every tick drains inbound events, reads the leads that
 * are due in running campaigns (which, and how many: src/core/outreach/due.ts), lets the core
 * decide what each needs (work.ts) and queues the sends. What a send may do and when, what a
 * failure means, where a held send goes, when a campaign is done: all core verbs in
 * src/core/outreach/. Time is `ctx.simClock`; the lease is on wall time.
 */
export class Engine {
  readonly holder: string;
  readonly settings: EngineSettings;
  private readonly agent: ReplyAgent;
  private readonly memory = new EngineMemory();
  private readonly lanes: SendLanes;
  /** The leads given each sender today and not invited yet, kept in the memory (`pins`). */
  private readonly pins: DayPins;
  /** The memory as the due-work rules read it. */
  private readonly recall: DueMemory;
  /** The senders of the running campaigns whose steps send email from mailboxes (refreshed each tick): their own spacing does not put those campaigns to sleep. */
  private emailSenders = new Set<string>();
  private leased = false;
  /** Set when a send's result could not be recorded: the next tick settles it (see recover). */
  private recoverPending = false;
  private ticks = 0;
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
    this.holder = options.holder ?? `engine-${process.pid}-${randomUUID().slice(0, 8)}`;
    const memory = this.memory;
    this.pins = dayPins({ get: (id) => memory.get('pins', id), set: (id, until, leads) => memory.set('pins', id, until, leads) }, () => ctx.simClock.now());
    // A touch count holds for the rest of its tick (forgotten when the next begins), unless the account sends meanwhile (the lanes forget it).
    this.pins.touches = {
      get: (id) => memory.get('touched', id)?.value,
      set: (id, count) => memory.set('touched', id, ctx.simClock.now(), count),
    };
    this.recall = {
      idleUntil: (id) => memory.until('idle', id),
      quietUntil: (id) => memory.until('quiet', id),
      fullUntil: (id) => memory.until('invites', id),
      pins: this.pins,
    };
    this.lanes = new SendLanes({
      ctx,
      settings: this.settings,
      memory: this.memory,
      pins: this.pins,
      holder: this.holder,
      random: options.random ?? Math.random,
      mayContinue: () => !this.stopping && this.ensureLease(),
      stopped: () => this.stopping,
      unrecorded: () => {
        this.recoverPending = true;
      },
      idleAfterSend: (accountId) => !this.emailSenders.has(accountId),
    });
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
        // Another engine may have sent meanwhile: what this one remembered no longer holds.
        this.memory.clear();
        this.ctx.log.info({ holder: this.holder }, 'engine lease acquired');
        settleAbandoned(this.ctx, this.settings, this.lanes.inFlight);
      }
    } else if (this.leased) {
      this.leased = false;
      this.ctx.log.warn({ holder: this.holder }, 'engine lease lost to another process');
    }
    return ok;
  }

  private async runTick(): Promise<TickReport> {
    const report: TickReport = { leased: false, inbound: 0, due: 0, held: 0, sends: 0, completed: [] };
    if (this.stopping || !this.ensureLease()) return report;
    report.leased = true;
    if (this.recoverPending) {
      this.recoverPending = false;
      settleAbandoned(this.ctx, this.settings, this.lanes.inFlight);
    }
    const inbound = await this.drainInbound();
    report.inbound = inbound.count;
    this.memory.sync(memoryStamp(this.ctx));
    // Touch counts hold for one tick: whatever changed the leads since (an acceptance, a reply, an operator) is read again.
    this.memory.forgetAll('touched');
    const running = runningCampaigns(this.ctx);
    this.emailSenders = new Set(running.filter((info) => info.readsEmail && info.mailboxIds.length > 0).flatMap((info) => sendersOf(info)));
    const now = this.ctx.simClock.now();
    const seen = new Set<string>();
    // Campaigns whose leads changed in this tick: only they can have just run out of work.
    const touched = new Set<string>(inbound.campaigns);
    for (const id of touched) this.memory.forget('quiet', id);
    const closing = closingLeads(this.ctx, this.settings.batchSize);
    for (const lead of closing) {
      if (this.memory.until('close', lead.id) > now) continue;
      const info = loadCampaignInfo(this.ctx, lead.campaignId);
      if (!info) continue;
      seen.add(lead.id);
      touched.add(lead.campaignId);
      this.memory.forget('quiet', lead.campaignId);
      await this.work(lead, info, now);
    }
    report.held = await this.workDue(running, now, seen, touched);
    report.due = seen.size;
    report.sends = await this.lanes.run();

    for (const id of touched) this.memory.forget('quiet', id);
    report.completed = completeFinished(this.ctx, running, touched, this.ticks++, this.holder);
    return report;
  }

  /** Reads the due leads of the running campaigns (core: readDue) and works each campaign's (workCampaignDue). Returns the leads held. */
  private async workDue(running: readonly CampaignInfo[], now: number, seen: Set<string>, touched: Set<string>): Promise<number> {
    const reads = readDue(this.ctx, this.settings, running, now, this.recall);
    for (const [id, at] of reads.quiet) this.memory.set('quiet', id, at);
    for (const [accountId, until] of reads.full) this.memory.set('invites', accountId, until);
    let held = 0;
    const busy = (accountId: string) => this.lanes.busy(accountId, now);
    for (const info of reads.due) {
      touched.add(info.id);
      await workCampaignDue(
        this.ctx,
        this.settings,
        info,
        now,
        reads,
        seen,
        (lead) => {
          // A lead whose sender cannot send it this tick is not worked, only put behind the sender's next send (the lanes: hold).
          const sender = heldForSender(info, lead, busy);
          if (sender === null) return this.work(lead, info, now);
          this.lanes.hold(sender, lead.id, lead.nextActionAt);
          held++;
          return Promise.resolve();
        },
        () => this.lanes.queued,
      );
    }
    return held;
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

  /** One due lead: the core decides and records; a send goes to its account's lane. */
  private async work(lead: LeadRow, info: CampaignInfo, now: number): Promise<void> {
    try {
      let work = workLead(this.ctx, lead, info, this.settings, now, this.pins);
      if (work.kind === 'enrich') {
        // A lead known only by its URL is looked up before its words render (outside any transaction).
        const outcome = await enrichLead(this.ctx, work.input, info, this.settings, now);
        work = afterEnrich(this.ctx, lead.id, info, this.settings, outcome, now, this.pins);
      }
      if (work.kind === 'ask_agent') work = afterAgent(this.ctx, lead.id, info, this.settings, work.input, await this.ask(lead.id, work.input), now);
      if (work.kind === 'draft') {
        // The draft is written outside any transaction (a configured model may write it first).
        await prepareDraft(this.ctx, work.input);
        work = afterDraft(this.ctx, lead, info, this.settings, now, this.pins);
      }
      if (work.kind === 'send') this.lanes.push(work.send);
    } catch (err) {
      const closeAt = leadFailed(this.ctx, lead, err);
      if (closeAt !== null) this.memory.set('close', lead.id, closeAt);
    }
  }

  private async ask(leadId: string, input: AgentInput): Promise<AgentDecision> {
    try {
      return await this.agent.decide(input);
    } catch (err) {
      this.ctx.log.error({ err, leadId }, 'agent failed; handing the conversation to a person');
      return AGENT_FAILED;
    }
  }
}
