import { randomUUID } from 'node:crypto';
import type { Ctx } from '../../core/context.js';
import { RuleBasedAgent, type AgentDecision, type AgentInput, type ReplyAgent } from '../../core/outreach/agent.js';
import { applyInboundAll } from '../../core/outreach/inbound.js';
import { acquireLease, recordSimTime, releaseLease } from '../../core/outreach/lease.js';
import { freshLeadQuotas, probeSizes } from '../../core/outreach/quotas.js';
import { closingLeads, completeIfDone, freshLeadsOf, nextScheduledOf, runningCampaigns, scheduledLeadsOf, withoutWorkLeft } from '../../core/outreach/queue.js';
import { settleAbandoned } from '../../core/outreach/sends.js';
import { resolveEngineSettings, type EngineSettings } from '../../core/outreach/settings.js';
import { nextUtcDay } from '../../core/outreach/calendar.js';
import type { SenderPins } from '../../core/outreach/runner.js';
import { loadCampaignInfo, memoryStamp, sendersOf, type CampaignInfo, type LeadRow } from '../../core/outreach/state.js';
import { AGENT_FAILED, afterAgent, afterDraft, leadFailed, workLead } from '../../core/outreach/work.js';
import { prepareDraft } from '../../core/drafts/prepare.js';
import { SendLanes } from './lanes.js';
import { EngineMemory } from './memory.js';

/** How long `stop()` waits for a tick in progress. */
const STOP_WAIT_MS = 10_000;
/** Every this many ticks the completion rule looks at every running campaign, not only those with work. */
const FULL_COMPLETION_CHECK_EVERY = 20;

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

/**
 * The outreach engine. It only schedules: the lease that keeps one engine per database, the
 * lanes (each account's sends, one after another), the provider-slot queue (p-queue, at most
 * `concurrency` calls in flight across accounts) and the timers (its loop, and its memory of when
 * to look at what again: ./memory.ts). Every tick drains inbound events, reads the leads that
 * are due in running campaigns, lets the core decide what each needs (src/core/outreach/work.ts)
 * and queues the sends. What a send may do and when, what a failure means, where a held send
 * goes: all core verbs in src/core/outreach/. Time is `ctx.simClock`; the lease is on wall time.
 */
export class Engine {
  readonly holder: string;
  readonly settings: EngineSettings;
  private readonly agent: ReplyAgent;
  private readonly memory = new EngineMemory();
  private readonly lanes: SendLanes;
  /** The leads given each sender today and not invited yet, in the memory (`pins`). */
  private readonly pins: SenderPins = {
    count: (accountId) => {
      const entry = this.memory.get('pins', accountId);
      return entry && entry.until > this.ctx.simClock.now() ? entry.value.size : 0;
    },
    add: (accountId, leadId) => {
      const now = this.ctx.simClock.now();
      const entry = this.memory.get('pins', accountId);
      const leads = entry && entry.until > now ? entry.value : new Set<string>();
      leads.add(leadId);
      this.memory.set('pins', accountId, nextUtcDay(now), leads);
    },
  };
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
    this.lanes = new SendLanes({
      ctx,
      settings: this.settings,
      memory: this.memory,
      holder: this.holder,
      random: options.random ?? Math.random,
      mayContinue: () => !this.stopping && this.ensureLease(),
      stopped: () => this.stopping,
      unrecorded: () => {
        this.recoverPending = true;
      },
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
    const report: TickReport = { leased: false, inbound: 0, due: 0, sends: 0, completed: [] };
    if (this.stopping || !this.ensureLease()) return report;
    report.leased = true;
    if (this.recoverPending) {
      this.recoverPending = false;
      settleAbandoned(this.ctx, this.settings, this.lanes.inFlight);
    }
    const inbound = await this.drainInbound();
    report.inbound = inbound.count;
    this.memory.sync(memoryStamp(this.ctx));
    const running = runningCampaigns(this.ctx);
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
    await this.workDue(running, now, seen, touched);
    report.due = seen.size;
    report.sends = await this.lanes.run();

    // Only a campaign that had work or inbound events this tick can have just finished it; every
    // so often all are checked, for changes made elsewhere (leads deleted through the API).
    const checkAll = this.ticks++ % FULL_COMPLETION_CHECK_EVERY === 0;
    for (const id of touched) this.memory.forget('quiet', id);
    const candidates = withoutWorkLeft(
      this.ctx,
      running.filter((info) => checkAll || touched.has(info.id)).map((info) => info.id),
    );
    for (const id of candidates) if (completeIfDone(this.ctx, id, this.holder)) report.completed.push(id);
    return report;
  }

  /**
   * Reads and works the due leads of the running campaigns whose sender is awake: those with
   * scheduled work first, then leads never looked at, only as many as the sender may still invite
   * (a backlog of a million new leads costs nothing until its turn). Each read is one statement
   * for all campaigns. When none of a campaign's few leads needed a send (waits re-planned,
   * sequences finished), its next few are read at once, up to the batch size.
   */
  private async workDue(running: readonly CampaignInfo[], now: number, seen: Set<string>, touched: Set<string>): Promise<void> {
    const { perWake, fresh: freshRoom } = probeSizes(this.settings);
    // Senders' counters are this tick's, once read below; never an earlier tick's.
    this.pins.counters = undefined;
    // A campaign waits while its senders are all idle (out of hours, or within their spacing).
    const awake = running.filter((info) => {
      const senders = sendersOf(info);
      return senders.length === 0 || senders.some((id) => this.memory.until('idle', id) <= now);
    });
    const probed = awake.filter((info) => this.memory.until('quiet', info.id) <= now);
    // A few leads per sender: a campaign's senders send side by side, so a campaign of fifty
    // senders held to one sender's few leads a tick sent no more than a campaign of one.
    const wakeOf = (info: CampaignInfo) => Math.min(this.settings.batchSize, perWake * Math.max(1, info.senderIds.length));
    // One statement per distinct size (most workspaces have one or two), each campaign read to its own.
    const bySize = new Map<number, string[]>();
    for (const info of probed) bySize.set(wakeOf(info), [...(bySize.get(wakeOf(info)) ?? []), info.id]);
    const scheduledBy = new Map<string, LeadRow[]>();
    for (const [size, ids] of bySize) for (const [id, rows] of scheduledLeadsOf(this.ctx, ids, now, size)) scheduledBy.set(id, rows);
    const quiet = probed.filter((info) => !scheduledBy.has(info.id)).map((info) => info.id);
    for (const [id, at] of nextScheduledOf(this.ctx, quiet, now)) this.memory.set('quiet', id, at ?? Number.POSITIVE_INFINITY);
    // A campaign with several senders also takes new leads while it has scheduled ones, when one
    // of its senders has no new lead promised and may still invite: its scheduled leads may all
    // wait for another, busy sender.
    const dry = (id: string) => this.pins.count(id) === 0 && this.memory.until('invites', id) <= now;
    const hungry = awake.filter((info) => !scheduledBy.has(info.id) || (info.senderIds.length > 1 && info.senderIds.some(dry)));
    const { quotas, full } = freshLeadQuotas(
      this.ctx,
      this.settings.safety,
      hungry,
      now,
      freshRoom,
      (id) => this.memory.until('invites', id) > now,
      (id) => this.pins.count(id),
      (counters) => {
        this.pins.counters = counters;
      },
    );
    for (const [accountId, until] of full) this.memory.set('invites', accountId, until);
    const freshBy = freshLeadsOf(
      this.ctx,
      hungry.filter((info) => (quotas.get(info.id) ?? 0) > 0).map((info) => info.id),
      freshRoom,
    );
    for (const info of awake) {
      const wake = wakeOf(info);
      let scheduled = scheduledBy.get(info.id) ?? [];
      const fresh = (freshBy.get(info.id) ?? []).slice(0, quotas.get(info.id) ?? 0);
      let due = fresh.length > 0 ? scheduled.concat(fresh) : scheduled;
      if (due.length > 0) touched.add(info.id);
      const before = this.lanes.queued;
      for (let taken = 0; ; ) {
        let handled = 0;
        for (const lead of due) {
          if (seen.has(lead.id)) continue;
          seen.add(lead.id);
          handled++;
          await this.work(lead, info, now);
        }
        taken += due.length;
        if (handled === 0 || scheduled.length < wake || this.lanes.queued > before || taken >= this.settings.batchSize) break;
        scheduled = scheduledLeadsOf(this.ctx, [info.id], now, wake).get(info.id) ?? [];
        due = scheduled;
      }
    }
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
