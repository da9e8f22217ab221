// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else; these objects are never awaited.
import { describe, expect, it } from 'vitest';
import { legacySteps, type Step } from '../../src/core/agents/steps.js';
import { decide, derivedStart, indexSequence, type LeadFacts, type WalkStart } from '../../src/core/outreach/sequence.js';

const HOUR = 3_600_000;
const T = 1_000 * HOUR;
const rules = { invitationTimeoutMs: 72 * HOUR, replyWaitMs: 24 * HOUR, withdrawStale: true };
const facts = (over: Partial<LeadFacts> = {}): LeadFacts => ({
  accepted: false,
  connectedAt: null,
  invited: false,
  invitedAt: null,
  withdrawn: false,
  replied: false,
  repliedAt: null,
  reachable: true,
  messagesDone: 0,
  lastSentAt: null,
  updatedAt: T,
  salesNavigator: null,
  ...over,
});
const at = (stepId: string, enteredAt: number): WalkStart => ({ stepId, enteredAt, recorded: true, virtual: false });

const steps: Step[] = [
  { id: 'stp_visit', kind: 'visit' },
  { id: 'stp_invite', kind: 'invite', note: 'Hi' },
  {
    id: 'stp_if',
    kind: 'if',
    condition: 'accepted',
    withinHours: 48,
    then: [
      { id: 'stp_wait', kind: 'wait', hours: 24 },
      { id: 'stp_msg', kind: 'message', text: 'Thanks' },
    ],
    else: [
      { id: 'stp_withdraw', kind: 'withdraw' },
      { id: 'stp_inmail', kind: 'inmail', subject: 'S', text: 'T' },
    ],
  },
  { id: 'stp_like', kind: 'like_post' },
];
const seq = indexSequence(steps, false);

describe("the step runner's decision", () => {
  it('starts a lead at the first step, due at once', () => {
    const d = decide(seq, facts(), derivedStart(seq, facts()), rules);
    expect(d).toMatchObject({ kind: 'perform', at: 0, step: { id: 'stp_visit' } });
  });

  it('an if not yet decided: else when the time runs out, with every step passed on the way', () => {
    const d = decide(seq, facts({ invited: true, invitedAt: T }), at('stp_if', T), rules);
    expect(d).toMatchObject({ kind: 'perform', at: T + 48 * HOUR, step: { id: 'stp_withdraw' } });
    expect(d.passed.map((p) => [p.step.id, p.event, p.recorded])).toEqual([['stp_if', 'sent', true]]);
  });

  it('an if whose condition held takes then from the moment it held, never before the if was reached', () => {
    const later = decide(seq, facts({ accepted: true, connectedAt: T + 5 * HOUR }), at('stp_if', T), rules);
    expect(later).toMatchObject({ kind: 'perform', at: T + 29 * HOUR, step: { id: 'stp_msg' } });
    const before = decide(seq, facts({ accepted: true, connectedAt: T - 100 * HOUR }), at('stp_if', T), rules);
    expect(before).toMatchObject({ kind: 'perform', at: T + 24 * HOUR });
  });

  it('an acceptance that came after withinHours ran out is else’s, even when the lead is walked only after it', () => {
    // The 48 h ran out at T+48; the acceptance came at T+60, before the engine walked the lead again
    // (the deadline fell outside the sender's hours).
    const late = decide(seq, facts({ invited: true, invitedAt: T, accepted: true, connectedAt: T + 60 * HOUR }), at('stp_if', T), rules);
    // else: its steps are walked (and skipped, as they do not apply to a connected lead), never then's.
    expect(late).toMatchObject({ kind: 'perform', at: T + 48 * HOUR, step: { id: 'stp_like' } });
    expect(late.passed.map((p) => p.step.id)).toEqual(['stp_if', 'stp_withdraw', 'stp_inmail']);
    // At the deadline itself, it still counts.
    const onTime = decide(seq, facts({ invited: true, invitedAt: T, accepted: true, connectedAt: T + 48 * HOUR }), at('stp_if', T), rules);
    expect(onTime).toMatchObject({ kind: 'perform', at: T + 72 * HOUR, step: { id: 'stp_msg' } });
  });

  it('skips steps that do not apply, with reasons, and goes on', () => {
    const d = decide(seq, facts({ accepted: true, connectedAt: T }), at('stp_invite', T), rules);
    expect(d.passed.map((p) => [p.step.id, p.event, p.reason])).toEqual([
      ['stp_invite', 'skipped', 'already_connected'],
      ['stp_if', 'sent', null],
      ['stp_wait', 'sent', null],
    ]);
    const inmail = decide(seq, facts({ invited: true, invitedAt: T, withdrawn: true, salesNavigator: false }), at('stp_withdraw', T), rules);
    expect(inmail.passed.map((p) => p.reason)).toEqual(['no_pending_invitation', 'no_sales_navigator']);
    expect(inmail).toMatchObject({ kind: 'perform', step: { id: 'stp_like' } });
  });

  it('ends after the last step, and ends a lead whose step is gone', () => {
    expect(decide(seq, facts(), at('stp_like', T), rules)).toMatchObject({ kind: 'perform' });
    expect(decide(seq, facts(), { stepId: null, enteredAt: T, recorded: false, virtual: false }, rules)).toMatchObject({
      kind: 'end',
      reason: 'completed',
      at: T,
    });
    expect(decide(seq, facts(), at('stp_gone', T), rules)).toMatchObject({ kind: 'end', reason: 'step_removed' });
  });

  it('a lead with nothing to reach fails at its first step that needs the network', () => {
    expect(decide(seq, facts({ reachable: false }), derivedStart(seq, facts()), rules)).toMatchObject({ kind: 'fail', step: { id: 'stp_visit' } });
  });

  it('a sequence whose first steps count time asks to be started before it can say when', () => {
    const waiting = indexSequence(
      [
        { id: 'stp_w', kind: 'wait', hours: 3 },
        { id: 'stp_v', kind: 'visit' },
      ],
      false,
    );
    expect(decide(waiting, facts(), derivedStart(waiting, facts()), rules)).toEqual({ kind: 'start', passed: [] });
    expect(decide(waiting, facts(), { stepId: 'stp_w', enteredAt: T, recorded: false, virtual: false }, rules)).toMatchObject({
      kind: 'perform',
      at: T + 3 * HOUR,
    });
  });

  it('the simple shape keeps its timing: the timeout from the invitation, the first delay from the acceptance', () => {
    const legacy = indexSequence(
      legacySteps(
        'tpl',
        {
          connectionNote: 'Hi',
          messages: [
            { text: 'a', delayHours: 1 },
            { text: 'b', delayHours: 0 },
          ],
        },
        999,
      ),
      true,
    );
    const invited = facts({ invited: true, invitedAt: T });
    expect(decide(legacy, invited, derivedStart(legacy, invited), rules)).toMatchObject({ kind: 'perform', at: T + 72 * HOUR, step: { kind: 'withdraw' } });
    expect(decide(legacy, invited, derivedStart(legacy, invited), { ...rules, withdrawStale: false })).toMatchObject({ kind: 'end', at: T + 72 * HOUR });
    const accepted = facts({ accepted: true, connectedAt: T - 10 * HOUR });
    expect(decide(legacy, accepted, derivedStart(legacy, accepted), rules)).toMatchObject({ kind: 'perform', at: T - 9 * HOUR, step: { kind: 'message' } });
    // One message sent: the next follows at once (delay 0), from the first one's time.
    const one = facts({ accepted: true, messagesDone: 1, lastSentAt: T });
    expect(derivedStart(legacy, one)).toMatchObject({ enteredAt: T, virtual: false });
    expect(decide(legacy, one, derivedStart(legacy, one), rules)).toMatchObject({ kind: 'perform', at: T, step: { kind: 'message', text: 'b' } });
    const all = facts({ accepted: true, messagesDone: 2, lastSentAt: T });
    expect(decide(legacy, all, derivedStart(legacy, all), rules)).toMatchObject({ kind: 'end', at: T });
  });
});
