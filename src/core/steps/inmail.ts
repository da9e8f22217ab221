import { fitTo, renderMessage, renderTemplate } from '../agents/render.js';
import { defineKind, SUBJECT_MAX, TEXT_MAX } from './kind.js';

/** `inmail`: a Sales Navigator message to a lead who is not a connection. */
export interface InMailStep {
  id: string;
  kind: 'inmail';
  subject: string;
  text: string;
}

/** How the kind reads to a person: the dashboard reads this alone, without the kind's code. */
export const inmailLabels = {
  kind: 'inmail',
  label: 'InMail',
  skipReasons: {
    already_connected: 'already a connection',
    no_sales_navigator: 'no Sales Navigator on the account',
    inmail_unreachable: 'takes no InMail',
    no_inmail_credits: 'no InMail credit left',
  },
} as const;

export const inmail = /* @__PURE__ */ defineKind<InMailStep>({
  ...inmailLabels,
  send: 'inmail',
  intent: 'inmail',
  order: 2,
  input: ({ z, id }) =>
    z.strictObject({
      id,
      kind: z.literal('inmail').describe('Sales Navigator message to a non-connection; skipped without Sales Navigator.'),
      subject: z.string().min(1).max(SUBJECT_MAX).describe(`Subject, 1..${SUBJECT_MAX} characters.`),
      text: z.string().min(1).max(TEXT_MAX).describe(`Message, 1..${TEXT_MAX} characters.`),
    }),
  listing: {
    says: 'inmail: subject, text (Sales Navigator; skipped without).',
    fields: {
      subject: { input: { type: 'string', minLength: 1, maxLength: SUBJECT_MAX }, output: { type: 'string' } },
      text: { input: { type: 'string', minLength: 1, maxLength: TEXT_MAX }, output: { type: 'string' } },
    },
  },
  output: (z) => z.object({ id: z.string(), kind: z.literal('inmail'), subject: z.string(), text: z.string() }),
  toStep: (s, id) => ({ id, kind: 'inmail', subject: s.subject as string, text: s.text as string }),
  texts: (s) => [
    ['subject', s.subject as string],
    ['text', s.text as string],
  ],
  skip: (_s, facts) => {
    if (facts.accepted) return 'already_connected';
    return facts.salesNavigator === false ? 'no_sales_navigator' : null;
  },
  carriesWords: () => true,
  words: (s, lead) => ({ text: renderMessage(s.text, lead), subject: fitTo(renderTemplate(s.subject, lead), SUBJECT_MAX), template: s.text }),
  rendersWords: () => true,
  salesNavigator: true,
  // An InMail is a message under the daily message cap, and logged as one.
  limit: { stored: 'messages' },
  call: async ({ network, recipient, account, text, subject }) => {
    const sent = await network.sendInMail({ account, recipient, subject: subject ?? '', text: text ?? '' });
    if (sent.outcome === 'sent') return { chatId: sent.chatId, messageId: sent.messageId };
    return { skipped: sent.outcome === 'unreachable' ? 'inmail_unreachable' : 'no_inmail_credits' };
  },
  // An InMail is a message to someone who is not a connection: it does not make one, so the
  // stage stays; it opens the conversation a reply comes back on.
  sent: (_lead, at, skipped, intent) =>
    skipped
      ? { changes: {} }
      : {
          changes: { messageSent: true, lastSequenceSentAt: at, chatId: intent.chatId },
          outreach: 'messagesSent',
          daily: 'messagesSent',
          activity: 'message_sent',
          thread: true,
        },
  // The account has no Sales Navigator after all: the step is skipped, the lead goes on.
  finalFailure: (code) => (code === 'sales_nav_required' ? { reason: 'no_sales_navigator' } : null),
});
