import { renderMessage } from '../agents/render.js';
import { defineKind, TEXT_MAX, VARIANTS_MAX, variantOf } from './kind.js';

/** `message`: sends a message to a connection, with A/B variants of its text. */
export interface MessageStep {
  id: string;
  kind: 'message';
  text: string;
  variants?: { text: string }[];
}

/** How the kind reads to a person: the dashboard reads this alone, without the kind's code. */
export const messageLabels = { kind: 'message', label: 'Message', skipReasons: { not_connected: 'not a connection' } } as const;

export const message = /* @__PURE__ */ defineKind<MessageStep>({
  ...messageLabels,
  send: 'message',
  intent: 'message',
  order: 2,
  input: ({ z, id }) => {
    const Text = z.string().min(1).max(TEXT_MAX);
    return z.strictObject({
      id,
      kind: z.literal('message').describe('Skipped if the lead is not a connection.'),
      text: Text.describe(`Message, 1..${TEXT_MAX} characters.`),
      variants: z
        .array(z.strictObject({ text: Text.describe(`An alternative text (B, C…), 1..${TEXT_MAX} characters.`) }))
        .min(1)
        .max(VARIANTS_MAX)
        .optional()
        .describe('A/B test: 1..4 alternative texts.'),
    });
  },
  listing: {
    says: 'message: text, variants? (skipped unless connected).',
    fields: { text: { input: { type: 'string', minLength: 1, maxLength: TEXT_MAX }, output: { type: 'string' } } },
  },
  output: (z) => z.object({ id: z.string(), kind: z.literal('message'), text: z.string(), variants: z.array(z.object({ text: z.string() })).optional() }),
  toStep: (s, id) => {
    const variants = s.variants as { text: string }[] | undefined;
    return { id, kind: 'message', text: s.text as string, ...(variants ? { variants: variants.map((v) => ({ text: v.text })) } : {}) };
  },
  texts: (s) => [
    ['text', s.text as string],
    ...((s.variants as { text: string }[] | undefined) ?? []).map((v, i): [string, string] => [`variants[${i}].text`, v.text]),
  ],
  variants: (s) => 1 + (s.variants?.length ?? 0),
  skip: (_s, facts) => (facts.accepted ? null : 'not_connected'),
  carriesWords: () => true,
  words: (s, lead, variant) => {
    const text = variantOf(
      s.text,
      s.variants?.map((v) => v.text),
      variant,
    );
    return { text: renderMessage(text, lead), subject: null, template: text };
  },
  rendersWords: () => true,
  limit: { stored: 'messages' },
  call: ({ network, recipient, account, text, chatId }) => network.sendMessage({ account, recipient, ...(chatId ? { chatId } : {}), text: text ?? '' }),
  sent: (lead, at, _skipped, intent) => ({
    changes: {
      stage: lead.stage === 'connected' || lead.stage === 'connection_sent' || lead.stage === 'new' ? 'messaged' : lead.stage,
      messageSent: true,
      sequenceStep: Math.max(lead.sequenceStep, (intent.step ?? 0) + 1),
      lastSequenceSentAt: at,
      chatId: intent.chatId,
    },
    outreach: 'messagesSent',
    daily: 'messagesSent',
    activity: 'message_sent',
    thread: true,
  }),
});
