import { resolveSettings, UsageError } from '../config.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../core/events.js';
import { DEFAULT_DELIVERY_LIMIT, listDeliveries, MAX_DELIVERY_LIMIT, redeliver, type DeliveryView } from '../core/webhooks/deliveries.js';
import {
  addEndpoint,
  checkEndpointInput,
  enableEndpoint,
  listEndpoints,
  removeEndpoint,
  rotateSigningSecret,
  signingSecret,
  type WebhookEndpointInput,
} from '../core/webhooks/endpoints.js';
import { webhookPolicy } from '../core/webhooks/ssrf.js';
import { asOwner, asUsageError, parse, stdout, table, withDb, type Options } from './shared.js';

export const WEBHOOKS_USAGE = `  webhooks add --url URL --events TYPE[,TYPE...] [--db PATH] [--env E] [--config FILE]
                        Subscribe an endpoint to events (${WEBHOOK_EVENT_TYPES.join(', ')}).
  webhooks list [--json] [--db PATH]
                        List endpoints and whether a signing secret is set.
  webhooks remove ID [--db PATH]
                        Remove an endpoint; its delivery log is kept.
  webhooks enable ID [--db PATH]
                        Re-enable an endpoint that answered 410 Gone.
  webhooks rotate-secret [--db PATH]
                        Replace the workspace's signing secret and print it once.
  webhooks deliveries [--endpoint ID] [--event ID] [--limit N] [--json] [--db PATH]
                        The delivery log, newest first, with every attempt.
  webhooks redeliver EVENT_ID [--endpoint ID] [--db PATH]
                        Send an event again (same event id), now.`;

const SUBCOMMANDS = 'add, list, remove, enable, rotate-secret, deliveries, redeliver';
const db = { db: { type: 'string' } } satisfies Options;

/** `--events lead.tagged,lead.replied`, judged here so the error can quote the bad name. */
function parseEvents(raw: string | undefined): WebhookEventType[] {
  if (raw === undefined) throw new UsageError(`--events: required, a comma-separated list of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  const names = raw.split(',').map((s) => s.trim());
  for (const name of names) {
    if (name === '') throw new UsageError(`--events: "${raw}" has an empty event name`);
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(name)) {
      throw new UsageError(`--events: "${name}" is not an event type (${WEBHOOK_EVENT_TYPES.join(', ')})`);
    }
  }
  return names as WebhookEventType[];
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_DELIVERY_LIMIT;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_DELIVERY_LIMIT) throw new UsageError(`--limit: "${raw}" must be an integer from 1 to ${MAX_DELIVERY_LIMIT}`);
  return n;
}

/** Runs a domain verb, turning its errors into usage errors that name the user's flag. */
function run(dbFlags: Parameters<typeof withDb>[0], names: Record<string, string>, fn: Parameters<typeof withDb>[1], mustExist = true): void {
  try {
    withDb(dbFlags, fn, { mustExist });
  } catch (err) {
    throw asUsageError(err, names);
  }
}

function describeDelivery(d: DeliveryView): string[] {
  const where = d.url === null ? `${d.endpointId} (removed)` : `${d.endpointId} ${d.url}`;
  const plural = d.attempts === 1 ? 'attempt' : 'attempts';
  const state =
    d.state === 'pending'
      ? `pending, next attempt ${d.nextAttemptAt ?? '-'} (${d.attempts} ${plural} so far)`
      : `${d.state} after ${d.attempts} ${plural}${d.state === 'failed' && d.lastError ? `: ${d.lastError}` : ''}`;
  const lines = [`${d.id}  ${d.eventId} ${d.eventType} -> ${where}  ${state}`];
  for (const a of d.log) {
    const outcome = a.status !== null ? `HTTP ${a.status}` : a.finished ? '-' : 'in flight';
    const parts = [`  #${a.attempt}`, a.at, outcome, a.durationMs !== null ? `${a.durationMs} ms` : '-'];
    if (a.error !== null && a.error !== `HTTP ${a.status}`) parts.push(a.error);
    if (a.response) parts.push(JSON.stringify(a.response.length > 120 ? `${a.response.slice(0, 120)}…` : a.response));
    lines.push(parts.join('  '));
  }
  return lines;
}

export function webhooks(args: string[]): void {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add': {
      const { values } = parse(rest, { ...db, url: { type: 'string' }, events: { type: 'string' }, env: { type: 'string' }, config: { type: 'string' } });
      if (values.url === undefined) throw new UsageError('--url: required, the http(s) URL that receives the POSTs');
      const events = parseEvents(values.events);
      const policy = webhookPolicy(resolveSettings({ db: values.db, env: values.env, config: values.config }));
      const names = { url: `--url "${values.url}"`, events: '--events' };
      let input: WebhookEndpointInput;
      try {
        input = checkEndpointInput({ url: values.url, events }, policy);
      } catch (err) {
        throw asUsageError(err, names);
      }
      return run(
        values.db,
        names,
        (ctx) => {
          const endpoint = asOwner(ctx, { action: 'webhooks.add', targets: [], summary: 'Add webhook endpoint' }, () => addEndpoint(ctx, input, policy));
          stdout(`Added webhook endpoint ${endpoint.id}: ${endpoint.events.join(', ')} -> ${endpoint.url}`);
          if (signingSecret(ctx) === null) stdout('No signing secret is set, so deliveries are unsigned. Create one with: npx outreach webhooks rotate-secret');
        },
        false,
      );
    }
    case 'list': {
      const { values } = parse(rest, { ...db, json: { type: 'boolean' } });
      return run(values.db, {}, (ctx) => {
        const endpoints = listEndpoints(ctx);
        const secretSet = signingSecret(ctx) !== null;
        if (values.json) return stdout(JSON.stringify({ secretSet, endpoints }, null, 2));
        if (endpoints.length === 0) stdout('No webhook endpoints. Add one with: npx outreach webhooks add --url URL --events lead.tagged');
        else {
          table([
            ['ID', 'URL', 'EVENTS', 'STATUS', 'PENDING', 'CREATED'],
            ...endpoints.map((e) => [
              e.id,
              e.url,
              e.events.join(','),
              e.status === 'disabled' ? `disabled (${e.disabledReason ?? '-'})` : 'active',
              String(e.pendingDeliveries),
              e.createdAt,
            ]),
          ]);
        }
        stdout(
          secretSet
            ? 'Signing secret: set (never shown again; replace it with webhooks rotate-secret)'
            : 'Signing secret: not set (create one with webhooks rotate-secret)',
        );
      });
    }
    case 'remove':
    case 'enable': {
      const { values, positionals } = parse(rest, db, 1);
      const id = positionals[0];
      if (!id) throw new UsageError(`webhooks ${sub}: the endpoint ID is required (see \`npx outreach webhooks list\`)`);
      return run(values.db, { id: `webhooks ${sub} ${id}` }, (ctx) => {
        if (sub === 'remove') {
          asOwner(ctx, { action: 'webhooks.remove', targets: [id], summary: 'Remove webhook endpoint' }, () => removeEndpoint(ctx, id));
          stdout(`Removed ${id}. Its pending deliveries were dropped; its delivery log is kept.`);
        } else {
          asOwner(ctx, { action: 'webhooks.enable', targets: [id], summary: 'Enable webhook endpoint' }, () => enableEndpoint(ctx, id));
          stdout(`Enabled ${id}: it receives new events from now on. Resend a missed one with: npx outreach webhooks redeliver EVENT_ID --endpoint ${id}`);
        }
      });
    }
    case 'rotate-secret': {
      const { values } = parse(rest, db);
      return run(values.db, {}, (ctx) => {
        const secret = asOwner(ctx, { action: 'webhooks.rotate_secret', targets: [], summary: 'Rotate the webhook signing secret' }, () =>
          rotateSigningSecret(ctx),
        );
        stdout(`New webhook signing secret. It is shown only this once; give it to your receivers now:\n\n  ${secret}\n`);
        stdout('Every attempt from now on, retries of older events included, is signed with it.');
      });
    }
    case 'deliveries': {
      const { values } = parse(rest, { ...db, endpoint: { type: 'string' }, event: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } });
      const limit = parseLimit(values.limit);
      return run(values.db, { endpointId: `--endpoint "${values.endpoint}"`, eventId: `--event "${values.event}"`, limit: '--limit' }, (ctx) => {
        const rows = listDeliveries(ctx, { endpointId: values.endpoint, eventId: values.event, limit });
        if (values.json) return stdout(JSON.stringify(rows, null, 2));
        if (rows.length === 0) return stdout('No deliveries yet.');
        for (const d of rows) for (const line of describeDelivery(d)) stdout(line);
      });
    }
    case 'redeliver': {
      const { values, positionals } = parse(rest, { ...db, endpoint: { type: 'string' } }, 1);
      const eventId = positionals[0];
      if (!eventId) throw new UsageError('webhooks redeliver: the EVENT_ID is required (see `npx outreach webhooks deliveries`)');
      return run(
        values.db,
        { eventId: `EVENT_ID "${eventId}"`, endpointId: values.endpoint !== undefined ? `--endpoint "${values.endpoint}"` : `EVENT_ID "${eventId}"` },
        (ctx) => {
          const results = asOwner(
            ctx,
            { action: 'webhooks.redeliver', targets: [eventId, ...(values.endpoint ? [values.endpoint] : [])], summary: 'Redeliver a webhook event' },
            () => redeliver(ctx, eventId, values.endpoint),
          );
          for (const r of results) {
            const what =
              r.action === 'created'
                ? `new delivery ${r.deliveryId}`
                : r.action === 'rescheduled'
                  ? `pending delivery ${r.deliveryId} is due now`
                  : `delivery ${r.deliveryId} is being sent right now`;
            stdout(`Redelivering ${eventId} to ${r.endpointId} ${r.url}: ${what}.`);
          }
          stdout('The running server sends it within a second; without one, on its next start.');
        },
      );
    }
    default:
      throw new UsageError(sub ? `webhooks: unknown subcommand "${sub}" (${SUBCOMMANDS})` : `webhooks: a subcommand is required (${SUBCOMMANDS})`);
  }
}
