import { defineKind } from './kind.js';

/** `visit`: views the lead's profile, so the lead is told of the visit. */
export interface VisitStep {
  id: string;
  kind: 'visit';
}

/** How the kind reads to a person: the dashboard reads this alone, without the kind's code. */
export const visitLabels = { kind: 'visit', label: 'Visit the profile', skipReasons: {} } as const;

export const visit = /* @__PURE__ */ defineKind<VisitStep>({
  ...visitLabels,
  send: 'visit',
  intent: 'visit',
  order: 4,
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
