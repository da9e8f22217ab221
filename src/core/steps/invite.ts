import { renderNote } from '../agents/render.js';
import { defineKind, NOTE_MAX, noteValue, VARIANTS_MAX, variantOf } from './kind.js';

/** `invite`: sends the invitation, with an optional note and A/B variants of it. At most one on any path. */
export interface InviteStep {
  id: string;
  kind: 'invite';
  note: string | null;
  variants?: { note: string | null }[];
}

/** How the kind reads to a person: the dashboard reads this alone, without the kind's code. */
export const inviteLabels = {
  kind: 'invite',
  label: 'Invitation',
  skipReasons: { already_connected: 'already a connection', already_invited: 'already invited' },
} as const;

export const invite = /* @__PURE__ */ defineKind<InviteStep, 'connect', 'connection_request'>({
  ...inviteLabels,
  // Stored before kinds had one name: the engine's sends and send records keep these.
  send: 'connect',
  intent: 'connection_request',
  order: 5,
  input: ({ z, id }) => {
    const Note = z.string().max(NOTE_MAX).nullable();
    return z.strictObject({
      id,
      kind: z.literal('invite'),
      note: Note.optional().describe(`Invitation note, at most ${NOTE_MAX} characters; null or omitted for none.`),
      variants: z
        .array(z.strictObject({ note: Note.describe(`An alternative note (B, C…), at most ${NOTE_MAX} characters, or null.`) }))
        .min(1)
        .max(VARIANTS_MAX)
        .optional()
        .describe('A/B test: 1..4 alternative notes.'),
    });
  },
  listing: {
    says: 'invite: note?, variants?.',
    fields: {
      note: {
        input: { anyOf: [{ type: 'string', maxLength: NOTE_MAX }, { type: 'null' }], description: 'null for none.' },
        output: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
    },
  },
  output: (z) =>
    z.object({
      id: z.string(),
      kind: z.literal('invite'),
      note: z.string().nullable(),
      variants: z.array(z.object({ note: z.string().nullable() })).optional(),
    }),
  toStep: (s, id) => {
    const variants = s.variants as { note?: string | null }[] | undefined;
    return { id, kind: 'invite', note: noteValue(s.note), ...(variants ? { variants: variants.map((v) => ({ note: noteValue(v.note) })) } : {}) };
  },
  texts: (s) => [
    ['note', s.note as string | null | undefined],
    ...((s.variants as { note: string | null }[] | undefined) ?? []).map((v, i): [string, string | null] => [`variants[${i}].note`, v.note]),
  ],
  variants: (s) => 1 + (s.variants?.length ?? 0),
  skip: (_s, facts) => {
    if (facts.accepted) return 'already_connected';
    return facts.invited ? 'already_invited' : null;
  },
  carriesWords: (s) => s.note !== null || (s.variants ?? []).some((v) => v.note !== null),
  words: (s, lead, variant) => {
    const note = variantOf(
      s.note,
      s.variants?.map((v) => v.note),
      variant,
    );
    return { text: renderNote(note, lead), subject: null, template: note };
  },
  rendersWords: (s) => [s.note, ...(s.variants ?? []).map((v) => v.note)].some((n) => n !== null && n.trim() !== ''),
  limit: { stored: 'invitations' },
  call: async ({ network, recipient, account, text }) => {
    await network.sendConnectionRequest({ ...recipient, account, note: text });
    return {};
  },
  sent: (lead, at) => ({
    changes: { stage: lead.stage === 'new' ? 'connection_sent' : lead.stage, invitedAt: at },
    outreach: 'connectionRequestsSent',
    daily: 'connectionRequestsSent',
    activity: 'connection_request_sent',
  }),
});
