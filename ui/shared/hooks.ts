import { keepPreviousData, useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { unwrap, useCallTool, type ToolError } from './seam.js';
import type { ToolArgs, ToolName, ToolOutput } from './types.js';

export interface UseToolOptions<N extends ToolName> {
  enabled?: boolean;
  /** Poll every N ms (activity, imports); false stops. */
  refetchInterval?: number | false | ((data: ToolOutput<N> | undefined) => number | false);
  /** A result already in hand (an MCP App view's tool result): shown at once, no first call. */
  initialData?: ToolOutput<N>;
  /** Keep the previous page on screen while the next one loads (paging, filters). */
  keepPrevious?: boolean;
  /** Read again when the window regains focus: `'always'` even when the data is fresh. */
  refetchOnWindowFocus?: boolean | 'always';
}

/** The query key of a tool call: `[toolName, args]`, the same in the dashboard and the views. */
export const toolKey = <N extends ToolName>(name: N, args: ToolArgs<N>) => [name, args] as const;

/** Reads a tool through the seam, cached under `[name, args]`. */
export function useTool<N extends ToolName>(name: N, args: ToolArgs<N>, options: UseToolOptions<N> = {}): UseQueryResult<ToolOutput<N>, ToolError> {
  return useToolQuery<ToolOutput<N>>(name, args as Record<string, unknown>, options);
}

/** The untyped core of useTool: one query per `[name, args]`, `callTool` as its function. */
function useToolQuery<T>(
  name: string,
  args: Record<string, unknown>,
  options: {
    enabled?: boolean;
    refetchInterval?: number | false | ((data: T | undefined) => number | false);
    initialData?: T;
    keepPrevious?: boolean;
    refetchOnWindowFocus?: boolean | 'always';
  },
): UseQueryResult<T, ToolError> {
  const callTool = useCallTool();
  const interval = options.refetchInterval;
  return useQuery<T, ToolError, T, readonly unknown[]>({
    queryKey: [name, args],
    queryFn: async () => unwrap<T>(await callTool(name, args)),
    enabled: options.enabled ?? true,
    // A result handed in is fresh: no call for it until it ages or a change invalidates it.
    ...(options.initialData !== undefined ? { initialData: options.initialData, staleTime: 60_000 } : {}),
    ...(interval === undefined ? {} : { refetchInterval: typeof interval === 'function' ? (q) => interval(q.state.data) : interval }),
    ...(options.keepPrevious ? { placeholderData: keepPreviousData } : {}),
    ...(options.refetchOnWindowFocus === undefined ? {} : { refetchOnWindowFocus: options.refetchOnWindowFocus }),
  });
}

/**
 * Calls a tool that changes something. On success every cached read of the tools named in
 * `invalidates` is refetched, so lists and counters on screen follow the change.
 */
export function useToolMutation<N extends ToolName>(name: N, invalidates: readonly ToolName[] = []) {
  const callTool = useCallTool();
  const client = useQueryClient();
  return useMutation<ToolOutput<N>, ToolError, ToolArgs<N>>({
    mutationFn: async (args) => unwrap<ToolOutput<N>>(await callTool(name, args as Record<string, unknown>)),
    onSuccess: async () => {
      await Promise.all(invalidates.map((tool) => client.invalidateQueries({ queryKey: [tool] })));
    },
  });
}

/** A fresh idempotency key for one user action (a click), reused if that action is retried. */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
