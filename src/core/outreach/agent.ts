/**
 * The agent that answers replies. The engine asks it what to do with each inbound message
 * and carries out the decision; the interface is async so an LLM responder can replace the
 * rule-based one without touching the engine.
 */
export interface AgentInput {
  /** The inbound message text. */
  text: string;
  lead: { firstName: string; fullName: string | null; companyName: string | null; jobTitle: string | null };
  /** Messages the agent already sent in this conversation. */
  turns: number;
}

export type AgentDecision =
  /** Answer a simple question (activity `agent_replied`). */
  | { kind: 'reply'; text: string }
  /** The lead shows interest: send the call to action (activity `cta_sent`). */
  | { kind: 'cta'; text: string }
  /** Not sure: a human takes over (activity `agent_handed_off`, stage `handed_off`). */
  | { kind: 'handoff'; reason: string }
  /** Nothing to answer (an automatic out-of-office note). */
  | { kind: 'none'; reason: string };

export interface ReplyAgent {
  decide(input: AgentInput): Promise<AgentDecision>;
}

/** Automatic replies per conversation before the agent hands over to a human. */
export const MAX_AGENT_TURNS = 2;

const OUT_OF_OFFICE = /\b(out of (the )?office|on (annual |parental )?leave|away until|limited access to (e-?mail|messages)|auto(matic)?[- ]?reply)\b/i;
const NEGATIVE = /\b(not interested|no thanks|no, thanks|remove me|unsubscribe|stop (messaging|contacting)|all set|not a fit|not for us|don'?t contact)\b/i;
const INTEREST =
  /\b(interested|interesting|happy to (chat|talk)|learn more|tell me more|send (over )?(some )?(details|info)|book|calendar|call|meeting|demo|good timing|let'?s (talk|chat)|sounds good)\b/i;

interface Faq {
  topic: RegExp;
  answer: (firstName: string) => string;
}

const FAQ: readonly Faq[] = [
  {
    topic: /\b(pric(e|es|ing)|cost|how much|budget|plans?)\b/i,
    answer: (n) =>
      `Good question, ${n}. Pricing depends on team size and volume, and every plan starts with a free pilot so you can judge the results first. I can send the plan overview if that helps.`,
  },
  {
    topic: /\b(different|difference|compare|comparison|versus|vs\.?|instead of|tool we use)\b/i,
    answer: (n) =>
      `Fair question, ${n}. The short version: it runs the whole sequence for you, follow-ups and replies included, and hands conversations to your team the moment a human is needed. It works alongside what you use today.`,
  },
  {
    topic: /\b(case stud(y|ies)|references?|examples?|customers?|companies like ours)\b/i,
    answer: (n) =>
      `Yes, ${n}: we have case studies from teams of a similar size and sector. I will share the most relevant one. Happy to answer anything it leaves open.`,
  },
];

const cta = (firstName: string) =>
  `Great to hear, ${firstName}! The quickest next step is a 20-minute call. Which day this week suits you? I will send an invite right away.`;

/**
 * A deterministic, rule-based agent: out-of-office notes need no answer; declines and
 * anything it does not recognise go to a human; interest gets the call to action; a question
 * on a known topic gets a short answer. After MAX_AGENT_TURNS replies it hands over.
 */
export class RuleBasedAgent implements ReplyAgent {
  async decide(input: AgentInput): Promise<AgentDecision> {
    const text = input.text.trim();
    const name = input.lead.firstName;
    if (OUT_OF_OFFICE.test(text)) return { kind: 'none', reason: 'automatic out-of-office reply' };
    if (input.turns >= MAX_AGENT_TURNS) {
      return { kind: 'handoff', reason: `The conversation continued after ${input.turns} automatic replies; a person should take it from here.` };
    }
    if (NEGATIVE.test(text)) {
      return { kind: 'handoff', reason: 'The lead declined. Review the reply and tag the lead Not interested to close the conversation.' };
    }
    const faq = text.includes('?') ? FAQ.find((f) => f.topic.test(text)) : undefined;
    if (INTEREST.test(text)) return { kind: 'cta', text: cta(name) };
    if (faq) return { kind: 'reply', text: faq.answer(name) };
    if (text.includes('?')) return { kind: 'handoff', reason: 'The lead asked a question the agent cannot answer with confidence.' };
    return { kind: 'handoff', reason: 'The agent could not tell what the lead wants; a person should read the reply.' };
  }
}
