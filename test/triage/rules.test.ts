import { describe, expect, it } from 'vitest';
import { triageByRules } from '../../src/core/triage/rules.js';
import { parseTagAnswer } from '../../src/core/triage/triager.js';
import { REPLIES } from '../../src/network/sim/words.js';

describe('triage by rules (pure, no model)', () => {
  it.each([
    ['Thanks for your message. I am out of the office until Monday 3 December with limited access to messages.', 'out_of_office'],
    ['Automatic reply: I’m on parental leave, back in the office in March.', 'out_of_office'],
    ['Je suis absent du bureau jusqu’au 12.', 'out_of_office'],
    ['Ich bin bis zum 5. Januar im Urlaub.', 'out_of_office'],
    ['Delivery has failed to these recipients: the mailbox is full.', 'bounce'],
    ['Hi, Jane is no longer with the company. Please reach out to Tom instead.', 'bounce'],
    ['This account is no longer monitored.', 'bounce'],
    ['Please remove me from your list.', 'unsubscribe'],
    ['STOP messaging me.', 'unsubscribe'],
    ['Unsubscribe', 'unsubscribe'],
    ['Merci de ne plus me contacter. Ne me contactez plus.', 'unsubscribe'],
  ])('%s → %s', (text, reason) => {
    expect(triageByRules(text)?.reason).toBe(reason);
  });

  it('maps each kind to its tag: unsubscribe Not interested, bounce Wrong person, out-of-office To be defined', () => {
    expect(triageByRules('Please unsubscribe me')).toEqual({ tag: 'Not interested', confidence: 0.95, reason: 'unsubscribe' });
    expect(triageByRules('Message undeliverable')).toEqual({ tag: 'Wrong person', confidence: 0.9, reason: 'bounce' });
    expect(triageByRules('I am out of office')).toEqual({ tag: 'To be defined', confidence: 0.9, reason: 'out_of_office' });
    // An unsubscribe inside an auto-reply is still the person's wish.
    expect(triageByRules('Out of office until Monday. If you want to opt out, reply STOP or unsubscribe.')?.reason).toBe('unsubscribe');
  });

  it('reads what the person means: a negated unsubscribe is none, a person away who answers is a person, and more ways to say gone', () => {
    // Found by reading replies a person writes: each was wrong before at 0.9 or more.
    for (const text of [
      'Yes, let’s book a call Tuesday. (No need to unsubscribe me, ha)',
      "I don't want to opt out, just send less often.",
      "I'm out of office today but yes, interested in a meeting",
      'Sure, but I’m away until Monday; let’s meet Tuesday.',
      'En vacances cette semaine, mais très intéressée : appelez-moi lundi.',
    ]) {
      expect(triageByRules(text), text).toBeNull();
    }
    expect(triageByRules('Réponse automatique : je suis absente jusqu’au 5')?.reason).toBe('out_of_office');
    expect(triageByRules('Sorry, I no longer work here.')?.reason).toBe('bounce');
    expect(triageByRules("She's no longer working there.")?.reason).toBe('bounce');
    // The rules still fire where the words mean them, beside a negation elsewhere.
    expect(triageByRules("Don't call me. Unsubscribe me now.")?.reason).toBe('unsubscribe');
    expect(triageByRules('Out of office until Monday, with no access to email.')?.reason).toBe('out_of_office');
  });

  it('leaves what needs judgement to a model or a person', () => {
    for (const text of [...REPLIES.positive, ...REPLIES.question, 'Not interested, thanks.', 'We are all set on this front, thanks.']) {
      expect(triageByRules(text), text).toBeNull();
    }
    // Words that merely contain a trigger do not fire it.
    expect(triageByRules('Our scooop of the week: the bootstrap stopover')).toBeNull();
    expect(triageByRules('I can stop by the office on Tuesday.')).toBeNull();
  });
});

describe("the model's answer, held to the contract", () => {
  it('takes a JSON object with a known tag and a confidence 0..1, words around it and case aside', () => {
    expect(parseTagAnswer('{"tag":"Meeting request","confidence":0.8,"reason":"asks for Thursday"}')).toEqual({
      tag: 'Meeting request',
      confidence: 0.8,
      reason: 'asks for Thursday',
    });
    expect(parseTagAnswer('Sure! {"tag": "interested", "confidence": 1} Hope this helps.')).toEqual({ tag: 'Interested', confidence: 1, reason: null });
    expect(parseTagAnswer(`{"tag":"Interested","confidence":0.5,"reason":"${'x'.repeat(500)}"}`)?.reason).toHaveLength(200);
  });

  it('refuses anything else', () => {
    for (const bad of [
      'Interested',
      '{"tag":"Hot lead","confidence":0.9}',
      '{"tag":"Interested","confidence":90}',
      '{"tag":"Interested","confidence":"high"}',
      '{"tag":"Interested"}',
      '{"tag": "Interested", "confidence": 0.9',
      '[]',
    ]) {
      expect(parseTagAnswer(bad), bad).toBeNull();
    }
  });
});
