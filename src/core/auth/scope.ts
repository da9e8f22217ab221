import { inArray, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import type { Ctx } from '../context.js';
import { ApiError, validationError } from '../errors.js';

/**
 * What an API key may reach (team.md, "Keys with a scope"). A key without a scope reaches
 * everything, as keys always did. Every part narrows:
 * - `toolsets`: the groups of tools it may call (`standard` is the default listing's tools,
 *   `manage` the management tools and, as in MCP listings, the draft tools, `drafts` those two,
 *   `triage` the inbox's threads and tag suggestions, `audit` the audit trail);
 * - `readOnly`: only tools that change nothing;
 * - `campaignIds`: only those campaigns; every other one is absent for it (404, left out of
 *   every list and total);
 * - `expiresAt`: after it every call is 401 `key_expired`.
 */
export const SCOPE_TOOLSETS = ['standard', 'manage', 'drafts', 'triage', 'audit'] as const;
export type ScopeToolset = (typeof SCOPE_TOOLSETS)[number];

/** The tool groups each scope toolset reaches: `manage` includes `drafts`, as an MCP listing does. */
export const SCOPE_TOOLSET_REACH: Readonly<Record<ScopeToolset, readonly ScopeToolset[]>> = {
  standard: ['standard'],
  manage: ['manage', 'drafts'],
  drafts: ['drafts'],
  triage: ['triage'],
  audit: ['audit'],
};

/** The most campaigns one key may be held to; a longer list is a sign of a key that should hold none. */
export const MAX_SCOPE_CAMPAIGNS = 100;

const CampaignId = z.string().min(1).max(128).describe('A campaign the key is held to.');

/** The stored and accepted shape; `expiresAt` is ISO-8601 in and out. */
export const KeyScope = z
  .object({
    toolsets: z.array(z.enum(SCOPE_TOOLSETS)).min(1).max(SCOPE_TOOLSETS.length).optional(),
    readOnly: z.boolean().optional(),
    campaignIds: z.array(CampaignId).min(1).max(MAX_SCOPE_CAMPAIGNS).optional(),
    expiresAt: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();
export type KeyScope = z.infer<typeof KeyScope>;

/** A scope as a call carries it: parsed once when the key's row is read, kept with the row. */
export interface Reach {
  scope: KeyScope;
  toolsets: ReadonlySet<ScopeToolset> | null;
  readOnly: boolean;
  campaignIds: ReadonlySet<string> | null;
  /** Epoch ms, or null. */
  expiresAt: number | null;
}

/** Builds a reach from a scope; null for a scope that narrows nothing (today's key). */
export function reachOf(scope: KeyScope | null): Reach | null {
  if (!scope || isEmptyScope(scope)) return null;
  return {
    scope,
    toolsets: scope.toolsets ? new Set(scope.toolsets.flatMap((t) => SCOPE_TOOLSET_REACH[t])) : null,
    readOnly: scope.readOnly === true,
    campaignIds: scope.campaignIds ? new Set(scope.campaignIds) : null,
    expiresAt: scope.expiresAt === undefined ? null : Date.parse(scope.expiresAt),
  };
}

export const isEmptyScope = (scope: KeyScope): boolean =>
  scope.toolsets === undefined && scope.readOnly !== true && scope.campaignIds === undefined && scope.expiresAt === undefined;

/**
 * Checks a scope given by a person (CLI, Keys page, consent page). `field` prefixes the paths of
 * the error. Campaign ids must name campaigns that exist now, so a typo does not make a key that
 * reaches nothing; `expiresAt` must lie in the future.
 */
export function checkScope(ctx: Ctx, input: unknown, field = 'scope', campaignExists?: (id: string) => boolean): KeyScope | null {
  const parsed = KeyScope.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = [field, ...issue.path.map(String)].join('.');
    const allowed = issue.path[0] === 'toolsets' ? ` Toolsets: ${SCOPE_TOOLSETS.join(', ')}.` : '';
    throw validationError(`${path}: ${issue.message}.${allowed}`, [path]);
  }
  const scope = parsed.data;
  if (scope.toolsets) scope.toolsets = [...new Set(scope.toolsets)];
  if (scope.campaignIds) {
    scope.campaignIds = [...new Set(scope.campaignIds)];
    const missing = campaignExists ? scope.campaignIds.filter((id) => !campaignExists(id)) : [];
    if (missing.length)
      throw validationError(`${field}.campaignIds: no campaign ${missing.join(', ')}. List campaigns for valid ids.`, [`${field}.campaignIds`]);
  }
  if (scope.expiresAt !== undefined) {
    const at = Date.parse(scope.expiresAt);
    if (at <= ctx.clock.now()) throw validationError(`${field}.expiresAt: ${scope.expiresAt} is not in the future.`, [`${field}.expiresAt`]);
    scope.expiresAt = new Date(at).toISOString();
  }
  return isEmptyScope(scope) ? null : scope;
}

/** A stored scope (api_keys.scope, oauth_grants.key_scope); a row written by an older version has none. */
export function parseStoredScope(json: string | null): KeyScope | null {
  if (json === null) return null;
  const parsed = KeyScope.safeParse(JSON.parse(json));
  // A scope that no longer parses must not widen the key: it reaches nothing but is refused below.
  return parsed.success ? parsed.data : { toolsets: [], readOnly: true, campaignIds: [] };
}

/**
 * The narrower of two scopes: an OAuth grant's scope chosen on the consent page within the
 * key's own. Each part keeps what both allow; the earlier expiry wins.
 */
export function narrowScope(outer: KeyScope | null, inner: KeyScope | null): KeyScope | null {
  if (!outer) return inner;
  if (!inner) return outer;
  const both = <T>(a: readonly T[] | undefined, b: readonly T[] | undefined): T[] | undefined =>
    a === undefined ? b && [...b] : b === undefined ? [...a] : a.filter((x) => b.includes(x));
  const out: KeyScope = {};
  const toolsets = narrowToolsets(outer.toolsets, inner.toolsets);
  if (toolsets) out.toolsets = toolsets;
  if (outer.readOnly || inner.readOnly) out.readOnly = true;
  const campaigns = both(outer.campaignIds, inner.campaignIds);
  if (campaigns) out.campaignIds = campaigns;
  const expiries = [outer.expiresAt, inner.expiresAt].filter((e): e is string => e !== undefined).sort((a, b) => Date.parse(a) - Date.parse(b));
  if (expiries[0]) out.expiresAt = expiries[0];
  return out;
}

/** Toolsets both allow, reading `manage` as `manage` + `drafts`. */
function narrowToolsets(a: readonly ScopeToolset[] | undefined, b: readonly ScopeToolset[] | undefined): ScopeToolset[] | undefined {
  if (a === undefined) return b && [...b];
  if (b === undefined) return [...a];
  const reachA = new Set(a.flatMap((t) => SCOPE_TOOLSET_REACH[t]));
  const reachB = new Set(b.flatMap((t) => SCOPE_TOOLSET_REACH[t]));
  const common = SCOPE_TOOLSETS.filter((t) => reachA.has(t) && reachB.has(t));
  // `manage` reached by both stands for itself; `drafts` alone otherwise.
  return common.includes('manage') ? common.filter((t) => t !== 'drafts') : common;
}

// --- enforcement: decided here, applied by the pipeline and the stores ------------------

/** What the pipeline knows of a tool when it checks a scope. */
export interface ToolReachFacts {
  name: string;
  /** The scope toolset the tool belongs to. */
  toolset: ScopeToolset;
  /** The tool changes nothing (its readOnlyHint). */
  readOnly: boolean;
  /** The tool makes a new campaign, which a key held to campaigns could not reach afterwards. */
  createsCampaign: boolean;
}

/** 401 `key_expired` once a key's scope has run out, whatever the call. */
export function expiryRefusal(ctx: Ctx, reach: Reach | null): ApiError | null {
  if (reach?.expiresAt == null || ctx.clock.now() < reach.expiresAt) return null;
  return new ApiError('key_expired', `This API key expired at ${new Date(reach.expiresAt).toISOString()}. Create a new key.`);
}

/** Whether a scope lets its key call a tool (what MCP lists); expiry aside. */
export function reachesTool(reach: Reach | null, tool: ToolReachFacts): boolean {
  return toolRefusal(reach, tool) === null;
}

/** 403 `forbidden` for a tool outside the key's scope, or null. */
export function toolRefusal(reach: Reach | null, tool: ToolReachFacts): ApiError | null {
  if (!reach) return null;
  if (reach.toolsets && !reach.toolsets.has(tool.toolset)) {
    return new ApiError('forbidden', `This API key is held to the toolsets ${reach.scope.toolsets!.join(', ')}; ${tool.name} is in ${tool.toolset}.`);
  }
  if (reach.readOnly && !tool.readOnly) return new ApiError('forbidden', `This API key is read-only; ${tool.name} changes or spends something.`);
  if (reach.campaignIds && tool.toolset === 'audit') {
    // The trail is the whole workspace's: its targets would name campaigns the key cannot see.
    return new ApiError('forbidden', `This API key is held to campaigns ${reach.scope.campaignIds!.join(', ')}; the audit trail covers the whole workspace.`);
  }
  if (reach.campaignIds && tool.createsCampaign) {
    return new ApiError('forbidden', `This API key is held to campaigns ${reach.scope.campaignIds!.join(', ')}; it cannot create a campaign.`);
  }
  return null;
}

/**
 * Whether a call may see a campaign. The call's context carries the key's campaigns
 * (`ctx.campaigns`, set by the pipeline); without it (unscoped keys, the operator, workers)
 * every campaign is reachable.
 */
export const reachesCampaign = (ctx: Ctx, campaignId: string | null | undefined): boolean =>
  !ctx.campaigns || (campaignId != null && ctx.campaigns.has(campaignId));

/** The same rule on a key's reach itself, for what outlives one call (a live subscription of the key). */
export const reachIncludes = (reach: Reach | null | undefined, campaignId: string): boolean => !reach?.campaignIds || reach.campaignIds.has(campaignId);

/**
 * The SQL condition that keeps a query to the call's campaigns, on a campaign id column: what
 * every list and total adds to its WHERE. Undefined (no condition) for a call that reaches all.
 */
export function campaignReach(ctx: Pick<Ctx, 'campaigns'>, column: SQLiteColumn | SQL): SQL | undefined {
  if (!ctx.campaigns) return undefined;
  // An empty list is drizzle's `false`: a key held to no campaign reaches none.
  return inArray(column as SQLiteColumn, [...ctx.campaigns]);
}

/** A call's context narrowed to a key's campaigns; the same context when it reaches all. */
export const withReach = (ctx: Ctx, reach: Reach | null): Ctx => (reach?.campaignIds ? { ...ctx, campaigns: reach.campaignIds } : ctx);
