import { readFileSync } from 'node:fs';
import { EXTENSION_ID, getUiCapability, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { ProtocolError, ProtocolErrorCode, type ClientCapabilities, type ReadResourceResult, type Resource } from '@modelcontextprotocol/server';
import type { Tool } from '../tools/define.js';
import { memo } from '../core/memo.js';

/**
 * MCP Apps as the 2026-07-28 revision negotiates it: the server names the extension in its
 * capabilities (server/discover, and initialize for 2025 hosts), and a client that renders views
 * names it in its own, with the view MIME type it takes.
 */
export const APPS_EXTENSION = { id: EXTENSION_ID, settings: { mimeTypes: [RESOURCE_MIME_TYPE] as string[] } };

/** Whether a client declared that it renders this server's views. */
export function clientRendersViews(caps: ClientCapabilities | undefined): boolean {
  return getUiCapability(caps)?.mimeTypes?.includes(RESOURCE_MIME_TYPE) ?? false;
}

/**
 * The MCP App views (the ext-apps extension, SEP-1865): each is one self-contained HTML document
 * that a host renders in a sandboxed iframe next to the result of a linked tool. Hosts without
 * the extension never read these; for them only the `_meta` on linked tools/list entries differs.
 */
export interface AppView {
  /** The file name under dist/ui/views/, and the last part of the ui:// URI. */
  name: string;
  uri: string;
  title: string;
  description: string;
  /** Tools whose result this view renders (their tools/list entries link it). */
  renders: readonly string[];
  /** Tools the view calls through the host; its buttons grey out when one is not offered. */
  actions: readonly string[];
}

const view = (name: string, title: string, description: string, renders: string[], actions: string[]): AppView => ({
  name,
  uri: `ui://outreach/${name}.html`,
  title,
  description,
  renders,
  actions,
});

export const APP_VIEWS: readonly AppView[] = [
  view(
    'insights',
    'Insights view',
    'Workspace counters and the top campaigns by reply and acceptance rate, as charts.',
    ['get_insights_overview'],
    ['get_insights_overview'],
  ),
  view(
    'campaigns',
    'Campaigns view',
    "Campaign cards with the stats funnel and status, Start / Pause buttons, and each step's funnel with its A/B variants.",
    ['list_campaigns', 'get_campaign'],
    // list_agents and get_agent name each card's agent, and get_agent_stats counts its steps,
    // where the connection offers them (toolset manage).
    ['start_campaign', 'pause_campaign', 'get_campaign', 'list_campaigns', 'list_agents', 'get_agent', 'get_agent_stats'],
  ),
  view(
    'leads',
    'Leads view',
    "A page of a campaign's leads as a table, with tag and exclude actions and the next page.",
    ['list_leads'],
    ['update_lead', 'update_leads_batch', 'delete_leads_batch', 'list_leads'],
  ),
  view('activity', 'Activity view', 'Recent outreach events as a timeline, with older events on demand.', ['get_recent_activity'], ['get_recent_activity']),
  view(
    'drafts',
    'Drafts view',
    'Drafts awaiting approval, each beside its lead, to edit, approve one or a selection, or reject.',
    ['list_drafts'],
    ['update_drafts', 'list_drafts'],
  ),
];

const viewByTool = new Map(APP_VIEWS.flatMap((v) => v.renders.map((t) => [t, v] as const)));
const viewByUri = new Map(APP_VIEWS.map((v) => [v.uri, v]));

/**
 * The `_meta` a linked tool's tools/list entry carries: `ui.resourceUri`, plus the flat
 * `ui/resourceUri` key of the extension's first drafts, which 2025 hosts may still read. Every
 * 2025 listing carries it (those hosts learned of views from `_meta` alone); a 2026-07-28
 * listing carries it only for a client that declared the extension.
 */
export function toolUiMeta(toolName: string): Record<string, unknown> | undefined {
  const linked = viewByTool.get(toolName);
  if (!linked) return undefined;
  return { ui: { resourceUri: linked.uri }, [RESOURCE_URI_META_KEY]: linked.uri };
}

/**
 * What the host's sandbox may load: nothing from the network. The views are single files with
 * their script and styles inline, and every call goes through the host bridge (postMessage),
 * which CSP does not govern. Empty lists are the extension's "no network" default, stated
 * explicitly so a host shows the operator that nothing is requested.
 */
export const VIEW_UI_META = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
} as const;

/** The views a request may see: those rendering at least one offered tool. */
export function offeredViews(offered: ReadonlyMap<string, Tool>): AppView[] {
  return APP_VIEWS.filter((v) => v.renders.some((t) => offered.has(t)));
}

export function listViewResources(offered: ReadonlyMap<string, Tool>): Resource[] {
  return offeredViews(offered).map((v) => ({
    uri: v.uri,
    name: v.name,
    title: v.title,
    description: v.description,
    mimeType: RESOURCE_MIME_TYPE,
    _meta: { ui: VIEW_UI_META },
  }));
}

/** Built by `npm run build` (Vite, single file); two levels up from both src/mcp and dist/mcp. */
const VIEWS_DIR = new URL('../../dist/ui/views/', import.meta.url);
const built = memo<string, string>(64);

function builtHtml(v: AppView): string {
  return built.get(v.name, (name) => {
    try {
      return readFileSync(new URL(`${name}.html`, VIEWS_DIR), 'utf8');
    } catch {
      throw new ProtocolError(ProtocolErrorCode.InternalError, `The ${v.title} is not built on this server. The operator should run npm run build.`);
    }
  });
}

/** Name of the meta element that tells a view which of its action tools this connection offers. */
export const OFFERED_TOOLS_META = 'outreach-offered-tools';

/**
 * The view's document for one request. The server names, in a meta element, which of the view's
 * action tools the request's tool selection (readonly, tools=, toolsets=) offers, so the view
 * greys out the others before anyone clicks. It is a plain attribute, not script, so the
 * document stays valid under the strictest CSP a host applies.
 */
export function readViewResource(uri: string, offered: ReadonlyMap<string, Tool>): ReadResourceResult {
  const v = viewByUri.get(uri);
  if (!v || !offeredViews(offered).includes(v)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No resource ${uri}. Call resources/list for the available views.`, { uri });
  }
  const tools = v.actions.filter((t) => offered.has(t)).join(',');
  const html = builtHtml(v).replace(/<head>/i, `<head><meta name="${OFFERED_TOOLS_META}" content="${tools}">`);
  return { contents: [{ uri: v.uri, mimeType: RESOURCE_MIME_TYPE, text: html, _meta: { ui: VIEW_UI_META } }] };
}
