import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { formatNumber } from '../../shared/format.js';
import { useCan } from '../../shared/access.js';
import { newIdempotencyKey, useTool, useToolMutation } from '../../shared/hooks.js';
import type { Credits, GrantResult } from '../../shared/types.js';
import { fetchSession } from '../api.js';

type Balance = GrantResult['balance'];

/** The four balances, the flags that reach each, and what each is for. */
const BALANCES: { key: Balance; label: string; flags: string; note: string; lookalike: boolean; topUp: boolean }[] = [
  { key: 'credits', label: 'Credits', flags: '', note: 'One per lead added; spent first.', lookalike: false, topUp: false },
  { key: 'topUpCredits', label: 'Top-up credits', flags: ' --top-up', note: 'Spent after credits run out.', lookalike: false, topUp: true },
  { key: 'lookalikeCredits', label: 'Lookalike credits', flags: ' --lookalike', note: 'One per lead a Lookalike search finds.', lookalike: true, topUp: false },
  {
    key: 'lookalikeTopUpCredits',
    label: 'Lookalike top-up credits',
    flags: ' --lookalike --top-up',
    note: 'Spent after Lookalike credits; kept when the plan lapses.',
    lookalike: true,
    topUp: true,
  },
];

export const MAX_GRANT = 10_000_000;

const labelOf = (key: Balance): string => BALANCES.find((b) => b.key === key)?.label ?? key;

function Balances({ credits }: { credits: Credits }) {
  return (
    <dl className="o-stats" aria-label="Credit balances">
      {BALANCES.map((b) => (
        <div className="o-stat" key={b.key}>
          <dt>{b.label}</dt>
          <dd>{formatNumber(credits[b.key])}</dd>
          <dd className="o-hint">{b.note}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The grant form: one grant, one ledger entry, the same verb as `outreach credits add`. */
function GrantForm() {
  const id = useId();
  const grant = useToolMutation('grant_credits', ['get_credits']);
  const [amount, setAmount] = useState('');
  const [balance, setBalance] = useState<Balance>('credits');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [done, setDone] = useState<GrantResult | null>(null);
  const chosen = BALANCES.find((b) => b.key === balance) ?? (BALANCES[0] as (typeof BALANCES)[number]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(null);
    const n = Number(amount);
    if (!/^\d+$/.test(amount.trim()) || n < 1 || n > MAX_GRANT) {
      setInvalid(`Enter a whole number of credits from 1 to ${formatNumber(MAX_GRANT)}.`);
      return;
    }
    setInvalid(null);
    const sent = amount;
    grant.mutate(
      { amount: n, lookalike: chosen.lookalike, topUp: chosen.topUp, idempotencyKey: newIdempotencyKey() },
      {
        onSuccess: (r) => {
          setDone(r);
          // A number typed while the grant was on its way is the next grant's, and stays.
          setAmount((now) => (now === sent ? '' : now));
        },
      },
    );
  };

  return (
    <form className="o-card o-stack" onSubmit={submit} aria-labelledby={`${id}-h`} noValidate>
      <h2 id={`${id}-h`}>Grant credits</h2>
      <p className="o-muted">
        Self-hosted, the credits are yours to grant. Each grant is an entry in the credit ledger and counts at once. On the server's machine, the same is{' '}
        <code>
          outreach credits add {amount.trim() || 'N'}
          {chosen.flags}
        </code>
        .
      </p>
      <div className="o-row">
        <div className="o-field">
          <label htmlFor={`${id}-n`}>Credits to add</label>
          <input
            id={`${id}-n`}
            className="o-input"
            type="number"
            inputMode="numeric"
            min={1}
            max={MAX_GRANT}
            step={1}
            required
            value={amount}
            aria-invalid={invalid ? true : undefined}
            aria-describedby={invalid ? `${id}-err` : undefined}
            onChange={(e) => setAmount(e.target.value)}
          />
        </div>
        <fieldset className="o-field">
          <legend>Add to</legend>
          {BALANCES.map((b) => (
            <label key={b.key} className="o-row">
              <input type="radio" name={`${id}-balance`} value={b.key} checked={balance === b.key} onChange={() => setBalance(b.key)} />
              {b.label}
            </label>
          ))}
        </fieldset>
      </div>
      {invalid ? (
        <p id={`${id}-err`} role="alert" className="o-alert o-alert-error">
          {invalid}
        </p>
      ) : null}
      <div>
        <button type="submit" className="o-button o-button-primary" disabled={grant.isPending}>
          Grant credits
        </button>
      </div>
      <ErrorNote error={grant.error} prefix="Could not grant the credits" />
      {done ? (
        <p role="status" className="o-alert o-alert-success">
          Granted {formatNumber(done.granted)} {labelOf(done.balance).toLowerCase()}. {labelOf(done.balance)} now: {formatNumber(done.credits[done.balance])}.
        </p>
      ) : null}
    </form>
  );
}

/** The plan and the balances, and the operator's grant. */
export function SettingsPage() {
  const session = useQuery({ queryKey: ['session'], queryFn: fetchSession, staleTime: Infinity, retry: false });
  const credits = useTool('get_credits', {});
  const canGrant = useCan('grant_credits');
  const ws = session.data && 'workspace' in session.data ? session.data.workspace : undefined;
  return (
    <>
      <h1 tabIndex={-1}>Settings</h1>
      <section className="o-card o-stack" aria-labelledby="settings-plan">
        <h2 id="settings-plan">Workspace and plan</h2>
        <ErrorNote error={credits.error} />
        {credits.isPending ? <Loading label="Loading the plan…" /> : null}
        {ws && credits.data ? (
          <dl className="o-stats" aria-label="Plan">
            <div className="o-stat o-stat-text">
              <dt>Workspace</dt>
              <dd>
                <Untrusted>{ws.name}</Untrusted>
              </dd>
            </div>
            <div className="o-stat o-stat-text">
              <dt>Plan</dt>
              <dd>
                {credits.data.planId} ({ws.plan})
              </dd>
            </div>
            <div className="o-stat o-stat-text">
              <dt>Environment</dt>
              <dd>{ws.env}</dd>
            </div>
          </dl>
        ) : null}
      </section>
      <section className="o-card o-stack" aria-labelledby="settings-balances">
        <h2 id="settings-balances">Balances</h2>
        {credits.data ? <Balances credits={credits.data} /> : null}
        {credits.data && credits.data.credits + credits.data.topUpCredits === 0 ? (
          <p className="o-alert o-alert-warning">No credits left: adding a lead costs 1.{canGrant ? ' Grant some below.' : ''}</p>
        ) : null}
      </section>
      {canGrant ? <GrantForm /> : null}
    </>
  );
}
