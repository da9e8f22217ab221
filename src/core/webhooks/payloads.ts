import { z } from 'zod';
import type { WebhookEventType } from '../events.js';
import { DRAFT_KINDS } from '../drafts/rules.js';
import { LeadStage, LeadTag } from '../leads/enums.js';
import { MESSAGE_PREVIEW_MAX, messagePreview } from '../text.js';

/**
 * The contract of every webhook payload. `recordLeadEvent` parses each payload with these
 * schemas before it enters the outbox, so an emitter that drifts from the contract fails in its
 * own tests rather than at a receiver; `docs/webhook-schemas/*.json` is generated from them.
 */

const Timestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp, e.g. 2026-11-21T12:00:00.000Z');
const Text = z.string().nullable();

export const WebhookLead = z
  .strictObject({
    id: z.string().describe('lead id (`lead_` prefix), as in the API'),
    fullName: Text.describe('fullName, falling back to firstName + lastName'),
    firstName: Text,
    lastName: Text,
    networkUrl: Text.describe('normalised profile URL'),
    jobTitle: Text,
    companyName: Text,
    tag: LeadTag.nullable().describe('the tag after the change'),
    stage: LeadStage,
    excluded: z.boolean(),
  })
  .describe('The lead after the change that caused the event: public fields only.');

export const WebhookCampaign = z.strictObject({ id: z.string(), name: Text }).describe("The lead's campaign.");

const common = {
  accountId: Text.describe("the lead's account id, else its campaign agent's account, else the inbox chat's account; null when none is known"),
  campaign: WebhookCampaign,
  lead: WebhookLead,
};

function event<T extends WebhookEventType, D extends z.ZodRawShape>(type: T, description: string, data: D) {
  return z
    .strictObject({
      id: z.string().describe('event id (`evt_` prefix); the same on every retry, and sent as the `webhook-id` header'),
      type: z.literal(type),
      createdAt: Timestamp.describe('when the event happened'),
      data: z.strictObject({ ...common, ...data }),
    })
    .meta({ title: type, description });
}

export const LeadTaggedEvent = event(
  'lead.tagged',
  "A lead's tag was set or changed to a non-null value (single PATCH: 1 event; batch update: one per changed lead).",
  {
    tag: LeadTag.describe('the new tag'),
    previousTag: LeadTag.nullable().describe('the tag before the change; null when the lead had none'),
  },
);

export const LeadRepliedEvent = event('lead.replied', 'An inbound message from the lead was received.', {
  message: z.strictObject({
    text: z
      .string()
      .nullable()
      .transform((t) => messagePreview(t))
      .pipe(z.string().min(1).max(MESSAGE_PREVIEW_MAX).nullable())
      .describe(
        `preview of the message, as the activity feed's messagePreview: whitespace runs as one space, at most ${MESSAGE_PREVIEW_MAX} characters, a longer text cut with an ellipsis; null when it has no text`,
      ),
    receivedAt: Timestamp.describe('when the message was received'),
  }),
});

export const LeadConnectionAcceptedEvent = event('lead.connection_accepted', "The lead accepted the campaign account's connection request.", {
  acceptedAt: Timestamp.describe('when the acceptance was seen'),
});

export const LeadHandedOffEvent = event('lead.handed_off', 'The agent stopped and handed the conversation to a human; reply yourself.', {
  handOffReason: Text.describe("the agent's reason, as in the activity feed's handOffReason"),
});

/** What a draft's webhooks say of it: never its words. */
const DraftFields = z.strictObject({
  id: z.string().describe('draft id (`drf_` prefix)'),
  stepId: Text.describe("the step it is for; null for an agent's reply"),
  kind: z.enum(DRAFT_KINDS),
  variant: Text,
  createdAt: Timestamp.describe('when the draft was made'),
});

export const DraftPendingEvent = event(
  'draft.pending',
  "A campaign's queue of drafts awaiting approval went from empty to non-empty: someone should review it (list_drafts, or the dashboard's Drafts page).",
  {
    draft: DraftFields.describe('The draft that filled the empty queue; `data.lead` is its lead.'),
  },
);

/** Who decided a draft, as the draft's `decidedBy` has it: never a secret, only the id and name. */
export const DECIDED_BY_TYPES = ['member', 'key', 'oauth_client'] as const;

export const DraftSentEvent = event(
  'draft.sent',
  'A draft went out to its lead: the engine sent the words a person approved (or, with approval off, the words as written). `data.decidedBy` names who approved it.',
  {
    draft: DraftFields.extend({ sentAt: Timestamp.describe('when it went out') }).describe(
      'The draft that was sent; `data.lead` is its lead. Its words are not sent: read them with `list_drafts`.',
    ),
    decidedBy: z
      .strictObject({
        type: z.enum(DECIDED_BY_TYPES).describe('member (the dashboard or the CLI), key (an API key) or oauth_client (a connected assistant)'),
        id: z.string().describe('the member (`usr_`), key (`key_`) or OAuth client id'),
        name: z.string().describe("the member's, key's or client's name when the decision was made"),
      })
      .nullable()
      .describe("who last approved the draft, as its `decidedBy`; null when nobody did (the campaign's approval was off)"),
  },
);

export const SUGGESTED_BY = ['assistant', 'model', 'rule'] as const;

export const LeadTagSuggestedEvent = event(
  'lead.tag_suggested',
  "The triage suggested a tag for a lead's newest reply: a rule (out-of-office, bounce, unsubscribe), the configured model, or the user's assistant. Nothing is tagged until a person or the assistant confirms it (then lead.tagged follows).",
  {
    suggestion: z.strictObject({
      tag: LeadTag.describe('the suggested tag'),
      suggestedBy: z.enum(SUGGESTED_BY).describe('rule, model or assistant'),
      confidence: z.number().min(0).max(1).describe('how sure the suggester is, 0..1'),
      reason: Text.describe("why: a rule's name (out_of_office, bounce, unsubscribe) or the suggester's few words; null when none was given"),
    }),
  },
);

export const EmailBouncedEvent = event(
  'email.bounced',
  'An email to the lead came back undelivered (a delivery-status report): the address is excluded and is never mailed again, by any campaign.',
  {
    email: z
      .strictObject({
        address: z.string().describe('the address that bounced, lower-cased'),
        mailboxId: z.string().describe('the mailbox (`mbx_` prefix) that sent it'),
        status: Text.describe('the status code the report gave, e.g. 5.1.1'),
        diagnostic: Text.describe("the receiving server's words, when the report gave them"),
        bouncedAt: Timestamp.describe('when the report was read'),
      })
      .describe('The email that bounced.'),
  },
);

export const WEBHOOK_EVENT_SCHEMAS = {
  'lead.tagged': LeadTaggedEvent,
  'lead.replied': LeadRepliedEvent,
  'lead.connection_accepted': LeadConnectionAcceptedEvent,
  'lead.handed_off': LeadHandedOffEvent,
  'draft.pending': DraftPendingEvent,
  'lead.tag_suggested': LeadTagSuggestedEvent,
  'email.bounced': EmailBouncedEvent,
  'draft.sent': DraftSentEvent,
} as const satisfies Record<WebhookEventType, z.ZodType>;

/** Any webhook payload, told apart by `type`. */
export const WebhookEvent = z.discriminatedUnion('type', [
  LeadTaggedEvent,
  LeadRepliedEvent,
  LeadConnectionAcceptedEvent,
  LeadHandedOffEvent,
  DraftPendingEvent,
  LeadTagSuggestedEvent,
  EmailBouncedEvent,
  DraftSentEvent,
]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/**
 * What an emitter passes to `recordLeadEvent`: the event's own data fields (the writer adds
 * accountId, campaign and lead). Tags are typed as plain strings so a database row's value
 * can be passed as is; `recordLeadEvent` checks every value against the schema.
 */
export interface LeadEventExtras {
  'lead.tagged': { tag: string; previousTag: string | null };
  'lead.replied': { message: { text: string | null; receivedAt: string } };
  'lead.connection_accepted': { acceptedAt: string };
  'lead.handed_off': { handOffReason: string | null };
  'draft.pending': { draft: { id: string; stepId: string | null; kind: string; variant: string | null; createdAt: string } };
  'lead.tag_suggested': { suggestion: { tag: string; suggestedBy: (typeof SUGGESTED_BY)[number]; confidence: number; reason: string | null } };
  'email.bounced': { email: { address: string; mailboxId: string; status: string | null; diagnostic: string | null; bouncedAt: string } };
  'draft.sent': {
    draft: { id: string; stepId: string | null; kind: string; variant: string | null; createdAt: string; sentAt: string };
    decidedBy: { type: (typeof DECIDED_BY_TYPES)[number]; id: string; name: string } | null;
  };
}
export type LeadEventExtra<T extends WebhookEventType> = LeadEventExtras[T];

/** Fails to compile when LeadEventExtras drifts from the schemas: same fields, compatible types. */
type SchemaExtra<T extends WebhookEventType> = Omit<z.input<(typeof WEBHOOK_EVENT_SCHEMAS)[T]>['data'], keyof typeof common>;
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
type ExtrasMatch = {
  [T in WebhookEventType]: SchemaExtra<T> extends LeadEventExtras[T] ? SameKeys<SchemaExtra<T>, LeadEventExtras[T]> : false;
};
type Assert<T extends true> = T;
export type ExtrasMatchSchemas = Assert<ExtrasMatch[WebhookEventType] extends true ? true : false>;
