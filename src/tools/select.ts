import { validationError } from '../core/errors.js';
import type { Tool } from './define.js';

/**
 * Which tools an MCP client is offered: all, the read-only ones, a named subset, or both
 * (the read-only tools among the named ones). For clients that cap tool counts, and for
 * operators who want an assistant that cannot write.
 */
export interface ToolSelection {
  readOnly?: boolean | undefined;
  include?: readonly string[] | undefined;
}

/** Names for the error's `details.fields`, per place the selection came from. */
export interface SelectionFields {
  readOnly: string;
  include: string;
}

const DEFAULT_FIELDS: SelectionFields = { readOnly: 'readOnly', include: 'include' };

/**
 * Applies a selection, keeping registry order. An unknown tool name, or a selection that
 * leaves no tool, is a validation_error naming the field: a typo must not silently serve
 * fewer tools than meant.
 */
export function selectTools(from: readonly Tool[], sel: ToolSelection, fields: SelectionFields = DEFAULT_FIELDS): Tool[] {
  let chosen = [...from];
  if (sel.include !== undefined) {
    const known = new Set(from.map((t) => t.name));
    const unknown = sel.include.filter((n) => !known.has(n));
    if (unknown.length) {
      throw validationError(`Unknown tool ${unknown.map((n) => `"${n}"`).join(', ')} in ${fields.include}. Available: ${from.map((t) => t.name).join(', ')}.`, [
        fields.include,
      ]);
    }
    const wanted = new Set(sel.include);
    chosen = chosen.filter((t) => wanted.has(t.name));
  }
  if (sel.readOnly) chosen = chosen.filter((t) => t.annotations.readOnlyHint);
  if (chosen.length === 0) {
    throw validationError(`The tool selection (${fields.include}, ${fields.readOnly}) leaves no tool to serve.`, [fields.include]);
  }
  return chosen;
}

/** `a, b,c` → ['a', 'b', 'c']; empty entries are dropped. */
export const parseToolNames = (raw: string): string[] =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** A yes/no switch from a query string or environment variable; undefined when not a switch value. */
export function parseSwitch(raw: string): boolean | undefined {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on', ''].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return undefined;
}
