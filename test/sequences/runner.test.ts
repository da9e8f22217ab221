// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else; these objects are never awaited.
import { describe, expect, it } from 'vitest';
import { getAgentStats } from '../../src/core/sequences/stats.js';
import { DAY, HOUR, MINUTE } from '../engine/helpers.js';
import { stepsHarness } from './runner-helpers.js';

const ANN = 'amy-sim-accepts-after-3h-sim-no-reply';
const BOB = 'ben-sim-never-accepts';
const CAT = 'cat-sim-never-accepts-sim-no-posts-sim-no-inmail';

describe('the step runner through the simulator', () => {
  it('runs every step kind; the lead who accepts takes then, the one who never does takes else and is withdrawn', async () => {
    const h = await stepsHarness(
      [
        { kind: 'visit' },
        { kind: 'like_post' },
        { kind: 'invite', note: 'Hi {{firstName}}, glad to connect.', variants: [{ note: 'Hello {{firstName}}!' }] },
        {
          kind: 'if',
          condition: 'accepted',
          withinHours: 48,
          then: [
            { kind: 'wait', hours: 2 },
            { kind: 'message', text: 'Thanks for connecting, {{firstName}}.', variants: [{ text: 'Great to be connected, {{firstName}}.' }] },
          ],
          else: [{ kind: 'withdraw' }, { kind: 'inmail', subject: 'A quick idea, {{firstName}}', text: 'Hi {{firstName}}, one idea for Acme.' }],
        },
      ],
      [
        { slug: ANN, firstName: 'Ann' },
        { slug: BOB, firstName: 'Bob' },
        { slug: CAT, firstName: 'Cat' },
      ],
    );
    const start = h.ctx.clock.now();
    await h.runUntil(() => h.campaign().status === 'COMPLETED', 10 * MINUTE, 2000);

    expect(h.callsOf(ANN).map((c) => c.op)).toEqual(['visit', 'like_post', 'connect', 'message']);
    expect(h.callsOf(BOB).map((c) => c.op)).toEqual(['visit', 'like_post', 'connect', 'withdraw', 'inmail']);
    expect(h.callsOf(CAT).map((c) => c.op)).toEqual(['visit', 'like_post', 'connect', 'withdraw', 'inmail']);
    expect(['Hi Ann, glad to connect.', 'Hello Ann!']).toContain(h.callsOf(ANN)[2]!.text);
    expect(['Thanks for connecting, Ann.', 'Great to be connected, Ann.']).toContain(h.callsOf(ANN)[3]!.text);
    expect(h.callsOf(BOB)[4]!.text).toBe('Hi Bob, one idea for Acme.');

    expect(h.eventsOf('lead_1')).toEqual(['visit:sent', 'like_post:sent', 'invite:sent', 'if:sent', 'invite:accepted', 'wait:sent', 'message:sent']);
    expect(h.eventsOf('lead_2')).toEqual(['visit:sent', 'like_post:sent', 'invite:sent', 'if:sent', 'withdraw:sent', 'inmail:sent']);
    expect(h.eventsOf('lead_3')).toEqual([
      'visit:sent',
      'like_post:skipped:no_posts',
      'invite:sent',
      'if:sent',
      'withdraw:sent',
      'inmail:skipped:inmail_unreachable',
    ]);
    for (const id of ['lead_1', 'lead_2', 'lead_3']) expect(h.position(id)).toMatchObject({ stepId: null, endReason: 'completed' });

    // Timing: the message 2 hours after the acceptance; the withdrawal when the 48 hours ran out.
    const ann = h.lead('lead_1');
    expect(ann.stage).toBe('messaged');
    expect(ann.lastSequenceSentAt! - ann.connectedAt!).toBeGreaterThanOrEqual(2 * HOUR);
    expect(ann.lastSequenceSentAt! - ann.connectedAt!).toBeLessThan(2 * HOUR + 20 * MINUTE);
    const bob = h.lead('lead_2');
    expect(bob.invitationWithdrawnAt! - bob.invitedAt!).toBeGreaterThanOrEqual(48 * HOUR);
    expect(bob.invitationWithdrawnAt! - bob.invitedAt!).toBeLessThan(48 * HOUR + 20 * MINUTE);
    expect(bob.stage).toBe('connection_sent');
    expect(h.ctx.clock.now() - start).toBeLessThan(4 * DAY);

    const stats = getAgentStats(h.ctx, { agentId: 'tpl' });
    const byKind = (kind: string) => stats.steps.filter((s) => s.kind === kind).flatMap((s) => s.variants);
    const sum = (kind: string, key: 'sent' | 'skipped' | 'accepted') => byKind(kind).reduce((n, v) => n + v[key], 0);
    expect([sum('visit', 'sent'), sum('like_post', 'sent'), sum('like_post', 'skipped')]).toEqual([3, 2, 1]);
    expect([sum('invite', 'sent'), sum('invite', 'accepted'), sum('message', 'sent')]).toEqual([3, 1, 1]);
    expect([sum('withdraw', 'sent'), sum('inmail', 'sent'), sum('inmail', 'skipped')]).toEqual([2, 1, 1]);
    expect(h.audit().violations).toEqual([]);
  });
});
