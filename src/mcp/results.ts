import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ApiError } from '../core/errors.js';
import type { Outcome } from '../tools/pipeline.js';
import type { JsonObject } from '../tools/schemas.js';

/** A pipeline outcome as an MCP tool result: the REST body as structuredContent and text. */
export function toToolResult(outcome: Outcome | { ok: false; error: ApiError }): CallToolResult {
  if (!outcome.ok) return { isError: true, content: [{ type: 'text', text: JSON.stringify(outcome.error.toBody()) }] };
  return { content: [{ type: 'text', text: outcome.json }], structuredContent: outcome.body as JsonObject };
}
