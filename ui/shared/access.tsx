import { createContext, useContext, type ReactNode } from 'react';

/**
 * The tools the signed-in member's role may call, as the session lists them. Every dashboard page
 * and the shared components it renders ask `useCan` before offering an action, and hide what the
 * role cannot do; the server refuses the rest anyway (403 forbidden), so this only spares a person
 * buttons that cannot work for them. It lives in ui/shared because shared components ask it too;
 * an MCP App view has no provider, so there everything is allowed and `useOffered` greys instead.
 */
const Allowed = createContext<ReadonlySet<string> | null>(null);

export function AccessProvider({ tools, children }: { tools: readonly string[]; children: ReactNode }) {
  return <Allowed.Provider value={new Set(tools)}>{children}</Allowed.Provider>;
}

/** Whether the member may call every one of `tools`. Outside a provider (component tests) everything is allowed. */
export function useCan(...tools: string[]): boolean {
  const allowed = useContext(Allowed);
  return allowed === null || tools.every((t) => allowed.has(t));
}

export const canAll = (allowed: readonly string[], needs: readonly string[]): boolean => needs.every((t) => allowed.includes(t));
