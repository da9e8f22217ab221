import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { updateCampaign } from '../../../src/core/campaigns/manage.js';
import { applyCampaignEvent } from '../../../src/core/campaigns/state-machine.js';
import { FakeClock, utcDay } from '../../../src/core/clock.js';
import type { Ctx } from '../../../src/core/context.js';
import {
  dayPins,
  isAwake,
  isDry,
  isHungry,
  readDue,
  scheduledBySize,
  unpinsAfterFailure,
  unpinsLead,
  wakeSize,
  workCampaignDue,
  type DueMemory,
  type PinStore,
} from '../../../src/core/outreach/due.js';
import { resolveEngineSettings } from '../../../src/core/outreach/settings.js';
import { loadCampaignInfo, type CampaignInfo, type LeadRow } from '../../../src/core/outreach/state.js';
import { accountDaily, leads } from '../../../src/db/schema.js';
import { leadStatements } from '../../../src/db/sql/leads.js';
import { engineWorkspace } from '../../engine/helpers.js';
import { testCtx } from '../../helpers.js';
import { DAY, MINUTE } from './helpers.js';

const NOW = Date.parse('2026-11-03T10:00:00Z');
const spaced = resolveEngineSettings({ workingHours: null });

/** The engine test workspace with `n` leads, its campaign sending from `senders` (none: the agent's acc_a). */
function workspace(n: number, senders: string[] = [], limit?: number): { ctx: Ctx; info: CampaignInfo } {
  const slugs = Array.from({ length: n }, (_, i) => `p${i + 1}`);
  const ws = engineWorkspace(slugs, {
    status: 'CAMPAIGN_PAUSED',
    extraAccounts: ['acc_b', 'acc_c'],
    limits: limit === undefined ? {} : { connectionRequestLimit: limit },
  });
  const ctx = testCtx({ workspace: ws, clock: new FakeClock(NOW) });
  if (senders.length > 0) updateCampaign(ctx, 'cmp', { senderAccountIds: senders });
  applyCampaignEvent(ctx, 'cmp', 'resume');
  return { ctx, info: loadCampaignInfo(ctx, 'cmp')! };
}

/** Gives these leads scheduled work due at `at` (the rest stay never looked at). */
const schedule = (ctx: Ctx, ids: string[], at: number) => ctx.db.update(leads).set({ nextActionAt: at }).where(inArray(leads.id, ids)).run();
const ids = (rows: readonly LeadRow[] | undefined) => (rows ?? []).map((r) => r.id);
const leadIds = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `lead_${from + i}`);

/** A memory that knows nothing, with what a test sets. */
function memory(over: Partial<Omit<DueMemory, 'pins'>> = {}, pinned: Record<string, number> = {}): DueMemory {
  return {
    idleUntil: () => 0,
    quietUntil: () => 0,
    fullUntil: () => 0,
    ...over,
    pins: { count: (id) => pinned[id] ?? 0, add: () => undefined },
  };
}

describe('sender pins', () => {
  it('count the leads pinned to a sender today; a new UTC day starts again, and a lead whose invitation went is released', () => {
    const entries = new Map<string, { until: number; value: Set<string> }>();
    const store: PinStore = { get: (id) => entries.get(id), set: (id, until, value) => void entries.set(id, { until, value }) };
    let now = NOW;
    const pins = dayPins(store, () => now);
    expect(pins.count('acc_a')).toBe(0);
    pins.add('acc_a', 'l1');
    pins.add('acc_a', 'l2');
    pins.add('acc_b', 'l3');
    expect([pins.count('acc_a'), pins.count('acc_b')]).toEqual([2, 1]);
    expect(entries.get('acc_a')?.until).toBe(Date.parse('2026-11-04T00:00:00Z'));
    pins.release('acc_a', 'l1');
    pins.release('acc_c', 'l9');
    expect(pins.count('acc_a')).toBe(1);
    now = Date.parse('2026-11-04T00:00:00Z');
    expect(pins.count('acc_a')).toBe(0);
    pins.add('acc_a', 'l4');
    expect([...(entries.get('acc_a')?.value ?? [])]).toEqual(['l4']);
    expect(entries.get('acc_a')?.until).toBe(Date.parse('2026-11-05T00:00:00Z'));
  });
});

describe('which campaigns are read', () => {
  it('a campaign waits while all its senders are idle, and is read once one is awake', () => {
    const { info } = workspace(1, ['acc_a', 'acc_b']);
    const idle = (until: Record<string, number>) => (id: string) => until[id] ?? 0;
    expect(isAwake(info, NOW, idle({}))).toBe(true);
    expect(isAwake(info, NOW, idle({ acc_a: NOW + MINUTE }))).toBe(true);
    expect(isAwake(info, NOW, idle({ acc_a: NOW + MINUTE, acc_b: NOW + 1 }))).toBe(false);
    expect(isAwake(info, NOW, idle({ acc_a: NOW + MINUTE, acc_b: NOW }))).toBe(true);
    // Without senders its agent's account decides; with no account at all it is always read.
    const own = { ...info, senderIds: [] };
    expect(isAwake(own, NOW, idle({ acc_a: NOW + MINUTE }))).toBe(false);
    expect(isAwake({ ...own, agent: null }, NOW, idle({ acc_a: NOW + MINUTE }))).toBe(true);
  });

  it('reads a few scheduled leads per sender, at most the batch; without spacing the batch', () => {
    const { info } = workspace(1);
    const senders = (n: number) => ({ ...info, senderIds: Array.from({ length: n }, (_, i) => `acc_${i}`) });
    expect([0, 1, 3, 50].map((n) => wakeSize(spaced, senders(n)))).toEqual([2, 2, 6, 100]);
    expect(wakeSize(resolveEngineSettings({ batchSize: 5 }), senders(3))).toBe(5);
    expect(wakeSize(resolveEngineSettings({ spacingSeconds: { min: 0, max: 0 }, batchSize: 40 }), senders(3))).toBe(40);
  });

  it('a campaign takes new leads when it has nothing scheduled, or when one of its several senders is dry', () => {
    const { info } = workspace(1, ['acc_a', 'acc_b']);
    const mem = memory({ fullUntil: (id) => (id === 'acc_b' ? NOW + DAY : 0) }, { acc_a: 1 });
    // acc_a has a lead pinned today; acc_b may not invite before tomorrow; acc_c is dry.
    expect(['acc_a', 'acc_b', 'acc_c'].map((id) => isDry(id, NOW, mem))).toEqual([false, false, true]);
    expect(isDry('acc_b', NOW + DAY, mem)).toBe(true);
    const dry = (id: string) => isDry(id, NOW, mem);
    expect(isHungry(info, false, dry)).toBe(true);
    expect(isHungry(info, true, dry)).toBe(false);
    expect(isHungry({ ...info, senderIds: ['acc_a', 'acc_c'] }, true, dry)).toBe(true);
    // One sender: its scheduled leads are its own, so it waits for them.
    expect(isHungry({ ...info, senderIds: ['acc_c'] }, true, dry)).toBe(false);
  });
});

describe('reading the due leads', () => {
  it('reads each campaign to its own size, in due order', () => {
    const { ctx, info } = workspace(8);
    schedule(ctx, leadIds(1, 6), NOW - MINUTE);
    schedule(ctx, ['lead_3'], NOW - 2 * MINUTE);
    schedule(ctx, ['lead_4'], NOW + MINUTE);
    const other = { ...info, id: 'cmp_none' };
    const read = scheduledBySize(ctx, [info, other], NOW, (c) => (c.id === 'cmp' ? 3 : 1));
    expect([...read.keys()]).toEqual(['cmp']);
    expect(ids(read.get('cmp'))).toEqual(['lead_3', 'lead_1', 'lead_2']);
    expect(ids(scheduledBySize(ctx, [info], NOW, () => 10).get('cmp'))).toEqual(['lead_3', 'lead_1', 'lead_2', 'lead_5', 'lead_6']);
  });

  it("reads the counters of the awake senders of the leads due with the tick's: a lead's own, else its campaign's", () => {
    const { ctx, info } = workspace(4, ['acc_a', 'acc_b', 'acc_c']);
    schedule(ctx, ['lead_1', 'lead_2'], NOW - MINUTE);
    // Every sender has a lead pinned today, so the campaign is not hungry: no new leads, no quota read.
    const mem = () => memory({ idleUntil: (id) => (id === 'acc_b' ? NOW + MINUTE : 0) }, { acc_a: 1, acc_b: 1, acc_c: 1 });
    const read = () => {
      const m = mem();
      const reads = readDue(ctx, spaced, [info], NOW, m);
      expect(reads.fresh.size).toBe(0);
      expect(ids(reads.scheduled.get('cmp'))).toEqual(['lead_1', 'lead_2']);
      // Only the senders of a campaign that takes new leads are judged full by it.
      expect(reads.full.size).toBe(0);
      return [...(m.pins.counters?.byAccount.keys() ?? [])].sort();
    };
    // Leads with no sender yet may go from any awake sender of their campaign; acc_b is idle.
    expect(read()).toEqual(['acc_a', 'acc_c']);
    // A lead with its sender asks for that sender's counters only.
    ctx.db
      .update(leads)
      .set({ accountId: 'acc_c' })
      .where(inArray(leads.id, ['lead_1', 'lead_2']))
      .run();
    expect(read()).toEqual(['acc_c']);
    // An idle sender sends nothing this tick: its counters are not read.
    ctx.db
      .update(leads)
      .set({ accountId: 'acc_b' })
      .where(inArray(leads.id, ['lead_1', 'lead_2']))
      .run();
    expect(read()).toEqual([]);
  });

  it('takes new leads only while nothing is scheduled, as many as the sender may invite, and remembers when the campaign is next due', () => {
    const { ctx, info } = workspace(4, [], 3);
    const mem = memory();
    let reads = readDue(ctx, spaced, [info], NOW, mem);
    expect(reads.due.map((c) => c.id)).toEqual(['cmp']);
    expect(reads.scheduled.size).toBe(0);
    expect(ids(reads.fresh.get('cmp'))).toEqual(['lead_1', 'lead_2']);
    expect(reads.quiet).toEqual(new Map([['cmp', Number.POSITIVE_INFINITY]]));
    expect(reads.full.size).toBe(0);
    // The senders' counters read for the new leads are handed to the pins.
    expect(mem.pins.counters?.byAccount.get('acc_a')?.connectionRequestLimit).toBe(3);

    // Scheduled work: its leads are read, no new ones taken; a later one is when it is next due.
    schedule(ctx, ['lead_1'], NOW - MINUTE);
    schedule(ctx, ['lead_2'], NOW + 5 * MINUTE);
    reads = readDue(ctx, spaced, [info], NOW, mem);
    expect(ids(reads.scheduled.get('cmp'))).toEqual(['lead_1']);
    expect(reads.fresh.size).toBe(0);
    expect(reads.quiet.size).toBe(0);
    // No campaign took new leads; the sender of the one with leads due is read all the same, for
    // the tick's touches and sends (touchWait, the lanes), and the pins hold this tick's counters.
    expect([...(mem.pins.counters?.byAccount.keys() ?? [])]).toEqual(['acc_a']);
    expect(mem.pins.counters?.at).toBe(NOW);
    reads = readDue(ctx, spaced, [info], NOW - 2 * MINUTE, mem);
    expect(reads.quiet).toEqual(new Map([['cmp', NOW - MINUTE]]));

    // Known quiet: its scheduled leads are not read; with nothing of them in hand it takes new ones.
    reads = readDue(ctx, spaced, [info], NOW, memory({ quietUntil: () => NOW + MINUTE }));
    expect(reads.scheduled.size).toBe(0);
    expect(ids(reads.fresh.get('cmp'))).toEqual(['lead_3', 'lead_4']);

    // A sender known to have no invitation left is not read again, and its campaign takes nothing.
    const full = memory({ quietUntil: () => NOW + MINUTE, fullUntil: () => NOW + MINUTE });
    reads = readDue(ctx, spaced, [info], NOW, full);
    expect([reads.due.length, reads.fresh.size, reads.full.size, full.pins.counters?.byAccount.size]).toEqual([0, 0, 0, 0]);

    // One invitation left today: one new lead; none left: none, and the sender is found full until tomorrow.
    ctx.db
      .insert(accountDaily)
      .values({ accountId: 'acc_a', day: utcDay(NOW), connectionRequestsSent: 2 })
      .run();
    schedule(ctx, ['lead_1'], NOW + 5 * MINUTE);
    expect(ids(readDue(ctx, spaced, [info], NOW, memory()).fresh.get('cmp'))).toEqual(['lead_3']);
    ctx.db.update(accountDaily).set({ connectionRequestsSent: 3 }).where(eq(accountDaily.accountId, 'acc_a')).run();
    reads = readDue(ctx, spaced, [info], NOW, memory());
    expect(reads.fresh.size).toBe(0);
    expect(reads.full).toEqual(new Map([['acc_a', Date.parse('2026-11-04T00:00:00Z')]]));

    // Its sender idle: nothing is read at all.
    reads = readDue(ctx, spaced, [info], NOW, memory({ idleUntil: () => NOW + MINUTE }));
    expect([reads.due.length, reads.scheduled.size, reads.fresh.size, reads.quiet.size]).toEqual([0, 0, 0, 0]);
  });

  it('a campaign of several senders takes new leads beside its scheduled ones while a sender is dry', () => {
    const { ctx, info } = workspace(4, ['acc_a', 'acc_b']);
    schedule(ctx, ['lead_1'], NOW - MINUTE);
    expect(ids(readDue(ctx, spaced, [info], NOW, memory()).fresh.get('cmp'))).toEqual(['lead_2', 'lead_3']);
    expect(readDue(ctx, spaced, [info], NOW, memory({}, { acc_a: 1, acc_b: 1 })).fresh.size).toBe(0);
  });
});

describe('working a campaign due leads', () => {
  /** Works the campaign's due leads; each lead worked is re-planned for later, and `sends` of them queue a send. */
  async function run(ctx: Ctx, info: CampaignInfo, settings: typeof spaced, sends: string[] = [], seen = new Set<string>()) {
    const worked: string[] = [];
    let queued = 0;
    const work = async (lead: LeadRow) => {
      worked.push(lead.id);
      schedule(ctx, [lead.id], NOW + DAY);
      if (sends.includes(lead.id)) queued++;
    };
    const reads = readDue(ctx, settings, [info], NOW, memory());
    await workCampaignDue(ctx, settings, info, NOW, reads, seen, work, () => queued);
    return { worked, due: reads.due.map((c) => c.id) };
  }

  it('when none of its few leads needed a send, reads the next few, up to the batch size', async () => {
    const { ctx, info } = workspace(9);
    schedule(ctx, leadIds(1, 9), NOW - MINUTE);
    expect(await run(ctx, info, resolveEngineSettings({ workingHours: null, batchSize: 5 }))).toEqual({ worked: leadIds(1, 6), due: ['cmp'] });
  });

  it('stops once a send was queued, or when a page comes back short', async () => {
    const { ctx, info } = workspace(9);
    schedule(ctx, leadIds(1, 9), NOW - MINUTE);
    expect((await run(ctx, info, spaced, ['lead_3'])).worked).toEqual(leadIds(1, 4));
    // Five left due: pages of two, two, then one.
    expect((await run(ctx, info, spaced)).worked).toEqual(leadIds(5, 9));
    expect(await run(ctx, info, spaced)).toEqual({ worked: [], due: [] });
  });

  it('a short page ends the reading: nothing more was due when it was read', async () => {
    const { ctx, info } = workspace(4);
    schedule(ctx, leadIds(1, 3), NOW - MINUTE);
    const worked: string[] = [];
    const reads = readDue(ctx, spaced, [info], NOW, memory());
    const work = async (lead: LeadRow) => {
      worked.push(lead.id);
      schedule(ctx, [lead.id], NOW + DAY);
      // A lead that comes due while the page is worked waits for the next tick.
      if (lead.id === 'lead_3') schedule(ctx, ['lead_4'], NOW - MINUTE);
    };
    await workCampaignDue(ctx, spaced, info, NOW, reads, new Set(), work, () => 0);
    expect(worked).toEqual(leadIds(1, 3));
  });

  it('works each lead once a tick, and reads no further once a page holds only leads already worked', async () => {
    const { ctx, info } = workspace(4);
    schedule(ctx, leadIds(1, 4), NOW - MINUTE);
    const settings = resolveEngineSettings({ workingHours: null, batchSize: 50 });
    const seen = new Set(['lead_1']);
    const reads = readDue(ctx, settings, [info], NOW, memory());
    const pages = vi.spyOn(leadStatements(ctx.db).scheduledOfMany, 'all');
    // Leads not re-planned are read again: the second page holds only leads already seen.
    const worked: string[] = [];
    await workCampaignDue(
      ctx,
      settings,
      info,
      NOW,
      reads,
      seen,
      async (lead) => void worked.push(lead.id),
      () => 0,
    );
    expect(worked).toEqual(['lead_2']);
    expect([...seen]).toEqual(['lead_1', 'lead_2']);
    expect(pages).toHaveBeenCalledTimes(1);
  });
});

describe('which sends unpin their lead', () => {
  it('an invitation (its sender promised it) and an email (its mailbox promised it); nothing else was promised', () => {
    expect(unpinsLead('connect')).toBe(true);
    expect(unpinsLead('email')).toBe(true);
    for (const kind of ['message', 'visit', 'like', 'inmail', 'withdraw', 'endorse', 'polite_close', 'agent_send'] as const)
      expect(unpinsLead(kind), kind).toBe(false);
  });

  it('a failed send unpins its lead unless it is tried again the same UTC day', () => {
    const midnight = Date.parse('2026-11-04T00:00:00Z');
    expect(unpinsAfterFailure('connect', NOW + 15 * MINUTE, NOW)).toBe(false);
    expect(unpinsAfterFailure('email', midnight - 1, NOW)).toBe(false);
    expect(unpinsAfterFailure('connect', midnight, NOW)).toBe(true);
    expect(unpinsAfterFailure('email', null, NOW)).toBe(true);
    expect(unpinsAfterFailure('message', null, NOW)).toBe(false);
  });
});
