import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { learningCallTool, offeredFromDocument, OfferedToolsProvider, useOffered } from '../../shared/offered.js';
import { CallToolProvider, type ToolError, type ToolResult, unwrap } from '../../shared/seam.js';
import { applyHostContext, LiteBridge } from './lite-bridge.js';
import '../../shared/theme.css';
import './views.css';

/**
 * `mountView` of shell.tsx, over the small bridge of lite-bridge.ts instead of ext-apps' `App`,
 * with the same spec: a view written for one mounts on the other unchanged.
 */
export interface LiteViewProps<T> {
  data: T;
  args: Record<string, unknown>;
}

interface LiteViewSpec<T> {
  name: string;
  waiting: string;
  render: (props: LiteViewProps<T>) => ReactNode;
}

interface Handed {
  args: Record<string, unknown>;
  result: ToolResult | null;
}

/** What the host handed over so far, as an external store for React. */
interface HandedStore {
  subscribe: (listener: () => void) => () => void;
  get: () => Handed;
}

function LiteView<T>({ spec, bridge, store, connected }: { spec: LiteViewSpec<T>; bridge: LiteBridge; store: HandedStore; connected: Promise<void> }) {
  const [error, setError] = useState<Error | null>(null);
  const { refuse } = useOffered();
  const callTool = useMemo(() => learningCallTool((name, args) => bridge.callServerTool(name, args), refuse), [bridge, refuse]);
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } }));
  const { args, result } = useSyncExternalStore(store.subscribe, store.get);

  useEffect(() => {
    connected.catch((err: unknown) => setError(err instanceof Error ? err : new Error(String(err))));
    // The sandbox opens no windows: an outside link (a lead's profile) goes to the host, which asks the user.
    const onClick = (event: MouseEvent) => {
      const href = (event.target as Element | null)?.closest?.('a[href]')?.getAttribute('href');
      if (!href || !/^https?:/i.test(href)) return;
      event.preventDefault();
      void bridge.openLink(href);
    };
    document.addEventListener('click', onClick);
    return () => document.removeEventListener('click', onClick);
  }, [bridge, connected]);

  if (error) return <ErrorNote error={error} prefix="Could not connect to the host" />;
  if (!result) return <Loading label={spec.waiting} />;
  let data: T;
  try {
    data = unwrap<T>(result);
  } catch (err) {
    return <ErrorNote error={err as ToolError} />;
  }
  return (
    <QueryClientProvider client={queryClient}>
      <CallToolProvider callTool={callTool}>{spec.render({ data, args })}</CallToolProvider>
    </QueryClientProvider>
  );
}

export function mountLiteView<T>(spec: LiteViewSpec<T>): void {
  // Listening from the start, so the input and result the host sends after the handshake are kept.
  const bridge = new LiteBridge({ name: `outreach-${spec.name}`, version: '1.0.0' });
  let handed: Handed = { args: {}, result: null };
  const listeners = new Set<() => void>();
  const hand = (change: Partial<Handed>) => {
    handed = { ...handed, ...change };
    for (const l of listeners) l();
  };
  const store: HandedStore = {
    subscribe: (l) => {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
    get: () => handed,
  };
  bridge.ontoolinput = (args) => hand({ args });
  bridge.ontoolresult = (result) => hand({ result });
  bridge.onhostcontext = applyHostContext;
  const connected = bridge.connect().then(applyHostContext);

  const root = document.getElementById('root');
  if (!root) throw new Error('The view document has no #root element.');
  createRoot(root).render(
    <OfferedToolsProvider initial={offeredFromDocument(document)}>
      <main className="o-root o-view">
        <LiteView spec={spec} bridge={bridge} store={store} connected={connected} />
      </main>
    </OfferedToolsProvider>,
  );
}
