import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { signingSecretProblem } from './sign.js';
import { validateWebhookUrl, type SsrfPolicy } from './ssrf.js';
import { iso } from '../clock.js';
import type { Ctx } from '../context.js';
import {
  activateEndpoint,
  deleteEndpoint,
  disableActiveEndpoint,
  endpointIdByUrl,
  endpointRow,
  endpointRows,
  failPendingDeliveriesOf,
  insertEndpoint,
  pendingDeliveriesByEndpoint,
  pendingDeliveriesOf,
  setWebhookSecret,
  webhookSecretOf,
  type EndpointRow,
} from './store.js';
import { ApiError, validationError } from '../errors.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../events.js';
import { newId } from '../ids.js';
import { zodToApiError } from '../validation.js';
import { WORKSPACE_ID } from '../workspace/get.js';
import { noteAuditTarget } from '../audit/current.js';

/** An endpoint URL as stored: http(s), no credentials, in its parsed (`URL.href`) form. */
export const WebhookUrl = z
  .string()
  .trim()
  .min(1, 'required')
  .max(2048, 'must be at most 2048 characters')
  .transform((raw, ctx) => {
    const checked = validateWebhookUrl(raw);
    if (checked.ok) return checked.url.href;
    ctx.addIssue({ code: 'custom', message: checked.error });
    return z.NEVER;
  });

const EVENT_LIST = WEBHOOK_EVENT_TYPES.join(', ');
export const WebhookEventList = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `must be one of ${EVENT_LIST}` }))
  .min(1, `name at least one event (${EVENT_LIST})`)
  .transform((events) => [...new Set(events)]);

export const WebhookEndpointInput = z.strictObject({ url: WebhookUrl, events: WebhookEventList });
export type WebhookEndpointInput = z.input<typeof WebhookEndpointInput>;

/** The workspace's one signing secret; printable ASCII so it can travel as a header value. */
export const SigningSecret = z.string().superRefine((secret, ctx) => {
  const problem = signingSecretProblem(secret);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
});

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: WebhookEventType[];
  status: 'active' | 'disabled';
  disabledReason: string | null;
  createdAt: string;
  pendingDeliveries: number;
}

export const endpointEvents = (row: Pick<EndpointRow, 'events'>): WebhookEventType[] => WebhookEventList.parse(JSON.parse(row.events));

/**
 * Adds an endpoint. With a policy, an IP-literal URL the SSRF guard would refuse is rejected
 * here rather than on every delivery; names are only judged at connect time.
 * Throws validation_error naming `url` or `events`.
 */
export function addEndpoint(ctx: Ctx, input: WebhookEndpointInput, policy?: SsrfPolicy): WebhookEndpointView {
  const { url, events } = checkEndpointInput(input, policy);
  return transaction(ctx.db, () => {
    const same = endpointIdByUrl(ctx, url);
    if (same) throw validationError(`url: endpoint ${same.id} already has this URL`, ['url']);
    const id = newId('whe');
    noteAuditTarget(id);
    insertEndpoint(ctx, { id, url, events: JSON.stringify(events), createdAt: ctx.clock.now() });
    return endpointView(ctx, id) as WebhookEndpointView;
  });
}

/** The validation of `addEndpoint` without the database, so a CLI can refuse bad input before opening one. */
export function checkEndpointInput(input: WebhookEndpointInput, policy?: SsrfPolicy): z.output<typeof WebhookEndpointInput> {
  const parsed = WebhookEndpointInput.safeParse(input);
  if (!parsed.success) throw zodToApiError(parsed.error);
  if (policy !== undefined) {
    const checked = validateWebhookUrl(parsed.data.url, policy);
    if (!checked.ok) {
      const hint = checked.error.includes('metadata') ? '' : '; list the host under webhooks.allowHosts in the config to allow it';
      throw validationError(`url: ${checked.error}${hint}`, ['url']);
    }
  }
  return parsed.data;
}

export function listEndpoints(ctx: Ctx): WebhookEndpointView[] {
  const pending = pendingDeliveriesByEndpoint(ctx);
  return endpointRows(ctx).map((row) => toView(row, pending.get(row.id) ?? 0));
}

export function endpointView(ctx: Ctx, id: string): WebhookEndpointView | null {
  const row = endpointRow(ctx, id);
  if (!row) return null;
  return toView(row, pendingDeliveriesOf(ctx, id));
}

function toView(row: EndpointRow, pendingDeliveries: number): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    events: endpointEvents(row),
    status: row.status === 'disabled' ? 'disabled' : 'active',
    disabledReason: row.disabledReason,
    createdAt: iso(row.createdAt),
    pendingDeliveries,
  };
}

function notFound(id: string): ApiError {
  return new ApiError('not_found', `no webhook endpoint "${id}"; list them with: npx outreach webhooks list`, { fields: ['id'] });
}

/** Ends every pending delivery of an endpoint; history stays in the log. */
function failPending(ctx: Ctx, endpointId: string, reason: string): void {
  failPendingDeliveriesOf(ctx, endpointId, reason, ctx.clock.now());
}

/** Removes an endpoint; its pending deliveries end as failed, and its delivery log is kept. */
export function removeEndpoint(ctx: Ctx, id: string): void {
  transaction(ctx.db, () => {
    if (!deleteEndpoint(ctx, id)) throw notFound(id);
    failPending(ctx, id, 'endpoint removed');
  });
}

/**
 * Stops deliveries to an endpoint (a 410 Gone answer): it gets no new events and its pending
 * retries end as failed. Returns false when it was already disabled or no longer exists.
 */
export function disableEndpoint(ctx: Ctx, id: string, reason: string): boolean {
  return transaction(ctx.db, () => {
    const changed = disableActiveEndpoint(ctx, id, reason);
    if (changed > 0) failPending(ctx, id, `endpoint disabled: ${reason}`);
    return changed > 0;
  });
}

/** Re-activates a disabled endpoint for events from now on; `redeliver` resends older ones. */
export function enableEndpoint(ctx: Ctx, id: string): WebhookEndpointView {
  return transaction(ctx.db, () => {
    const changed = activateEndpoint(ctx, id);
    if (changed === 0) throw notFound(id);
    return endpointView(ctx, id) as WebhookEndpointView;
  });
}

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks form, so its libraries accept it as is. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Replaces the workspace's signing secret and returns the new one (shown once). Every attempt
 * from now on, retries of older events included, is signed with it.
 */
export function rotateSigningSecret(ctx: Ctx): string {
  const secret = newSigningSecret();
  const changed = setWebhookSecret(ctx, WORKSPACE_ID, secret);
  // Creating a bare workspace here would stop `npm start` from building the demo one.
  if (changed === 0) throw new ApiError('not_found', 'the database holds no workspace yet; run npx outreach start or npx outreach seed first');
  return secret;
}

export function signingSecret(ctx: Ctx): string | null {
  const secret = webhookSecretOf(ctx, WORKSPACE_ID);
  return secret ? secret : null;
}
