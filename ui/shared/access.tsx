import { createContext, useContext, type ReactNode } from 'react';

/**
 * The tools the signed-in member's role may call, as the session lists them. Pages ask `useCan`
 * before offering an action; the server refuses the rest anyway (403 forbidden), so this only
 * spares a person buttons that cannot work for them.
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
