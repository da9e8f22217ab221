import type { AccountRef, ProfileRef } from '../network/provider.js';
import { defineKind } from './kind.js';

/**
 * `endorse`: endorses one of the lead's listed skills, as lemlist and Expandi offer: `skill`
 * names it (matched without regard to case), or, omitted, the first skill the lead lists that
 * the sender has not endorsed yet. Only a connection can be endorsed, so the step is skipped for
 * a lead who is not one; a lead who lists no such skill is skipped with `no_skill`.
 */
export interface EndorseStep {
  id: string;
  kind: 'endorse';
  /** The skill's name as the lead lists it; null: the first one not endorsed yet. */
  skill: string | null;
}

export const SKILL_MAX = 100;

/** What the provider is asked: the person, the account, and the skill (null: the first listed one not endorsed yet). */
export type EndorseSkillInput = ProfileRef & { account: AccountRef; skill: string | null };
/** A person who lists no such skill (or none left to endorse) is an outcome, not an error. */
export type EndorseResult = { outcome: 'endorsed'; skill: string } | { outcome: 'no_skill' };

declare module '../network/provider.js' {
  interface NetworkProvider {
    /** Endorses one of the person's listed skills as the account (a connection's). Absent: the provider cannot endorse. */
    endorseSkill?(input: EndorseSkillInput): Promise<EndorseResult>;
  }
}

/** How the kind reads to a person: the dashboard reads this alone, without the kind's code. */
export const endorseLabels = {
  kind: 'endorse',
  label: 'Endorse a skill',
  skipReasons: { not_connected: 'not a connection', no_skill: 'no such skill to endorse', endorse_unsupported: 'the provider cannot endorse skills' },
} as const;

export const endorse = /* @__PURE__ */ defineKind<EndorseStep>({
  ...endorseLabels,
  send: 'endorse',
  intent: 'endorse',
  order: 4,
  input: ({ z, id }) =>
    z.strictObject({
      id,
      kind: z.literal('endorse').describe("Endorses a skill on the lead's profile; skipped unless connected."),
      skill: z
        .string()
        .trim()
        .min(1)
        .max(SKILL_MAX)
        .nullable()
        .optional()
        .describe(`The skill's name as the lead lists it, at most ${SKILL_MAX} characters; omitted or null: the first one not endorsed yet.`),
    }),
  listing: {
    says: 'endorse: skill? (a skill the lead lists; skipped unless connected).',
    fields: {
      skill: {
        input: { anyOf: [{ type: 'string', minLength: 1, maxLength: SKILL_MAX }, { type: 'null' }] },
        output: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
    },
  },
  output: (z) => z.object({ id: z.string(), kind: z.literal('endorse'), skill: z.string().nullable() }),
  toStep: (s, id) => ({ id, kind: 'endorse', skill: typeof s.skill === 'string' ? s.skill : null }),
  skip: (_s, facts) => (facts.accepted ? null : 'not_connected'),
  // The skill travels as the send record's text.
  words: (s) => ({ text: s.skill, subject: null, template: null }),
  limit: { own: 'endorsements', perDay: 25, warmUpStart: 5, label: 'skill endorsements' },
  call: async ({ network, recipient, account, text }) => {
    if (!network.endorseSkill) return { skipped: 'endorse_unsupported' };
    const done = await network.endorseSkill({ ...recipient, account, skill: text });
    return done.outcome === 'endorsed' ? {} : { skipped: 'no_skill' };
  },
  sent: () => ({ changes: {} }),
});
