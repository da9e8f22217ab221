import { fitTo, renderTemplate } from '../agents/render.js';
import { EMAIL_TEXT_MAX } from '../outreach/limits.js';
import { defineKind, SUBJECT_MAX, VARIANTS_MAX, variantOf } from './kind.js';

export { EMAIL_TEXT_MAX };

/**
 * `email`: an email from the lead's mailbox to the lead's `email`, with A/B variants of its text
 * (and, optionally, of its subject). It goes through core's sendEmail verb, which carries the
 * unsubscribe link and headers and records the Message-ID a reply or a bounce is matched by.
 */
export interface EmailStep {
  id: string;
  kind: 'email';
  subject: string;
  text: string;
  variants?: { text: string; subject?: string }[];
}

/** How the kind reads to a person: the dashboard reads this alone, without the kind's code. */
export const emailLabels = {
  kind: 'email',
  label: 'Email',
  skipReasons: {
    no_email: 'no email address',
    unsubscribed: 'the address unsubscribed',
    bounced: 'the address bounced',
    email_refused: 'the mail server refused the address',
  },
} as const;

type Variant = { text: string; subject?: string };

export const email = /* @__PURE__ */ defineKind<EmailStep>({
  ...emailLabels,
  send: 'email',
  intent: 'email',
  order: 2,
  channel: 'email',
  input: ({ z, id }) => {
    const Text = z.string().min(1).max(EMAIL_TEXT_MAX);
    const Subject = z.string().min(1).max(SUBJECT_MAX);
    return z.strictObject({
      id,
      kind: z
        .literal('email')
        .describe("Emails the lead's address from the campaign's mailbox; skipped without an address, or one that unsubscribed or bounced."),
      subject: Subject.describe(`Subject, 1..${SUBJECT_MAX} characters.`),
      text: Text.describe(`Plain text, 1..${EMAIL_TEXT_MAX} characters; an unsubscribe line is added below it.`),
      variants: z
        .array(
          z.strictObject({
            text: Text.describe(`An alternative text (B, C…), 1..${EMAIL_TEXT_MAX} characters.`),
            subject: Subject.optional().describe("An alternative subject; default the step's own."),
          }),
        )
        .min(1)
        .max(VARIANTS_MAX)
        .optional()
        .describe('A/B test: 1..4 alternative texts.'),
    });
  },
  listing: {
    says: 'email: subject, text, variants? (skipped without an email address).',
    fields: {
      subject: { input: { type: 'string', minLength: 1, maxLength: SUBJECT_MAX }, output: { type: 'string' } },
      text: { input: { type: 'string', minLength: 1, maxLength: EMAIL_TEXT_MAX }, output: { type: 'string' } },
    },
  },
  output: (z) =>
    z.object({
      id: z.string(),
      kind: z.literal('email'),
      subject: z.string(),
      text: z.string(),
      variants: z.array(z.object({ text: z.string(), subject: z.string().optional() })).optional(),
    }),
  toStep: (s, id) => {
    const variants = s.variants as Variant[] | undefined;
    return {
      id,
      kind: 'email',
      subject: s.subject as string,
      text: s.text as string,
      ...(variants ? { variants: variants.map((v) => ({ text: v.text, ...(v.subject !== undefined ? { subject: v.subject } : {}) })) } : {}),
    };
  },
  texts: (s) => [
    ['subject', s.subject as string],
    ['text', s.text as string],
    ...((s.variants as Variant[] | undefined) ?? []).flatMap((v, i): [string, string][] => [
      [`variants[${i}].text`, v.text],
      ...(v.subject !== undefined ? [[`variants[${i}].subject`, v.subject] as [string, string]] : []),
    ]),
  ],
  variants: (s) => 1 + (s.variants?.length ?? 0),
  skip: (_s, facts) => {
    if (facts.hasEmail !== true) return 'no_email';
    return facts.emailExcluded ?? null;
  },
  carriesWords: () => true,
  words: (s, lead, variant) => {
    const chosen = variantOf<Variant>({ text: s.text, subject: s.subject }, s.variants, variant);
    const subject = chosen.subject ?? s.subject;
    return {
      text: fitTo(renderTemplate(chosen.text, lead), EMAIL_TEXT_MAX),
      // A subject is one line: what a lead's data brings in never breaks it.
      subject: fitTo(renderTemplate(subject, lead).replace(/\s*[\r\n]+\s*/g, ' '), SUBJECT_MAX),
      template: chosen.text,
    };
  },
  rendersWords: () => true,
  // The mailbox's own daily limit, warm-up, hours and spacing pace it (core/safety/mailbox.ts), not an account's.
  limit: null,
  call: ({ email: send, text, subject }) => {
    if (!send) return Promise.reject(new Error('an email step is sent from a mailbox, not through the network provider'));
    return send({ subject: subject ?? '', text: text ?? '' });
  },
  // The send's record (email_sends, with its Message-ID) and the thread's entry are the verb's.
  // It counts in the campaign's messagesSent, as a reply to it counts in repliesReceived, so the
  // reply rate of a campaign that emails is replies over everything it sent (no account's daily
  // counter: a mailbox keeps its own).
  sent: (_lead, at, skipped) => (skipped ? { changes: {} } : { changes: { lastSequenceSentAt: at }, outreach: 'messagesSent' }),
  // The server refused the recipient for good: the step is skipped, the lead goes on.
  finalFailure: (code) => (code === 'send_failed' ? { reason: 'email_refused' } : null),
});
