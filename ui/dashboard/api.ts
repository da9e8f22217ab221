import { ToolError, type CallTool, type ToolResult } from '../shared/seam.js';

/** Everything the dashboard asks the server lives under the mount, whatever path serves it. */
const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

/** The dashboard's change stream (server-sent events, see ui/shared/live.ts). */
export const EVENTS_URL = `${BASE}/api/events`;

/** The command that prints a login link, unless the server names another (its 401 says, e.g. with `--db`). */
export const DEFAULT_LOGIN_COMMAND = 'npx outreach login';

export const loginHint = (command: string): string => `Run \`${command}\` for a new link.`;

/** The login command a 401 names in `details.loginCommand`, else the default one. */
async function loginCommandOf(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: { details?: { loginCommand?: unknown } } };
    const command = body.error?.details?.loginCommand;
    if (typeof command === 'string' && command !== '') return command;
  } catch {
    // Not JSON: the default command.
  }
  return DEFAULT_LOGIN_COMMAND;
}

export interface Session {
  workspace: { name: string; plan: string; env: string };
  /** Who is signed in, and their role. */
  member: { id: string; name: string; role: string };
  /** The tools this member's role may call: the dashboard shows only what these reach. */
  tools: string[];
}

/** The session is over (or never began): the one place every 401 goes. */
export class Unauthorized extends ToolError {
  constructor(readonly loginCommand: string = DEFAULT_LOGIN_COMMAND) {
    super('unauthorized', `Your dashboard session has ended. ${loginHint(loginCommand)}`);
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
 * rides along (HttpOnly: script never sees it); a 401 calls `onUnauthorized` once per call,
 * with the login command the server named.
 */
export function dashboardCallTool(onUnauthorized: (loginCommand: string) => void): CallTool {
  return async (name, args) => {
    const res = await fetch(`${BASE}/api/call`, {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ name, arguments: args }),
    });
    if (res.status === 401) {
      const command = await loginCommandOf(res);
      onUnauthorized(command);
      throw new Unauthorized(command);
    }
    if (!res.ok) throw await errorFrom(res);
    return (await res.json()) as ToolResult;
  };
}

/** The session, or, signed out, the command the server says prints a login link. */
export async function fetchSession(): Promise<Session | { signedOut: string }> {
  const res = await fetch(`${BASE}/api/session`, { credentials: 'include', headers: { accept: 'application/json' } });
  if (res.status === 401) return { signedOut: await loginCommandOf(res) };
  if (!res.ok) throw await errorFrom(res);
  return (await res.json()) as Session;
}

export async function logout(): Promise<void> {
  await fetch(`${BASE}/api/logout`, { method: 'POST', credentials: 'include' });
}

/** The CRM page's read (`GET /app/api/crm`): the connection, the pull, the outbox's backlog and a page of the sync log. */
export interface CrmPageData {
  connection: { crm: string | null; tokenEnv: string | null; tokenSet: boolean };
  crm: string | null;
  pull: { intervalSeconds: number | null; lastPolledAt: string | null; lastError: string | null; hasCursor: boolean };
  backlog: {
    pending: number;
    due: number;
    inFlight: number;
    succeeded: number;
    failed: number;
    pendingByKind: { contact: number; note: number; deal: number };
    oldestPendingAt: string | null;
  };
  log: {
    entries: {
      id: string;
      direction: 'push' | 'pull';
      kind: string;
      leadId: string | null;
      pushId: string | null;
      contactId: string | null;
      outcome: string;
      detail: string;
      at: string;
    }[];
    nextCursor: string | null;
  };
}

export async function fetchCrm(params: { direction?: string; outcome?: string; cursor?: string }): Promise<CrmPageData> {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
  const res = await fetch(`${BASE}/api/crm${query.size > 0 ? `?${query}` : ''}`, { credentials: 'include', headers: { accept: 'application/json' } });
  if (res.status === 401) throw new Unauthorized(await loginCommandOf(res));
  if (!res.ok) throw await errorFrom(res);
  return (await res.json()) as CrmPageData;
}
