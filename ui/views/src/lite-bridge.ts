import type { ToolResult } from '../../shared/seam.js';

/**
 * The view's side of the MCP Apps bridge (ext-apps protocol 2026-01-26) without the SDK's
 * Protocol class: JSON-RPC 2.0 over postMessage with the host window, the handshake
 * (`ui/initialize`, then `ui/notifications/initialized`), the tool input and result the host
 * hands over, size changes, and the two calls a view makes: `tools/call` and `ui/open-link`.
 *
 * Why not ext-apps' `App`: it brings the MCP SDK's protocol and its zod schemas, about 410 KB
 * minified by themselves; this view must stay under 300 KB. The host side is unchanged (the
 * test host is ext-apps' own `AppBridge`), which is what holds this to the protocol.
 */

export const PROTOCOL_VERSION = '2026-01-26';

type Id = number;
interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: Id | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface HostContext {
  theme?: 'light' | 'dark';
  styles?: { variables?: Record<string, string | undefined> };
  [key: string]: unknown;
}

export class LiteBridge {
  ontoolinput: ((args: Record<string, unknown>) => void) | null = null;
  ontoolresult: ((result: ToolResult) => void) | null = null;
  onhostcontext: ((context: HostContext) => void) | null = null;
  private nextId = 1;
  private readonly pending = new Map<Id, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly host: Window;

  constructor(
    private readonly appInfo: { name: string; version: string },
    host: Window = window.parent,
  ) {
    this.host = host;
    window.addEventListener('message', this.receive);
  }

  /** The handshake; resolves with the host's context once the host knows the view is ready. */
  async connect(): Promise<HostContext> {
    const result = (await this.request('ui/initialize', { appInfo: this.appInfo, appCapabilities: {}, protocolVersion: PROTOCOL_VERSION })) as {
      hostContext?: HostContext;
    };
    this.notify('ui/notifications/initialized', {});
    this.watchSize();
    return result.hostContext ?? {};
  }

  callServerTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return this.request('tools/call', { name, arguments: args }) as Promise<ToolResult>;
  }

  async openLink(url: string): Promise<void> {
    await this.request('ui/open-link', { url });
  }

  private request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ jsonrpc: '2.0', id, method, params });
    });
  }

  private notify(method: string, params: Record<string, unknown>): void {
    this.post({ jsonrpc: '2.0', method, params });
  }

  private post(message: JsonRpcMessage): void {
    // The sandbox has an opaque origin, so the host's origin cannot be named; the source check
    // on the way in is what binds the conversation to the host window.
    this.host.postMessage(message, '*');
  }

  private readonly receive = (event: MessageEvent): void => {
    if (event.source !== this.host) return;
    const message = event.data as JsonRpcMessage | null;
    if (message?.jsonrpc !== '2.0') return;
    if (message.method === undefined && message.id !== undefined) {
      const waiting = this.pending.get(message.id as Id);
      if (!waiting) return;
      this.pending.delete(message.id as Id);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
      return;
    }
    if (message.method === undefined) return;
    if (message.id !== undefined) {
      // Requests from the host: answer what a view must (ping, teardown), refuse the rest.
      const known = message.method === 'ping' || message.method === 'ui/resource-teardown';
      this.post(
        known
          ? { jsonrpc: '2.0', id: message.id, result: {} }
          : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } },
      );
      return;
    }
    const params = message.params ?? {};
    if (message.method === 'ui/notifications/tool-input') this.ontoolinput?.((params.arguments as Record<string, unknown> | undefined) ?? {});
    else if (message.method === 'ui/notifications/tool-result') this.ontoolresult?.(params as unknown as ToolResult);
    else if (message.method === 'ui/notifications/host-context-changed') this.onhostcontext?.(params as HostContext);
  };

  /** Tells the host the document's size whenever it changes, measured as ext-apps measures it. */
  private watchSize(): void {
    let queued = false;
    let width = 0;
    let height = 0;
    const measure = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        const root = document.documentElement;
        const before = root.style.height;
        root.style.height = 'max-content';
        const h = Math.ceil(root.getBoundingClientRect().height);
        root.style.height = before;
        const w = Math.ceil(window.innerWidth);
        if (w === width && h === height) return;
        width = w;
        height = h;
        this.notify('ui/notifications/size-changed', { width: w, height: h });
      });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.documentElement);
    observer.observe(document.body);
  }
}

/** The host's theme and style variables on the document, as far as the host gives them. */
export function applyHostContext(context: HostContext): void {
  const root = document.documentElement;
  if (context.theme) {
    root.dataset.theme = context.theme;
    root.style.colorScheme = context.theme;
  }
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (name.startsWith('--') && typeof value === 'string') root.style.setProperty(name, value);
  }
}
