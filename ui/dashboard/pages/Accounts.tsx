import { useQueryClient } from '@tanstack/react-query';
import type { Session } from '../api.js';
import { useId, useState, type FormEvent } from 'react';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { useCan } from '../../shared/access.js';
import { newIdempotencyKey, useTool, useToolMutation } from '../../shared/hooks.js';
import { useClearAfter, useSavedMark } from '../../shared/forms.js';
import { formatWhen } from '../../shared/format.js';
import type { Account } from '../../shared/types.js';
import { Untrusted } from '../../shared/components/Untrusted.js';

function Counter({ label, value, limit }: { label: string; value: number; limit: number }) {
  return (
    <div className="o-meter-row">
      <span>{label}</span>
      <meter min={0} max={Math.max(limit, 1)} high={Math.max(limit, 1) * 0.9} value={value} aria-label={`${label}: ${value} of ${limit}`} />
      <span>
        {value} / {limit}
      </span>
    </div>
  );
}

/**
 * Why today's limits are below the configured ones: a running warm-up (its day, and a way to end
 * it for an account that already sends at full volume) or a full week of invitations.
 */
function LimitsStatus({ account, onEndWarmUp, pending }: { account: Account; onEndWarmUp: (() => void) | null; pending: boolean }) {
  const { limits, warmUp, week } = account;
  return (
    <>
      <p className="o-muted">
        Configured: {limits.connectionRequestLimit} requests and {limits.messageLimit} messages a day.
      </p>
      {warmUp ? (
        <p className="o-alert o-alert-warning d-note">
          <strong>
            Warm-up: day {warmUp.day} of {warmUp.days}.
          </strong>{' '}
          Today’s limits are lower and rise each day to the configured ones.{' '}
          {onEndWarmUp ? (
            <button type="button" className="o-button-link" disabled={pending} onClick={onEndWarmUp}>
              End warm-up
            </button>
          ) : null}
        </p>
      ) : null}
      {week.fullUntil ? (
        <p className="o-alert o-alert-warning d-note">
          <strong>Weekly cap reached:</strong> {week.connectionRequestsSent} of {week.connectionRequestLimit} requests in the last 7 days; new requests wait
          until {formatWhen(week.fullUntil)}.
        </p>
      ) : null}
    </>
  );
}

function AccountCard({ account }: { account: Account }) {
  const id = useId();
  // The configured limits, not today's: saving an unchanged form must not lock a warm-up's low limit in.
  const [requests, setRequests] = useState(String(account.limits.connectionRequestLimit));
  const [messages, setMessages] = useState(String(account.limits.messageLimit));
  const { saved, mark } = useSavedMark({ requests, messages });
  const update = useToolMutation('update_account', ['list_accounts']);
  const canUpdate = useCan('update_account');
  const save = (e: FormEvent) => {
    e.preventDefault();
    const sent = { requests, messages };
    update.mutate({ accountId: account.id, connectionRequestLimit: Number(requests), messageLimit: Number(messages) }, { onSuccess: () => mark(sent) });
  };
  const t = account.today;
  return (
    <article className="o-card" aria-labelledby={`${id}-h`}>
      <div className="o-row-between">
        <h2 id={`${id}-h`}>
          <Untrusted>{account.name}</Untrusted>
        </h2>
        <span className={account.status === 'connected' ? 'o-badge o-badge-running' : 'o-badge o-badge-paused'}>
          {account.status}
          {account.active ? '' : ' · inactive'}
        </span>
      </div>
      <p className="o-muted">{account.hasSalesNavigator ? 'Sales Navigator' : 'Classic'} · today (UTC)</p>
      <Counter label="Connection requests" value={t.connectionRequestsSent} limit={t.connectionRequestLimit} />
      <Counter label="Messages" value={t.messagesSent} limit={t.messageLimit} />
      <p className="o-muted">{t.connectionRequestsAccepted} accepted today</p>
      <LimitsStatus
        account={account}
        pending={update.isPending}
        onEndWarmUp={canUpdate ? () => update.mutate({ accountId: account.id, warmUp: false }) : null}
      />
      {canUpdate ? (
        <form onSubmit={save} className="o-row" aria-label={`Limits of ${account.name}`}>
          <div className="o-field">
            <label htmlFor={`${id}-r`}>Requests per day</label>
            <input id={`${id}-r`} className="o-input" type="number" min={1} max={100} required value={requests} onChange={(e) => setRequests(e.target.value)} />
          </div>
          <div className="o-field">
            <label htmlFor={`${id}-m`}>Messages per day</label>
            <input id={`${id}-m`} className="o-input" type="number" min={1} max={150} required value={messages} onChange={(e) => setMessages(e.target.value)} />
          </div>
          <button type="submit" className="o-button" disabled={update.isPending}>
            Save limits
          </button>
          <button
            type="button"
            className="o-button"
            disabled={update.isPending}
            onClick={() => update.mutate({ accountId: account.id, active: !account.active })}
          >
            {account.active ? 'Deactivate' : 'Activate'}
          </button>
          {saved ? <span role="status">Saved.</span> : null}
        </form>
      ) : null}
      <ErrorNote error={update.error} prefix="Could not update" />
    </article>
  );
}

function Connect() {
  const id = useId();
  const [name, setName] = useState('');
  const [skipWarmUp, setSkipWarmUp] = useState(false);
  const [salesNavigator, setSalesNavigator] = useState(false);
  // A simulated account's Sales Navigator is ours to choose; a real one's comes from the provider.
  const env = useQueryClient().getQueryData<Session>(['session'])?.workspace.env;
  const simulated = env !== 'production';
  const [connectUrl, setConnectUrl] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const connect = useToolMutation('connect_account', ['list_accounts']);
  const clearAfter = useClearAfter({ name, skipWarmUp, salesNavigator });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const sent = { name, skipWarmUp, salesNavigator };
    connect.mutate(
      // Unticked leaves the choice to the server's config (on unless turned off there).
      {
        name,
        ...(skipWarmUp ? { warmUp: false } : {}),
        ...(simulated && salesNavigator ? { hasSalesNavigator: true } : {}),
        idempotencyKey: newIdempotencyKey(),
      },
      {
        onSuccess: (r) => {
          setConnectUrl(r.connectUrl);
          setDone(r.connectUrl ? null : `${r.account.name} is connected.`);
          clearAfter(sent, () => {
            setName('');
            setSkipWarmUp(false);
            setSalesNavigator(false);
          });
        },
      },
    );
  };
  return (
    <form className="o-card" onSubmit={submit} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Connect an account</h2>
      <div className="o-row">
        <div className="o-field">
          <label htmlFor={`${id}-n`}>Account name</label>
          <input id={`${id}-n`} className="o-input" required maxLength={120} value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <button type="submit" className="o-button o-button-primary" disabled={connect.isPending}>
          Connect
        </button>
      </div>
      <div className="o-row">
        <input id={`${id}-w`} type="checkbox" checked={skipWarmUp} onChange={(e) => setSkipWarmUp(e.target.checked)} aria-describedby={`${id}-wh`} />
        <label htmlFor={`${id}-w`}>Skip the warm-up</label>
      </div>
      <p id={`${id}-wh`} className="o-hint">
        A new account starts with low daily limits that rise each day to its own, as LinkedIn expects of a new sender. Skip it only for an account that already
        sends at full volume.
      </p>
      {simulated ? (
        <>
          <div className="o-row">
            <input
              id={`${id}-sn`}
              type="checkbox"
              checked={salesNavigator}
              onChange={(e) => setSalesNavigator(e.target.checked)}
              aria-describedby={`${id}-snh`}
            />
            <label htmlFor={`${id}-sn`}>Has Sales Navigator (simulated account)</label>
          </div>
          <p id={`${id}-snh`} className="o-hint">
            This server simulates the network, so you choose: with Sales Navigator the account can send InMails; without, an InMail step is skipped. A real
            account’s Sales Navigator comes from the provider.
          </p>
        </>
      ) : null}
      {done ? <p role="status">{done}</p> : null}
      {connectUrl ? (
        <p role="status">
          Finish signing in to LinkedIn on the provider’s page:{' '}
          <a href={connectUrl} target="_blank" rel="noreferrer noopener">
            open the sign-in page
          </a>
          . The account shows as connected when the provider reports success.
        </p>
      ) : null}
      <ErrorNote error={connect.error} prefix="Could not connect" />
    </form>
  );
}

/** Connected accounts: today's counters against their limits, limits, and connect. */
export function AccountsPage() {
  const canConnect = useCan('connect_account');
  const accounts = useTool('list_accounts', { limit: 100 }, { refetchInterval: 10_000 });
  return (
    <>
      <h1 tabIndex={-1}>Accounts</h1>
      <ErrorNote error={accounts.error} />
      {accounts.isPending ? <Loading label="Loading accounts…" /> : null}
      {accounts.data?.accounts.length === 0 ? <p>No account yet. Connect one to start sending.</p> : null}
      <div className="o-grid">
        {accounts.data?.accounts.map((a) => (
          <AccountCard key={`${a.id}:${a.limits.connectionRequestLimit}:${a.limits.messageLimit}`} account={a} />
        ))}
      </div>
      {canConnect ? <Connect /> : null}
    </>
  );
}
