import { validationError } from '../core/errors.js';
import { reachesTool, SCOPE_TOOLSET_REACH, type Reach } from '../core/auth/scope.js';
import { TOOLSET_INCLUDES, TOOLSETS, toolReach, type Tool, type Toolset } from './define.js';

/**
 * Which tools an MCP client is offered: all, the read-only ones, a named subset, or both
 * (the read-only tools among the named ones). For clients that cap tool counts, and for
 * operators who want an assistant that cannot write.
 */
export interface ToolSelection {
  readOnly?: boolean | undefined;
  include?: readonly string[] | undefined;
  /** Toolsets to list beyond the default tools (e.g. `manage`). `include` may name any tool regardless. */
  toolsets?: readonly string[] | undefined;
}

/** Names for the error's `details.fields`, per place the selection came from. */
export interface SelectionFields {
  readOnly: string;
  include: string;
  toolsets?: string;
}

const DEFAULT_FIELDS: SelectionFields = { readOnly: 'readOnly', include: 'include', toolsets: 'toolsets' };

/**
 * `readonly` among toolset names (`?toolsets=manage,readonly`, OUTREACH_TOOLSETS, the config's
 * `tools.toolsets`) is the read-only switch, not a toolset: the selection keeps only the read-only
 * tools of what it lists, as `?readonly=1` does. It narrows, so it never adds a tool.
 */
export const READONLY_TOOLSET = 'readonly';

/** The selection with `readonly` moved from its toolsets to its read-only switch. */
function withReadonlyNamed(sel: ToolSelection): ToolSelection {
  if (!sel.toolsets?.includes(READONLY_TOOLSET)) return sel;
  return { ...sel, readOnly: true, toolsets: sel.toolsets.filter((n) => n !== READONLY_TOOLSET) };
}

/** Checks toolset names; an unknown one is a validation_error naming the field, never ignored. */
export function checkToolsets(names: readonly string[], field = 'toolsets'): Toolset[] {
  const unknown = names.filter((n) => !(TOOLSETS as readonly string[]).includes(n));
  if (unknown.length) {
    throw validationError(
      `Unknown toolset ${unknown.map((n) => `"${n}"`).join(', ')} in ${field}. Available: ${TOOLSETS.join(', ')} (and ${READONLY_TOOLSET}, which keeps only read-only tools).`,
      [field],
    );
  }
  return names as Toolset[];
}

/** The tools a selection lists by default: those in no toolset, plus those of the named toolsets (and the toolsets they include). */
export const inToolsets = (tool: Tool, toolsets: readonly string[] | undefined): boolean =>
  tool.toolset === undefined || (toolsets ?? []).some((name) => TOOLSET_INCLUDES[name as Toolset]?.includes(tool.toolset as Toolset));

/**
 * Applies a selection, keeping registry order. An unknown tool name, or a selection that
 * leaves no tool, is a validation_error naming the field: a typo must not silently serve
 * fewer tools than meant.
 */
export function selectTools(from: readonly Tool[], selection: ToolSelection, fields: SelectionFields = DEFAULT_FIELDS): Tool[] {
  const sel = withReadonlyNamed(selection);
  const toolsets = sel.toolsets === undefined ? undefined : checkToolsets(sel.toolsets, fields.toolsets ?? 'toolsets');
  let chosen = [...from];
  if (sel.include === undefined) chosen = chosen.filter((t) => inToolsets(t, toolsets));
  if (sel.include !== undefined) {
    const known = new Set(from.map((t) => t.name));
    const unknown = sel.include.filter((n) => !known.has(n));
    if (unknown.length) {
      throw validationError(`Unknown tool ${unknown.map((n) => `"${n}"`).join(', ')} in ${fields.include}. Available: ${from.map((t) => t.name).join(', ')}.`, [
        fields.include,
      ]);
    }
  }
  const keep = narrowingOf(sel);
  if (keep) chosen = chosen.filter(keep);
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

/**
 * What a server may offer over MCP: `universe` is every tool the config permits (its
 * read-only switch and named tools applied, every toolset included); `base` is what a client
 * gets when it asks for nothing (the config's toolsets and named tools).
 */
export interface ToolSets {
  universe: readonly Tool[];
  base: ToolSelection;
}

export function configToolSets(registry: readonly Tool[], configured: ToolSelection, fields: SelectionFields): ToolSets {
  const config = withReadonlyNamed(configured);
  const toolsets = config.toolsets === undefined ? undefined : checkToolsets(config.toolsets, fields.toolsets);
  const universe = selectTools(registry, { include: config.include, readOnly: config.readOnly, toolsets: TOOLSETS }, fields);
  return { universe, base: { include: config.include, toolsets } };
}

/**
 * A client's request (URL query or stdio environment) on top of the server's sets. It can
 * add toolsets, and narrow with `tools=` (which may name any permitted tool, toolset tools
 * included) and `readonly`; it never reaches a tool the config leaves out.
 */
export function requestToolSet(sets: ToolSets, requested: ToolSelection, fields: SelectionFields): Tool[] {
  const req = withReadonlyNamed(requested);
  const toolsets = req.toolsets === undefined ? [] : checkToolsets(req.toolsets, fields.toolsets);
  return selectTools(
    sets.universe,
    { include: req.include ?? sets.base.include, readOnly: req.readOnly, toolsets: [...(sets.base.toolsets ?? []), ...toolsets] },
    fields,
  );
}

/**
 * Per toolset name, the permitted tools it would add to a listing (a toolset adds those of the
 * toolsets it includes too): what `?toolsets=NAME` brings, for discovery documents.
 */
export function toolsetAdditions(listed: readonly Tool[], permitted: readonly Tool[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of TOOLSETS) {
    const added = permitted.filter((t) => t.toolset !== undefined && TOOLSET_INCLUDES[name].includes(t.toolset) && !listed.includes(t));
    if (added.length) out[name] = added.map((t) => t.name);
  }
  return out;
}

const keyListings = new WeakMap<Reach, WeakMap<readonly Tool[], Tool[]>>();

/**
 * What a selection's narrowing keeps (`include`, the read-only switch, `readonly` named among
 * its toolsets), for tools it did not choose itself; undefined when it narrows nothing.
 */
export function narrowingOf(selection: ToolSelection): ((tool: Tool) => boolean) | undefined {
  const sel = withReadonlyNamed(selection);
  if (sel.include === undefined && !sel.readOnly) return undefined;
  const named = sel.include === undefined ? undefined : new Set(sel.include);
  return (tool) => (named === undefined || named.has(tool.name)) && (!sel.readOnly || tool.annotations.readOnlyHint === true);
}

/**
 * What a scoped key is shown (MCP tools/list): the request's tools it may call, plus, for a key
 * held to toolsets, the permitted tools of those toolsets, so a key made for drafts lists the
 * draft tools without `?toolsets=drafts`. What the request narrows (`narrow`: its `?tools=` and
 * `?readonly=`) holds for those added tools too, so a URL never widens a key's listing past
 * what it asked for. The same array while the key and the request's tools stay the same, so
 * its listing is built once. A key without a scope is shown `requested`.
 */
export function keyListing(
  requested: readonly Tool[],
  universe: readonly Tool[],
  reach: Reach | null | undefined,
  narrow?: (tool: Tool) => boolean,
): readonly Tool[] {
  if (!reach) return requested;
  // A narrowed request's tools are chosen for it alone (a new array each time): nothing to keep.
  if (narrow) return listingFor(requested, universe, reach, narrow);
  let byRequest = keyListings.get(reach);
  if (!byRequest) {
    byRequest = new WeakMap();
    keyListings.set(reach, byRequest);
  }
  let listed = byRequest.get(requested);
  if (!listed) {
    listed = listingFor(requested, universe, reach);
    byRequest.set(requested, listed);
  }
  return listed;
}

function listingFor(requested: readonly Tool[], universe: readonly Tool[], reach: Reach, narrow?: (tool: Tool) => boolean): Tool[] {
  const named = reach.scope.toolsets;
  const groups = new Set(named?.flatMap((t) => SCOPE_TOOLSET_REACH[t]) ?? []);
  const added = named
    ? universe.filter((t) => t.toolset !== undefined && groups.has(t.toolset) && !requested.includes(t) && (narrow === undefined || narrow(t)))
    : [];
  return [...requested, ...added].filter((t) => reachesTool(reach, toolReach(t)));
}
