import { ToolError, type CallTool, type ToolResult } from '../shared/seam.js';

/** Everything the dashboard asks the server lives under the mount, whatever path serves it. */
const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

export const LOGIN_HINT = 'Run `npx outreach login` for a new link.';

export interface Session {
  workspace: { name: string; plan: string; env: string };
  tools: string[];
}

/** The session is over (or never began): the one place every 401 goes. */
export class Unauthorized extends ToolError {
  constructor() {
    super('unauthorized', `Your dashboard session has ended. ${LOGIN_HINT}`);
  }
}

async function errorFrom(res: Response): Promise<ToolError> {
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string; details?: Record<string, unknown> } };
    if (body.error?.code) return new ToolError(body.error.code, body.error.message ?? `The server answered ${res.status}.`, body.error.details ?? {});
  } catch {
    // Not JSON: fall through to a message of our own.
  }
  return new ToolError('failed', `The server answered ${res.status}. Try again in a moment.`);
}

/**
 * The dashboard's side of the seam: one same-origin POST per tool call. The session cookie
 * rides along (HttpOnly: script never sees it); a 401 calls `onUnauthorized` once per call.
 */
export function dashboardCallTool(onUnauthorized: () => void): CallTool {
  return async (name, args) => {
    const res = await fetch(`${BASE}/api/call`, {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ name, arguments: args }),
    });
    if (res.status === 401) {
      onUnauthorized();
      throw new Unauthorized();
    }
    if (!res.ok) throw await errorFrom(res);
    return (await res.json()) as ToolResult;
  };
}

export async function fetchSession(): Promise<Session | null> {
  const res = await fetch(`${BASE}/api/session`, { credentials: 'include', headers: { accept: 'application/json' } });
  if (res.status === 401) return null;
  if (!res.ok) throw await errorFrom(res);
  return (await res.json()) as Session;
}

export async function logout(): Promise<void> {
  await fetch(`${BASE}/api/logout`, { method: 'POST', credentials: 'include' });
}
