import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import type { ToolName } from './types.js';

/*
 * Live refresh: the dashboard listens to the server's change events (GET /app/api/events,
 * server-sent events from the change feed) and reads again what changed. While the stream is
 * open, pages stop polling; when it fails (a proxy that buffers, a dropped connection) they poll
 * as before until it is back. An MCP App view has no stream (its sandbox allows no network),
 * so it always polls.
 */

/** A change as the server names it (src/core/live/feed.ts). */
export type LiveChange =
  | { resource: 'campaign'; campaignId: string }
  | { resource: 'drafts'; campaignId: string }
  | { resource: 'conversation'; leadId: string; campaignId: string | null }
  | { resource: 'workspace' };

/** Which cached tool reads a change makes stale. */
const STALE: Record<LiveChange['resource'], readonly ToolName[]> = {
  campaign: ['get_campaign', 'list_campaigns', 'get_insights_overview'],
  drafts: ['list_drafts', 'list_draft_queues', 'get_campaign'],
  conversation: ['list_conversations', 'get_conversation'],
  workspace: [],
};

let connected = false;
const watchers = new Set<() => void>();
const setConnected = (value: boolean) => {
  if (connected === value) return;
  connected = value;
  for (const watch of watchers) watch();
};

/** Whether the change stream is open now (re-renders when it opens or fails). */
export function useLiveConnected(): boolean {
  return useSyncExternalStore(
    (watch) => {
      watchers.add(watch);
      return () => watchers.delete(watch);
    },
    () => connected,
    () => false,
  );
}

/** A poll interval that holds only while no change stream is open: the fallback. */
export function useLivePoll(ms: number): number | false {
  return useLiveConnected() ? false : ms;
}

/**
 * Opens the change stream at `url` for as long as the component is mounted, and marks stale
 * every cached read a change touches (a `workspace` change, every read). Nothing happens where
 * the browser has no EventSource.
 */
export function useLiveEvents(url: string): void {
  const client = useQueryClient();
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(url, { withCredentials: true });
    source.addEventListener('ready', () => setConnected(true));
    source.addEventListener('change', (event) => {
      let changes: LiveChange[] = [];
      try {
        changes = (JSON.parse((event as MessageEvent<string>).data) as { changes: LiveChange[] }).changes;
      } catch {
        return;
      }
      if (changes.some((c) => c.resource === 'workspace')) {
        void client.invalidateQueries();
        return;
      }
      const tools = new Set(changes.flatMap((c) => STALE[c.resource]));
      for (const tool of tools) void client.invalidateQueries({ queryKey: [tool] });
    });
    // The browser reconnects by itself; until it does, pages poll.
    source.onerror = () => setConnected(false);
    return () => {
      source.close();
      setConnected(false);
    };
  }, [client, url]);
}
