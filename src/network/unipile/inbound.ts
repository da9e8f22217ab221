import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from '../../core/clock.js';
import { ApiError, httpStatus, validationError } from '../../core/errors.js';
import { normalizeProfileUrl, profileSlug } from '../../core/leads/url.js';
import { UNIPILE_SECRET_HEADER } from './config.js';
import { networkUrlForIdentifier } from './mapping.js';
import { acceptEventId, messageEventId, type UnipileStore } from './store.js';

/*
 * Webhook payloads, from Unipile's "New messages" and "Detecting accepted invitations" guides.
 * Read loosely: Unipile adds fields over time.
 */
const MessageReceived = z.looseObject({
  event: z.literal('message_received'),
  account_id: z.string().min(1),
  account_info: z.looseObject({ user_id: z.string().nullish() }).nullish(),
  chat_id: z.string().min(1),
  message_id: z.string().min(1),
  message: z.string().nullish(),
  timestamp: z.string().nullish(),
  sender: z.looseObject({ attendee_provider_id: z.string().min(1), attendee_profile_url: z.string().nullish() }),
});

const NewRelation = z.looseObject({
  event: z.literal('new_relation'),
  account_id: z.string().min(1),
  user_provider_id: z.string().min(1),
  user_public_identifier: z.string().nullish(),
  user_profile_url: z.string().nullish(),
});

export type WebhookOutcome =
  | { status: 'queued' | 'duplicate'; eventId: string }
  | { status: 'ignored'; reason: 'own_message' | 'unknown_account' | 'event_not_used' }
  | { status: 'invalid'; message: string };

interface Deps {
  store: UnipileStore;
  clock: Clock;
  log: Logger;
}

/** LinkedIn's provider-id profile URLs are case-sensitive: keep the id's case when the URL is one. */
function urlFromProfileUrl(profileUrl: string | null | undefined, providerId: string): string | null {
  const normalized = profileUrl ? normalizeProfileUrl(profileUrl) : null;
  if (normalized === null) return null;
  return profileSlug(normalized) === providerId.toLowerCase() ? `https://www.linkedin.com/in/${encodeURIComponent(providerId)}` : normalized;
}

/**
 * One Unipile webhook call turned into at most one queued `InboundEvent`:
 * - `message_received` (source `messaging`), unless the sender is the account itself
 *   (`sender.attendee_provider_id` equals `account_info.user_id`: our own outbound messages,
 *   including ones the owner typed on LinkedIn);
 * - `new_relation` (source `users`): an accepted invitation.
 * The account is matched on `accounts.provider_account_id`; the person's profile URL comes from
 * the public identifier, else from what earlier lookups learnt about the provider id, else from
 * the payload's profile URL. Anything else is acknowledged and ignored.
 */
export function handleUnipileWebhook(deps: Deps, payload: unknown): WebhookOutcome {
  const event = typeof payload === 'object' && payload !== null ? (payload as { event?: unknown }).event : undefined;
  const now = deps.clock.now();
  if (event === 'message_received') {
    const parsed = MessageReceived.safeParse(payload);
    if (!parsed.success)
      return { status: 'invalid', message: 'A message_received event needs account_id, chat_id, message_id and sender.attendee_provider_id.' };
    const m = parsed.data;
    const sender = m.sender.attendee_provider_id;
    if (m.account_info?.user_id && m.account_info.user_id === sender) return { status: 'ignored', reason: 'own_message' };
    const accountId = deps.store.accountIdFor(m.account_id);
    if (accountId === null) return unknownAccount(deps, m.account_id);
    const networkUrl =
      deps.store.contactUrl(sender) ?? urlFromProfileUrl(m.sender.attendee_profile_url, sender) ?? `https://www.linkedin.com/in/${encodeURIComponent(sender)}`;
    const sentAt = m.timestamp ? Date.parse(m.timestamp) : Number.NaN;
    const id = messageEventId(accountId, m.message_id);
    const queued = deps.store.enqueue(
      {
        id,
        type: 'message_received',
        accountId,
        networkUrl,
        providerId: sender,
        chatId: m.chat_id,
        text: m.message ?? '',
        at: Number.isNaN(sentAt) ? now : Math.min(sentAt, now),
      },
      now,
    );
    return { status: queued ? 'queued' : 'duplicate', eventId: id };
  }
  if (event === 'new_relation') {
    const parsed = NewRelation.safeParse(payload);
    if (!parsed.success) return { status: 'invalid', message: 'A new_relation event needs account_id and user_provider_id.' };
    const r = parsed.data;
    const accountId = deps.store.accountIdFor(r.account_id);
    if (accountId === null) return unknownAccount(deps, r.account_id);
    const providerId = r.user_provider_id;
    // The URL we know the person by comes first: the lead's, which a Sales Navigator or
    // provider-id URL may hold where the event names the public identifier.
    const networkUrl =
      deps.store.contactUrl(providerId) ??
      networkUrlForIdentifier(r.user_public_identifier) ??
      urlFromProfileUrl(r.user_profile_url, providerId) ??
      `https://www.linkedin.com/in/${encodeURIComponent(providerId)}`;
    if (r.user_public_identifier) deps.store.rememberContact(providerId, networkUrl, now);
    const id = acceptEventId(accountId, providerId);
    const queued = deps.store.enqueue({ id, type: 'invitation_accepted', accountId, networkUrl, providerId, at: now }, now);
    deps.store.markAccepted(accountId, providerId, now);
    return { status: queued ? 'queued' : 'duplicate', eventId: id };
  }
  return { status: 'ignored', reason: 'event_not_used' };
}

function unknownAccount(deps: Deps, providerAccountId: string): WebhookOutcome {
  // Usually an account linked in Unipile before the next account sync; the sync adds it.
  deps.log.info({ providerAccountId }, 'unipile webhook for an account we do not know; ignored');
  return { status: 'ignored', reason: 'unknown_account' };
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Constant-time comparison: digests have one length whatever the inputs, so nothing leaks through timing. */
export function secretMatches(given: string | undefined, expected: string): boolean {
  return given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

/** Webhook bodies are small; this bounds what an authenticated caller can make us read. */
const MAX_WEBHOOK_BYTES = 256 * 1024;

/** A webhook call as the host hands it over (see src/http/webhooks.ts): no HTTP framework types. */
export interface InboundCall {
  method: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  ip: string | undefined;
}

export interface InboundAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const refuse = (error: ApiError): InboundAnswer => ({ status: httpStatus(error), body: error.toBody() });

const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * The inbound endpoint, for the host to mount at e.g. `/webhooks/unipile`. Unipile webhooks are
 * not signed, so each call must carry the configured secret in `X-Outreach-Webhook-Secret` (set
 * as a custom header when creating the webhook); anything else is 401 before the body is read.
 * The body is read as JSON whatever its Content-Type, because webhooks created through
 * Unipile's API send none by default. A handled or ignored event is 200; a malformed body is 400.
 */
export function unipileWebhook(deps: Deps, inboundSecret: string, path: string) {
  return {
    path,
    maxBytes: MAX_WEBHOOK_BYTES,
    admit(call: InboundCall): InboundAnswer | null {
      if (call.method !== 'POST')
        return { status: 405, headers: { Allow: 'POST' }, body: new ApiError('validation_error', 'Unipile webhooks are POST requests.').toBody() };
      if (secretMatches(headerValue(call.headers[UNIPILE_SECRET_HEADER.toLowerCase()]), inboundSecret)) return null;
      deps.log.warn({ ip: call.ip }, 'unipile webhook refused: missing or wrong secret header');
      return refuse(
        new ApiError(
          'unauthorized',
          `Missing or wrong ${UNIPILE_SECRET_HEADER} header. Configure the Unipile webhook with the inbound secret as that custom header.`,
        ),
      );
    },
    receive(_call: InboundCall, body: { ok: true; bytes: Buffer } | { ok: false; reason: 'too_large' | 'unreadable' }): InboundAnswer {
      if (!body.ok) {
        if (body.reason === 'too_large')
          return refuse(new ApiError('validation_error', `The webhook body is larger than ${MAX_WEBHOOK_BYTES} bytes.`, { maxBytes: MAX_WEBHOOK_BYTES }));
        return refuse(validationError('The webhook body could not be read.', []));
      }
      let payload: unknown;
      try {
        payload = JSON.parse(body.bytes.toString('utf8'));
      } catch {
        return refuse(validationError('The webhook body must be JSON (create the Unipile webhook with format json).', []));
      }
      const outcome = handleUnipileWebhook(deps, payload);
      if (outcome.status === 'invalid') return refuse(validationError(outcome.message, []));
      deps.log.debug({ outcome: outcome.status }, 'unipile webhook');
      return { status: 200, body: { received: true, ...outcome } };
    },
  };
}
