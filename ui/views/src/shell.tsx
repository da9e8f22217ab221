import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useApp, useHostStyles, type App } from '@modelcontextprotocol/ext-apps/react';
import { useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { CallToolProvider, unwrap, type CallTool, type ToolError, type ToolResult } from '../../shared/seam.js';
import { learningCallTool, offeredFromDocument, OfferedToolsProvider, useOffered } from '../../shared/offered.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import '../../shared/theme.css';
import './views.css';

/** The seam over the host bridge: the same CallToolResult shape the dashboard's route returns. */
const bridgeCallTool =
  (app: App): CallTool =>
  async (name, args) =>
    (await app.callServerTool({ name, arguments: args })) as ToolResult;

export interface ViewProps<T> {
  /** The structured result of the tool the host ran, unwrapped. */
  data: T;
  /** The arguments the host called it with, when it sent them. */
  args: Record<string, unknown>;
}

interface ViewSpec<T> {
  name: string;
  /** Shown while the host has not yet handed over the tool result. */
  waiting: string;
  render: (props: ViewProps<T>) => ReactNode;
  /**
   * Rendered beside the view while it is shown: the drafts view's reads of the server's changes
   * (./live.tsx). A prop, not an import of the shell, so the views that do not refresh carry none
   * of its code (each view has a size budget).
   */
  follow?: (props: { app: App; args: Record<string, unknown> }) => ReactNode;
}

/**
 * The sandbox may not open windows, so an outside link (a lead's profile) goes to the host,
 * which asks the user and opens it (ui/open-link).
 */
function useHostLinks(app: App): void {
  useEffect(() => {
    const onClick = (event: MouseEvent) => {
      const anchor = (event.target as Element | null)?.closest?.('a[href]');
      const href = anchor?.getAttribute('href');
      if (!href || !/^https?:/i.test(href)) return;
      event.preventDefault();
      void app.openLink({ url: href });
    };
    document.addEventListener('click', onClick);
    return () => document.removeEventListener('click', onClick);
  }, [app]);
}

function Connected<T>({ app, spec }: { app: App; spec: ViewSpec<T> }) {
  useHostLinks(app);
  const { refuse } = useOffered();
  const callTool = useMemo(() => learningCallTool(bridgeCallTool(app), refuse), [app, refuse]);
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } }));
  return (
    <QueryClientProvider client={queryClient}>
      <CallToolProvider callTool={callTool}>
        <Result app={app} spec={spec} />
      </CallToolProvider>
    </QueryClientProvider>
  );
}

/** Latest tool input and result, as the host hands them over (no call of our own to open). */
interface Handed {
  args: Record<string, unknown>;
  result: ToolResult | null;
  /** The host is tearing the view down: it renders nothing more, and its reads stop. */
  torn: boolean;
}

let handed: Handed = { args: {}, result: null, torn: false };
const listeners = new Set<() => void>();
const hand = (change: Partial<Handed>) => {
  handed = { ...handed, ...change };
  for (const l of listeners) l();
};
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};

/** Registered before connect, so a result the host sends right after the handshake is not missed. */
function listen(app: App): void {
  app.ontoolinput = (params) => hand({ args: params.arguments ?? {} });
  app.ontoolresult = (params) => hand({ result: params as ToolResult });
  app.onteardown = async () => {
    hand({ torn: true });
    return {};
  };
}

function Result<T>({ app, spec }: { app: App; spec: ViewSpec<T> }) {
  const { args, result, torn } = useSyncExternalStore(subscribe, () => handed);
  useHostStyles(app, app.getHostContext());
  if (torn) return null;
  if (!result) return <Loading label={spec.waiting} />;
  let data: T;
  try {
    data = unwrap<T>(result);
  } catch (err) {
    return <ErrorNote error={err as ToolError} />;
  }
  return (
    <>
      {spec.follow ? <spec.follow app={app} args={args} /> : null}
      {spec.render({ data, args })}
    </>
  );
}

function Shell<T>({ spec }: { spec: ViewSpec<T> }) {
  const { app, error } = useApp({ appInfo: { name: `outreach-${spec.name}`, version: '1.0.0' }, capabilities: {}, onAppCreated: listen });
  if (error) return <ErrorNote error={error} prefix="Could not connect to the host" />;
  if (!app) return <Loading label="Connecting to the host…" />;
  return <Connected app={app} spec={spec} />;
}

/** Mounts one view: the host bridge, the seam, the query cache, and what this connection offers. */
export function mountView<T>(spec: ViewSpec<T>): void {
  const root = document.getElementById('root');
  if (!root) throw new Error('The view document has no #root element.');
  // No StrictMode: its doubled effects would open a second bridge connection to the host.
  createRoot(root).render(
    <OfferedToolsProvider initial={offeredFromDocument(document)}>
      <main className="o-root o-view">
        <Shell spec={spec} />
      </main>
    </OfferedToolsProvider>,
  );
}
