import { useId, useState, type FormEvent } from 'react';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Table } from '../../shared/components/Table.js';
import { formatWhen } from '../../shared/format.js';
import { useCan } from '../../shared/access.js';
import { useTool, useToolMutation } from '../../shared/hooks.js';
import { sameSet, useClearAfter } from '../../shared/forms.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../../src/core/events.js';
import type { WebhookDelivery } from '../../shared/types.js';
import { ShownOnce } from './Secret.js';
import { CursorPager } from '../../shared/components/CursorPager.js';

/** What each event type means, in a line (docs/webhooks.md has the payloads); every type the server sends has one. */
const EVENT_HINTS: Record<WebhookEventType, string> = {
  'lead.tagged': 'a lead’s tag was set or changed',
  'lead.replied': 'a lead replied',
  'lead.connection_accepted': 'a lead accepted the connection request',
  'lead.handed_off': 'the agent handed a conversation to a person',
  'draft.pending': 'a campaign’s drafts are waiting for approval',
  'lead.tag_suggested': 'the triage suggested a tag for a reply',
  'email.bounced': 'an email to a lead came back undelivered',
  'draft.sent': 'an approved draft was sent',
};

function Endpoints() {
  const id = useId();
  const endpoints = useTool('list_webhook_endpoints', {});
  const add = useToolMutation('add_webhook_endpoint', ['list_webhook_endpoints']);
  const remove = useToolMutation('remove_webhook_endpoint', ['list_webhook_endpoints']);
  const toggle = useToolMutation('set_webhook_endpoint_enabled', ['list_webhook_endpoints']);
  const canAdd = useCan('add_webhook_endpoint');
  const canRemove = useCan('remove_webhook_endpoint');
  const canToggle = useCan('set_webhook_endpoint_enabled');
  const [url, setUrl] = useState('');
  // The events the new endpoint subscribes to: all of them unless the person unticks some.
  const [events, setEvents] = useState<WebhookEventType[]>([...WEBHOOK_EVENT_TYPES]);
  const [noEvent, setNoEvent] = useState(false);
  const clearAfter = useClearAfter({ url, events });
  const tick = (type: WebhookEventType, on: boolean) => {
    // Kept in the server's order, so the list shows them as the endpoint stores them.
    setEvents((now) => WEBHOOK_EVENT_TYPES.filter((t) => (t === type ? on : now.includes(t))));
    if (on) setNoEvent(false);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (events.length === 0) {
      setNoEvent(true);
      return;
    }
    const sent = { url, events };
    // A URL typed or an event ticked while the call was on its way was not sent, and stays.
    add.mutate(
      { url: sent.url, events: sent.events },
      {
        onSuccess: () =>
          clearAfter(sent, () => {
            setUrl('');
            setEvents([...WEBHOOK_EVENT_TYPES]);
          }),
      },
    );
  };
  const all = sameSet(events, WEBHOOK_EVENT_TYPES);
  return (
    <section className="o-card o-stack" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Endpoints</h2>
      <ErrorNote error={endpoints.error ?? remove.error ?? toggle.error} />
      {endpoints.isPending ? <Loading label="Loading endpoints…" /> : null}
      {endpoints.data?.endpoints.length === 0 ? <p>No endpoint yet: add the URL that should receive reply, accept and tag events.</p> : null}
      <ul>
        {endpoints.data?.endpoints.map((ep) => (
          <li key={ep.id} className="o-row">
            <span className="o-mono o-u" dir="auto">
              {ep.url}
            </span>
            <span className={ep.status === 'active' ? 'o-badge o-badge-running' : 'o-badge'}>{ep.status === 'active' ? 'enabled' : 'disabled'}</span>
            {ep.disabledReason ? <span className="o-muted">{ep.disabledReason}</span> : null}
            <span className="o-muted">
              {ep.events.join(', ')} · {ep.pendingDeliveries} pending
            </span>
            {canToggle ? (
              <button type="button" className="o-button" onClick={() => toggle.mutate({ endpointId: ep.id, enabled: ep.status !== 'active' })}>
                {ep.status === 'active' ? 'Disable' : 'Enable'} {ep.url}
              </button>
            ) : null}
            {canRemove ? (
              <button type="button" className="o-button" onClick={() => remove.mutate({ endpointId: ep.id })}>
                Remove {ep.url}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {canAdd ? (
        <form onSubmit={submit} className="o-stack" aria-labelledby={`${id}-add`}>
          <h3 id={`${id}-add`}>Add an endpoint</h3>
          <div className="o-field">
            <label htmlFor={`${id}-url`}>Endpoint URL</label>
            <input
              id={`${id}-url`}
              className="o-input"
              type="url"
              required
              placeholder="https://example.com/hooks"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
            />
          </div>
          <fieldset className="o-field" aria-describedby={noEvent ? `${id}-noev` : undefined}>
            <legend>Events it receives (at least one)</legend>
            <div className="o-row">
              <button
                type="button"
                className="o-button"
                disabled={all}
                onClick={() => {
                  setEvents([...WEBHOOK_EVENT_TYPES]);
                  setNoEvent(false);
                }}
              >
                Tick all events
              </button>
              <button type="button" className="o-button" disabled={events.length === 0} onClick={() => setEvents([])}>
                Untick all events
              </button>
            </div>
            {WEBHOOK_EVENT_TYPES.map((type) => (
              <div key={type} className="o-row">
                <input
                  id={`${id}-ev-${type}`}
                  type="checkbox"
                  checked={events.includes(type)}
                  aria-describedby={`${id}-evd-${type}`}
                  onChange={(e) => tick(type, e.target.checked)}
                />
                <label htmlFor={`${id}-ev-${type}`} className="o-mono">
                  {type}
                </label>
                <span id={`${id}-evd-${type}`} className="o-muted">
                  {EVENT_HINTS[type]}
                </span>
              </div>
            ))}
          </fieldset>
          {noEvent ? (
            <p id={`${id}-noev`} role="alert" className="o-alert o-alert-error">
              Tick at least one event: an endpoint receives only the events ticked.
            </p>
          ) : null}
          <div>
            <button type="submit" className="o-button o-button-primary" disabled={add.isPending}>
              Add endpoint
            </button>
          </div>
        </form>
      ) : null}
      <ErrorNote error={add.error} prefix="Could not add" />
    </section>
  );
}

function SigningSecret() {
  const id = useId();
  const rotate = useToolMutation('rotate_webhook_secret', ['list_webhook_endpoints']);
  const canRotate = useCan('rotate_webhook_secret');
  const state = useTool('list_webhook_endpoints', {});
  const [secret, setSecret] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  // Known once the list is in: with no secret yet there is nothing to replace, so Create runs at once; Rotate asks first.
  const none = state.data?.secretSet === false;
  const run = () =>
    rotate.mutate(
      {},
      {
        onSuccess: (r) => {
          setSecret(r.secret);
          setConfirming(false);
        },
      },
    );
  return (
    <section className="o-card o-stack" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Signing secret</h2>
      <p>
        Every delivery carries the secret in <code>X-Webhook-Signature</code>; your receiver compares it. Rotating replaces it at once, so update your receiver
        right after.
      </p>
      {state.data ? <p>{state.data.secretSet ? 'A signing secret is set.' : 'No signing secret yet: deliveries go unsigned until you create one.'}</p> : null}
      {!canRotate || state.isPending ? null : none ? (
        <button type="button" className="o-button" disabled={rotate.isPending} onClick={run}>
          Create the signing secret
        </button>
      ) : confirming ? (
        <div className="o-row" role="group" aria-label="Confirm rotation">
          <button type="button" className="o-button o-button-danger" disabled={rotate.isPending} onClick={run}>
            Rotate now
          </button>
          <button type="button" className="o-button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" className="o-button" onClick={() => setConfirming(true)}>
          Rotate the signing secret
        </button>
      )}
      {secret ? <ShownOnce label="The new signing secret" secret={secret} onDismiss={() => setSecret(null)} /> : null}
      <ErrorNote error={rotate.error} prefix={none ? 'Could not create the signing secret' : 'Could not rotate'} />
    </section>
  );
}

function DeliveryRow({ d }: { d: WebhookDelivery }) {
  const redeliver = useToolMutation('redeliver_webhook_delivery', ['list_webhook_deliveries']);
  const [queued, setQueued] = useState(false);
  const canRedeliver = useCan('redeliver_webhook_delivery');
  return (
    <tr>
      <td>{formatWhen(d.createdAt)}</td>
      <td>
        {d.eventType}
        <br />
        <span className="o-muted o-mono">{d.eventId}</span>
        <br />
        <span className="o-muted o-mono o-u" dir="auto">
          {d.url ?? d.endpointId}
        </span>
      </td>
      <td>
        {d.state}
        {d.nextAttemptAt ? <span className="o-muted"> · next try {formatWhen(d.nextAttemptAt)}</span> : null}
      </td>
      <td>
        <details>
          <summary>
            {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
          </summary>
          <ol>
            {d.log.map((a) => (
              <li key={a.attempt}>
                {formatWhen(a.at)}: {a.status ?? 'no answer'}
                {a.error ? ` (${a.error})` : ''}
                {a.durationMs != null ? `, ${a.durationMs} ms` : ''}
              </li>
            ))}
          </ol>
        </details>
      </td>
      <td>
        {canRedeliver ? (
          <button
            type="button"
            className="o-button"
            disabled={redeliver.isPending}
            aria-label={`Redeliver ${d.eventType} of ${formatWhen(d.createdAt)}`}
            onClick={() => redeliver.mutate({ deliveryId: d.id }, { onSuccess: () => setQueued(true) })}
          >
            Redeliver
          </button>
        ) : null}
        {queued ? <span role="status"> Queued.</span> : null}
        <ErrorNote error={redeliver.error} />
      </td>
    </tr>
  );
}

const STATUSES: ('' | WebhookDelivery['state'])[] = ['', 'pending', 'succeeded', 'failed'];

function Deliveries() {
  const id = useId();
  const [status, setStatus] = useState<'' | WebhookDelivery['state']>('');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const list = useTool(
    'list_webhook_deliveries',
    { limit: 25, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) },
    { refetchInterval: cursor ? false : 5_000, keepPrevious: true },
  );
  return (
    <section className="o-card o-stack" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Delivery log</h2>
      <div className="o-field">
        <label htmlFor={`${id}-s`}>Status</label>
        <select
          id={`${id}-s`}
          className="o-select"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as '' | WebhookDelivery['state']);
            setCursors([]);
          }}
        >
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s || 'Any'}
            </option>
          ))}
        </select>
      </div>
      <ErrorNote error={list.error} />
      {list.isPending ? <Loading label="Loading deliveries…" /> : null}
      {list.data ? (
        <Table caption="Webhook deliveries, newest first" columns={['Created', 'Event', 'Status', 'Attempts', { hidden: 'Actions' }]}>
          {list.data.deliveries.length === 0 ? (
            <tr>
              <td colSpan={5}>No deliveries yet.</td>
            </tr>
          ) : null}
          {list.data.deliveries.map((d) => (
            <DeliveryRow key={d.id} d={d} />
          ))}
        </Table>
      ) : null}
      <CursorPager label="Delivery pages" cursors={cursors} setCursors={setCursors} nextCursor={list.data?.nextCursor} />
    </section>
  );
}

/** Endpoints, the signing secret (shown once on rotation), and the delivery log with redelivery. */
export function WebhooksPage() {
  return (
    <>
      <h1 tabIndex={-1}>Webhooks</h1>
      <Endpoints />
      <SigningSecret />
      <Deliveries />
    </>
  );
}
