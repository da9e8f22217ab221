import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import type { ToolName } from './types.js';

/*
 * Live refresh: the dashboard listens to the server's change events (GET /app/api/events,
 * server-sent events from the change feed) and reads again what changed. An MCP App view has no
 * stream (its sandbox allows no network, and its host passes on no resource notification): it
 * reads the server's changes resource through its host instead, a read that waits for the next
 * change (followChanges). Either way, while the source is open pages stop polling; when it fails
 * (a proxy that buffers, a dropped connection, a host that passes on no resource read) they poll
 * as before until it is back.
 */

/** A change as the server names it (src/core/live/feed.ts). */
export type LiveChange =
  | { resource: 'campaign'; campaignId: string }
  | { resource: 'drafts'; campaignId: string }
  | { resource: 'conversation'; leadId: string; campaignId: string | null }
  | { resource: 'workspace' };

/** Which cached tool reads a change makes stale. */
const STALE: Record<LiveChange['resource'], ToolName[]> = {
  campaign: ['get_campaign', 'list_campaigns', 'get_insights_overview', 'get_agent_stats'],
  drafts: ['list_drafts', 'list_draft_queues', 'get_campaign'],
  conversation: ['list_conversations', 'get_conversation'],
  workspace: [],
};

/**
 * Adds reads a change makes stale, besides those above: a view that shows them (an MCP App view's
 * leads, activity) names them once as it loads. A function, not entries in the table, so the
 * views that show none of them (each view has a size budget) carry none of it.
 */
export function alsoStale(more: Partial<Record<LiveChange['resource'], readonly ToolName[]>>): void {
  for (const [resource, tools] of Object.entries(more) as [LiveChange['resource'], ToolName[]][]) STALE[resource].push(...tools);
}

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

/** Marks stale every cached read the changes touch (a `workspace` change, or a reset: every read). */
function markStale(client: QueryClient, changes: readonly LiveChange[], reset = false): void {
  if (reset || changes.some((c) => c.resource === 'workspace')) {
    void client.invalidateQueries();
    return;
  }
  const tools = new Set(changes.flatMap((c) => STALE[c.resource] ?? []));
  for (const tool of tools) void client.invalidateQueries({ queryKey: [tool] });
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
      markStale(client, changes);
    });
    // The browser reconnects by itself; until it does, pages poll.
    source.onerror = () => setConnected(false);
    return () => {
      source.close();
      setConnected(false);
    };
  }, [client, url]);
}

/** The server's changes resource (src/mcp/live.ts): a read that waits for the next change after a cursor. */
export const CHANGES_URI = 'outreach://changes';

/** Reads a server resource through the host (an MCP App's readServerResource), ended by `signal`. */
export type ReadResource = (uri: string, signal: AbortSignal) => Promise<{ contents: readonly unknown[] }>;

/** What a read of the changes resource answers. */
interface ChangesAnswer {
  cursor: string;
  changes: LiveChange[];
  reset: boolean;
}

/** The waits after failed reads in a row: quick at first, then once a minute at most. */
export const CHANGES_BACKOFF_MS: readonly number[] = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];

/**
 * Whether a failed read will fail again however often it is tried: the host or the server reads
 * no such resource (an older server, a host that refuses), or the key no longer works (revoked,
 * expired, out of scope). Anything else (a timeout, a dropped connection) is tried again.
 */
function lasting(err: unknown): boolean {
  const { code, data } = (err ?? {}) as { code?: unknown; data?: { error?: { code?: unknown } } };
  if (code === -32601 || code === -32602 || code === -32002) return true;
  const why = data?.error?.code;
  return why === 'unauthorized' || why === 'key_expired' || why === 'forbidden' || why === 'not_found';
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * Follows the server's changes through `read` until `signal` aborts: reads the changes resource
 * for a cursor, then again and again after the last cursor, each read answered when something
 * the key may see changes (or after the server's bounded wait, with nothing). Each answer's
 * changes go to `onChanges`; `onOpen` says whether the reads work (pages poll while they do
 * not). A failed read is tried again after a growing pause; one that cannot succeed (see
 * lasting) ends the following, and the pages keep polling.
 */
export async function followChanges(
  read: ReadResource,
  on: { campaignId?: string | undefined; onChanges: (changes: readonly LiveChange[], reset: boolean) => void; onOpen: (open: boolean) => void },
  signal: AbortSignal,
): Promise<void> {
  let cursor: string | undefined;
  let failures = 0;
  while (!signal.aborted) {
    const query = new URLSearchParams();
    if (on.campaignId !== undefined) query.set('campaignId', on.campaignId);
    if (cursor !== undefined) query.set('after', cursor);
    const uri = query.toString() ? `${CHANGES_URI}?${query.toString()}` : CHANGES_URI;
    try {
      const result = await read(uri, signal);
      const text = (result.contents[0] as { text?: unknown } | undefined)?.text;
      const answer = JSON.parse(typeof text === 'string' ? text : '') as ChangesAnswer;
      if (typeof answer.cursor !== 'string') throw new Error('No cursor');
      // The first answer only says where to start; what was shown may be older than it, so read it again once.
      if (cursor === undefined) on.onChanges([], true);
      else if (answer.reset || answer.changes.length > 0) on.onChanges(answer.changes, answer.reset);
      cursor = answer.cursor;
      failures = 0;
      on.onOpen(true);
    } catch (err) {
      if (signal.aborted) break;
      on.onOpen(false);
      if (lasting(err)) return;
      await pause(CHANGES_BACKOFF_MS[Math.min(failures++, CHANGES_BACKOFF_MS.length - 1)] as number, signal);
    }
  }
  on.onOpen(false);
}

/**
 * While mounted, follows the server's changes through the host's resource reads (an MCP App
 * view), marking stale what they touch; pages stop polling while the reads work. `read` null: the host passes on no resource read, and the pages poll.
 */
export function useHostChanges(read: ReadResource | null, campaignId?: string): void {
  const client = useQueryClient();
  useEffect(() => {
    if (!read) return;
    const stop = new AbortController();
    void followChanges(read, { campaignId, onChanges: (changes, reset) => markStale(client, changes, reset), onOpen: setConnected }, stop.signal);
    return () => stop.abort();
  }, [client, read, campaignId]);
}
