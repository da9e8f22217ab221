import { createContext, useContext, type ReactNode } from 'react';

/** One text block of a tool result, as MCP's CallToolResult carries it. */
export interface TextContent {
  type: 'text';
  text: string;
}

/**
 * A tool result in exactly the shape of MCP's `CallToolResult`, which both the dashboard's
 * `/app/api/call` route and the ext-apps host bridge return, so components are written once.
 */
export interface ToolResult {
  structuredContent?: unknown;
  content: TextContent[] | { type: string; [k: string]: unknown }[];
  isError?: boolean;
}

/** The one seam between components and the server: call a tool by name. */
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

/** The error body every face returns: `{ error: { code, message, details } }`. */
export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

/** A tool answered `isError`: its code, message and details, ready to show. */
export class ToolError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
    this.details = details;
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null || !('error' in value)) return false;
  const error = (value as { error: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}

/**
 * The result's structured content, or a ToolError when the tool refused. Falls back to the
 * JSON of the first text block, which MCP hosts that drop `structuredContent` still send.
 */
export function unwrap<T>(result: ToolResult): T {
  let body: unknown = result.structuredContent;
  if (body === undefined) {
    const first = result.content[0];
    if (first && first.type === 'text' && typeof first.text === 'string') {
      try {
        body = JSON.parse(first.text);
      } catch {
        body = undefined;
      }
    }
  }
  if (result.isError) {
    if (isErrorBody(body)) throw new ToolError(body.error.code, body.error.message, body.error.details ?? {});
    const text = result.content.map((c) => (c.type === 'text' && typeof c.text === 'string' ? c.text : '')).join(' ');
    throw new ToolError('failed', text || 'The call failed.');
  }
  return body as T;
}

const CallToolContext = createContext<CallTool | null>(null);

export function CallToolProvider({ callTool, children }: { callTool: CallTool; children: ReactNode }) {
  return <CallToolContext.Provider value={callTool}>{children}</CallToolContext.Provider>;
}

export function useCallTool(): CallTool {
  const callTool = useContext(CallToolContext);
  if (!callTool) throw new Error('useCallTool needs a <CallToolProvider> above it.');
  return callTool;
}
