import { msToNextUtcMidnight } from '../../core/clock.js';
import type { ApiError } from '../../core/errors.js';
import { networkError, type NetworkErrorCode } from '../../core/network/provider.js';

/**
 * What a failing call was doing, because one Unipile error means different things to different
 * callers: a 404 on a profile is `not_found`, a 404 on the account itself means the account is
 * gone; "feature not subscribed" on a Sales Navigator call is `sales_nav_required`.
 */
export interface CallContext {
  /** read: profile lookups and search parameters; search; send: invitations and messages; account: calls about the account itself. */
  kind: 'read' | 'search' | 'send' | 'account';
  /** The call used Sales Navigator (`api: sales_navigator` or `linkedin_api=sales_navigator`). */
  salesNav: boolean;
  /** The input field a 400 about the request content refers to, e.g. `note` or `text`. */
  contentField?: string;
}

/** A non-2xx answer from Unipile, before it is mapped to one of our codes. */
export class UnipileHttpError extends Error {
  constructor(
    readonly status: number,
    /** The slug of `type: "errors/<slug>"`, or null when the body had none. */
    readonly slug: string | null,
    /** From a `Retry-After` header, in milliseconds. */
    readonly retryAfterMs: number | null,
  ) {
    super(`Unipile answered ${status}${slug ? ` errors/${slug}` : ''}`);
    this.name = 'UnipileHttpError';
  }
}

type Rule = NetworkErrorCode | ((ctx: CallContext) => NetworkErrorCode);

const salesNavOr =
  (otherwise: NetworkErrorCode | ((ctx: CallContext) => NetworkErrorCode)): Rule =>
  (ctx) =>
    ctx.salesNav ? 'sales_nav_required' : typeof otherwise === 'function' ? otherwise(ctx) : otherwise;
const sendOr =
  (otherwise: NetworkErrorCode): Rule =>
  (ctx) =>
    ctx.kind === 'send' ? 'send_failed' : otherwise;
const accountOr =
  (otherwise: NetworkErrorCode): Rule =>
  (ctx) =>
    ctx.kind === 'account' ? 'account_disconnected' : otherwise;

/**
 * Every `errors/<slug>` type in Unipile's v1 OpenAPI (the 400/401/403/404/415/422/429/5xx
 * response enums of the users, chats and linkedin routes), mapped to our codes. The same table
 * is rendered in docs/unipile.md; a test keeps the two in step.
 */
export const SLUG_RULES: Record<string, { status: number; rule: Rule }> = {
  // 400: the request itself was refused.
  invalid_parameters: { status: 400, rule: 'validation_error' },
  malformed_request: { status: 400, rule: 'validation_error' },
  missing_parameters: { status: 400, rule: 'validation_error' },
  invalid_url: { status: 400, rule: 'validation_error' },
  unescaped_characters: { status: 400, rule: 'validation_error' },
  content_too_large: { status: 400, rule: 'validation_error' },
  too_many_characters: { status: 400, rule: 'validation_error' },
  // 401: the LinkedIn session is gone or needs the owner's action.
  missing_credentials: { status: 401, rule: 'account_disconnected' },
  multiple_sessions: { status: 401, rule: 'account_disconnected' },
  invalid_checkpoint_solution: { status: 401, rule: 'account_disconnected' },
  checkpoint_error: { status: 401, rule: 'account_disconnected' },
  invalid_credentials: { status: 401, rule: 'account_disconnected' },
  expired_credentials: { status: 401, rule: 'account_disconnected' },
  insufficient_privileges: { status: 401, rule: 'account_disconnected' },
  disconnected_account: { status: 401, rule: 'account_disconnected' },
  disconnected_feature: { status: 401, rule: salesNavOr('account_disconnected') },
  invalid_credentials_but_valid_account_imap: { status: 401, rule: 'account_disconnected' },
  expired_link: { status: 401, rule: 'account_disconnected' },
  wrong_account: { status: 401, rule: 'account_disconnected' },
  captcha_not_supported: { status: 401, rule: 'account_disconnected' },
  // 403: the account may not do this.
  account_restricted: { status: 403, rule: 'account_disconnected' },
  account_mismatch: { status: 403, rule: 'account_disconnected' },
  session_mismatch: { status: 403, rule: 'account_disconnected' },
  unknown_authentication_context: { status: 403, rule: 'account_disconnected' },
  action_required: { status: 403, rule: 'account_disconnected' },
  feature_not_subscribed: { status: 403, rule: salesNavOr(sendOr('account_disconnected')) },
  subscription_required: { status: 403, rule: salesNavOr(sendOr('account_disconnected')) },
  insufficient_permissions: { status: 403, rule: sendOr('not_found') },
  resource_access_restricted: { status: 403, rule: sendOr('not_found') },
  // 404: the person, chat or account does not exist.
  resource_not_found: { status: 404, rule: accountOr('not_found') },
  invalid_resource_identifier: { status: 404, rule: accountOr('not_found') },
  // 415: an attachment type the network refuses (we send none, but a chat may).
  unsupported_media_type: { status: 415, rule: 'send_failed' },
  // 422: the network refused the action.
  invalid_account: { status: 422, rule: 'account_disconnected' },
  account_configuration_error: { status: 422, rule: 'account_disconnected' },
  limit_exceeded: { status: 422, rule: 'network_daily_quota' },
  cannot_resend_yet: { status: 422, rule: 'network_daily_quota' },
  invalid_recipient: { status: 422, rule: sendOr('not_found') },
  no_connection_with_recipient: { status: 422, rule: 'send_failed' },
  blocked_recipient: { status: 422, rule: 'send_failed' },
  user_unreachable: { status: 422, rule: 'send_failed' },
  unprocessable_entity: { status: 422, rule: 'send_failed' },
  action_already_performed: { status: 422, rule: 'send_failed' },
  invalid_message: { status: 422, rule: 'send_failed' },
  invalid_post: { status: 422, rule: 'send_failed' },
  not_allowed_inmail: { status: 422, rule: 'send_failed' },
  insufficient_credits: { status: 422, rule: 'send_failed' },
  payment_error: { status: 422, rule: 'send_failed' },
  cannot_resend_within_24hrs: { status: 422, rule: 'send_failed' },
  already_invited_recently: { status: 422, rule: 'send_failed' },
  already_connected: { status: 422, rule: 'send_failed' },
  cannot_invite_attendee: { status: 422, rule: 'send_failed' },
  cant_send_message: { status: 422, rule: 'send_failed' },
  sender_rejected: { status: 422, rule: 'send_failed' },
  recipient_rejected: { status: 422, rule: 'send_failed' },
  send_as_denied: { status: 422, rule: 'send_failed' },
  unauthorized: { status: 422, rule: 'send_failed' },
  parent_mail_not_found: { status: 422, rule: 'send_failed' },
  invalid_reply_subject: { status: 422, rule: 'send_failed' },
  invalid_headers: { status: 422, rule: 'send_failed' },
  invalid_folder: { status: 422, rule: 'send_failed' },
  invalid_thread: { status: 422, rule: 'send_failed' },
  comments_disabled: { status: 422, rule: 'send_failed' },
  insufficient_job_slot: { status: 422, rule: 'send_failed' },
  limit_too_high: { status: 422, rule: 'validation_error' },
  ip_rejected_by_server: { status: 422, rule: 'upstream_unavailable' },
  provider_unreachable: { status: 422, rule: 'upstream_unavailable' },
  realtime_client_not_initialized: { status: 422, rule: 'upstream_unavailable' },
  // 429: LinkedIn or Unipile is throttling the account.
  too_many_requests: { status: 429, rule: 'network_daily_quota' },
  // 5xx: temporary trouble on Unipile's or LinkedIn's side.
  unexpected_error: { status: 500, rule: 'upstream_unavailable' },
  provider_error: { status: 500, rule: 'upstream_unavailable' },
  authentication_intent_error: { status: 500, rule: 'upstream_unavailable' },
  feature_not_implemented: { status: 501, rule: sendOr('upstream_unavailable') },
  no_client_session: { status: 503, rule: 'upstream_unavailable' },
  no_channel: { status: 503, rule: 'upstream_unavailable' },
  no_handler: { status: 503, rule: 'upstream_unavailable' },
  network_down: { status: 503, rule: 'upstream_unavailable' },
  service_unavailable: { status: 503, rule: 'upstream_unavailable' },
  request_timeout: { status: 504, rule: 'upstream_unavailable' },
};

/** For a slug we do not know (Unipile adds types over time), the status decides. */
function byStatus(status: number, ctx: CallContext): NetworkErrorCode {
  if (status === 400 || status === 413) return 'validation_error';
  if (status === 401 || status === 403) return 'account_disconnected';
  if (status === 404) return ctx.kind === 'account' ? 'account_disconnected' : 'not_found';
  if (status === 415 || status === 409) return 'send_failed';
  if (status === 422) return ctx.kind === 'send' ? 'send_failed' : 'upstream_unavailable';
  if (status === 429) return 'network_daily_quota';
  return 'upstream_unavailable';
}

/** Our code for a Unipile failure. */
export function codeFor(status: number, slug: string | null, ctx: CallContext): NetworkErrorCode {
  const entry = slug === null ? undefined : SLUG_RULES[slug];
  if (entry === undefined) return byStatus(status, ctx);
  return typeof entry.rule === 'function' ? entry.rule(ctx) : entry.rule;
}

/** Messages that say more than the code's default about what to do next. */
const SPECIFIC_MESSAGES: Record<string, string> = {
  checkpoint_error: 'LinkedIn asks the account owner to confirm a security checkpoint. Reconnect the account in Unipile, then retry.',
  account_restricted: 'LinkedIn has restricted this account. The owner must resolve it on LinkedIn; then reconnect it in Unipile.',
  disconnected_account: 'The LinkedIn session behind this account has ended. Reconnect the account in Unipile, then retry.',
  cannot_resend_yet: 'LinkedIn refuses more invitations from this account for now (a provider limit). Retry after details.retryAfterSeconds.',
  limit_exceeded: "The account reached LinkedIn's limit for this action. Retry after details.retryAfterSeconds.",
  too_many_requests: 'LinkedIn is throttling this account. Retry after details.retryAfterSeconds.',
  no_connection_with_recipient: 'The recipient is not a connection of this account, so the message was not sent. Send a connection request first.',
  invalid_recipient: 'The network does not accept this recipient. Check the profile URL or provider id.',
  blocked_recipient: 'The recipient cannot be contacted from this account. Nothing was sent.',
  cannot_invite_attendee: 'LinkedIn does not allow inviting this person (for example an out-of-network profile that needs an e-mail). Nothing was sent.',
  already_connected: 'This person is already a connection; send a message instead.',
  already_invited_recently: 'An invitation to this person is already pending. Wait for it to be accepted.',
  too_many_characters: 'The text is longer than LinkedIn accepts (connection notes: 300 characters).',
  feature_not_subscribed: 'The account has no subscription for this feature (for example Sales Navigator).',
};

/**
 * The `ApiError` for a Unipile failure. Quota errors carry `retryAfterSeconds`: the upstream
 * `Retry-After` when given, otherwise the seconds to the next UTC midnight (the daily quotas
 * follow the real UTC day). `details.providerError` names the Unipile type for operators.
 */
export function toNetworkError(err: UnipileHttpError, ctx: CallContext, wallNow: number): ApiError {
  const code = codeFor(err.status, err.slug, ctx);
  const details: Record<string, unknown> = { providerError: err.slug ? `errors/${err.slug}` : `http_${err.status}` };
  let message = err.slug ? SPECIFIC_MESSAGES[err.slug] : undefined;
  if (code === 'network_daily_quota') {
    details.retryAfterSeconds = Math.max(1, Math.ceil((err.retryAfterMs ?? msToNextUtcMidnight(wallNow)) / 1000));
  }
  if (code === 'validation_error') details.fields = ctx.contentField ? [ctx.contentField] : [];
  if (code === 'sales_nav_required')
    message =
      'Sales Navigator is not usable on this account (not subscribed, or its session ended). Use a classic search or an account with a working Sales Navigator seat.';
  if (code === 'upstream_unavailable' && err.retryAfterMs !== null) details.retryAfterSeconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
  return networkError(code, message, details);
}

/** The slug of a Unipile error body (`{ type: "errors/<slug>" }`), or null. */
export function slugOf(body: unknown): string | null {
  if (body === null || typeof body !== 'object') return null;
  const type = (body as { type?: unknown }).type;
  if (typeof type !== 'string') return null;
  const match = /^errors\/([a-z0-9_]+)$/.exec(type);
  return match?.[1] ?? null;
}
