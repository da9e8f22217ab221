import { describe, expect, it } from 'vitest';
import { listAccounts } from '../../src/core/accounts/list.js';
import { ScaledClock, utcDay } from '../../src/core/clock.js';
import { getWorkspace } from '../../src/core/workspace/get.js';
import { DAY, engineWorkspace, harness } from './helpers.js';

/** One simulated day per wall second, as `--sim-speed 86400`. */
const SPEED = 86_400;

describe("an account's today counters at a high --sim-speed", () => {
  it('show what the engine sent and counted on the engine day, the day its caps apply to', async () => {
    const h = harness(engineWorkspace(['a-sim-never-accepts', 'b-sim-never-accepts', 'c-sim-never-accepts'], { limits: { connectionRequestLimit: 2 } }));
    const wall = h.ctx.clock;
    h.ctx.simClock = new ScaledClock(wall, SPEED);
    const secret = getWorkspace(h.ctx)!.cursorSecret;
    const today = () => listAccounts(h.ctx, secret, { limit: 10 }).accounts.find((a) => a.id === 'acc_a')!.today;
    const sent = () => h.events('connection_request_sent').length;

    // Day one of the engine: the cap lets two invitations out, and today shows both.
    const day1 = utcDay(h.ctx.simClock.now());
    for (let i = 0; i < 200 && sent() < 2; i++) {
      await h.tick();
      wall.advance(1); // 86.4 simulated seconds
    }
    expect(sent()).toBe(2);
    for (let i = 0; i < 20; i++) {
      await h.tick();
      wall.advance(1);
    }
    expect(utcDay(h.ctx.simClock.now())).toBe(day1);
    expect(sent()).toBe(2);
    expect(today()).toMatchObject({ connectionRequestsSent: 2, connectionRequestLimit: 2 });

    // Past the engine's midnight (the wall clock is still on the same day): the third goes
    // out, and today is the new engine day with one sent, not the wall day with two.
    wall.advance(Math.ceil(DAY / SPEED));
    const day2 = utcDay(h.ctx.simClock.now());
    expect(day2).not.toBe(day1);
    expect(utcDay(wall.now())).toBe(day1);
    for (let i = 0; i < 200 && sent() < 3; i++) {
      await h.tick();
      wall.advance(1);
    }
    expect(sent()).toBe(3);
    expect(utcDay(h.ctx.simClock.now())).toBe(day2);
    expect(today()).toMatchObject({ connectionRequestsSent: 1, connectionRequestLimit: 2 });

    // A later engine day with nothing sent shows zero.
    wall.advance(Math.ceil((2 * DAY) / SPEED));
    expect(today().connectionRequestsSent).toBe(0);
  });
});
