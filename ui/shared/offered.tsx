import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import type { CallTool } from './seam.js';

/**
 * Which of a view's action tools this connection offers. The server names them in a meta element
 * of the view's document (resources/read answers per connection, so it follows readonly, tools=
 * and toolsets=); a call refused as an unknown tool also marks that tool as not offered, for a
 * host that rewrote the document or a server whose selection changed since.
 */
export const OFFERED_TOOLS_META = 'outreach-offered-tools';

/** The names in the meta element, or null when the document carries none (then nothing is greyed). */
export function offeredFromDocument(doc: Document): ReadonlySet<string> | null {
  const content = doc.querySelector(`meta[name="${OFFERED_TOOLS_META}"]`)?.getAttribute('content');
  if (content == null) return null;
  return new Set(content.split(',').filter((n) => n !== ''));
}

interface Offered {
  offers: (tool: string) => boolean;
  refuse: (tool: string) => void;
}

const OfferedContext = createContext<Offered>({ offers: () => true, refuse: () => {} });

export function OfferedToolsProvider({ initial, children }: { initial: ReadonlySet<string> | null; children: ReactNode }) {
  const [refused, setRefused] = useState<ReadonlySet<string>>(new Set());
  const offers = useCallback((tool: string) => !refused.has(tool) && (initial === null || initial.has(tool)), [initial, refused]);
  const refuse = useCallback((tool: string) => setRefused((prev) => (prev.has(tool) ? prev : new Set([...prev, tool]))), []);
  const value = useMemo(() => ({ offers, refuse }), [offers, refuse]);
  return <OfferedContext.Provider value={value}>{children}</OfferedContext.Provider>;
}

export const useOffered = (): Offered => useContext(OfferedContext);

/** The server's answer to a tool this connection does not offer (src/mcp/server.ts). */
const isUnknownTool = (structured: unknown, text: string): boolean => {
  const code = (structured as { error?: { code?: unknown } } | undefined)?.error?.code;
  return (code === 'not_found' || text.includes('"not_found"')) && text.includes('Unknown tool');
};

/** Wraps the seam so that an "unknown tool" refusal greys out that tool's buttons from then on. */
export function learningCallTool(callTool: CallTool, refuse: (tool: string) => void): CallTool {
  return async (name, args) => {
    const result = await callTool(name, args);
    if (result.isError) {
      const text = result.content.map((c) => (c.type === 'text' && typeof c.text === 'string' ? c.text : '')).join(' ');
      if (isUnknownTool(result.structuredContent, text)) refuse(name);
    }
    return result;
  };
}

/** A disabled button's tooltip saying why, or undefined when the tool is offered. */
export const notOffered = (offers: (tool: string) => boolean, tool: string): string | undefined =>
  offers(tool) ? undefined : `This connection does not offer ${tool} (read-only or a narrowed tool set).`;
