import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Route, Router, Switch } from 'wouter';
import { Untrusted } from '../shared/components/Untrusted.js';
import { CallToolProvider } from '../shared/seam.js';
import { DEFAULT_LOGIN_COMMAND, dashboardCallTool, EVENTS_URL, fetchSession, logout, type Session } from './api.js';
import { useLiveEvents } from '../shared/live.js';
import { BASE, Link, useLocation } from './router.js';
import { AccountsPage } from './pages/Accounts.js';
import { ActivityPage } from './pages/Activity.js';
import { AgentEditorPage, AgentsPage } from './pages/Agents.js';
import { CampaignPage, CampaignsPage } from './pages/Campaigns.js';
import { DraftsNavCount, DraftsPage } from './pages/Drafts.js';
import { ExclusionsPage } from './pages/Exclusions.js';
import { ImportPage } from './pages/Import.js';
import { InboxPage } from './pages/Inbox.js';
import { KeysPage } from './pages/Keys.js';
import { MailboxesPage } from './pages/Mailboxes.js';
import { LeadPage } from './pages/Lead.js';
import { OverviewPage } from './pages/Overview.js';
import { SettingsPage } from './pages/Settings.js';
import { WebhooksPage } from './pages/Webhooks.js';
import { MembersPage } from './pages/Members.js';
import { AuditPage } from './pages/Audit.js';
import { CrmPage } from './pages/Crm.js';
import { AccessProvider, canAll } from '../shared/access.js';

/**
 * What each page needs to be of use: the tools it reads (and, for a page that exists to change
 * something, the tool it writes). A page is in the menu and opens only when the member's role
 * reaches all of them; the server refuses every other call anyway. The workspace pages also need
 * the overview, which a reviewer (Drafts and inbox only) does not read.
 */
const WORKSPACE = 'get_insights_overview';
const NEEDS: Record<string, readonly string[]> = {
  '/': [WORKSPACE],
  '/campaigns': ['get_campaign'],
  '/drafts': ['list_drafts'],
  '/leads': ['get_lead', WORKSPACE],
  '/agents': ['list_agents'],
  '/inbox': ['list_conversations'],
  '/accounts': ['list_accounts', WORKSPACE],
  '/mailboxes': ['list_mailboxes', WORKSPACE],
  '/import': ['start_import'],
  '/exclusions': ['list_exclusions'],
  '/activity': ['get_recent_activity'],
  '/webhooks': ['list_webhook_endpoints'],
  '/keys': ['list_api_keys'],
  '/settings': ['get_credits'],
  '/members': ['list_members'],
  '/audit': ['list_audit_events'],
  // The sync log is for every role that reads the workspace, so not a reviewer (the server checks the role too).
  '/crm': [WORKSPACE],
};

const NAV: { to: string; label: string }[] = [
  { to: '/', label: 'Overview' },
  { to: '/campaigns', label: 'Campaigns' },
  { to: '/drafts', label: 'Drafts' },
  { to: '/agents', label: 'Agents' },
  { to: '/inbox', label: 'Inbox' },
  { to: '/accounts', label: 'Accounts' },
  { to: '/mailboxes', label: 'Mailboxes' },
  { to: '/import', label: 'Import leads' },
  { to: '/exclusions', label: 'Exclusions' },
  { to: '/activity', label: 'Activity' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/keys', label: 'API keys' },
  { to: '/members', label: 'Members' },
  { to: '/audit', label: 'Audit' },
  { to: '/crm', label: 'CRM' },
  { to: '/settings', label: 'Settings' },
];

/** Whether the member's tools reach the page at `path` (its first segment names it). */
const reaches = (tools: readonly string[], path: string): boolean => canAll(tools, NEEDS[`/${path.split('/')[1] ?? ''}`] ?? []);

type Page = { title: string; render: (p: Record<string, string>) => ReactNode };
/** Every page, first match wins (so `/agents/new` before `/agents/:agentId`). */
const ROUTES: [string, Page][] = [
  ['/', { title: 'Overview', render: () => <OverviewPage /> }],
  ['/campaigns', { title: 'Campaigns', render: () => <CampaignsPage /> }],
  ['/campaigns/:campaignId', { title: 'Campaign', render: (p) => <CampaignPage campaignId={p.campaignId as string} /> }],
  ['/drafts', { title: 'Drafts', render: () => <DraftsPage /> }],
  ['/leads/:campaignId/:leadId', { title: 'Lead', render: (p) => <LeadPage campaignId={p.campaignId as string} leadId={p.leadId as string} /> }],
  ['/agents', { title: 'Agents', render: () => <AgentsPage /> }],
  ['/agents/new', { title: 'New agent', render: () => <AgentEditorPage agentId={null} /> }],
  ['/agents/:agentId', { title: 'Agent', render: (p) => <AgentEditorPage agentId={p.agentId as string} /> }],
  ['/inbox', { title: 'Inbox', render: () => <InboxPage leadId={null} /> }],
  ['/inbox/:leadId', { title: 'Inbox', render: (p) => <InboxPage leadId={p.leadId as string} /> }],
  ['/accounts', { title: 'Accounts', render: () => <AccountsPage /> }],
  ['/mailboxes', { title: 'Mailboxes', render: () => <MailboxesPage /> }],
  ['/import', { title: 'Import leads', render: () => <ImportPage /> }],
  ['/exclusions', { title: 'Exclusions', render: () => <ExclusionsPage /> }],
  ['/activity', { title: 'Activity', render: () => <ActivityPage /> }],
  ['/webhooks', { title: 'Webhooks', render: () => <WebhooksPage /> }],
  ['/keys', { title: 'API keys', render: () => <KeysPage /> }],
  ['/members', { title: 'Members', render: () => <MembersPage /> }],
  ['/audit', { title: 'Audit', render: () => <AuditPage /> }],
  ['/crm', { title: 'CRM', render: () => <CrmPage /> }],
  ['/settings', { title: 'Settings', render: () => <SettingsPage /> }],
];

/** A page's title in the tab, as a page load would set it. */
function Titled({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Outreach`;
  }, [title]);
  return <>{children}</>;
}

/** A page the member's role does not reach: said plainly, with where they can go. */
function NotForRole({ role }: { role: string }) {
  return (
    <>
      <h1 tabIndex={-1}>Not available to your role</h1>
      <p>
        Your role ({role}) does not include this page. The workspace's owner can change your role on the Members page. <Link to="/">Go to your start page</Link>
      </p>
    </>
  );
}

function Pages({ session }: { session: Session }) {
  // A reviewer's dashboard is the Drafts queue and the inbox: their start page is the queue.
  const home = reaches(session.tools, '/') ? null : <DraftsPage />;
  return (
    <Switch>
      {ROUTES.map(([pattern, page]) => (
        <Route key={pattern} path={pattern}>
          {(params) => {
            if (pattern === '/' && home) return <Titled title="Drafts">{home}</Titled>;
            if (!reaches(session.tools, pattern)) return <Titled title="Not available">{<NotForRole role={session.member.role} />}</Titled>;
            return <Titled title={page.title}>{page.render(params as Record<string, string>)}</Titled>;
          }}
        </Route>
      ))}
      <Route>
        <Titled title="Not found">
          <h1 tabIndex={-1}>Page not found</h1>
          <p>
            <Link to="/">Back to the overview</Link>
          </p>
        </Titled>
      </Route>
    </Switch>
  );
}

/**
 * What the operator sees without a session: how to get a link, and no workspace data. The
 * command is the server's (with `--db` when it runs on another database than the default).
 */
export function SignedOut({ command = DEFAULT_LOGIN_COMMAND }: { command?: string }) {
  return (
    <main className="o-root d-login o-card">
      <h1>Signed out</h1>
      <p>
        This dashboard opens with a one-time login link. On the machine that runs the server, run <code>{command}</code> and open the link it prints. Each link
        works once, for 15 minutes.
      </p>
      <p>
        That command makes the owner’s link; a member’s is made with <code>--member</code> and the member’s id. If you are a member, ask the workspace’s owner
        for a link: a session also ends when the owner disables a member.
      </p>
    </main>
  );
}

function Shell({ session }: { session: Session }) {
  // What the server changes (the engine, another tab, the CLI) reaches the open page at once.
  useLiveEvents(EVENTS_URL);
  const { path } = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per navigation, which `path` marks.
  useEffect(() => {
    // After a client-side navigation, move focus to the new page's heading, as a page load would.
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [path]);

  const section = `/${path.split('/')[1] ?? ''}`;
  const links = useRef<HTMLUListElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per section, which `section` marks.
  useEffect(() => {
    // On a narrow screen the links are one row that scrolls sideways: the current page's is brought into it.
    const list = links.current;
    const current = list?.querySelector('[aria-current="page"]');
    if (!list || !current || list.scrollWidth <= list.clientWidth) return;
    const [box, link] = [list.getBoundingClientRect(), current.getBoundingClientRect()];
    if (link.left < box.left || link.right > box.right) list.scrollLeft += link.left - box.left - (box.width - link.width) / 2;
  }, [section]);
  return (
    <div className="o-root d-shell">
      <a className="d-skip" href="#main">
        Skip to content
      </a>
      <nav className="d-nav" aria-label="Dashboard">
        <div className="d-brand">Outreach</div>
        <div className="d-ws">
          <Untrusted>{session.workspace.name}</Untrusted> · {session.workspace.plan} · {session.workspace.env}
        </div>
        <div className="d-ws">
          <Untrusted>{session.member.name}</Untrusted> · {session.member.role}
        </div>
        <ul ref={links}>
          {NAV.filter((item) => reaches(session.tools, item.to)).map((item) => (
            <li key={item.to}>
              <Link to={item.to} aria-current={section === item.to || (item.to === '/' && path === '/') ? 'page' : undefined}>
                {item.label}
                {item.to === '/drafts' ? <DraftsNavCount /> : null}
              </Link>
            </li>
          ))}
        </ul>
        <button
          type="button"
          className="o-button"
          onClick={async () => {
            await logout();
            window.location.reload();
          }}
        >
          Log out
        </button>
      </nav>
      <main id="main" className="d-main" ref={main}>
        <AccessProvider tools={session.tools}>
          <Pages session={session} />
        </AccessProvider>
      </main>
    </div>
  );
}

export function App() {
  const [signedOut, setSignedOut] = useState<string | null>(null);
  const client = useMemo(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: { retry: (count, error) => (error as { code?: string }).code !== 'unauthorized' && count < 1, refetchOnWindowFocus: true, staleTime: 2_000 },
        },
      }),
    [],
  );
  const callTool = useMemo(() => dashboardCallTool((command) => setSignedOut(command)), []);
  return (
    <QueryClientProvider client={client}>
      <CallToolProvider callTool={callTool}>{signedOut !== null ? <SignedOut command={signedOut} /> : <SessionGate />}</CallToolProvider>
    </QueryClientProvider>
  );
}

function SessionGate() {
  const session = useQuery({ queryKey: ['session'], queryFn: fetchSession, staleTime: Infinity, retry: false });
  if (session.isPending)
    return (
      <p role="status" className="o-root">
        Loading…
      </p>
    );
  if (session.error)
    return (
      <main className="o-root d-login o-card">
        <h1>Cannot reach the server</h1>
        <p role="alert">{session.error.message}</p>
      </main>
    );
  if ('signedOut' in session.data) return <SignedOut command={session.data.signedOut} />;
  return (
    <Router base={BASE}>
      <Shell session={session.data} />
    </Router>
  );
}
