import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { CursorPager } from '../../shared/components/CursorPager.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { formatWhen } from '../../shared/format.js';
import { type CrmPageData, fetchCrm } from '../api.js';
import { Link } from '../router.js';

const OUTCOMES = ['succeeded', 'retrying', 'failed', 'ended', 'unmatched'] as const;

function Connection({ data }: { data: CrmPageData }) {
  const c = data.connection;
  if (c.crm === null)
    return (
      <p>
        <strong>Not configured.</strong> Nothing is sent to a CRM. Add a <code>crm.hubspot</code> section with <code>tokenEnv</code> to the server's config file
        and restart the server; the docs' CRM page explains the token and its scopes.
      </p>
    );
  return (
    <dl className="o-stack">
      <div>
        <dt>CRM</dt>
        <dd>{c.crm === 'hubspot' ? 'HubSpot' : c.crm}</dd>
      </div>
      <div>
        <dt>Token</dt>
        <dd>
          From the environment variable <code>{c.tokenEnv}</code>:{' '}
          {c.tokenSet ? 'set when the server started.' : <strong>not set: pushes wait in the outbox until it is and the server restarts.</strong>}
        </dd>
      </div>
      <div>
        <dt>Reading changes from the CRM</dt>
        <dd>
          Every {data.pull.intervalSeconds ?? '—'} s; last read {data.pull.lastPolledAt ? formatWhen(data.pull.lastPolledAt) : 'never'}.
          {data.pull.lastError ? (
            <>
              {' '}
              Last error: <Untrusted>{data.pull.lastError}</Untrusted>
            </>
          ) : null}
        </dd>
      </div>
    </dl>
  );
}

function Backlog({ backlog }: { backlog: CrmPageData['backlog'] }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a table that scrolls sideways on a narrow screen must take the focus so a keyboard can scroll it (WCAG 2.1.1, axe's scrollable-region-focusable).
    <section className="o-table-wrap" tabIndex={0} aria-label="Outbox backlog">
      <table className="o-table">
        <caption className="sr-only">Outbox backlog</caption>
        <thead>
          <tr>
            <th scope="col">Waiting</th>
            <th scope="col">Due now</th>
            <th scope="col">In flight</th>
            <th scope="col">Contacts · notes · deals waiting</th>
            <th scope="col">Oldest waiting</th>
            <th scope="col">Sent</th>
            <th scope="col">Given up</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>{backlog.pending}</td>
            <td>{backlog.due}</td>
            <td>{backlog.inFlight}</td>
            <td>
              {backlog.pendingByKind.contact} · {backlog.pendingByKind.note} · {backlog.pendingByKind.deal}
            </td>
            <td>{backlog.oldestPendingAt ? formatWhen(backlog.oldestPendingAt) : '—'}</td>
            <td>{backlog.succeeded}</td>
            <td>{backlog.failed}</td>
          </tr>
        </tbody>
      </table>
    </section>
  );
}

/** The CRM sync for the owner and admins: the connection, the outbox's backlog and the sync log. */
export function CrmPage() {
  const id = useId();
  const [direction, setDirection] = useState('');
  const [outcome, setOutcome] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const params = { direction, outcome, ...(cursor ? { cursor } : {}) };
  const page = useQuery({ queryKey: ['crm-page', params], queryFn: () => fetchCrm(params), placeholderData: keepPreviousData, refetchInterval: 15_000 });
  const data = page.data;

  return (
    <>
      <h1 tabIndex={-1}>CRM</h1>
      <p>
        What this server sends to the CRM (contacts, notes, deals) and what it reads back (a lifecycle stage or "do not contact" that ends a lead's sequence).
      </p>
      <ErrorNote error={page.error} />
      {page.isPending ? <Loading label="Loading the CRM sync…" /> : null}
      {data ? (
        <>
          <section className="o-card o-stack" aria-labelledby={`${id}-conn`}>
            <h2 id={`${id}-conn`}>Connection</h2>
            <Connection data={data} />
          </section>
          <section className="o-card o-stack" aria-labelledby={`${id}-outbox`}>
            <h2 id={`${id}-outbox`}>Outbox</h2>
            <p className="o-hint">Pushes wait here until the CRM takes them; a CRM that is down loses none, and a retry never makes one twice.</p>
            <Backlog backlog={data.backlog} />
          </section>
          <section className="o-card o-stack" aria-labelledby={`${id}-log`}>
            <h2 id={`${id}-log`}>Sync log</h2>
            <div className="o-row">
              <div className="o-field">
                <label htmlFor={`${id}-dir`}>Direction</label>
                <select
                  id={`${id}-dir`}
                  className="o-input"
                  value={direction}
                  onChange={(e) => {
                    setDirection(e.target.value);
                    setCursors([]);
                  }}
                >
                  <option value="">Both</option>
                  <option value="push">Push (to the CRM)</option>
                  <option value="pull">Pull (from the CRM)</option>
                </select>
              </div>
              <div className="o-field">
                <label htmlFor={`${id}-outcome`}>Outcome</label>
                <select
                  id={`${id}-outcome`}
                  className="o-input"
                  value={outcome}
                  onChange={(e) => {
                    setOutcome(e.target.value);
                    setCursors([]);
                  }}
                >
                  <option value="">Any</option>
                  {OUTCOMES.map((o) => (
                    <option key={o} value={o}>
                      {o}
                    </option>
                  ))}
                </select>
              </div>
            </div>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: as the backlog's table above. */}
            <section className="o-table-wrap" tabIndex={0} aria-label="Sync log">
              <table className="o-table" aria-busy={page.isFetching}>
                <caption className="sr-only">Sync log</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Direction</th>
                    <th scope="col">What</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Lead</th>
                    <th scope="col">Detail</th>
                  </tr>
                </thead>
                <tbody>
                  {data.log.entries.length === 0 ? (
                    <tr>
                      <td colSpan={6}>No sync log entry matches.</td>
                    </tr>
                  ) : null}
                  {data.log.entries.map((e) => (
                    <tr key={e.id}>
                      <td>{formatWhen(e.at)}</td>
                      <td>{e.direction}</td>
                      <td>{e.kind}</td>
                      <td>
                        <strong>{e.outcome}</strong>
                      </td>
                      <td className="o-mono">{e.leadId ? <Link to={`/inbox/${e.leadId}`}>{e.leadId}</Link> : '—'}</td>
                      <td>
                        <Untrusted>{e.detail}</Untrusted>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
            <CursorPager label="Sync log pages" cursors={cursors} setCursors={setCursors} nextCursor={data.log.nextCursor} />
          </section>
        </>
      ) : null}
    </>
  );
}
