import { and, eq, inArray, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { allowance, resolveSafety } from '../../src/core/safety/rules.js';
import { findAccount } from '../../src/core/accounts/resolve.js';
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
});
