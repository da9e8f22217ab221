import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { newIdempotencyKey, useTool, useToolMutation } from '../../shared/hooks.js';
import { useClearAfter, useSavedMark } from '../../shared/forms.js';
import type { ToolError } from '../../shared/seam.js';
import type { ConnectMailboxArgs, Mailbox } from '../../shared/types.js';
import { useCan } from '../../shared/access.js';
import type { Session } from '../api.js';

const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
type Weekday = (typeof WEEKDAYS)[number];
const DAY_NAMES: Record<Weekday, string> = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };
const WORK_WEEK: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri'];

/** Servers whose settings are public: picking one fills host, port and TLS; the person still names the password variable. */
const PROVIDERS = {
  google: {
    label: 'Google Workspace or Gmail',
    smtp: { host: 'smtp.gmail.com', port: 465, secure: true },
    imap: { host: 'imap.gmail.com', port: 993, secure: true },
  },
  microsoft: {
    label: 'Microsoft 365',
    smtp: { host: 'smtp.office365.com', port: 587, secure: false },
    imap: { host: 'outlook.office365.com', port: 993, secure: true },
  },
  fastmail: { label: 'Fastmail', smtp: { host: 'smtp.fastmail.com', port: 465, secure: true }, imap: { host: 'imap.fastmail.com', port: 993, secure: true } },
  other: { label: 'Another provider', smtp: { host: '', port: 587, secure: false }, imap: { host: '', port: 993, secure: true } },
} as const;
type Provider = keyof typeof PROVIDERS;

const STATUS_LABEL: Record<Mailbox['status'], string> = { connected: 'connected', paused: 'paused', login_failed: 'login refused' };

/**
 * A refused login, said with the server that refused it (`details.server` and `details.host` of
 * `mailbox_login_failed`) and what to check; any other error as the server words it.
 */
function ConnectError({ error, prefix, envNames }: { error: ToolError | Error | null; prefix: string; envNames: Partial<Record<'smtp' | 'imap', string>> }) {
  if (!error) return null;
  const details = 'details' in error ? (error.details as { server?: unknown; host?: unknown; passwordEnv?: unknown }) : {};
  if (!('code' in error) || error.code !== 'mailbox_login_failed' || (details.server !== 'smtp' && details.server !== 'imap'))
    return <ErrorNote error={error} prefix={prefix} />;
  const server = details.server;
  // The server has no such variable: no login was tried (details.passwordEnv names it).
  if (typeof details.passwordEnv === 'string')
    return (
      <div role="alert" className="o-alert o-alert-error">
        <strong>
          The {server.toUpperCase()} password variable <code>{details.passwordEnv}</code> is not set where the server runs.
        </strong>{' '}
        Nothing was saved. Set it to this mailbox's password in the server's environment, restart the server, then connect again.
      </div>
    );
  const env = envNames[server];
  return (
    <div role="alert" className="o-alert o-alert-error">
      <strong>
        The {server.toUpperCase()} server {typeof details.host === 'string' ? details.host : ''} refused the login.
      </strong>{' '}
      Nothing was saved. Check that {env ? <code>{env}</code> : 'the password variable'} is set where the server runs and holds this mailbox's password (an app
      password for Google).
      <br />
      <span className="o-muted">{error.message}</span>
    </div>
  );
}

function TodayMeter({ mailbox }: { mailbox: Mailbox }) {
  const { sent, limit } = mailbox.today;
  return (
    <div className="o-meter-row">
      <span>Emails today</span>
      <meter min={0} max={Math.max(limit, 1)} high={Math.max(limit, 1) * 0.9} value={sent} aria-label={`Emails today: ${sent} of ${limit}`} />
      <span>
        {sent} / {limit}
      </span>
    </div>
  );
}

type HoursMode = 'default' | 'always' | 'window';

/** A mailbox's emails per day, as the settings and the connect form both ask for it. */
function DailyLimitField({ id, value, onChange }: { id: string; value: string; onChange: (value: string) => void }) {
  return (
    <div className="o-field">
      <label htmlFor={`${id}-l`}>Emails per day</label>
      <input id={`${id}-l`} className="o-input" type="number" min={1} max={500} required value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/** Limits, warm-up, spacing and working hours of one mailbox; only what changed is sent. */
function MailboxSettings({ mailbox }: { mailbox: Mailbox }) {
  const id = useId();
  const hours = mailbox.workingHours;
  const [dailyLimit, setDailyLimit] = useState(String(mailbox.dailyLimit));
  const [spacing, setSpacing] = useState(String(mailbox.spacingSeconds));
  const [warmUp, setWarmUp] = useState(mailbox.warmUp !== null);
  const [mode, setMode] = useState<HoursMode>(hours === null ? 'default' : hours === 'always' ? 'always' : 'window');
  const [start, setStart] = useState(hours && hours !== 'always' ? hours.start : '09:00');
  const [end, setEnd] = useState(hours && hours !== 'always' ? hours.end : '17:00');
  const [days, setDays] = useState<Weekday[]>(hours && hours !== 'always' ? (hours.days as Weekday[]) : WORK_WEEK);
  const [timeZone, setTimeZone] = useState(mailbox.timeZone ?? '');
  const form = { dailyLimit, spacing, warmUp, mode, start, end, days, timeZone };
  const { saved, mark } = useSavedMark(form);
  const update = useToolMutation('update_mailbox', ['list_mailboxes']);

  const save = (e: FormEvent) => {
    e.preventDefault();
    const args: Parameters<typeof update.mutate>[0] = { mailboxId: mailbox.id };
    if (Number(dailyLimit) !== mailbox.dailyLimit) args.dailyLimit = Number(dailyLimit);
    if (Number(spacing) !== mailbox.spacingSeconds) args.spacingSeconds = Number(spacing);
    if (warmUp !== (mailbox.warmUp !== null)) args.warmUp = warmUp;
    if (timeZone.trim() !== (mailbox.timeZone ?? '') && timeZone.trim() !== '') args.timeZone = timeZone.trim();
    if (mode === 'always' && hours !== 'always') args.workingHours = 'always';
    if (mode === 'window') {
      const next = { start, end, days: WEEKDAYS.filter((d) => days.includes(d)) };
      if (hours === null || hours === 'always' || JSON.stringify(next) !== JSON.stringify({ start: hours.start, end: hours.end, days: hours.days }))
        args.workingHours = next;
    }
    if (Object.keys(args).length === 1) {
      mark(form);
      return;
    }
    update.mutate(args, { onSuccess: () => mark(form) });
  };

  return (
    <form onSubmit={save} className="o-stack" aria-label={`Settings of ${mailbox.name}`}>
      <div className="o-row">
        <DailyLimitField id={id} value={dailyLimit} onChange={setDailyLimit} />
        <div className="o-field">
          <label htmlFor={`${id}-s`}>Seconds between emails</label>
          <input id={`${id}-s`} className="o-input" type="number" min={10} max={3600} required value={spacing} onChange={(e) => setSpacing(e.target.value)} />
        </div>
      </div>
      <div className="o-row">
        <input id={`${id}-w`} type="checkbox" checked={warmUp} onChange={(e) => setWarmUp(e.target.checked)} aria-describedby={`${id}-wh`} />
        <label htmlFor={`${id}-w`}>Warm-up</label>
      </div>
      <p id={`${id}-wh`} className="o-hint">
        A warm-up starts at 10 emails a day and rises over 21 days to the daily limit. Unticking ends it; ticking starts one from today.
      </p>
      <fieldset className="o-senders">
        <legend>Working hours</legend>
        <div className="o-row">
          {(
            [
              ['default', "The server's default"],
              ['always', 'Any hour'],
              ['window', 'Only these hours'],
            ] as const
          ).map(([value, label]) => (
            <span key={value} className="o-row">
              <input
                id={`${id}-h-${value}`}
                type="radio"
                name={`${id}-hours`}
                value={value}
                checked={mode === value}
                disabled={value === 'default' && hours !== null}
                onChange={() => setMode(value)}
              />
              <label htmlFor={`${id}-h-${value}`}>{label}</label>
            </span>
          ))}
        </div>
        {mode === 'window' ? (
          <>
            <div className="o-row">
              <div className="o-field">
                <label htmlFor={`${id}-from`}>From</label>
                <input id={`${id}-from`} className="o-input" type="time" required value={start} onChange={(e) => setStart(e.target.value)} />
              </div>
              <div className="o-field">
                <label htmlFor={`${id}-to`}>Until</label>
                <input id={`${id}-to`} className="o-input" type="time" required value={end} onChange={(e) => setEnd(e.target.value)} />
              </div>
            </div>
            <div className="o-row" role="group" aria-label="Days">
              {WEEKDAYS.map((d) => (
                <span key={d} className="o-row">
                  <input
                    id={`${id}-d-${d}`}
                    type="checkbox"
                    checked={days.includes(d)}
                    onChange={(e) => setDays(e.target.checked ? [...days, d] : days.filter((x) => x !== d))}
                  />
                  <label htmlFor={`${id}-d-${d}`}>{DAY_NAMES[d]}</label>
                </span>
              ))}
            </div>
          </>
        ) : null}
        <div className="o-field">
          <label htmlFor={`${id}-tz`}>Time zone</label>
          <input
            id={`${id}-tz`}
            className="o-input"
            placeholder="Europe/Berlin"
            value={timeZone}
            onChange={(e) => setTimeZone(e.target.value)}
            aria-describedby={`${id}-tzh`}
          />
          <span id={`${id}-tzh`} className="o-hint">
            An IANA zone; blank keeps {mailbox.timeZone ? 'the one set' : "the server's"}.
          </span>
        </div>
      </fieldset>
      <div className="o-row">
        <button type="submit" className="o-button" disabled={update.isPending}>
          Save settings
        </button>
        {saved ? <span role="status">Saved.</span> : null}
      </div>
      <ErrorNote error={update.error} prefix="Could not save" />
    </form>
  );
}

function MailboxCard({ mailbox }: { mailbox: Mailbox }) {
  const id = useId();
  const canUpdate = useCan('update_mailbox');
  const toggle = useToolMutation('update_mailbox', ['list_mailboxes']);
  const active = mailbox.status === 'connected';
  return (
    <article className="o-card o-stack" aria-labelledby={`${id}-h`}>
      <div className="o-row-between">
        <h2 id={`${id}-h`}>
          <Untrusted>{mailbox.name}</Untrusted>
        </h2>
        <span className={active ? 'o-badge o-badge-running' : 'o-badge o-badge-paused'}>{STATUS_LABEL[mailbox.status]}</span>
      </div>
      <p className="o-muted">
        <span className="o-mono">{mailbox.address}</span>
        {mailbox.fromName ? (
          <>
            {' '}
            · From “<Untrusted>{mailbox.fromName}</Untrusted>”
          </>
        ) : null}
      </p>
      <p className="o-muted">
        {mailbox.sim ? 'Simulated mailbox (development)' : `Sends by ${mailbox.smtp?.host}:${mailbox.smtp?.port} (password in ${mailbox.smtp?.passwordEnv})`}
        {mailbox.sim ? null : mailbox.imap ? (
          <>
            <br />
            Reads replies from {mailbox.imap.host}:{mailbox.imap.port} (password in {mailbox.imap.passwordEnv})
          </>
        ) : (
          <>
            <br />
            No IMAP server: replies and bounces are not read.
          </>
        )}
      </p>
      {mailbox.lastError ? <p className="o-alert o-alert-error d-note">{mailbox.lastError}</p> : null}
      <TodayMeter mailbox={mailbox} />
      {mailbox.warmUp ? (
        <p className="o-alert o-alert-warning d-note">
          <strong>
            Warm-up: day {mailbox.warmUp.day} of {mailbox.warmUp.days}.
          </strong>{' '}
          Today’s limit is {mailbox.today.limit} of {mailbox.dailyLimit}; it rises each day.
        </p>
      ) : (
        <p className="o-muted">No warm-up: up to {mailbox.dailyLimit} emails a day.</p>
      )}
      {canUpdate ? (
        <>
          <details className="d-mailbox-settings">
            <summary>Limits, warm-up and hours of {mailbox.address}</summary>
            <MailboxSettings mailbox={mailbox} />
          </details>
          <div className="o-row">
            <button type="button" className="o-button" disabled={toggle.isPending} onClick={() => toggle.mutate({ mailboxId: mailbox.id, active: !active })}>
              {active ? `Pause ${mailbox.address}` : `Resume ${mailbox.address}`}
            </button>
          </div>
          <ConnectError error={toggle.error} prefix="Could not change" envNames={{ smtp: mailbox.smtp?.passwordEnv, imap: mailbox.imap?.passwordEnv }} />
        </>
      ) : (
        <p className="o-muted">
          {mailbox.spacingSeconds} seconds between emails ·{' '}
          {mailbox.workingHours === null
            ? "the server's working hours"
            : mailbox.workingHours === 'always'
              ? 'any hour'
              : `${mailbox.workingHours.start}–${mailbox.workingHours.end}, ${mailbox.workingHours.days.join(', ')}`}
          {mailbox.timeZone ? ` (${mailbox.timeZone})` : ''}
        </p>
      )}
    </article>
  );
}

interface ServerFields {
  host: string;
  port: string;
  secure: boolean;
  user: string;
  passwordEnv: string;
}

/** One server's fields: host, port, TLS, login and the NAME of the variable holding the password. */
function ServerFieldset({
  legend,
  value,
  onChange,
  defaultUser,
}: {
  legend: string;
  value: ServerFields;
  onChange: (v: ServerFields) => void;
  defaultUser: string;
}) {
  const id = useId();
  return (
    <fieldset className="o-senders">
      <legend>{legend}</legend>
      <div className="o-row">
        <div className="o-field">
          <label htmlFor={`${id}-host`}>{legend} host</label>
          <input id={`${id}-host`} className="o-input" required value={value.host} onChange={(e) => onChange({ ...value, host: e.target.value })} />
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-port`}>{legend} port</label>
          <input
            id={`${id}-port`}
            className="o-input"
            type="number"
            min={1}
            max={65535}
            required
            value={value.port}
            // 465 and 993 speak TLS from the first byte; other ports upgrade with STARTTLS.
            onChange={(e) => onChange({ ...value, port: e.target.value, secure: e.target.value === '465' || e.target.value === '993' })}
          />
        </div>
        <span className="o-row">
          <input id={`${id}-tls`} type="checkbox" checked={value.secure} onChange={(e) => onChange({ ...value, secure: e.target.checked })} />
          <label htmlFor={`${id}-tls`}>{legend}: TLS from the first byte</label>
        </span>
      </div>
      <div className="o-row">
        <div className="o-field">
          <label htmlFor={`${id}-user`}>{legend} login (optional)</label>
          <input
            id={`${id}-user`}
            className="o-input"
            placeholder={defaultUser || 'the address'}
            value={value.user}
            onChange={(e) => onChange({ ...value, user: e.target.value })}
          />
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-env`}>{legend} password variable</label>
          <input
            id={`${id}-env`}
            className="o-input o-mono"
            required
            pattern="[A-Za-z_][A-Za-z0-9_]*"
            placeholder="SMTP_PASSWORD"
            autoComplete="off"
            spellCheck={false}
            value={value.passwordEnv}
            onChange={(e) => onChange({ ...value, passwordEnv: e.target.value })}
            aria-describedby={`${id}-envh`}
          />
          <span id={`${id}-envh`} className="o-hint">
            The name of an environment variable on the server, not the password.
          </span>
        </div>
      </div>
    </fieldset>
  );
}

const serverOf = (p: Provider, kind: 'smtp' | 'imap', passwordEnv: string): ServerFields => ({
  host: PROVIDERS[p][kind].host,
  port: String(PROVIDERS[p][kind].port),
  secure: PROVIDERS[p][kind].secure,
  user: '',
  passwordEnv,
});

const toServer = (s: ServerFields) => ({
  host: s.host.trim(),
  port: Number(s.port),
  secure: s.secure,
  ...(s.user.trim() ? { user: s.user.trim() } : {}),
  passwordEnv: s.passwordEnv.trim(),
});

/**
 * Connect a mailbox: the servers' settings and the NAMES of the variables holding the passwords.
 * The server logs in before it saves; a refused login names the server that refused.
 */
function Connect() {
  const id = useId();
  const env = useQueryClient().getQueryData<Session>(['session'])?.workspace.env;
  const simulatable = env !== undefined && env !== 'production';
  const [provider, setProvider] = useState<Provider>('google');
  const [sim, setSim] = useState(false);
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const [fromName, setFromName] = useState('');
  const [smtp, setSmtp] = useState<ServerFields>(serverOf('google', 'smtp', ''));
  const [readImap, setReadImap] = useState(true);
  const [imap, setImap] = useState<ServerFields>(serverOf('google', 'imap', ''));
  const [dailyLimit, setDailyLimit] = useState('50');
  const [warmUp, setWarmUp] = useState(true);
  const [done, setDone] = useState<string | null>(null);
  const connect = useToolMutation('connect_mailbox', ['list_mailboxes']);

  const pick = (p: Provider) => {
    setProvider(p);
    setSmtp(serverOf(p, 'smtp', smtp.passwordEnv));
    setImap(serverOf(p, 'imap', imap.passwordEnv));
  };

  const clearAfter = useClearAfter({ name, address, fromName });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(null);
    const sent = { name, address, fromName };
    const args: ConnectMailboxArgs & { idempotencyKey: string } = {
      name: name.trim(),
      address: address.trim(),
      ...(fromName.trim() ? { fromName: fromName.trim() } : {}),
      ...(sim ? { sim: true as const } : { smtp: toServer(smtp), imap: readImap ? toServer(imap) : null }),
      dailyLimit: Number(dailyLimit),
      warmUp,
      idempotencyKey: newIdempotencyKey(),
    };
    connect.mutate(args, {
      onSuccess: (r) => {
        setDone(`${r.mailbox.address} is connected.`);
        clearAfter(sent, () => {
          setName('');
          setAddress('');
          setFromName('');
        });
      },
    });
  };

  return (
    <form className="o-card o-stack" onSubmit={submit} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Connect a mailbox</h2>
      <p className="o-hint">
        Passwords never pass through this page. Put each one in an environment variable where the server runs (for example <code>SMTP_PASSWORD</code>) and give
        its name here. The server logs in before it saves the mailbox.
      </p>
      <div className="o-row">
        <div className="o-field">
          <label htmlFor={`${id}-n`}>Mailbox name</label>
          <input id={`${id}-n`} className="o-input" required maxLength={120} value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-a`}>Address</label>
          <input id={`${id}-a`} className="o-input" type="email" required value={address} onChange={(e) => setAddress(e.target.value)} />
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-f`}>From name (optional)</label>
          <input id={`${id}-f`} className="o-input" maxLength={120} value={fromName} onChange={(e) => setFromName(e.target.value)} />
        </div>
      </div>
      {simulatable ? (
        <div className="o-row">
          <input id={`${id}-sim`} type="checkbox" checked={sim} onChange={(e) => setSim(e.target.checked)} aria-describedby={`${id}-simh`} />
          <label htmlFor={`${id}-sim`}>Simulated mailbox (development)</label>
          <span id={`${id}-simh`} className="o-hint">
            Needs no server: replies, bounces and unsubscribes follow markers in the recipient's address.
          </span>
        </div>
      ) : null}
      {sim ? null : (
        <>
          <div className="o-field">
            <label htmlFor={`${id}-p`}>Provider</label>
            <select id={`${id}-p`} className="o-select" value={provider} onChange={(e) => pick(e.target.value as Provider)} aria-describedby={`${id}-ph`}>
              {(Object.keys(PROVIDERS) as Provider[]).map((p) => (
                <option key={p} value={p}>
                  {PROVIDERS[p].label}
                </option>
              ))}
            </select>
            <span id={`${id}-ph`} className="o-hint">
              Fills in the provider's servers. Google needs an app password; Microsoft 365 needs SMTP AUTH turned on for the mailbox.
            </span>
          </div>
          <ServerFieldset legend="SMTP" value={smtp} onChange={setSmtp} defaultUser={address} />
          <div className="o-row">
            <input id={`${id}-ri`} type="checkbox" checked={readImap} onChange={(e) => setReadImap(e.target.checked)} />
            <label htmlFor={`${id}-ri`}>Read replies and bounces by IMAP</label>
          </div>
          {readImap ? <ServerFieldset legend="IMAP" value={imap} onChange={setImap} defaultUser={address} /> : null}
        </>
      )}
      <div className="o-row">
        <DailyLimitField id={id} value={dailyLimit} onChange={setDailyLimit} />
        <span className="o-row">
          <input id={`${id}-w`} type="checkbox" checked={warmUp} onChange={(e) => setWarmUp(e.target.checked)} />
          <label htmlFor={`${id}-w`}>Warm up over 21 days</label>
        </span>
      </div>
      <div className="o-row">
        <button type="submit" className="o-button o-button-primary" disabled={connect.isPending}>
          {connect.isPending ? 'Logging in…' : 'Connect mailbox'}
        </button>
        {done ? <span role="status">{done}</span> : null}
      </div>
      <ConnectError error={connect.error} prefix="Could not connect" envNames={{ smtp: smtp.passwordEnv, imap: imap.passwordEnv }} />
    </form>
  );
}

/** The email channel's senders: status, today's emails against the limit, warm-up; settings and connect for who may change them. */
export function MailboxesPage() {
  const mailboxes = useTool('list_mailboxes', { limit: 100 }, { refetchInterval: 10_000 });
  const canConnect = useCan('connect_mailbox');
  return (
    <>
      <h1 tabIndex={-1}>Mailboxes</h1>
      <ErrorNote error={mailboxes.error} />
      {mailboxes.isPending ? <Loading label="Loading mailboxes…" /> : null}
      {mailboxes.data?.mailboxes.length === 0 ? <p>No mailbox yet. Connect one to send the email steps of your sequences.</p> : null}
      <div className="o-grid">
        {mailboxes.data?.mailboxes.map((m) => (
          <MailboxCard key={m.id} mailbox={m} />
        ))}
      </div>
      {canConnect ? <Connect /> : null}
    </>
  );
}
