import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLoginToken } from '../../src/core/auth/sessions.js';
import type { Ctx } from '../../src/core/context.js';

/** A stand-in for the built SPA: an index and one hashed asset, so serving is tested without a Vite build. */
export function fakeUiDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-ui-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/app/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("dashboard");');
  return dir;
}

/** A fresh login link's path for a server's database, for a member (the owner by default). */
export const loginPath = (ctx: Ctx, memberId?: string): { path: string; token: string } => {
  const { token } = createLoginToken(ctx, memberId);
  return { path: `/app/login?token=${token}`, token };
};

/** Logs in through a one-time link and returns the session cookie as a browser would send it back. */
export async function login(url: string, ctx: Ctx, memberId?: string): Promise<string> {
  const res = await fetch(url + loginPath(ctx, memberId).path, { redirect: 'manual' });
  if (res.status !== 303) throw new Error(`login answered ${res.status}`);
  const cookie = res.headers.get('set-cookie') ?? '';
  return cookie.split(';')[0] as string;
}

/** POSTs a tool call to /app/api/call as the dashboard page does (same origin). */
export async function appCall(url: string, cookie: string, name: string, args: Record<string, unknown> = {}) {
  const res = await fetch(`${url}/app/api/call`, {
    method: 'POST',
    headers: { cookie, origin: url, 'content-type': 'application/json' },
    body: JSON.stringify({ name, arguments: args }),
  });
  return { status: res.status, body: (await res.json()) as { structuredContent: any; content: { type: string; text: string }[]; isError: boolean } };
}
