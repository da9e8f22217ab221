/**
 * The outbound webhook event types (spec, Events). `lead.tagged` is the spec's, `draft.pending`
 * the sequences spec's, `lead.tag_suggested` the replies spec's, `email.bounced` the email channel's,
 * `draft.sent` the team spec's (a sent draft names who approved it); the other three are ours,
 * recorded in docs/decisions.md.
 */
export const WEBHOOK_EVENT_TYPES = [
  'lead.tagged',
  'lead.replied',
  'lead.connection_accepted',
  'lead.handed_off',
  'draft.pending',
  'lead.tag_suggested',
  'email.bounced',
  'draft.sent',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
