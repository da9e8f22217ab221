/**
 * A minimal MCP Apps host, for the browser tests: what Claude or ChatGPT does when a tool with a
 * linked view is called. It connects to the real server with the MCP SDK client (v2, speaking
 * 2026-07-28 and declaring the Apps extension, as the server negotiates it), calls the
 * tool, reads the view's ui:// resource, renders it in a sandboxed iframe under the CSP the
 * resource declares, and bridges the view to the server with the extension's own AppBridge.
 */
import type { McpUiResourceCsp } from '@modelcontextprotocol/ext-apps';
import { AppBridge, getToolUiResourceUri, PostMessageTransport, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool } from '@modelcontextprotocol/client';

const HOST_INFO = { name: 'outreach-test-host', version: '1.0.0' };

let client: Client | null = null;
let tools = new Map<string, Tool>();
/** Links the views asked the host to open (recorded, not opened, in the test). */
const links: string[] = [];

/** The iframe's CSP, from the resource's declared domains (the extension's mapping; empty = none). */
export function cspFor(csp: McpUiResourceCsp | undefined): string {
  const list = (domains: string[] | undefined, fallback: string) => (domains?.length ? domains.join(' ') : fallback);
  const resources = list(csp?.resourceDomains, '');
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: ${resources}`.trim(),
    `font-src data: ${resources}`.trim(),
    `connect-src ${list(csp?.connectDomains, "'none'")}`,
    `frame-src ${list(csp?.frameDomains, "'none'")}`,
    `base-uri ${list(csp?.baseUriDomains, "'none'")}`,
    "form-action 'none'",
  ].join('; ');
}

async function connect(url: string, apiKey: string): Promise<string[]> {
  client = new Client(HOST_INFO, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'X-API-Key': apiKey } } }));
  tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
  return [...tools.keys()];
}

interface Opened {
  resourceUri: string;
  csp: string;
  result: CallToolResult;
}

/**
 * Calls a tool as the model would, and shows its view as a new turn of the conversation.
 * `proxyResources: false` plays a host that passes on tool calls but no resource reads (it
 * declares no `serverResources`).
 */
async function open(id: string, name: string, args: Record<string, unknown>, opts: { proxyResources?: boolean } = {}): Promise<Opened> {
  if (!client) throw new Error('connect first');
  const tool = tools.get(name);
  if (!tool) throw new Error(`the server does not offer ${name}`);
  const resourceUri = getToolUiResourceUri(tool);
  if (!resourceUri) throw new Error(`${name} links no view`);
  const [result, resource] = await Promise.all([
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    client.readResource({ uri: resourceUri }),
  ]);
  const content = resource.contents[0];
  if (!content || content.mimeType !== RESOURCE_MIME_TYPE || !('text' in content)) throw new Error(`${resourceUri} is not an MCP App document`);
  const ui = (content._meta as { ui?: { csp?: McpUiResourceCsp } } | undefined)?.ui;
  const csp = cspFor(ui?.csp);

  const turn = document.createElement('section');
  turn.className = 'turn';
  turn.dataset.turn = id;
  const heading = document.createElement('h2');
  heading.textContent = `${name} ${JSON.stringify(args)}`;
  const iframe = document.createElement('iframe');
  iframe.title = `${name} view`;
  iframe.dataset.view = id;
  // Scripts only: an opaque origin, no access to the host page, its storage or cookies.
  iframe.setAttribute('sandbox', 'allow-scripts');
  turn.append(heading, iframe);
  document.getElementById('turns')!.append(turn);
  // Like a chat, the newest turn scrolls into view; Chromium also pauses animation frames (which
  // the view's auto-resize uses) in cross-origin frames outside the viewport.
  turn.scrollIntoView();

  const bridge = new AppBridge(
    client,
    HOST_INFO,
    { serverTools: {}, ...(opts.proxyResources === false ? {} : { serverResources: {} }), openLinks: {} },
    {
      hostContext: { theme: 'light', displayMode: 'inline', availableDisplayModes: ['inline'], toolInfo: { tool } },
    },
  );
  bridge.onopenlink = async ({ url }) => {
    links.push(url);
    return {};
  };
  bridge.onsizechange = async ({ height }) => {
    if (height === undefined) return;
    iframe.style.height = `${Math.ceil(height) + 2}px`;
    iframe.dataset.height = String(Math.ceil(height));
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  // The bridge listens before the document loads, so the view's first message is not missed;
  // the iframe's WindowProxy stays the same across the srcdoc navigation.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = content.text.replace(/<head>/i, `<head><meta http-equiv="Content-Security-Policy" content="${csp}">`);
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  bridges.set(id, { bridge, turn });
  return { resourceUri, csp, result };
}

const bridges = new Map<string, { bridge: AppBridge; turn: HTMLElement }>();

/** Closes a turn's view as a host does when the conversation moves on: the view is torn down, then its frame removed. */
async function close(id: string): Promise<void> {
  const opened = bridges.get(id);
  if (!opened) throw new Error(`no view ${id} is open`);
  bridges.delete(id);
  await opened.bridge.teardownResource({});
  await opened.bridge.close();
  opened.turn.remove();
}

Object.assign(window, { outreachHost: { connect, open, close, links } });
document.body.dataset.ready = '1';
