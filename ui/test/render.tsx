import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { CallToolProvider, type CallTool, type ToolResult } from '../shared/seam.js';
import type { ToolArgs, ToolName, ToolOutput } from '../shared/types.js';

export interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** A tool's answer in the fake: a value (success) or an error body. */
export type Answer = unknown | { isError: true; error: { code: string; message: string; details?: Record<string, unknown> } };

/**
 * A fake `callTool` that records every call and answers from `handlers` by tool name, in the
 * exact CallToolResult shape the server gives. An unexpected tool fails the test loudly.
 */
export function fakeCallTool(handlers: Record<string, (args: Record<string, unknown>) => Answer>) {
  const calls: Call[] = [];
  const callTool: CallTool = async (name, args) => {
    calls.push({ name, args });
    const handler = handlers[name];
    if (!handler) throw new Error(`unexpected tool call ${name}`);
    const answer = handler(args) as { isError?: boolean; error?: unknown };
    if (answer && typeof answer === 'object' && answer.isError === true) {
      const body = { error: { details: {}, ...(answer.error as object) } };
      return { isError: true, structuredContent: body, content: [{ type: 'text', text: JSON.stringify(body) }] } satisfies ToolResult;
    }
    return { isError: false, structuredContent: answer, content: [{ type: 'text', text: JSON.stringify(answer) }] } satisfies ToolResult;
  };
  return { callTool, calls, callsOf: (name: string) => calls.filter((c) => c.name === name) };
}

/** A refusal in the error body every face returns. */
export interface Refusal {
  isError: true;
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Handlers typed by each tool's own input and output schemas: a fake that drifts from the server fails the type-check. */
export type ToolHandlers = { [N in ToolName]?: (args: ToolArgs<N>) => ToolOutput<N> | Refusal };

/** fakeCallTool, typed against the real tool outputs. */
export const fakeTools = (handlers: ToolHandlers) => fakeCallTool(handlers as Record<string, (args: Record<string, unknown>) => Answer>);

export function renderWith(ui: ReactElement, callTool: CallTool) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <CallToolProvider callTool={callTool}>{ui}</CallToolProvider>
    </QueryClientProvider>,
  );
}

/**
 * `callTool` with the answers of one tool held back until `release()`, as a slow server's would
 * be: the call is made (and recorded) at once, and its answer arrives only when released.
 */
export function holdAnswers(callTool: CallTool, tool: string) {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const slow: CallTool = async (name, args) => {
    const result = callTool(name, args);
    if (name === tool) await held;
    return result;
  };
  return { callTool: slow, release: () => release() };
}
