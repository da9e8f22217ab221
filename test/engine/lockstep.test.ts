import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { recordCallMinute } from '../../src/core/outreach/lockstep.js';
import { engineIntents } from '../../src/db/schema.js';
import { expectSafe } from '../safety/audit.js';
import { MINUTE, engineSettings, engineWorkspace, harness } from './helpers.js';

// A Tuesday, 10:07 UTC: inside the default working hours.
const NOW = Date.parse('2026-11-03T10:07:00Z');

describe('the engine and lock-step between accounts', () => {
  it("holds a call that would give its account the very same minutes today as another's, and makes it a minute later", async () => {
    const h = harness(engineWorkspace(['ann-sim-never-accepts'], { extraAccounts: ['acc_b'] }), { clock: new FakeClock(NOW) });
    // acc_b called at 10:03, 10:05 and 10:07; acc_a (lead_1's sender) at 10:03 and 10:05.
    let n = 0;
    // As beginSend records a call: its intent and the account's day of calls.
    const call = (accountId: string, at: number) => {
      recordCallMinute(h.ctx, accountId, at);
      h.ctx.db
        .insert(engineIntents)
        .values({
          id: `int_old_${n++}`,
          leadId: `lead_old_${n}`,
          campaignId: 'cmp_old',
          accountId,
          kind: 'connection_request',
          state: 'sent',
          holder: 'e',
          createdAt: at,
        })
        .run();
    };
    for (const at of [NOW - 4 * MINUTE, NOW - 2 * MINUTE, NOW + 10_000]) call('acc_b', at);
    for (const at of [NOW - 4 * MINUTE + 20_000, NOW - 2 * MINUTE + 30_000]) call('acc_a', at);

    expect((await h.tick()).sends).toBe(0);
    expect(h.lead('lead_1').stage).toBe('new');
    // The account waits as when idle: later in the same minute the engine does not try again.
    h.ctx.clock.advance(30_000);
    expect(await h.tick()).toMatchObject({ sends: 0, due: 0 });
    h.ctx.clock.advance(30_000);
    expect((await h.tick()).sends).toBe(1);
    expect(h.lead('lead_1').stage).toBe('connection_sent');
    const made = h.ctx.db
      .select()
      .from(engineIntents)
      .all()
      .filter((i) => i.leadId === 'lead_1');
    expect(made.map((i) => Math.floor(i.createdAt / MINUTE))).toEqual([Math.floor(NOW / MINUTE) + 1]);
    expectSafe(h.ctx, engineSettings());
  });
});
