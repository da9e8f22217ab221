import { useTool } from './hooks.js';
import type { ListDraftsResult, ToolArgs } from './types.js';

/** How often an open queue reads its drafts again while its page is visible. */
export const DRAFTS_POLL_MS = 4_000;

/**
 * The one place a queue learns that its drafts changed: list_drafts, read again every few
 * seconds while the page is visible (never in a hidden tab) and at once when the window
 * regains focus. A push (server-sent events) would replace the body of this hook, not its
 * callers.
 */
export function useDraftsFeed(args: ToolArgs<'list_drafts'>, initial?: ListDraftsResult, pollMs: number = DRAFTS_POLL_MS) {
  return useTool('list_drafts', args, {
    keepPrevious: true,
    refetchInterval: pollMs,
    refetchOnWindowFocus: 'always',
    ...(initial ? { initialData: initial } : {}),
  });
}
