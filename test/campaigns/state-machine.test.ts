import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { CAMPAIGN_STATUSES, type CampaignStatus } from '../../src/core/campaigns/campaign.js';
import { pauseCampaign, startCampaign } from '../../src/core/campaigns/lifecycle.js';
import { createCampaign } from '../../src/core/campaigns/manage.js';
import {
  applyCampaignEvent,
  beginImporting,
  CREATED_STATUS,
  insertCampaign,
  lookalikeHolder,
  nextStatus,
  TRANSITIONS,
  type CampaignEvent,
} from '../../src/core/campaigns/state-machine.js';
import { openDatabase } from '../../src/db/connection.js';
import { FakeClock } from '../../src/core/clock.js';
import { addLead } from '../../src/core/leads/add.js';
import { finishJob } from '../../src/core/lookalike/jobs.js';
import { agents, campaigns, lookalikeJobs } from '../../src/db/schema.js';
import { testCtx } from '../helpers.js';
import { DAY, engineWorkspace, harness, HOUR } from '../engine/helpers.js';

const WALL = Date.parse('2026-11-21T12:00:00Z');
/** The engine's clock, far ahead of the wall, as at a high --sim-speed. */
const SIM = WALL + 40 * DAY;

function ctxWith(status: CampaignStatus, leads = 0) {
  const ws = {
    ...engineWorkspace(
      Array.from({ length: leads }, (_, i) => `sm-${i}`),
      { status },
    ),
    credits: { credits: 10 },
  };
  const ctx = testCtx({ workspace: ws, clock: new FakeClock(WALL) });
  ctx.simClock = new FakeClock(SIM);
  return ctx;
}
const row = (ctx: ReturnType<typeof ctxWith>, id = 'cmp') => ctx.db.select().from(campaigns).where(eq(campaigns.id, id)).get()!;

describe('the campaign state machine', () => {
  it('has exactly one row per event', () => {
    const events = TRANSITIONS.map((t) => t.event);
    expect(new Set(events).size).toBe(events.length);
  });

  // Every event against every status: it moves exactly the statuses of its row, and stamps
  // updated_at with the wall clock even when the engine's clock is weeks ahead.
  for (const t of TRANSITIONS) {
    for (const status of CAMPAIGN_STATUSES) {
      const applies = (t.from as readonly string[]).includes(status);
      it(`${t.event} on ${status}: ${applies ? `→ ${t.to}` : 'unchanged'}`, () => {
        const ctx = ctxWith(status);
        ctx.clock.advance(5_000);
        const before = row(ctx);
        expect(applyCampaignEvent(ctx, 'cmp', t.event)).toBe(applies);
        const after = row(ctx);
        expect(after.status).toBe(applies ? t.to : status);
        expect(nextStatus(status, t.event)).toBe(applies ? t.to : null);
        expect(after.updatedAt).toBe(applies ? WALL + 5_000 : before.updatedAt);
      });
    }
  }

  it('an unknown campaign changes nothing', () => {
    const ctx = ctxWith('READY_TO_SEND');
    expect(applyCampaignEvent(ctx, 'cmp_missing', 'start')).toBe(false);
  });
});

describe('the spec start/pause table through the verbs', () => {
  // [status, leads, op, expected action or error code, status after]
  const ROWS: [CampaignStatus, number, 'start' | 'pause', string, CampaignStatus][] = [
    ['READY_TO_SEND', 1, 'start', 'started', 'CAMPAIGN_IN_PROGRESS'],
    ['FAILED', 1, 'start', 'started', 'CAMPAIGN_IN_PROGRESS'],
    ['CAMPAIGN_PAUSED', 1, 'start', 'resumed', 'CAMPAIGN_IN_PROGRESS'],
    ['CAMPAIGN_IN_PROGRESS', 1, 'start', 'noop', 'CAMPAIGN_IN_PROGRESS'],
    ['COMPLETED', 1, 'start', 'conflict', 'COMPLETED'],
    ['DONE', 1, 'start', 'conflict', 'DONE'],
    ['FAILED', 0, 'start', 'conflict', 'FAILED'],
    ['PENDING', 1, 'start', 'conflict', 'PENDING'],
    ['CAMPAIGN_IN_PROGRESS', 1, 'pause', 'paused', 'CAMPAIGN_PAUSED'],
    ['CAMPAIGN_PAUSED', 1, 'pause', 'noop', 'CAMPAIGN_PAUSED'],
    ['READY_TO_SEND', 1, 'pause', 'conflict', 'READY_TO_SEND'],
    ['FAILED', 1, 'pause', 'conflict', 'FAILED'],
  ];
  for (const [status, leads, op, expected, after] of ROWS) {
    it(`${status} (${leads} leads) ${op} → ${expected}`, async () => {
      const ctx = ctxWith(status, leads);
      const run = async () => (op === 'start' ? startCampaign(ctx, 'cmp') : pauseCampaign(ctx, 'cmp'));
      if (expected === 'conflict') await expect(run()).rejects.toMatchObject({ code: 'conflict' });
      else expect((await run()).action).toBe(expected);
      expect(row(ctx).status).toBe(after);
    });
  }

  it('CAMPAIGN_IN_PROGRESS pause while leads are being added → 409, unchanged', () => {
    const ctx = ctxWith('CAMPAIGN_IN_PROGRESS', 1);
    expect(beginImporting(ctx, 'cmp', { holder: 'an-import', lease: { ttlMs: 60_000 } })).toBe(true);
    expect(() => pauseCampaign(ctx, 'cmp')).toThrow(expect.objectContaining({ code: 'conflict' }));
    expect(row(ctx).status).toBe('CAMPAIGN_IN_PROGRESS');
  });

  it('a lead added to a FAILED campaign makes it READY_TO_SEND; other statuses keep theirs', () => {
    for (const status of CAMPAIGN_STATUSES) {
      const ctx = ctxWith(status);
      addLead(ctx, 'cmp', { networkUrl: 'https://www.linkedin.com/in/added-one' });
      expect(row(ctx).status, status).toBe(status === 'FAILED' ? 'READY_TO_SEND' : status);
      expect(row(ctx).updatedAt).toBe(WALL);
    }
  });
});

describe('transitions made by workers', () => {
  function lookalikeJob(ctx: ReturnType<typeof ctxWith>) {
    expect(beginImporting(ctx, 'cmp', { holder: lookalikeHolder('job_1') })).toBe(true);
    ctx.db
      .insert(lookalikeJobs)
      .values({
        id: 'job_1',
        campaignId: 'cmp',
        kind: 'create',
        seed: 'https://www.linkedin.com/in/seed',
        jobTitleKeywords: '[]',
        countries: '[]',
        queryKey: 'k',
        protectAcrossCampaigns: false,
        requested: 5,
        reserved: 5,
        reservedCredits: 5,
        reservedTopUp: 0,
        state: 'pending',
        leasedBy: 'w',
        leasedUntil: WALL + HOUR,
        createdAt: WALL,
        updatedAt: WALL,
      })
      .run();
  }

  it('Lookalike fill: PENDING with leads → READY_TO_SEND, importing cleared', () => {
    const ctx = ctxWith('PENDING', 2);
    lookalikeJob(ctx);
    finishJob(ctx, 'job_1', 'w', 'filled');
    expect(row(ctx)).toMatchObject({ status: 'READY_TO_SEND', importing: false, updatedAt: WALL });
  });

  it('Lookalike fill that found nobody: PENDING → FAILED', () => {
    const ctx = ctxWith('PENDING', 0);
    lookalikeJob(ctx);
    finishJob(ctx, 'job_1', 'w', 'exhausted');
    expect(row(ctx)).toMatchObject({ status: 'FAILED', importing: false });
  });

  it('Lookalike extension of a running campaign keeps its status', () => {
    const ctx = ctxWith('CAMPAIGN_IN_PROGRESS', 1);
    lookalikeJob(ctx);
    finishJob(ctx, 'job_1', 'w', 'filled');
    expect(row(ctx)).toMatchObject({ status: 'CAMPAIGN_IN_PROGRESS', importing: false });
  });

  it('engine failure: a running campaign whose agent is gone → FAILED, on the wall clock', async () => {
    const h = harness(engineWorkspace(['eng-fail']));
    h.ctx.db.delete(agents).where(eq(agents.id, 'tpl')).run();
    h.ctx.simClock = new FakeClock(h.ctx.clock.now() + 40 * DAY);
    await h.tick();
    expect(h.campaign()).toMatchObject({ status: 'FAILED', updatedAt: h.ctx.clock.now() });
  });

  it('engine completion: a running campaign with no work left → COMPLETED, on the wall clock', async () => {
    const h = harness(engineWorkspace([{ slug: 'eng-done', stage: 'failed' }]));
    h.ctx.clock.advance(HOUR);
    await h.tick();
    expect(h.campaign()).toMatchObject({ status: 'COMPLETED', updatedAt: h.ctx.clock.now() });
  });
});

describe("one writer of a campaign's state", () => {
  const REFUSED = /written only by the campaign state machine/;

  it('SQLite refuses a status or importing write made anywhere but the state machine, drizzle or raw SQL', () => {
    const ctx = ctxWith('CAMPAIGN_IN_PROGRESS', 1);
    const before = row(ctx);
    expect(() => ctx.db.update(campaigns).set({ status: 'CAMPAIGN_PAUSED' }).where(eq(campaigns.id, 'cmp')).run()).toThrow(REFUSED);
    expect(() => ctx.db.update(campaigns).set({ importing: true }).where(eq(campaigns.id, 'cmp')).run()).toThrow(REFUSED);
    expect(() => ctx.db.$client.prepare("UPDATE campaigns SET status = 'COMPLETED'").run()).toThrow(REFUSED);
    expect(() => ctx.db.$client.prepare('UPDATE campaigns SET importing_until = 1, importing_holder = ?').run('x')).toThrow(REFUSED);
    expect(() =>
      ctx.db.insert(campaigns).values({ id: 'cmp_sneaky', name: 'Sneaky', status: 'CAMPAIGN_IN_PROGRESS', createdAt: WALL, updatedAt: WALL }).run(),
    ).toThrow(/rows are written only by the campaign state machine/);
    expect(() =>
      ctx.db.$client.prepare("INSERT OR REPLACE INTO campaigns (id, name, status, created_at, updated_at) VALUES ('cmp', 'x', 'DONE', 1, 1)").run(),
    ).toThrow(REFUSED);
    expect(row(ctx)).toEqual(before);
    // Columns that are not the campaign's state stay writable by the verbs that own them.
    ctx.db.update(campaigns).set({ name: 'Renamed', totalLeads: 7 }).where(eq(campaigns.id, 'cmp')).run();
    expect(row(ctx)).toMatchObject({ name: 'Renamed', totalLeads: 7, status: 'CAMPAIGN_IN_PROGRESS' });
    // The state machine's own writes go through.
    expect(applyCampaignEvent(ctx, 'cmp', 'pause')).toBe(true);
    insertCampaign(ctx, { id: 'cmp_new', name: 'New', createdAt: WALL, updatedAt: WALL }, { kind: 'plain' });
    expect(row(ctx, 'cmp_new').status).toBe(CREATED_STATUS.plain);
  });

  it('a connection that never registered the gate cannot write those columns at all', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-gate-'));
    const file = join(dir, 'gate.db');
    const ctx = { ...testCtx({ workspace: null }), db: openDatabase(file) };
    insertCampaign(ctx, { id: 'cmp_g', name: 'G', createdAt: WALL, updatedAt: WALL }, { kind: 'plain' });
    ctx.db.$client.close();
    const bare = new Database(file);
    try {
      expect(() => bare.prepare("UPDATE campaigns SET status = 'DONE' WHERE id = 'cmp_g'").run()).toThrow(/no such function: campaign_state_writer/);
      bare.prepare("UPDATE campaigns SET name = 'Renamed' WHERE id = 'cmp_g'").run();
      expect(bare.prepare("SELECT status, name FROM campaigns WHERE id = 'cmp_g'").get()).toEqual({ status: 'READY_TO_SEND', name: 'Renamed' });
    } finally {
      bare.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every verb that creates or changes a campaign still works through it', async () => {
    const ctx = ctxWith('READY_TO_SEND', 1);
    const created = createCampaign(ctx, { name: 'Made by the verb', assignedTemplateId: 'tpl' });
    expect(created.status).toBe(CREATED_STATUS.plain);
    await startCampaign(ctx, 'cmp');
    expect(pauseCampaign(ctx, 'cmp').action).toBe('paused');
    expect(row(ctx).status).toBe('CAMPAIGN_PAUSED');
  });
});

export type { CampaignEvent };
