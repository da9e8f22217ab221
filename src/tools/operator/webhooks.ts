import { z } from 'zod';
import { IsoTimestamp } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import { WEBHOOK_EVENT_TYPES } from '../../core/events.js';
import { Cursor } from '../../core/pagination.js';
import { listDeliveryPage, redeliverDelivery } from '../../core/webhooks/deliveries.js';
import {
  addEndpoint,
  disableEndpoint,
  enableEndpoint,
  endpointView,
  listEndpoints,
  removeEndpoint,
  rotateSigningSecret,
  signingSecret,
  type WebhookEndpointInput,
} from '../../core/webhooks/endpoints.js';
import { defineOperatorTool } from '../define.js';
import { pathId } from '../params.js';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const Endpoint = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  status: z.enum(['active', 'disabled']),
  disabledReason: z.string().nullable(),
  createdAt: IsoTimestamp,
  pendingDeliveries: z.number().int(),
});

const Attempt = z.object({
  attempt: z.number().int(),
  at: IsoTimestamp,
  status: z.number().int().nullable(),
  durationMs: z.number().nullable(),
  error: z.string().nullable(),
  response: z.string().nullable(),
  finished: z.boolean(),
});

const Delivery = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  endpointId: z.string(),
  url: z.string().nullable(),
  state: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  nextAttemptAt: IsoTimestamp.nullable(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: IsoTimestamp,
  updatedAt: IsoTimestamp,
  log: z.array(Attempt),
});

const EndpointId = pathId('webhook endpoint').describe('The endpoint id (whe_…), from list_webhook_endpoints.');

export const listWebhookEndpointsTool = defineOperatorTool({
  name: 'list_webhook_endpoints',
  title: 'List webhook endpoints',
  description: 'Lists webhook endpoints with their events, status and pending deliveries, and whether a signing secret is set.',
  input: z.strictObject({}),
  output: z.object({ endpoints: z.array(Endpoint), secretSet: z.boolean() }),
  annotations: READ,
  handler: (ctx) => ({ endpoints: listEndpoints(ctx), secretSet: signingSecret(ctx) !== null }),
});

export const addWebhookEndpointTool = defineOperatorTool({
  name: 'add_webhook_endpoint',
  title: 'Add webhook endpoint',
  description: 'Subscribes an http(s) URL to lead events (all of them unless `events` names some).',
  input: z.strictObject({
    url: z.string().describe('The http(s) URL that receives the signed POSTs.'),
    events: z
      .array(z.string())
      .optional()
      .describe(`Event types (${WEBHOOK_EVENT_TYPES.join(', ')}); default all.`),
  }),
  output: z.object({ endpoint: Endpoint }),
  annotations: { ...WRITE, idempotentHint: false },
  handler: (ctx, input) => ({
    endpoint: addEndpoint(ctx, { url: input.url, events: (input.events ?? [...WEBHOOK_EVENT_TYPES]) as WebhookEndpointInput['events'] }),
  }),
});

export const removeWebhookEndpointTool = defineOperatorTool({
  name: 'remove_webhook_endpoint',
  title: 'Remove webhook endpoint',
  description: 'Removes an endpoint; its pending deliveries end as failed and its delivery log is kept.',
  input: z.strictObject({ endpointId: EndpointId }),
  output: z.object({ endpointId: z.string(), removed: z.literal(true) }),
  annotations: { ...WRITE, destructiveHint: true },
  handler: (ctx, input) => {
    removeEndpoint(ctx, input.endpointId);
    return { endpointId: input.endpointId, removed: true as const };
  },
});

export const setWebhookEndpointEnabledTool = defineOperatorTool({
  name: 'set_webhook_endpoint_enabled',
  title: 'Enable or disable webhook endpoint',
  description: 'Disables an endpoint (no new events; pending retries end) or enables it again for events from now on.',
  input: z.strictObject({ endpointId: EndpointId, enabled: z.boolean() }),
  output: z.object({ endpoint: Endpoint }),
  annotations: WRITE,
  handler: (ctx, input) => {
    if (input.enabled) return { endpoint: enableEndpoint(ctx, input.endpointId) };
    disableEndpoint(ctx, input.endpointId, 'disabled by the operator');
    const endpoint = endpointView(ctx, input.endpointId);
    if (!endpoint) throw new ApiError('not_found', `No webhook endpoint ${input.endpointId}. List the endpoints for valid ids.`, { fields: ['endpointId'] });
    return { endpoint };
  },
});

export const rotateWebhookSecretTool = defineOperatorTool({
  name: 'rotate_webhook_secret',
  title: 'Rotate webhook signing secret',
  description: 'Replaces the signing secret and returns the new one once; every attempt from now on is signed with it.',
  input: z.strictObject({}),
  output: z.object({ secret: z.string() }),
  annotations: { ...WRITE, idempotentHint: false, destructiveHint: true },
  handler: (ctx) => ({ secret: rotateSigningSecret(ctx) }),
});

export const listWebhookDeliveriesTool = defineOperatorTool({
  name: 'list_webhook_deliveries',
  title: 'List webhook deliveries',
  description: 'The delivery log, newest first, each delivery with every attempt; filter by endpoint and state.',
  input: z.strictObject({
    endpointId: EndpointId.optional(),
    status: z.enum(['pending', 'succeeded', 'failed']).optional().describe('Only deliveries in this state.'),
    limit: z.number().int().min(1).max(100).default(20).describe('Page size, 1..100 (default 20).'),
    cursor: Cursor.optional(),
  }),
  output: z.object({ deliveries: z.array(Delivery), nextCursor: z.string().nullable() }),
  annotations: READ,
  handler: (ctx, input, caller) =>
    listDeliveryPage(ctx, caller.workspace.cursorSecret, { endpointId: input.endpointId, state: input.status, limit: input.limit, cursor: input.cursor }),
});

export const redeliverWebhookDeliveryTool = defineOperatorTool({
  name: 'redeliver_webhook_delivery',
  title: 'Redeliver webhook delivery',
  description: "Sends a delivery's event again (same event id) to its endpoint, now.",
  input: z.strictObject({ deliveryId: pathId('webhook delivery').describe('The delivery id, from list_webhook_deliveries.') }),
  output: z.object({ deliveryId: z.string(), endpointId: z.string(), url: z.string(), action: z.enum(['created', 'rescheduled', 'in_flight']) }),
  annotations: { ...WRITE, idempotentHint: false },
  handler: (ctx, input) => redeliverDelivery(ctx, input.deliveryId),
});
