import type { LeadTag } from '../leads/enums.js';

/** What a rule recognised in a reply: the three kinds a model is never needed for. */
export const RULE_REASONS = ['unsubscribe', 'bounce', 'out_of_office'] as const;
export type RuleReason = (typeof RULE_REASONS)[number];

export interface RuleSuggestion {
  tag: LeadTag;
  confidence: number;
  reason: RuleReason;
}

/**
 * Each rule: the tag it suggests, how sure it is, and the phrases that trigger it (lower case,
 * straight apostrophes; matched on word boundaries in the normalised text). English first, with
 * the common French, German and Spanish forms. Order matters: a person asking to be left alone
 * wins over an automatic notice quoted in the same message, and a "left the company" notice
 * wins over an out-of-office that shares its wording ("I am no longer in the office").
 */
const RULES: readonly {
  reason: RuleReason;
  tag: LeadTag;
  confidence: number;
  pattern: RegExp;
  /** Mentions of the trigger that do not mean it (taken out of the text before the pattern is tried). */
  unmeant?: RegExp;
  /** Words only a person writes: with them the reply is theirs to read, not the rule's. */
  unless?: RegExp;
}[] = [
  {
    reason: 'unsubscribe',
    tag: 'Not interested',
    confidence: 0.95,
    pattern: new RegExp(
      [
        'unsubscribe',
        'opt(?:-| )?out',
        'stop (?:messaging|contacting|emailing|writing to|sending me)',
        "(?:please )?(?:don't|do not|never) (?:contact|message|email|write to) me",
        'remove me from',
        'take me off',
        'leave me alone',
        'not contact me again',
        'ne (?:me )?contactez plus',
        'me d[ée]sinscrire',
        'd[ée]sinscri(?:vez|re)',
        'nicht mehr kontaktieren',
        'abmelden',
        'no me contact(?:e|es) m[aá]s',
        'darme de baja',
      ]
        .map((p) => `\\b${p}\\b`)
        .join('|'),
      'u',
    ),
    // "No need to unsubscribe me", "I don't want to opt out": the person says they stay.
    unmeant: /\b(?:no need to|don't|do not|won't|will not|not going to)(?: (?:need|want|have) to)? (?:\w+ ){0,2}(?:unsubscribe|opt(?:-| )?out)\b/gu,
  },
  {
    reason: 'bounce',
    tag: 'Wrong person',
    confidence: 0.9,
    pattern: new RegExp(
      [
        'undeliverable',
        'delivery (?:has )?failed',
        'delivery status notification',
        'address (?:was )?not found',
        'mailbox (?:is )?(?:full|unavailable|no longer (?:monitored|active))',
        '(?:account|inbox|address) is no longer (?:monitored|active|in use)',
        "(?:is|am|i'm) no longer (?:with|at|working (?:at|for)|employed (?:at|by)) ",
        'no longer works? (?:at|for|with|here|there)',
        "(?:am|is|i'm|she's|he's) no longer working (?:here|there)",
        'has left (?:the company|the organi[sz]ation|our company)',
        'have left (?:the company|the organi[sz]ation)',
        "n'est plus (?:chez|dans|au sein)",
        'ne fait plus partie',
        'nicht mehr (?:im unternehmen|bei uns|für)',
        'ya no (?:trabaja|forma parte)',
      ]
        .map((p) => `\\b${p}`)
        .join('|'),
      'u',
    ),
  },
  {
    reason: 'out_of_office',
    tag: 'To be defined',
    confidence: 0.9,
    pattern: new RegExp(
      [
        'out of (?:the )?office',
        'ooo',
        'auto(?:matic)?(?:-| )?reply',
        'automatic response',
        'on (?:annual |parental |maternity |paternity |sick )?leave',
        'on (?:vacation|holiday|holidays)',
        '(?:away|travell?ing|off) (?:until|till|from)',
        'limited access to (?:email|e-mail|my (?:email|inbox|messages))',
        "(?:i'll|i will) be back (?:on|in)",
        '(?:i will|i shall) (?:return|respond) (?:on|when)',
        'back in the office',
        'absent(?:e)? du bureau',
        'je suis absente?',
        'je serai de retour',
        'abwesend',
        'au(?:ss|ß)er haus',
        'im urlaub',
        'fuera de la oficina',
        'de vacaciones',
      ]
        .map((p) => `\\b${p}\\b`)
        .join('|'),
      'u',
    ),
    // "I'm out of office today but yes, interested in a meeting": a person answering, who
    // happens to be away. An automatic notice does not say it is interested or book a time.
    unless:
      /\b(?:interested|int[ée]ress[ée]e?|interessiert|interesad[oa]|let's (?:meet|talk|chat|book|schedule|set up)|book a (?:call|meeting|time|slot)|happy to (?:chat|talk|meet|connect)|sounds (?:good|great))(?![\p{L}\p{N}])/u,
  },
];

/** Lower case, straight apostrophes, runs of spaces as one: the form the rules are written in. */
const normalise = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/\s+/g, ' ');

/**
 * What a rule suggests for what it recognises: an unsubscribe suggests
 * `Not interested`, a bounce (undeliverable, or the person has left) `Wrong person`, an
 * out-of-office `To be defined` (the person has not answered yet). Pure: no I/O, no clock.
 */
export function ruleFor(reason: RuleReason): RuleSuggestion {
  const rule = RULES.find((r) => r.reason === reason);
  if (!rule) throw new Error(`no triage rule for ${reason}`);
  return { tag: rule.tag, confidence: rule.confidence, reason };
}

/** The rules' suggestion for a reply's text, or null when none applies (see `ruleFor`). */
export function triageByRules(text: string): RuleSuggestion | null {
  const t = normalise(text);
  for (const rule of RULES) {
    const read = rule.unmeant ? t.replace(rule.unmeant, ' ') : t;
    if (!rule.pattern.test(read)) continue;
    if (rule.unless?.test(t)) return null;
    return { tag: rule.tag, confidence: rule.confidence, reason: rule.reason };
  }
  return null;
}
