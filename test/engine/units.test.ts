import { describe, expect, it } from 'vitest';
import { messagePreview } from '../../src/core/text.js';
import type { leads } from '../../src/db/schema.js';
import { MAX_AGENT_TURNS, RuleBasedAgent } from '../../src/core/outreach/agent.js';
import { fitTo, personalize } from '../../src/core/outreach/personalize.js';
import { planLead, type PlanContext } from '../../src/core/outreach/plan.js';
import { isWorkingTime, nextWorkingTime, type Rhythm } from '../../src/core/safety/hours.js';
import { resolveEngineSettings } from '../../src/core/outreach/settings.js';
import { REPLIES } from '../../src/network/sim/words.js';

type LeadRow = typeof leads.$inferSelect;
const HOUR = 3_600_000;

const lead = (over: Partial<LeadRow> = {}): LeadRow => ({
  seq: 1,
  id: 'lead_1',
  campaignId: 'cmp',
  accountId: null,
  networkUrl: 'https://www.linkedin.com/in/ada',
  fullName: null,
  firstName: 'Ada',
  lastName: 'Lovelace',
  jobTitle: 'CTO',
  companyName: 'Engines',
  companyNetwork: null,
  website: null,
  email: null,
  location: 'London',
  headline: null,
  personalization: null,
  workExperience: '[]',
  tag: null,
  taggedAt: null,
  stage: 'new',
  excluded: false,
  replied: false,
  needsReply: false,
  repliedAt: null,
  lastInboundMessageAt: null,
  connectionRequestAccepted: false,
  messageSent: false,
  source: 'manual',
  providerId: null,
  chatId: null,
  nextActionAt: 0,
  sequenceStep: 0,
  invitedAt: null,
  connectedAt: null,
  lastSequenceSentAt: null,
  sendAttempts: 0,
  pendingReplyText: null,
  agentSendKind: null,
  agentSendText: null,
  agentTurns: 0,
  politeClosePendingAt: null,
  invitationWithdrawnAt: null,
  createdAt: 0,
  updatedAt: 0,
  ...over,
});

describe('planLead', () => {
  const ctx: PlanContext = {
    sequence: [
      { text: 'a', delayHours: 1 },
      { text: 'b', delayHours: 24 },
    ],
    onExclusionList: false,
    invitationTimeoutMs: 10 * HOUR,
    replyWaitMs: 5 * HOUR,
  };
  it('walks a lead through the sequence', () => {
    expect(planLead(lead(), ctx)).toEqual({ at: 0, action: { kind: 'connect' } });
    expect(planLead(lead({ stage: 'connection_sent', invitedAt: 100 }), ctx)).toEqual({ at: 100 + 10 * HOUR, action: { kind: 'finish' } });
    expect(planLead(lead({ stage: 'connected', connectionRequestAccepted: true, connectedAt: 7 }), ctx)).toEqual({
      at: 7 + HOUR,
      action: { kind: 'message', step: 0 },
    });
    expect(planLead(lead({ stage: 'messaged', connectionRequestAccepted: true, sequenceStep: 1, lastSequenceSentAt: 9 }), ctx)).toEqual({
      at: 9 + 24 * HOUR,
      action: { kind: 'message', step: 1 },
    });
    expect(planLead(lead({ stage: 'messaged', connectionRequestAccepted: true, sequenceStep: 2, lastSequenceSentAt: 9 }), ctx)).toEqual({
      at: 9 + 5 * HOUR,
      action: { kind: 'finish' },
    });
  });
  it('stops for excluded, replied, failed and handed-off leads, but not for pending agent work', () => {
    expect(planLead(lead({ excluded: true }), ctx)).toBeNull();
    expect(planLead(lead(), { ...ctx, onExclusionList: true })).toBeNull();
    expect(planLead(lead({ stage: 'replied', replied: true }), ctx)).toBeNull();
    expect(planLead(lead({ stage: 'failed' }), ctx)).toBeNull();
    expect(planLead(lead({ stage: 'handed_off', pendingReplyText: 'hi' }), ctx)).toBeNull();
    expect(planLead(lead({ stage: 'replied', replied: true, pendingReplyText: 'hi' }), ctx)?.action).toEqual({ kind: 'decide' });
    expect(planLead(lead({ stage: 'replied', replied: true, agentSendKind: 'cta', agentSendText: 'x' }), ctx)?.action).toEqual({ kind: 'agent_send' });
    expect(planLead(lead({ excluded: true, politeClosePendingAt: 1 }), ctx)?.action).toEqual({ kind: 'polite_close' });
    expect(planLead(lead({ networkUrl: null }), ctx)?.action.kind).toBe('fail');
  });
  it('treats a lead loaded as messaged as one step in', () => {
    expect(planLead(lead({ stage: 'messaged', messageSent: true, lastSequenceSentAt: 0 }), ctx)?.action).toEqual({ kind: 'message', step: 1 });
  });
});

describe('RuleBasedAgent', () => {
  const agent = new RuleBasedAgent();
  const decide = (text: string, turns = 0) => agent.decide({ text, lead: { firstName: 'Ada', fullName: null, companyName: null, jobTitle: null }, turns });
  it('sends the call to action on every positive simulated reply', async () => {
    for (const text of REPLIES.positive) expect((await decide(text)).kind).toBe('cta');
  });
  it('answers every simulated question', async () => {
    for (const text of REPLIES.question) {
      const d = await decide(text);
      expect(d.kind).toBe('reply');
      if (d.kind === 'reply') expect(d.text).toContain('Ada');
    }
  });
  it('hands declines and unknown questions to a person, with a reason', async () => {
    for (const text of [...REPLIES.negative, 'Who gave you my number?', 'Hmm.']) {
      const d = await decide(text);
      expect(d.kind).toBe('handoff');
      if (d.kind === 'handoff') expect(d.reason.length).toBeGreaterThan(10);
    }
  });
  it('ignores out-of-office notes and hands over after the turn limit', async () => {
    expect((await decide('I am out of the office until Monday.')).kind).toBe('none');
    expect((await decide('Sounds interesting!', MAX_AGENT_TURNS)).kind).toBe('handoff');
  });
});

describe('personalize', () => {
  it('fills placeholders in any case and tidies what is missing', () => {
    expect(personalize('Hi {{firstName}}, how is {{ companyName }}?', lead())).toBe('Hi Ada, how is Engines?');
    expect(personalize('Hi {{FIRSTNAME}} {{nickname}}!', lead())).toBe('Hi Ada!');
    expect(personalize('Hi {{firstName}}, {{jobTitle}} at {{companyName}}.', lead({ firstName: null, fullName: 'Grace Hopper', jobTitle: null }))).toBe(
      'Hi Grace, at Engines.',
    );
    // A missing value with no fallback renders nothing (the fallback form gives a greeting).
    expect(personalize('Hi {{firstName}}', lead({ firstName: ' ', lastName: null, fullName: null }))).toBe('Hi');
    expect(personalize('Hi {{firstName|there}}', lead({ firstName: ' ', lastName: null, fullName: null }))).toBe('Hi there');
  });
  it('cuts at a word boundary', () => {
    expect(fitTo('one two three', 9)).toBe('one two');
    expect([...fitTo('é'.repeat(400), 300)]).toHaveLength(300);
  });
});

describe('messagePreview', () => {
  it('flattens whitespace and keeps at most 80 characters', () => {
    expect(messagePreview('  hello\n\n world ')).toBe('hello world');
    const long = messagePreview('x'.repeat(200))!;
    expect([...long]).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
    // Emoji count double in UTF-16: 39 of them and the ellipsis make 79 units.
    expect(messagePreview('😀'.repeat(100))).toBe(`${'😀'.repeat(39)}…`);
    expect(messagePreview('x'.repeat(80))).toBe('x'.repeat(80));
    expect(messagePreview('   ')).toBeNull();
  });
});

describe('working hours', () => {
  const hours = resolveEngineSettings({ workingHours: { start: '09:00', end: '17:30', days: ['mon', 'wed'] } }).safety.workingHours;
  const utc: Rhythm = { hours, timeZone: 'UTC', jitter: () => ({ open: 0, close: 0 }) };
  it('finds the next window', () => {
    const mon = Date.parse('2026-11-23T08:00:00Z');
    expect(nextWorkingTime(mon, utc)).toBe(Date.parse('2026-11-23T09:00:00Z'));
    expect(isWorkingTime(Date.parse('2026-11-23T17:29:00Z'), utc)).toBe(true);
    expect(nextWorkingTime(Date.parse('2026-11-23T17:30:00Z'), utc)).toBe(Date.parse('2026-11-25T09:00:00Z'));
    expect(nextWorkingTime(Date.parse('2026-11-26T10:00:00Z'), utc)).toBe(Date.parse('2026-11-30T09:00:00Z'));
    expect(nextWorkingTime(123, { ...utc, hours: null })).toBe(123);
  });

  it("follows the account's own time zone, across a DST change", () => {
    const berlin: Rhythm = { ...utc, timeZone: 'Europe/Berlin' };
    // Monday 23 Nov 2026, 07:00 UTC is 08:00 in Berlin (UTC+1): the day opens at 08:00 UTC.
    expect(nextWorkingTime(Date.parse('2026-11-23T07:00:00Z'), berlin)).toBe(Date.parse('2026-11-23T08:00:00Z'));
    // Wednesday 1 Apr 2026 is in summer time (UTC+2): 09:00 local is 07:00 UTC.
    expect(nextWorkingTime(Date.parse('2026-03-31T20:00:00Z'), berlin)).toBe(Date.parse('2026-04-01T07:00:00Z'));
    const ny: Rhythm = { ...utc, timeZone: 'America/New_York' };
    // Monday 09:00 in New York (UTC-5) is 14:00 UTC; 22:29 UTC is still 17:29 there.
    expect(isWorkingTime(Date.parse('2026-11-23T22:29:00Z'), ny)).toBe(true);
    expect(isWorkingTime(Date.parse('2026-11-23T13:59:00Z'), ny)).toBe(false);
  });

  it("opens later and closes earlier by the account's jitter of the day", () => {
    const late: Rhythm = { ...utc, jitter: () => ({ open: 20, close: 10 }) };
    expect(nextWorkingTime(Date.parse('2026-11-23T08:00:00Z'), late)).toBe(Date.parse('2026-11-23T09:20:00Z'));
    expect(isWorkingTime(Date.parse('2026-11-23T17:25:00Z'), late)).toBe(false);
  });

  it('takes at most a quarter of a short window from each end, so it still opens', () => {
    const short = (start: string, end: string): Rhythm => ({
      hours: resolveEngineSettings({ workingHours: { start, end, days: ['mon'] } }).safety.workingHours,
      timeZone: 'UTC',
      jitter: () => ({ open: 30, close: 30 }),
    });
    // A minute: no jitter left, the minute itself.
    expect(nextWorkingTime(Date.parse('2026-11-23T00:00:00Z'), short('01:00', '01:01'))).toBe(Date.parse('2026-11-23T01:00:00Z'));
    expect(isWorkingTime(Date.parse('2026-11-23T01:00:30Z'), short('01:00', '01:01'))).toBe(true);
    // An hour: 15 minutes from each end.
    expect(nextWorkingTime(Date.parse('2026-11-23T00:00:00Z'), short('01:00', '02:00'))).toBe(Date.parse('2026-11-23T01:15:00Z'));
    expect(isWorkingTime(Date.parse('2026-11-23T01:45:00Z'), short('01:00', '02:00'))).toBe(false);
  });
});
