import { and, eq, inArray, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { allowance, resolveSafety } from '../../src/core/safety/rules.js';
import { findAccount } from '../../src/core/accounts/resolve.js';
import { nextUtcDay } from '../../src/core/outreach/calendar.js';
import { touchWait } from '../../src/core/outreach/readiness.js';
import type { TouchCount, TouchMemo } from '../../src/core/outreach/runner.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { engineIntents, leads } from '../../src/db/schema.js';
import { TEST_KEY } from '../helpers.js';
import { DAY, HOUR, harness, url } from './helpers.js';

/**
 * "Profile visits run days ahead of the invitations a sender can still send this week": with a
 * visit, a wait and then the invitation, the engine visited a day's worth of new leads every day
 * while their invitations waited, so a sender had visited more people than it could still invite
 * that week. A visit before an invitation now goes only while the leads the sender visited and
 * has not invited yet are fewer than the invitations it may still send this rolling week.
 */
function workspace(count: number, weekly: number): WorkspaceFileInput {
  return {
    apiKeys: [{ key: TEST_KEY, name: 'ci' }],
    accounts: [
      {
        id: 'acc_a',
        name: 'A',
        status: 'connected',
        connectionRequestLimit: 5,
        weeklyConnectionRequestLimit: weekly,
        profileVisitLimit: 40,
      },
    ],
    agents: [
      {
        id: 'tpl',
        accountId: 'acc_a',
        steps: [{ kind: 'visit' }, { kind: 'wait', hours: 72 }, { kind: 'invite', note: 'Hi {{firstName}}, glad to connect.' }],
      },
    ],
    campaigns: [
      {
        id: 'cmp',
        name: 'Visit first',
        status: 'CAMPAIGN_IN_PROGRESS',
        assignedTemplateId: 'tpl',
        leads: Array.from({ length: count }, (_, i) => ({
          id: `lead_${i + 1}`,
          networkUrl: url(`person-${i + 1}-sim-never-accepts`),
          firstName: `P${i + 1}`,
        })),
      },
    ],
  } as WorkspaceFileInput;
}

describe('visits before an invitation are paced with the invitations', () => {
  it('never visits more leads ahead of their invitation than the sender may still invite this week, and still invites every day it may', async () => {
    const h = harness(workspace(40, 10));
    const safety = resolveSafety({ workingHours: null });
    const visited = () =>
      new Set(
        h.ctx.db
          .select({ leadId: engineIntents.leadId })
          .from(engineIntents)
          .where(and(eq(engineIntents.accountId, 'acc_a'), inArray(engineIntents.kind, ['visit'])))
          .all()
          .map((r) => r.leadId),
      );
    const invited = () =>
      new Set(
        h.ctx.db
          .select({ id: leads.id })
          .from(leads)
          .where(isNull(leads.invitedAt))
          .all()
          .map((r) => r.id),
      );
    let worst = 0;
    let maxAhead = 0;
    const end = h.ctx.simClock.now() + 8 * DAY;
    while (h.ctx.simClock.now() < end) {
      await h.tick();
      const notInvited = invited();
      const ahead = [...visited()].filter((id) => notInvited.has(id)).length;
      const a = allowance(h.ctx, findAccount(h.ctx, 'acc_a')!, safety, h.ctx.simClock.now());
      const weekLeft = a.week.connectionRequestLimit - a.week.connectionRequestsSent;
      worst = Math.max(worst, ahead - weekLeft);
      maxAhead = Math.max(maxAhead, ahead);
      h.ctx.clock.advance(HOUR / 2);
    }
    expect(worst).toBeLessThanOrEqual(0);
    // Pacing, not stopping: the week's ten invitations went, each to a lead visited three days before.
    const sent = h.ctx.db.select().from(engineIntents).where(eq(engineIntents.kind, 'connection_request')).all();
    expect(sent).toHaveLength(10);
    expect(maxAhead).toBeGreaterThanOrEqual(5);
  });

  it("reads a sender's touch count once per tick through a memo, and answers every lead as a fresh read does", async () => {
    const h = harness(workspace(30, 10));
    const safety = resolveSafety({ workingHours: null });
    const ids = Array.from({ length: 30 }, (_, i) => `lead_${i + 1}`);
    let reads = 0;
    let checked = 0;
    const answers = new Set<string>();
    const end = h.ctx.simClock.now() + 6 * DAY;
    while (h.ctx.simClock.now() < end) {
      await h.tick();
      const now = h.ctx.simClock.now();
      const kept = new Map<string, TouchCount>();
      const memo: TouchMemo = {
        get: (id) => kept.get(id),
        set: (id, count) => {
          reads++;
          kept.set(id, count);
        },
      };
      const before = reads;
      // The rule, read on its own: the other leads visited this rolling week and not invited, against the week's invitations left.
      const a = allowance(h.ctx, findAccount(h.ctx, 'acc_a')!, safety, now);
      const weekLeft = a.week.connectionRequestLimit - a.week.connectionRequestsSent;
      const others = h.ctx.db.$client
        .prepare<[number, string], number>(
          `SELECT count(DISTINCT i.lead_id) FROM engine_intents i JOIN leads l ON l.id = i.lead_id
         WHERE i.account_id = 'acc_a' AND i.created_at >= ? AND i.kind = 'visit' AND i.state != 'failed' AND i.lead_id != ?
         AND l.invited_at IS NULL AND l.connection_request_accepted = 0 AND l.excluded = 0 AND l.replied = 0 AND l.stage = 'new'`,
        )
        .pluck();
      for (const id of ids) {
        const fresh = touchWait(h.ctx, safety, 'acc_a', id, now);
        expect(fresh === null).toBe(weekLeft > 0 && (others.get(nextUtcDay(now) - 7 * DAY, id) ?? 0) < weekLeft);
        expect(touchWait(h.ctx, safety, 'acc_a', id, now, memo)).toBe(fresh);
        answers.add(fresh === null ? 'goes' : 'waits');
        checked++;
      }
      expect(reads - before).toBe(1);
      h.ctx.clock.advance(HOUR / 2);
    }
    // The instants compared include both answers: leads whose touch goes and leads held back.
    expect(answers).toStrictEqual(new Set(['goes', 'waits']));
    expect(checked).toBeGreaterThan(1000);
  });
});
