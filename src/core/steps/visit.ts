import { defineKind } from './kind.js';

/** `visit`: views the lead's profile, so the lead is told of the visit. */
export interface VisitStep {
  id: string;
  kind: 'visit';
}

export const visit = defineKind<VisitStep>({
  kind: 'visit',
  send: 'visit',
  intent: 'visit',
  order: 4,
  label: 'Visit the profile',
  skipReasons: {},
  input: ({ z, id }) => z.strictObject({ id, kind: z.literal('visit').describe("Views the lead's profile.") }),
  listing: { says: 'visit' },
  output: (z) => z.object({ id: z.string(), kind: z.literal('visit') }),
  toStep: (_s, id) => ({ id, kind: 'visit' }),
  skip: () => null,
  touch: true,
  limit: { stored: 'visits' },
  call: async ({ network, recipient, account }) => {
    await network.visitProfile({ ...recipient, account });
    return {};
  },
  sent: () => ({ changes: {}, daily: 'profileVisits' }),
});
