import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { DraftQueue } from '../../shared/components/DraftQueue.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { learningCallTool, offeredFromDocument, OfferedToolsProvider, useOffered } from '../../shared/offered.js';
import { CallToolProvider, type ToolError, type ToolResult, unwrap } from '../../shared/seam.js';
import type { ListDraftsResult, ToolArgs } from '../../shared/types.js';
import { applyHostContext, LiteBridge } from './lite-bridge.js';
import '../../shared/theme.css';
import './views.css';

/**
 * The drafts view: the result of list_drafts in the chat, as the dashboard's queue (the same
 * component, through the same callTool seam), to edit, approve one or a selection, and reject.
 */

// Listening from the start, so the input and result the host sends after the handshake are kept.
const bridge = new LiteBridge({ name: 'outreach-drafts', version: '1.0.0' });

interface Handed {
  args: Record<string, unknown>;
  result: ToolResult | null;
}
let handed: Handed = { args: {}, result: null };
const listeners = new Set<() => void>();
const hand = (change: Partial<Handed>) => {
  handed = { ...handed, ...change };
  for (const l of listeners) l();
};
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => void listeners.delete(l);
};
bridge.ontoolinput = (args) => hand({ args });
bridge.ontoolresult = (result) => hand({ result });
bridge.onhostcontext = applyHostContext;
const connected = bridge.connect().then(applyHostContext);

/** The list_drafts arguments the host's call carried, as the queue's own. */
function queueArgs(args: Record<string, unknown>): ToolArgs<'list_drafts'> {
  const out: ToolArgs<'list_drafts'> = {};
  if (typeof args.campaignId === 'string') out.campaignId = args.campaignId;
  if (typeof args.status === 'string') out.status = args.status as NonNullable<ToolArgs<'list_drafts'>['status']>;
  if (typeof args.limit === 'number') out.limit = args.limit;
  return out;
}

function Drafts() {
  const [error, setError] = useState<Error | null>(null);
  const { refuse } = useOffered();
  const callTool = useMemo(() => learningCallTool((name, args) => bridge.callServerTool(name, args), refuse), [refuse]);
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } }));
  const { args, result } = useSyncExternalStore(subscribe, () => handed);

  useEffect(() => {
    connected.catch((err: unknown) => setError(err instanceof Error ? err : new Error(String(err))));
    // The sandbox opens no windows: a lead's profile link goes to the host, which asks the user.
    const onClick = (event: MouseEvent) => {
      const href = (event.target as Element | null)?.closest?.('a[href]')?.getAttribute('href');
      if (!href || !/^https?:/i.test(href)) return;
      event.preventDefault();
      void bridge.openLink(href);
    };
    document.addEventListener('click', onClick);
    return () => document.removeEventListener('click', onClick);
  }, []);

  if (error) return <ErrorNote error={error} prefix="Could not connect to the host" />;
  if (!result) return <Loading label="Waiting for the drafts…" />;
  let data: ListDraftsResult;
  try {
    data = unwrap<ListDraftsResult>(result);
  } catch (err) {
    return <ErrorNote error={err as ToolError} />;
  }
  return (
    <QueryClientProvider client={queryClient}>
      <CallToolProvider callTool={callTool}>
        <h1 className="o-view-title">Drafts to review</h1>
        <DraftQueue args={queueArgs(args)} initial={data} shortcuts />
      </CallToolProvider>
    </QueryClientProvider>
  );
}

const root = document.getElementById('root');
if (!root) throw new Error('The view document has no #root element.');
createRoot(root).render(
  <OfferedToolsProvider initial={offeredFromDocument(document)}>
    <main className="o-root o-view">
      <Drafts />
    </main>
  </OfferedToolsProvider>,
);
