import { useTool } from './hooks.js';
import { useLivePoll } from './live.js';
import type { ListDraftsResult, ToolArgs } from './types.js';

/** How often an open queue reads its drafts again while its page is visible. */
export const DRAFTS_POLL_MS = 4_000;

/**
 * The one place a queue learns that its drafts changed: list_drafts, read again when the
 * dashboard's change stream says a draft queue changed (ui/shared/live.ts), and at once when the
 * window regains focus. While no stream is open (it failed, or an MCP App view, which has none),
 * it is read again every few seconds while the page is visible (never in a hidden tab).
 */
export function useDraftsFeed(args: ToolArgs<'list_drafts'>, initial?: ListDraftsResult, pollMs: number = DRAFTS_POLL_MS) {
  const refetchInterval = useLivePoll(pollMs);
  return useTool('list_drafts', args, {
    keepPrevious: true,
    refetchInterval,
    refetchOnWindowFocus: 'always',
    ...(initial ? { initialData: initial } : {}),
  });
}
