import type { App } from '@modelcontextprotocol/ext-apps/react';
import { useMemo } from 'react';
import { type ReadResource, useHostChanges } from '../../shared/live.js';

/** How long one read of the server's changes may take: above the server's longest wait (25 s). */
const CHANGES_READ_TIMEOUT_MS = 45_000;

/**
 * The server's changes, read through the host while the view is shown (ui/shared/live.ts): the
 * queue refreshes when something changes, instead of every few seconds. A host that does not
 * pass resource reads on (no `serverResources` among its capabilities) leaves the view polling.
 * A view of one campaign hears of that campaign only.
 */
export function HostChanges({ app, args }: { app: App; args: Record<string, unknown> }) {
  const proxies = app.getHostCapabilities()?.serverResources !== undefined;
  const read = useMemo<ReadResource | null>(
    () => (proxies ? (uri, signal) => app.readServerResource({ uri }, { signal, timeout: CHANGES_READ_TIMEOUT_MS }) : null),
    [app, proxies],
  );
  useHostChanges(read, typeof args.campaignId === 'string' ? args.campaignId : undefined);
  return null;
}
